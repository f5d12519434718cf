package band

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/testfit"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// solution does not compile.
func TestCalibratedBlind(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	p := f.Model.Problem
	q, err := p.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	if d.p.Exact != nil || d.p.Fresh != nil || d.p.Redraw != nil || q.Exact == nil {
		t.Fatalf("NewFreshDraw kept the exact solution or the draws, or changed its argument")
	}
	truth := 0.1
	withUnknown := *q
	withUnknown.Unknowns = []pde.Unknown{{Name: "kappa", Init: 1, Truth: &truth}}
	if du, err := NewFreshDraw(&withUnknown); err != nil || du.p.Unknowns[0].Truth != nil || withUnknown.Unknowns[0].Truth == nil {
		t.Errorf("NewFreshDraw kept an unknown's true value or changed its argument (%v)", err)
	}
	if _, err := Calibrated(f, FreshDraw{}); err == nil || !strings.Contains(err.Error(), "FreshDrawOf") {
		t.Errorf("zero FreshDraw: err %v, want one naming FreshDrawOf", err)
	}
	if _, err := Calibrated(f, FreshDraw{p: q}); err == nil || !strings.Contains(err.Error(), "exact solution") {
		t.Errorf("a draw with its exact solution: err %v, want an error", err)
	}
	if _, err := NewFreshDraw(nil); err == nil {
		t.Errorf("NewFreshDraw(nil): no error")
	}
	if _, err := FreshDrawOf(nil); err == nil {
		t.Errorf("FreshDrawOf(nil): no error")
	}
	noFresh := *f.Model.Problem
	noFresh.Fresh = nil
	if _, err := FreshDrawOf(&noFresh); err == nil || !strings.Contains(err.Error(), noFresh.Name) {
		t.Errorf("FreshDrawOf of a problem without fresh points: %v, want an error naming it", err)
	}
	if d, err := FreshDrawOf(f.Model.Problem); err != nil || d.p.Exact != nil || d.p.Fresh != nil {
		t.Errorf("FreshDrawOf: %v, or it kept the exact solution", err)
	}
	pts, _ := p.Grid(12)
	g, err := Calibrated(f, d)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := g.Predict(pts)

	exact := p.Exact
	calls := 0
	p.Exact = func(x []float64) float64 { calls++; return math.NaN() }
	q.Exact = p.Exact
	d2, err := NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := Calibrated(f, d2)
	p.Exact = exact
	if err != nil {
		t.Fatal(err)
	}
	_, got, _ := g2.Predict(pts)
	if calls != 0 || !slices.Equal(got, want) {
		t.Errorf("the band evaluated the exact solution %d times or changed with it", calls)
	}
}
