package band

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestSandwichReducesToLaplace: with B built from the training points'
// Jacobians and every residual at the rms its beta states, 1/sqrt(beta),
// B is A's data part, so that with the prior's curvature the sandwich
// A^-1 B A^-1 is A^-1 and its band the Laplace band.
func TestSandwichReducesToLaplace(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	res, jac := f.Model.TermJacobians()
	scale := make([]float64, len(f.Beta))
	for k, r := range res {
		for i := range r {
			r[i] = 1 / math.Sqrt(f.Beta[f.Model.TermGroup[k]])
		}
	}
	for t, b := range f.Beta {
		scale[t] = b * b
	}
	l, err := sandwichLaplace(f, sandwichB(f, res, jac, f.Model.TermGroup, scale, SandwichPriorCurvature))
	if err != nil {
		t.Fatal(err)
	}
	pts, _ := f.Model.Problem.Grid(12)
	_, J, err := f.Jacobian(pts)
	if err != nil {
		t.Fatal(err)
	}
	want, got := f.Laplace.Sigmas(J, len(pts)), l.Sigmas(J, len(pts))
	for i := range want {
		if math.Abs(got[i]/want[i]-1) > 1e-9 {
			t.Fatalf("point %d: sandwich sigma %g, Laplace %g", i, got[i], want[i])
		}
	}
}

// TestSandwichBlind: the sandwich band reads the fresh draw's residuals,
// never the exact solution: with the exact solution of the problem and
// its draw replaced by one that counts its calls and returns NaN, it is
// the same band, bit for bit, with no call. It widens heat's band, whose
// fresh residuals are larger than its training ones.
func TestSandwichBlind(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	p := f.Model.Problem
	q, d := freshOf(t, p)
	pts, _ := p.Grid(12)
	for _, prior := range []SandwichPrior{SandwichNoPrior, SandwichPriorCurvature, SandwichPriorScore} {
		g, err := Sandwich(f, d, prior)
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := g.Predict(pts)
		_, paper, _ := f.Predict(pts)
		if wider := medianOf(want, paper); !(wider > 1) {
			t.Errorf("prior %d: the sandwich band is x%.3g the paper's; want wider", prior, wider)
		}
		checkBlindBand(t, p, q, pts, want, "the sandwich band", func(d FreshDraw) (*bayes.Fit, error) { return Sandwich(f, d, prior) })
	}
}

// medianOf is the median of a[i] / b[i].
func medianOf(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	slices.Sort(r)
	return r[len(r)/2]
}

// TestSandwichFewPoints: with fewer fresh residuals than weights, B of the
// residuals alone is singular; the error says so in one line and names
// the prior part that makes it factorize, with which the band is defined.
func TestSandwichFewPoints(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	q, err := f.Model.Problem.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	few := *q
	few.Terms = slices.Clone(q.Terms)
	for k := range few.Terms {
		tm := &few.Terms[k]
		tm.Points = tm.Points[:3]
		if tm.Target != nil {
			tm.Target = tm.Target[:3]
		}
	}
	d, err := NewFreshDraw(&few)
	if err != nil {
		t.Fatal(err)
	}
	for _, prior := range []SandwichPrior{SandwichNoPrior, SandwichPriorScore} {
		_, err := Sandwich(f, d, prior)
		if err == nil || !strings.Contains(err.Error(), "not positive definite") || !strings.Contains(err.Error(), "SandwichPriorCurvature") || strings.Contains(err.Error(), "\n") {
			t.Errorf("prior %d on %d fresh points: error %v; want one line naming SandwichPriorCurvature", prior, 3*len(few.Terms), err)
		}
	}
	if _, err := Sandwich(f, d, SandwichPriorCurvature); err != nil {
		t.Errorf("with the prior's curvature: %v", err)
	}
}
