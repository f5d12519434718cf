package bayes

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// inverseModel is heat with a reaction term and two unknowns, kappa
// (positive, flat prior) and r (Gaussian prior, its own alpha), at a random
// seeded 2-4-1 net with r moved off zero so that every derivative with
// respect to it is exercised.
func inverseModel(t *testing.T) *Model {
	t.Helper()
	p, err := pde.New("heat2-reaction", pde.Options{Reaction: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	net := nn.New([]int{2, 4, 1}, nn.Tanh, rand.New(rand.NewPCG(3, 3)))
	m, err := NewModel(p, net, "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	u := m.UnknownValues()
	if len(u) != 2 || u[0] != math.Log(0.05) || u[1] != 0 {
		t.Fatalf("unknowns start at %v, want [ln 0.05, 0]", u)
	}
	u[1] = 0.3
	nw := net.NumWeights()
	if &net.W[0] != &m.Theta[0] || len(m.Theta) != nw+2 {
		t.Fatal("Net.W is not the head of Theta")
	}
	if got := m.AlphaOf[nw:]; !slices.Equal(got, []int{-1, 1}) || m.Alphas[1].Name != "alpha_r" || m.W()[1] != 1 {
		t.Fatalf("alpha groups of the unknowns %v, groups %v: want kappa in none, r in its own alpha_r", got, m.Alphas)
	}
	return m
}

// The gradient of E_T with respect to every parameter, the unknowns
// included (their prior terms too), against central differences of E_T.
func TestUnknownGradientFD(t *testing.T) {
	t.Parallel()
	m := inverseModel(t)
	f := &Fit{Model: m, Alpha: []float64{0.7, 2.5}, Beta: []float64{3, 5, 11}, EW: make([]float64, 2), ED: make([]float64, 3)}
	P := m.NumWeights()
	grad := make([]float64, P)
	f.lossAndGrad(grad)
	buf := make([]float64, P)
	fd := fdJacobian(m.Theta, fixedStep(1e-6), func() []float64 { return []float64{f.lossAndGrad(buf)} })
	if d, s := maxAbsDiff(grad, fd); !(d <= 1e-6*s) {
		t.Errorf("gradient of E_T differs from finite differences by %.3g (scale %.3g)", d, s)
	}
	for k, name := range []string{"kappa", "r"} {
		if i := P - 2 + k; grad[i] == 0 {
			t.Errorf("d E_T / d %s = 0: the unknown does not reach the loss", name)
		}
	}
	// E_W: the network's weights in alpha, r^2/2 in alpha_r, nothing of kappa.
	ew := make([]float64, 2)
	m.WeightLoss(ew)
	if want := 0.5 * 0.3 * 0.3; ew[1] != want {
		t.Errorf("E_W of alpha_r = %g, want r^2/2 = %g", ew[1], want)
	}
}

// Bad unknowns are one-line errors from Train, before anything is built.
func TestUnknownBadInput(t *testing.T) {
	t.Parallel()
	heat := func(edit func(p *pde.Problem)) *pde.Problem {
		p := pde.HeatInverse(pde.Options{})
		edit(p)
		return p
	}
	for _, c := range []struct {
		name      string
		p         *pde.Problem
		want      string
		curvature string
	}{
		{"unused", heat(func(p *pde.Problem) {
			p.Unknowns = append(p.Unknowns, pde.Unknown{Name: "q", Init: 1})
		}), `unknown "q": no residual reads it`, ""},
		{"non-positive init", heat(func(p *pde.Problem) { p.Unknowns[0].Init = 0 }), `unknown "kappa": initial value 0 for a positive unknown`, ""},
		{"negative init", heat(func(p *pde.Problem) { p.Unknowns[0].Init = -0.1 }), `initial value -0.1 for a positive unknown; give Init > 0`, ""},
		{"clash with an input", heat(func(p *pde.Problem) {
			p.Unknowns[0].Name = "x"
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return ad.Sub(v.D("t"), ad.Mul(v.Unknown("x"), v.D2("x", "x"))) }
		}), `unknown "x": the name is also an input`, ""},
		{"unknown not declared", heat(func(p *pde.Problem) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return ad.Sub(v.D("t"), ad.Mul(v.Unknown("kapa"), v.D2("x", "x"))) }
		}), `Unknown("kapa"): the problem has no unknown "kapa"; its unknowns are kappa`, ""},
		{"bad prior", heat(func(p *pde.Problem) { p.Unknowns[0].Prior = "cauchy" }), `prior "cauchy"`, ""},
		{"structured curvature", heat(func(*pde.Problem) {}), "only the dense curvature handles", "diag"},
	} {
		_, err := Train(context.Background(), c.p, Settings{Epochs: 10, Curvature: c.curvature})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}

// HMC on the joint posterior of (w, ln kappa) of a short heat-inverse fit:
// the chains converge (in |H|'s coordinates with a dense metric, the
// defaults), the sampled marginal of ln kappa lies where the Laplace one
// does (same potential, same mode), and a forward problem has nothing to
// sample.
func TestSampleUnknowns(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat-inverse", Settings{Epochs: 1000, HyperStart: 300, Hidden: []int{6}})
	su, res, err := f.SampleUnknowns(context.Background(), &mcmc.Settings{Chains: 2, Samples: 300, Warmup: 200, MaxDepth: 10, Seed: 1}, "")
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
	g := resultTestFit(t, "heat", Settings{Epochs: 200, HyperStart: 100})
	if _, _, err := g.SampleUnknowns(context.Background(), nil, ""); err == nil || !strings.Contains(err.Error(), "no unknown coefficients") {
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
	f := resultTestFit(t, "heat-inverse", Settings{Epochs: 1000, HyperStart: 300, Hidden: []int{6}})
	L, lambda, err := f.exactPrecision()
	if err != nil {
		t.Fatal(err)
	}
	P := len(f.Model.Theta)
	want := make([]float64, P)
	for i, l := range lambda {
		want[i] = l / math.Max(math.Abs(l), f.Alpha[0])
	}
	slices.Sort(want)
	newZ, _ := f.whitenedBy(L, f.NewLogDensity)
	got := hessianEigen(newZ(), make([]float64, P))
	t.Logf("H: eigenvalues %.3g .. %.3g; in z: %.4g .. %.4g", lambda[0], lambda[P-1], got[0], got[P-1])
	for i := range got {
		if math.Abs(got[i]-want[i]) > 3e-3 {
			t.Errorf("eigenvalue %d of the Hessian in z: %.6g, want %.6g", i, got[i], want[i])
		}
	}
	gnZ, _ := f.whitened(f.NewLogDensity)
	gn := hessianEigen(gnZ(), make([]float64, P))
	t.Logf("whitened by A instead: %.4g .. %.4g", gn[0], gn[P-1])
	if !(gn[P-1]-gn[0] > 0.5) {
		t.Errorf("whitened by A the eigenvalues span %.3g .. %.3g: want a fit whose exact Hessian differs from A", gn[0], gn[P-1])
	}
	if !(lambda[P-1] > 1e3*lambda[P/2]) {
		t.Errorf("H's eigenvalues %.3g (median) .. %.3g: want a stiff Hessian, the case the whitening is for", lambda[P/2], lambda[P-1])
	}
}
