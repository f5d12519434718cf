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

// Derive's net, epochs, polishes and final rounds for problems of a few
// shapes, worked out by hand from its rule.
func TestDerive(t *testing.T) {
	for _, c := range []struct {
		f              Facts
		hidden         []int
		epochs         int
		polish, rounds int
	}{
		{Facts{Inputs: 1, Outputs: 1, Points: 10}, []int{6}, 10000, 2000, 20},        // too few points: the narrowest net
		{Facts{Inputs: 1, Outputs: 1, Points: 51}, []int{8}, 10000, 2000, 20},        // notebook 07's reaction: 25 weights
		{Facts{Inputs: 2, Outputs: 1, Points: 140}, []int{6, 6}, 10000, 2000, 20},    // notebook 07's poisson-2d: 67 weights
		{Facts{Inputs: 2, Outputs: 1, Points: 280}, []int{9, 9}, 8000, 2000, 20},     // 127 weights: 3e8 / 35560 epochs
		{Facts{Inputs: 2, Outputs: 1, Points: 3000}, []int{22, 22}, 2000, 2000, 20},  // burgers1d: 21 x 2000 x 5.4e6 within the budget
		{Facts{Inputs: 2, Outputs: 1, Points: 5200}, []int{22, 22}, 2000, 1200, 20},  // poisson-holes: 26932 iterations, 21 polishes of 1200
		{Facts{Inputs: 2, Outputs: 3, Points: 2000}, []int{21, 21}, 2000, 2000, 20},  // three fields: 591 weights
		{Facts{Inputs: 5, Outputs: 1, Points: 3000}, []int{20, 20}, 2000, 1100, 20},  // 5-D: 561 weights, 24759 iterations
		{Facts{Inputs: 2, Outputs: 1, Points: 100000}, []int{22, 22}, 2000, 500, 3},  // the cap on weights; 1400 iterations: the floors
		{Facts{Inputs: 4, Outputs: 1, Points: 1000000}, []int{21, 21}, 2000, 500, 3}, // the floor on epochs
	} {
		d := Derive(c.f)
		if !reflect.DeepEqual(d.Hidden, c.hidden) || d.Epochs != c.epochs || d.HyperStart != c.epochs/3 || d.HyperEvery != 25 || !d.BalanceBetas {
			t.Errorf("Derive(%+v) = %+v, want hidden %v, epochs %d, hyper from %d every 25, balanced betas", c.f, d, c.hidden, c.epochs, c.epochs/3)
		}
		if d.PolishIter != c.polish || d.FinalHyper != c.rounds {
			t.Errorf("Derive(%+v): polishes of %d, %d final rounds; want %d, %d", c.f, d.PolishIter, d.FinalHyper, c.polish, c.rounds)
		}
		w := Weights(c.f.Inputs, c.f.Outputs, len(d.Hidden), d.Hidden[0])
		if w > DeriveMaxWeights {
			t.Errorf("Derive(%+v): %d weights, above %d", c.f, w, DeriveMaxWeights)
		}
		work := float64(d.PolishIter*(1+d.FinalHyper)) * float64(w*c.f.Points*(1+c.f.Inputs))
		if floors := d.PolishIter == DeriveMinPolishIter && d.FinalHyper == DeriveMinFinalRounds; work > DerivePolishWork && !floors {
			t.Errorf("Derive(%+v): polishes of %.3g products, above the budget %g", c.f, work, DerivePolishWork)
		}
	}
}
