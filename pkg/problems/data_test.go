package problems

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// WithData replaces the measured term (heat-inverse's "data") or adds one
// (heat has none), weights rows by 1/std, and its fresh draws keep the data.
func TestWithData(t *testing.T) {
	t.Parallel()
	d := &pde.Data{Points: [][]float64{{0.5, 0.5}, {0.25, 0.1}}, U: []float64{0.3, 0.6}, Std: []float64{0.01, 0.04}}
	for _, c := range []struct {
		p     *pde.Problem
		terms int
	}{{HeatInverse(Options{}), 3}, {Heat(Options{}), 3}, {BurgersWide(Options{}), 4}} {
		q := c.p.WithData(d)
		if err := q.Validate(); err != nil {
			t.Fatal(err)
		}
		last := q.Terms[len(q.Terms)-1]
		if len(q.Terms) != c.terms || last.Name != "data" || !last.Measured || len(last.Points) != 2 || q.Exact != nil || q.DefaultBetaMode() != "split" {
			t.Errorf("%s: terms %d, last %q with %d points, exact %v, betas %s", c.p.Name, len(q.Terms), last.Name, len(last.Points), q.Exact != nil, q.DefaultBetaMode())
		}
		if w := last.Fields["inv_std"]; len(w) != 2 || math.Abs(w[1]-25) > 1e-12 {
			t.Errorf("%s: weights %v, want 1/std", c.p.Name, w)
		}
		f, err := q.Fresh()
		if err != nil || len(f.Terms) != c.terms || f.Terms[len(f.Terms)-1].Target[1] != 0.6 {
			t.Errorf("%s: fresh draw lost the data: %v", c.p.Name, err)
		}
		e, err := Lookup(c.p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if s := e.Schedule(Options{}).ForData(); s.KnownNoise != nil || s.BetaMode != "" {
			t.Errorf("%s: the stated noise of the study's data %v (betas %q) stays with the user's", c.p.Name, s.KnownNoise, s.BetaMode)
		}
		if len(q.Unknowns) > 0 && q.Unknowns[0].Truth != nil {
			t.Errorf("%s: the truth of the study's data stays with the user's", c.p.Name)
		}
	}
}
