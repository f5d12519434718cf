package record

import (
	"fmt"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// UnknownJSON is one unknown of a Result (docs/results-schema.md).
type UnknownJSON struct {
	Value    *float64 `json:"value"`    // natural scale
	Inferred *float64 `json:"inferred"` // the value on the inferred scale (ln for a positive unknown), as trained
	Scale    string   `json:"scale"`    // "log" or "linear": the scale of inferred and sd
	SD       *float64 `json:"sd"`       // on the inferred scale; null without a Laplace approximation
	Lo95     *float64 `json:"lo95"`     // natural scale
	Hi95     *float64 `json:"hi95"`
	Truth    *float64 `json:"truth,omitempty"`
	Init     *float64 `json:"init,omitempty"` // the starting value, natural scale (bpinn fit --init)
}

func unknownsJSON(us []score.Unknown) map[string]UnknownJSON {
	if len(us) == 0 {
		return nil
	}
	out := make(map[string]UnknownJSON, len(us))
	for _, u := range us {
		scale := "linear"
		if u.Positive {
			scale = "log"
		}
		out[u.Name] = UnknownJSON{Value: Num(u.Value), Inferred: Num(u.Theta), Scale: scale, SD: Num(u.SD),
			Lo95: Num(u.Lo95), Hi95: Num(u.Hi95), Truth: u.Truth, Init: Num(u.Init)}
	}
	return out
}

// setUnknowns puts a record's unknowns (on their inferred scale) into m.
func setUnknowns(m *bayes.Model, rec map[string]UnknownJSON) error {
	vals := m.UnknownValues()
	names := make([]string, 0, len(rec))
	for n := range rec {
		names = append(names, n)
	}
	slices.Sort(names)
	for k, u := range m.Problem.Unknowns {
		r, ok := rec[u.Name]
		if !ok || r.Inferred == nil {
			return fmt.Errorf("unknown %s is missing or not finite in the record (it has %v)", u.Name, names)
		}
		vals[k] = *r.Inferred
	}
	if len(rec) != len(vals) {
		return fmt.Errorf("unknowns %v in the record, the problem has %d", names, len(vals))
	}
	return nil
}
