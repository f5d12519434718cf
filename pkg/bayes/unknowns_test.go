package bayes

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/curv"
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
		_, err := Train(context.Background(), c.p, scheduled(c.p, Settings{Seed: 1, Epochs: 10, Curvature: curv.Kind(c.curvature)}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}
