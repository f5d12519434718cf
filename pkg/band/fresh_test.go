package band

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// solution does not compile.
func TestCalibratedBlind(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	p := f.Model.Problem
	q, d := freshOf(t, p)
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

	checkBlind(t, f, p, q, pts, want, "the band")
}

// checkBlind fails t unless the calibrated band of f at pts, built from the
// fresh draw q of p with the exact solution of both replaced by one that
// counts its calls and returns NaN, never calls it and is want bit for bit.
func checkBlind(t *testing.T, f *bayes.Fit, p, q *pde.Problem, pts [][]float64, want []float64, what string) {
	t.Helper()
	checkBlindBand(t, p, q, pts, want, what, func(d FreshDraw) (*bayes.Fit, error) { return Calibrated(f, d) })
}

// checkBlindBand is checkBlind for the band build makes of a fresh draw.
func checkBlindBand(t *testing.T, p, q *pde.Problem, pts [][]float64, want []float64, what string, build func(FreshDraw) (*bayes.Fit, error)) {
	t.Helper()
	pExact, qExact := p.Exact, q.Exact
	defer func() { p.Exact, q.Exact = pExact, qExact }()
	calls := 0
	p.Exact = func(x []float64) float64 { calls++; return math.NaN() }
	q.Exact = p.Exact
	d, err := NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	g, err := build(d)
	if err != nil {
		t.Fatal(err)
	}
	_, got, _ := g.Predict(pts)
	if calls != 0 || !slices.Equal(got, want) {
		t.Errorf("%s evaluated the exact solution %d times or changed with it", what, calls)
	}
}

// TestBandBadInput: every band refuses a fresh draw it cannot use, with
// one line saying what to pass: none, one carrying the exact solution, or
// a draw of another problem (whose residuals would size the band of a
// problem the fit never saw).
func TestBandBadInput(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	own, err := f.Model.Problem.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	wave, err := problems.New("wave", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := FreshDrawOf(wave)
	if err != nil {
		t.Fatal(err)
	}
	renamed := *own
	renamed.Exact, renamed.Fresh, renamed.Redraw = nil, nil, nil
	renamed.Terms = slices.Clone(own.Terms)
	renamed.Terms[1].Name = "walls"
	regrouped := renamed
	regrouped.Terms = slices.Clone(own.Terms)
	regrouped.Terms[0].Group = "other"
	fewer := renamed
	fewer.Terms = own.Terms[:1]
	threeD := renamed
	threeD.Inputs = []string{"x", "y", "t"}
	bands := map[string]func(FreshDraw) error{
		"Calibrated":    func(d FreshDraw) error { _, err := Calibrated(f, d); return err },
		"HeldOut":       func(d FreshDraw) error { _, err := HeldOut(f, d); return err },
		"ResidualCheck": func(d FreshDraw) error { _, _, err := ResidualCheck(f, d); return err },
		"Assess":        func(d FreshDraw) error { _, err := Assess(f, d); return err },
		"Sandwich":      func(d FreshDraw) error { _, err := Sandwich(f, d, SandwichPriorCurvature); return err },
	}
	for _, c := range []struct {
		name string
		draw FreshDraw
		want string
	}{
		{"no draw", FreshDraw{}, "no fresh points; make them with band.FreshDrawOf(p)"},
		{"a draw with its exact solution", FreshDraw{p: own}, "carries an exact solution; make it with band.NewFreshDraw"},
		{"another problem's draw", other, `fresh points: a draw of problem "wave", the fit's is "heat"; pass a fresh draw of the fit's own problem (its Fresh())`},
		{"another number of terms", FreshDraw{p: &fewer}, `problem "heat" has 1 terms, the fit's "heat" has 2`},
		{"a term of another name", FreshDraw{p: &renamed}, `term 1 is "walls"`},
		{"a term in another group", FreshDraw{p: &regrouped}, `term 0 is "pde" (group "other")`},
		{"other inputs", FreshDraw{p: &threeD}, "has inputs [x y t], the fit's \"heat\" has [x t]"},
	} {
		for _, name := range slices.Sorted(maps.Keys(bands)) {
			err := bands[name](c.draw)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s, %s: error %v; want one line containing %q", c.name, name, err, c.want)
			}
		}
	}
}

// freshOf is p drawn anew (Problem.Fresh) and its FreshDraw; an error ends
// the test.
func freshOf(t *testing.T, p *pde.Problem) (*pde.Problem, FreshDraw) {
	t.Helper()
	q, err := p.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	return q, d
}
