package posterior

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// HMC on the joint posterior of (w, ln kappa) of a short heat-inverse fit:
// the chains converge (in |H|'s coordinates with a dense metric, the
// defaults), the sampled marginal of ln kappa lies where the Laplace one
// does (same potential, same mode), and a forward problem has nothing to
// sample.
func TestSampleUnknowns(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat-inverse", bayes.Settings{Seed: 1, Epochs: 1000, Hyper: bayes.HyperSteps{Start: 300}, Hidden: []int{6}})
	su, res, err := SampleUnknowns(context.Background(), f, &mcmc.Settings{Chains: 2, Samples: 300, Warmup: 200, MaxDepth: 10, Seed: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(su) != 1 || res.Dim() != f.Model.NumWeights() {
		t.Fatalf("%d sampled unknowns over %d dimensions", len(su), res.Dim())
	}
	s := su[0]
	t.Log(s)
	if l := s.Laplace; !(math.Abs(s.Mean-l.Theta) < 3*l.SD) || !(s.SD > l.SD/3 && s.SD < 3*l.SD) || !(s.Lo95 < math.Exp(s.Mean) && math.Exp(s.Mean) < s.Hi95) {
		t.Errorf("sampled %v: want within 3 Laplace sd of the mode and a comparable width", s)
	}
	if !(s.RHat < 1.02 && s.ESS > 100 && s.TailESS > 100) || res.Divergences() > 0 {
		t.Errorf("sampled %v, %d divergent: want R-hat < 1.02, bulk and tail ESS > 100, none divergent", s, res.Divergences())
	}
	g := testfit.Train(t, "heat", bayes.Settings{Seed: 1, Epochs: 200, Hyper: bayes.HyperSteps{Start: 100}})
	if _, _, err := SampleUnknowns(context.Background(), g, nil, ""); err == nil || !strings.Contains(err.Error(), "no unknown coefficients") {
		t.Errorf("a forward problem: %v", err)
	}
}

// TestExactWhitening checks SampleUnknowns' default coordinates on a short
// fit: whitened by |H| (the exact Hessian of E_T at the mode, eigenvalues in
// absolute value, floored at alpha), the Hessian of -ln p in z, by central
// differences of the gradient (which checks the reverse-over-reverse H
// too), has the eigenvalues sign(lambda) |lambda| / max(|lambda|, alpha):
// ±1 wherever H's curvature is above the prior's.
func TestExactWhitening(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat-inverse", bayes.Settings{Seed: 1, Epochs: 1000, Hyper: bayes.HyperSteps{Start: 300}, Hidden: []int{6}})
	L, lambda, err := exactPrecision(f)
	if err != nil {
		t.Fatal(err)
	}
	P := len(f.Model.Theta)
	want := make([]float64, P)
	for i, l := range lambda {
		want[i] = l / math.Max(math.Abs(l), f.Alpha[0])
	}
	slices.Sort(want)
	newZ, _ := whitenedBy(f, L, func() mcmc.LogDensity { return NewLogDensity(f) })
	got := hessianEigen(newZ(), make([]float64, P))
	t.Logf("H: eigenvalues %.3g .. %.3g; in z: %.4g .. %.4g", lambda[0], lambda[P-1], got[0], got[P-1])
	for i := range got {
		if math.Abs(got[i]-want[i]) > 3e-3 {
			t.Errorf("eigenvalue %d of the Hessian in z: %.6g, want %.6g", i, got[i], want[i])
		}
	}
	gnZ, _ := whitened(f, func() mcmc.LogDensity { return NewLogDensity(f) })
	gn := hessianEigen(gnZ(), make([]float64, P))
	t.Logf("whitened by A instead: %.4g .. %.4g", gn[0], gn[P-1])
	if !(gn[P-1]-gn[0] > 0.5) {
		t.Errorf("whitened by A the eigenvalues span %.3g .. %.3g: want a fit whose exact Hessian differs from A", gn[0], gn[P-1])
	}
	if !(lambda[P-1] > 1e3*lambda[P/2]) {
		t.Errorf("H's eigenvalues %.3g (median) .. %.3g: want a stiff Hessian, the case the whitening is for", lambda[P/2], lambda[P-1])
	}
}
