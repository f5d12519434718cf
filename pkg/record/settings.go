package record

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// settingsKeys is the schema of a record's settings: one flat JSON key per
// field of bayes.Settings, with the field it holds. The keys stay flat
// whatever groups the Go struct has, so that every record, old or new,
// reads back the same settings and a resumed ensemble file compares equal
// to the one it continues. Seed (a column of its own), Schedule (whose
// effect the resolved fields hold), Threads (which changes no bit) and the
// functions are not recorded.
var settingsKeys = []struct {
	key   string
	field func(*bayes.Settings) any // a pointer to the field
}{
	{"Recipe", func(s *bayes.Settings) any { return &s.Recipe }},
	{"Hidden", func(s *bayes.Settings) any { return &s.Hidden }},
	{"Activation", func(s *bayes.Settings) any { return &s.Activation }},
	{"Epochs", func(s *bayes.Settings) any { return &s.Epochs }},
	{"LR", func(s *bayes.Settings) any { return &s.LR }},
	{"LRDecay", func(s *bayes.Settings) any { return &s.LRDecay }},
	{"Hessian", func(s *bayes.Settings) any { return &s.Hessian }},
	{"AlphaMode", func(s *bayes.Settings) any { return &s.AlphaMode }},
	{"BetaMode", func(s *bayes.Settings) any { return &s.BetaMode }},
	{"Updater", func(s *bayes.Settings) any { return &s.Updater }},
	{"HyperStart", func(s *bayes.Settings) any { return &s.Hyper.Start }},
	{"HyperEvery", func(s *bayes.Settings) any { return &s.Hyper.Every }},
	{"HyperLR", func(s *bayes.Settings) any { return &s.Hyper.LR }},
	{"Alpha0", func(s *bayes.Settings) any { return &s.Hyper.Alpha0 }},
	{"Beta0", func(s *bayes.Settings) any { return &s.Hyper.Beta0 }},
	{"UntieAt", func(s *bayes.Settings) any { return &s.Hyper.UntieAt }},
	{"BalanceBetas", func(s *bayes.Settings) any { return &s.Hyper.Balance }},
	{"Fixed", func(s *bayes.Settings) any { return &s.Fixed.On }},
	{"FixedAlpha", func(s *bayes.Settings) any { return &s.Fixed.Alpha }},
	{"FixedBeta", func(s *bayes.Settings) any { return &s.Fixed.Beta }},
	{"FixedMean", func(s *bayes.Settings) any { return &s.Fixed.Mean }},
	{"Polish", func(s *bayes.Settings) any { return &s.Polish.On }},
	{"PolishIter", func(s *bayes.Settings) any { return &s.Polish.Iter }},
	{"PolishMethod", func(s *bayes.Settings) any { return &s.Polish.Method }},
	{"PolishMemory", func(s *bayes.Settings) any { return &s.Polish.Memory }},
	{"FinalHyper", func(s *bayes.Settings) any { return &s.Final.Rounds }},
	{"FinalTol", func(s *bayes.Settings) any { return &s.Final.Tol }},
	{"RoundBetas", func(s *bayes.Settings) any { return &s.Final.Betas }},
	{"KnownNoise", func(s *bayes.Settings) any { return &s.KnownNoise }},
	{"HistoryEvery", func(s *bayes.Settings) any { return &s.HistoryEvery }},
	{"Resample", func(s *bayes.Settings) any { return &s.Resample }},
	{"Curvature", func(s *bayes.Settings) any { return &s.Curvature }},
	{"Scale", func(s *bayes.Settings) any { return &s.Scale }},
}

// settingsAddedLater are the Settings fields added after the first
// records were written, with the value that reproduces those records, so
// that older ensemble files still resume and merge.
var settingsAddedLater = map[string]any{"PolishIter": 2000, "PolishMethod": "lbfgs", "FinalTol": 0, "KnownNoise": nil, "Resample": 0, "Curvature": "dense", "FixedMean": false, "RoundBetas": "training", "PolishMemory": 15, "BalanceBetas": false, "Scale": "none"}

// settingsMap is the record of s under settingsKeys; non-finite floats
// become nil.
func settingsMap(s bayes.Settings) map[string]any {
	m := make(map[string]any, len(settingsKeys)+1)
	for _, k := range settingsKeys {
		fv := reflect.ValueOf(k.field(&s)).Elem()
		switch {
		case k.key == "PolishMemory" && fv.Int() == 0, k.key == "BalanceBetas" && !fv.Bool():
			// A Gauss-Newton polish has no memory, a measured schedule no
			// balanced betas: their records keep comparing equal to older
			// ones.
		case k.key == "Scale" && fv.String() == string(bayes.ScaleNone):
			// Unmapped, as every record before the maps: the same bytes.
		case fv.Kind() == reflect.Float64:
			if x := Num(fv.Float()); x != nil {
				m[k.key] = *x
			} else {
				m[k.key] = nil
			}
		default:
			m[k.key] = fv.Interface()
		}
	}
	// Settings once had a test hook NaNAt, 0 in every real fit; keeping the
	// key keeps records byte-identical and comparable with older files.
	m["NaNAt"] = 0
	return m
}

// readSettings is the inverse of settingsMap: the Settings whose fields m
// records. Keys it does not know (NaNAt) are skipped, and a key m lacks
// leaves its field zero, except Scale: none (settingsMap leaves it out
// when none, as in every record before the maps).
func readSettings(m map[string]any) (bayes.Settings, error) {
	s := bayes.Settings{Scale: bayes.ScaleNone}
	for _, k := range settingsKeys {
		v, ok := m[k.key]
		if !ok {
			continue
		}
		b, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(b, k.field(&s))
		}
		if err != nil {
			return s, fmt.Errorf("the recorded setting %s: %v", k.key, err)
		}
	}
	return s, nil
}
