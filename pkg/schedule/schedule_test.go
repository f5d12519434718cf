package schedule

import (
	"reflect"
	"testing"
)

// ForData drops the stated noise and leaves the betas to the problem, and
// keeps the rest; Clone shares no slice or map with its source.
func TestForDataClone(t *testing.T) {
	s := Schedule{Hidden: []int{8, 8}, Epochs: 100, HyperStart: 50, BetaMode: "single", FinalHyper: 3,
		KnownNoise: map[string]float64{"data": 0.02}, Resample: 10}
	d := s.ForData()
	want := s.Clone()
	want.KnownNoise, want.BetaMode = nil, ""
	if !reflect.DeepEqual(d, want) {
		t.Errorf("ForData: %+v, want %+v", d, want)
	}
	if s.KnownNoise["data"] != 0.02 || s.BetaMode != "single" {
		t.Errorf("ForData changed its receiver: %+v", s)
	}
	c := s.Clone()
	c.Hidden[0], c.KnownNoise["data"] = 99, 1
	if s.Hidden[0] != 8 || s.KnownNoise["data"] != 0.02 {
		t.Errorf("Clone shares its slices or maps: %+v", s)
	}
	if e := (Schedule{Hidden: []int{}}).Clone(); e.Hidden == nil {
		t.Error("Clone turned an empty hidden list (no hidden layer) into nil (none given)")
	}
}
