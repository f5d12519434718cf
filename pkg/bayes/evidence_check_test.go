package bayes

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// Predictions at one point equal those at the same point within a batch
// (one point used to trip the per-row Jacobian: a broadcast of one row is
// the identity).
func TestPredictOnePoint(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 1, Epochs: 200, Hyper: HyperSteps{Start: 100}, Recipe: RecipePaper})
	pts := [][]float64{{0.3, 0.4}, {0.7, 0.1}}
	m2, s2 := mustPredict(t, f, pts)
	m1, s1 := mustPredict(t, f, pts[:1])
	if m1[0] != m2[0] || !scalar.EqualWithinAbsOrRel(s1[0], s2[0], 1e-12, 1e-9) {
		t.Errorf("one point: mean %g sigma %g, in a batch: mean %g sigma %g", m1[0], s1[0], m2[0], s2[0])
	}
}

// Fit.Predict's sigma is sqrt(g^T A^-1 g) with g = du(x; w)/dw. Here g comes
// from central differences of the plain network evaluation (not the AD
// Jacobian) and A^-1 from an LU inverse of A built from the fit's
// curvature, alphas and betas.
func TestPredictSigmaDense(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 3, Epochs: 600, Hyper: HyperSteps{Start: 300}, Recipe: RecipePaper})
	if f.Laplace == nil {
		t.Fatalf("no Laplace approximation: %s %s", f.Status, f.Reason)
	}
	pts := [][]float64{{0.13, 0.8}, {0.5, 0.5}, {0.91, 0.02}, {0.3, 0.37}}
	mean, sigma := mustPredict(t, f, pts)
	c := f.Hessians()
	a := mat.NewSymDense(c.P(), nil)
	curv.BuildA(c, f.Alpha, f.Beta, a)
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil { // by LU, not the Laplace's Cholesky
		t.Fatalf("dense inverse of A: %v", err)
	}
	net := f.Model.Net.Clone()
	P := len(net.W)
	for n, x := range pts {
		if u := f.Model.Net.Eval(x, nil)[0]; !scalar.EqualWithinAbsOrRel(mean[n], u, 1e-13, 1e-12) {
			t.Errorf("x=%v: mean %.15g, network output %.15g", x, mean[n], u)
		}
		g := fdJacobian(net.W, func(w0 float64) float64 { return 1e-5 * math.Max(1, math.Abs(w0)) },
			func() []float64 { return net.Eval(x, nil) })
		gv := mat.NewVecDense(P, g)
		var ag mat.VecDense
		ag.MulVec(&inv, gv)
		want := math.Sqrt(mat.Dot(gv, &ag))
		if !scalar.EqualWithinAbsOrRel(sigma[n], want, 1e-12, 1e-6) {
			t.Errorf("x=%v: sigma %.10g, want sqrt(g^T A^-1 g) = %.10g", x, sigma[n], want)
		}
	}
}

// Comb is sum over hidden layers of ln M_l! + M_l ln 2 (the paper's
// symmetry term), and a two-hidden-layer fit carries it for both layers.
func TestCombLayers(t *testing.T) {
	t.Parallel()
	term := func(m int) float64 {
		lg, _ := math.Lgamma(float64(m) + 1)
		return lg + float64(m)*math.Ln2
	}
	if got, want := Comb([]int{8, 8}), 2*term(8); !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-13) {
		t.Errorf("Comb([8 8]) = %.15g, want %.15g", got, want)
	}
	if got, want := Comb([]int{6, 6, 6}), 3*term(6); !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-13) {
		t.Errorf("Comb([6 6 6]) = %.15g, want %.15g", got, want)
	}
	if got, want := Comb([]int{3, 8}), math.Log(6)+math.Log(40320)+11*math.Ln2; !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-13) {
		t.Errorf("Comb([3 8]) = %.15g, want %.15g", got, want)
	}
	if got, want := Comb([]int{3}), math.Log(6)+3*math.Ln2; !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-14) {
		t.Errorf("Comb([3]) = %g, want %g", got, want)
	}
	f := resultTestFit(t, "burgers", Settings{Seed: 1, Hidden: []int{8, 8}, Epochs: 40, Hyper: HyperSteps{Start: 30, Every: 5}, Recipe: RecipePaper})
	if f.Laplace == nil {
		t.Fatalf("no Laplace approximation: %s %s", f.Status, f.Reason)
	}
	if want := 2 * term(8); !scalar.EqualWithinAbsOrRel(f.Laplace.Comb, want, 1e-13, 1e-13) {
		t.Errorf("burgers 2-8-8-1: Laplace.Comb = %.15g, want %.15g", f.Laplace.Comb, want)
	}
}
