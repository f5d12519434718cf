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
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// inverseModel is heat with a reaction term and two unknowns, kappa
// (positive, flat prior) and r (Gaussian prior, its own alpha), at a random
// seeded 2-4-1 net with r moved off zero so that every derivative with
// respect to it is exercised.
func inverseModel(t *testing.T) *Model {
	t.Helper()
	p, err := problems.New("heat2-reaction", problems.Options{Reaction: 0.5})
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
		p := problems.HeatInverse(problems.Options{})
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
		_, err := Train(context.Background(), c.p, scheduled(c.p, Settings{Epochs: 10, Curvature: c.curvature}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}

// A short heat-inverse fit: kappa moves from its start toward the truth,
// the record carries it with its interval, and Restore rebuilds it (the
// same unknowns, band and log evidence).
func TestInverseFitRestore(t *testing.T) {
	t.Parallel()
	p := problems.HeatInverse(problems.Options{})
	f, err := Train(context.Background(), p, scheduled(p, Settings{Epochs: 1500, HyperStart: 500, Hidden: []int{6}}))
	if err != nil {
		t.Fatal(err)
	}
	if f.Laplace == nil || !f.Laplace.OccamOK {
		t.Fatalf("no log evidence: %s %s", f.Status, f.Reason)
	}
	us := f.Unknowns()
	if len(us) != 1 || us[0].Name != "kappa" {
		t.Fatalf("unknowns %v", us)
	}
	k := us[0]
	if !(k.RelErr() < 0.2) || !(k.SD > 0) || !(k.Lo95 < k.Value && k.Value < k.Hi95) || k.Value != math.Exp(k.Theta) {
		t.Errorf("kappa %v: want within 20%% of 0.1 (from 0.05) with an interval around it", k)
	}
	if got := math.Log(k.Hi95/k.Value) / z95; math.Abs(got-k.SD) > 1e-12 {
		t.Errorf("interval [%g, %g] is not exp(ln kappa +- 1.96 sd) for sd %g", k.Lo95, k.Hi95, k.SD)
	}
	r := roundTrip(t, NewResult(f, 10))
	ru, ok := r.Unknowns["kappa"]
	if !ok || Val(ru.Value) != k.Value || Val(ru.SD) != k.SD || ru.Scale != "log" || Val(ru.Truth) != 0.1 {
		t.Fatalf("record's unknowns %+v, want kappa %v", r.Unknowns, k)
	}
	g, err := Restore(problems.HeatInverse(problems.Options{}), &r)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Unknowns(); got[0].Theta != k.Theta || got[0].SD != k.SD {
		t.Errorf("restored kappa %v, want %v", got[0], k)
	}
	pts := [][]float64{{0.3, 0.4}, {0.7, 0.9}}
	m1, s1, err1 := f.Predict(pts)
	m2, s2, err2 := g.Predict(pts)
	if err1 != nil || err2 != nil || !slices.Equal(m1, m2) || !slices.Equal(s1, s2) || !(s1[0] > 0) {
		t.Errorf("restored band %v +- %v, want %v +- %v (%v, %v)", m2, s2, m1, s1, err1, err2)
	}
	// A quantity that reads the unknown carries its uncertainty: kappa
	// itself has mean kappa and, by the delta method on ln kappa, sigma
	// kappa * sd.
	km, ks, err := f.PredictQuantity(pts, func(v *pde.Vars) *ad.Node { return v.Unknown("kappa") })
	if err != nil || math.Abs(km[1]-k.Value) > 1e-15 || math.Abs(ks[1]-k.Value*k.SD) > 1e-9*k.Value*k.SD {
		t.Errorf("PredictQuantity(kappa) = %v +- %v (%v), want %g +- %g", km, ks, err, k.Value, k.Value*k.SD)
	}
	delete(r.Unknowns, "kappa")
	if _, err := Restore(problems.HeatInverse(problems.Options{}), &r); err == nil || !strings.Contains(err.Error(), "unknown kappa is missing") {
		t.Errorf("a record without its unknown: %v", err)
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
