package bayes

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// waveSplitModel is wave with split betas (beta_pde: the pde term;
// beta_boundary: boundary, initial and the DerivativeResidual
// initial-velocity term) at a random seeded 2-8-1 net.
func waveSplitModel(t *testing.T) *Model {
	t.Helper()
	p, err := problems.New("wave", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	net := nn.New([]int{2, 8, 1}, nn.Tanh, rand.New(rand.NewPCG(7, 7)))
	m, err := NewModel(p, net, "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.BetaNames) != 2 || m.BetaNames[1] != "beta_boundary" || len(p.Terms) != 4 {
		t.Fatalf("wave split: groups %v over %d terms, want pde and boundary over 4", m.BetaNames, len(p.Terms))
	}
	return m
}

// groupHessians returns m's H_t of every beta group, P x P row-major.
func groupHessians(m *Model, kind HessianKind) [][]float64 {
	P := m.NumWeights()
	hs := make([][]float64, len(m.BetaNames))
	for k := range hs {
		hs[k] = make([]float64, P*P)
	}
	m.Hessians(kind, hs)
	return hs
}

// fdJacobian returns the central-difference Jacobian of f with respect to
// w, row-major (len(f()) x len(w)): column k is (f(w + h e_k) - f(w - h e_k))
// / 2h with h = step(w_k). w is restored; f's result may be reused by f.
func fdJacobian(w []float64, step func(w0 float64) float64, f func() []float64) []float64 {
	P := len(w)
	var J []float64
	for k := range w {
		w0 := w[k]
		h := step(w0)
		w[k] = w0 + h
		up := slices.Clone(f())
		w[k] = w0 - h
		dn := f()
		w[k] = w0
		if J == nil {
			J = make([]float64, len(up)*P)
		}
		for i := range up {
			J[i*P+k] = (up[i] - dn[i]) / (2 * h)
		}
	}
	return J
}

// fixedStep is a step of h whatever the weight.
func fixedStep(h float64) func(float64) float64 { return func(float64) float64 { return h } }

// maxAbsDiff returns max|a-b| and max|b|.
func maxAbsDiff(a, b []float64) (diff, scale float64) {
	for i := range a {
		diff, scale = math.Max(diff, math.Abs(a[i]-b[i])), math.Max(scale, math.Abs(b[i]))
	}
	return diff, scale
}

// The exact H_t of each beta group is the Hessian of E_D^t = 1/2 sum r^2
// over the group's terms, targets included: central differences of the
// model's own gradient of beta . E_D with a one-hot beta. A Hessian wired to
// the wrong group, missing a term or a target, or off by a factor fails.
func TestModelExactHessianFD(t *testing.T) {
	t.Parallel()
	for _, m := range []*Model{waveSplitModel(t), inverseModel(t)} {
		exactHessianFD(t, m)
	}
}

func exactHessianFD(t *testing.T, m *Model) {
	P, G := m.NumWeights(), len(m.BetaNames)
	hs := groupHessians(m, Exact)
	ed, grad := make([]float64, G), make([]float64, P)
	for k := range hs {
		beta := make([]float64, G)
		beta[k] = 1
		// Row i, column j: d grad_i / d w_j, i.e. the Hessian, row-major.
		fd := fdJacobian(m.Theta, fixedStep(1e-5), func() []float64 {
			m.DataLoss(beta, ed, grad)
			return grad
		})
		if d, s := maxAbsDiff(hs[k], fd); !(d <= 1e-6*s) {
			t.Errorf("%s %s: exact H differs from finite differences of the gradient by %.3g (scale %.3g)", m.Problem.Name, m.BetaNames[k], d, s)
		}
	}
}

// The Gauss-Newton H_t is J^T J with J the Jacobian of the group's stacked
// residuals (all of its terms), here by central differences of Residuals.
// It is not the Hessian of E_D (that misses sum r d2r), so it is checked
// against J, not against differences of the gradient.
func TestModelGaussNewtonHessianFD(t *testing.T) {
	t.Parallel()
	for _, m := range []*Model{waveSplitModel(t), inverseModel(t)} {
		gaussNewtonHessianFD(t, m)
	}
}

func gaussNewtonHessianFD(t *testing.T, m *Model) {
	P, G := m.NumWeights(), len(m.BetaNames)
	hs := groupHessians(m, GaussNewton)
	// Row i: d r_i / d w over every term's residuals, in term order.
	J := fdJacobian(m.Theta, fixedStep(1e-6), func() []float64 {
		var r []float64
		for _, rt := range m.Residuals() {
			r = append(r, rt...)
		}
		return r
	})
	want := make([][]float64, G)
	for k := range want {
		want[k] = make([]float64, P*P)
	}
	i := 0
	for ti, tm := range m.Problem.Terms {
		hk := want[m.TermGroup[ti]]
		for range tm.Points {
			for a := 0; a < P; a++ {
				for b := 0; b < P; b++ {
					hk[a*P+b] += J[i*P+a] * J[i*P+b]
				}
			}
			i++
		}
	}
	for k := range hs {
		if d, s := maxAbsDiff(hs[k], want[k]); !(d <= 1e-6*s) {
			t.Errorf("%s %s: Gauss-Newton H differs from J^T J of finite differences by %.3g (scale %.3g)", m.Problem.Name, m.BetaNames[k], d, s)
		}
	}
}

// TestRedrawFieldsAndPairs: a redraw moves a term's fields (a boundary's
// normals) and partners with its points, so the model's residuals after
// redraw k are those of a model built on draw k itself.
func TestRedrawFieldsAndPairs(t *testing.T) {
	p := &pde.Problem{Name: "redraw", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Draw: &pde.Draw{Region: pde.Interior(), N: 12}, Residual: pde.Eq("u_xx + u_yy = 1")},
			pde.NeumannOn(pde.Boundary(), 10, 0.5),
			pde.Periodic("x", 6),
		}}
	p, err := p.Sample(3)
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.Redraw(1)
	if err != nil {
		t.Fatal(err)
	}
	net := nn.New([]int{2, 5, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	own := *p
	own.Terms = slices.Clone(p.Terms)
	m, err := NewModel(&own, net.Clone(), "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.redraw(1); err != nil {
		t.Fatal(err)
	}
	want, err := NewModel(q, net.Clone(), "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	got, exp := m.Residuals(), want.Residuals()
	for k := range got {
		if !slices.Equal(got[k], exp[k]) {
			t.Errorf("term %s: residuals after the redraw %v, of the draw itself %v", p.Terms[k].Name, got[k], exp[k])
		}
	}
}
