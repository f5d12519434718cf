package bayes

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// waveSplitModel is wave with split betas (beta_pde: the pde term;
// beta_boundary: boundary, initial and the DerivativeResidual
// initial-velocity term) at a random seeded 2-8-1 net.
func waveSplitModel(t *testing.T) *Model {
	t.Helper()
	p, err := pde.New("wave", pde.Options{})
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
	m := waveSplitModel(t)
	P, G := m.NumWeights(), len(m.BetaNames)
	hs := groupHessians(m, Exact)
	const h = 1e-5
	w := m.Net.W
	ed, gp, gm := make([]float64, G), make([]float64, P), make([]float64, P)
	for k := range hs {
		beta := make([]float64, G)
		beta[k] = 1
		fd := make([]float64, P*P)
		for j := 0; j < P; j++ {
			w0 := w[j]
			w[j] = w0 + h
			m.DataLoss(beta, ed, gp)
			w[j] = w0 - h
			m.DataLoss(beta, ed, gm)
			w[j] = w0
			for i := 0; i < P; i++ {
				fd[i*P+j] = (gp[i] - gm[i]) / (2 * h)
			}
		}
		if d, s := maxAbsDiff(hs[k], fd); !(d <= 1e-6*s) {
			t.Errorf("%s: exact H differs from finite differences of the gradient by %.3g (scale %.3g)", m.BetaNames[k], d, s)
		}
	}
}

// The Gauss-Newton H_t is J^T J with J the Jacobian of the group's stacked
// residuals (all of its terms), here by central differences of Residuals.
// It is not the Hessian of E_D (that misses sum r d2r), so it is checked
// against J, not against differences of the gradient.
func TestModelGaussNewtonHessianFD(t *testing.T) {
	t.Parallel()
	m := waveSplitModel(t)
	P, G := m.NumWeights(), len(m.BetaNames)
	hs := groupHessians(m, GaussNewton)
	// J[i][j]: d r_i / d w_j over every term's residuals, in term order.
	const h = 1e-6
	w := m.Net.W
	var rows int
	for _, tm := range m.Problem.Terms {
		rows += len(tm.Points)
	}
	J := make([][]float64, rows)
	for i := range J {
		J[i] = make([]float64, P)
	}
	for j := 0; j < P; j++ {
		w0 := w[j]
		w[j] = w0 + h
		rp := m.Residuals()
		w[j] = w0 - h
		rm := m.Residuals()
		w[j] = w0
		i := 0
		for ti := range rp {
			for n := range rp[ti] {
				J[i][j] = (rp[ti][n] - rm[ti][n]) / (2 * h)
				i++
			}
		}
	}
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
					hk[a*P+b] += J[i][a] * J[i][b]
				}
			}
			i++
		}
	}
	for k := range hs {
		if d, s := maxAbsDiff(hs[k], want[k]); !(d <= 1e-6*s) {
			t.Errorf("%s: Gauss-Newton H differs from J^T J of finite differences by %.3g (scale %.3g)", m.BetaNames[k], d, s)
		}
	}
}
