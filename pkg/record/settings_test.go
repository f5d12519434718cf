package record_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// Every recorded field of bayes.Settings, in its groups too, has one key in
// the records' settings, so that a field added to Settings (or to one of
// its groups) cannot go unrecorded: Seed, Schedule, Threads and the
// functions alone are left out.
func TestSettingsKeysCoverSettings(t *testing.T) {
	t.Parallel()
	var s bayes.Settings
	want := map[uintptr]string{}
	v := reflect.ValueOf(&s).Elem()
	for i := 0; i < v.NumField(); i++ {
		f, fv := v.Type().Field(i), v.Field(i)
		switch {
		case !f.IsExported() || f.Name == "Seed" || f.Name == "Schedule" || f.Name == "Threads" || fv.Kind() == reflect.Func:
		case fv.Kind() == reflect.Struct:
			for j := 0; j < fv.NumField(); j++ {
				want[fv.Field(j).Addr().Pointer()] = f.Name + "." + fv.Type().Field(j).Name
			}
		default:
			want[fv.Addr().Pointer()] = f.Name
		}
	}
	got := map[uintptr]string{}
	for key, ptr := range record.SettingsFields(&s) {
		a := reflect.ValueOf(ptr).Pointer()
		if other, dup := got[a]; dup {
			t.Errorf("keys %s and %s record one field", other, key)
		}
		got[a] = key
		if _, ok := want[a]; !ok {
			t.Errorf("key %s records no field of Settings", key)
		}
	}
	for a, name := range want {
		if _, ok := got[a]; !ok {
			t.Errorf("Settings.%s has no key in the records", name)
		}
	}
}

// Records written by earlier versions (the settings of six records of a
// quick reproduction, testdata/settings.json) read back to the grouped
// Settings and write again to the same bytes.
func TestSettingsRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Record   string
		Settings json.RawMessage
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		var m map[string]any
		if err := json.Unmarshal(r.Settings, &m); err != nil {
			t.Fatal(err)
		}
		s, err := record.ReadSettings(m)
		if err != nil {
			t.Fatalf("%s: %v", r.Record, err)
		}
		again, err := json.Marshal(record.SettingsMap(s))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, r.Settings) {
			t.Errorf("%s: settings written again\n%s\nwant\n%s", r.Record, again, r.Settings)
		}
		if r.Record == "heat.jsonl" {
			want := bayes.Settings{Recipe: bayes.RecipeTuned, Hidden: []int{6}, Activation: "tanh", Epochs: 7500,
				LR: 1e-3, LRDecay: 1, Hessian: bayes.GaussNewton, AlphaMode: "single", BetaMode: "single", Updater: bayes.UpdaterAdam,
				Hyper:        bayes.HyperSteps{Start: 2500, Every: 25, LR: 0.05, Alpha0: 0.01, Beta0: 1, UntieAt: 7501},
				Fixed:        bayes.FixedWeights{Alpha: 0.05, Beta: 1},
				Polish:       bayes.PolishSettings{On: true, Iter: 2000, Method: bayes.PolishGaussNewton},
				Final:        bayes.FinalRounds{Rounds: 20, Tol: 1e-3, Betas: bayes.RoundBetasTraining},
				HistoryEvery: 25, Curvature: "dense", Scale: bayes.ScaleNone}
			if !reflect.DeepEqual(s, want) {
				t.Errorf("heat's settings read as\n%+v\nwant\n%+v", s, want)
			}
		}
		if r.Record == "burgers-wide-fixed.jsonl" && (!s.Fixed.On || !s.Fixed.Mean || s.Polish.Memory != 100 || s.Final.Betas != bayes.RoundBetasHeldOut) {
			t.Errorf("burgers-wide-fixed's settings read as %+v: want fixed, mean, polish memory 100, held-out rounds", s)
		}
	}
}
