package bayes

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// denseAInv builds A = sum_t beta_t H_t + diag(alpha of each weight) entry by
// entry (not with BuildA) and inverts it by LU (not Cholesky), so that checks
// against it share no code with NewLaplace.
func denseAInv(t *testing.T, c *Hessians, alpha, beta []float64) *mat.Dense {
	t.Helper()
	P := c.P()
	a := mat.NewDense(P, P, nil)
	for t2, h := range c.H {
		for k, v := range h {
			a.Set(k/P, k%P, a.At(k/P, k%P)+beta[t2]*v)
		}
	}
	for k := 0; k < P; k++ {
		a.Set(k, k, a.At(k, k)+alpha[c.AlphaOf[k]])
	}
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatalf("dense inverse of A: %v", err)
	}
	return &inv
}

// Gamma, the effective number of parameters, from its definitions:
// gamma_i = W_i - alpha_i tr_i(A^-1) per alpha group, and since
// A - diag(alpha) = sum_t beta_t H_t, sum_i gamma_i = tr(A^-1 sum_t beta_t H_t)
// = sum_t beta_t tr(A^-1 H_t). With one alpha, MacKay's eigenvalue form
// gamma = sum_k lambda_k/(lambda_k + alpha) (lambda_k of sum_t beta_t H_t).
func TestGammaIdentities(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 7))
	alphaOf := []int{0, 1, 0, 2, 2, 1, 0, 2, 1}
	P := len(alphaOf)
	c := randomCurvature(rng, P, alphaOf, 3, []int{6, 4})
	alpha, beta := []float64{0.4, 2.5, 0.08}, []float64{1.7, 0.3}
	l, err := NewLaplace(c, alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	inv := denseAInv(t, c, alpha, beta)
	trI := make([]float64, len(alpha)) // tr_i(A^-1) from the dense inverse
	for k, g := range alphaOf {
		trI[g] += inv.At(k, k)
	}
	for i := range alpha {
		want := float64(c.W[i]) - alpha[i]*trI[i]
		if !scalar.EqualWithinAbsOrRel(l.GammaAlpha[i], want, 1e-10, 1e-10) {
			t.Errorf("GammaAlpha[%d] = %.12g, want W_i - alpha_i tr_i(A^-1) = %.12g", i, l.GammaAlpha[i], want)
		}
	}
	// tr(A^-1 B), B = sum_t beta_t H_t, and each beta_t tr(A^-1 H_t).
	trB := 0.0
	for t2, h := range c.H {
		var m mat.Dense
		m.Mul(inv, mat.NewDense(P, P, h))
		gb := beta[t2] * mat.Trace(&m)
		trB += gb
		if !scalar.EqualWithinAbsOrRel(l.GammaBeta[t2], gb, 1e-10, 1e-10) {
			t.Errorf("GammaBeta[%d] = %.12g, want beta_t tr(A^-1 H_t) = %.12g", t2, l.GammaBeta[t2], gb)
		}
	}
	if !scalar.EqualWithinAbsOrRel(l.Gamma, trB, 1e-10, 1e-10) {
		t.Errorf("Gamma = %.12g, want tr(A^-1 sum beta H) = %.12g", l.Gamma, trB)
	}
	if s := floats.Sum(l.GammaBeta); !scalar.EqualWithinAbsOrRel(l.Gamma, s, 1e-10, 1e-10) {
		t.Errorf("Gamma = %.12g, sum of GammaBeta %.12g", l.Gamma, s)
	}
	if s := floats.Sum(l.GammaAlpha); !scalar.EqualWithinAbsOrRel(l.Gamma, s, 1e-12, 1e-12) {
		t.Errorf("Gamma = %.12g, sum of GammaAlpha %.12g", l.Gamma, s)
	}
	if !(l.Gamma > 0 && l.Gamma < float64(P)) {
		t.Errorf("Gamma = %g, want in (0, %d) with PSD data Hessians", l.Gamma, P)
	}

	// One alpha: the eigenvalue form.
	one := make([]int, P)
	c1 := randomCurvature(rng, P, one, 1, []int{5, 3})
	a1, b1 := []float64{0.6}, []float64{0.9, 2.2}
	l1, err := NewLaplace(c1, a1, b1)
	if err != nil {
		t.Fatal(err)
	}
	bsum := mat.NewSymDense(P, nil)
	for r := 0; r < P; r++ {
		for col := r; col < P; col++ {
			bsum.SetSym(r, col, b1[0]*c1.H[0][r*P+col]+b1[1]*c1.H[1][r*P+col])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(bsum, false) {
		t.Fatal("eigendecomposition failed")
	}
	want := 0.0
	for _, lam := range es.Values(nil) {
		want += lam / (lam + a1[0])
	}
	if !scalar.EqualWithinAbsOrRel(l1.Gamma, want, 1e-10, 1e-10) {
		t.Errorf("one alpha: Gamma = %.12g, want sum lambda/(lambda+alpha) = %.12g", l1.Gamma, want)
	}
}

// Fit.Predict's sigma is sqrt(g^T A^-1 g) with g = du(x; w)/dw. Here g comes
// from central differences of the plain network evaluation (not the AD
// Jacobian) and A^-1 from a dense inverse of A built from the fit's
// curvature, alphas and betas.
func TestPredictSigmaDense(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 3, Epochs: 600, Hyper: HyperSteps{Start: 300}, Recipe: RecipePaper})
	if f.Laplace == nil {
		t.Fatalf("no Laplace approximation: %s %s", f.Status, f.Reason)
	}
	pts := [][]float64{{0.13, 0.8}, {0.5, 0.5}, {0.91, 0.02}, {0.3, 0.37}}
	mean, sigma := mustPredict(t, f, pts)
	inv := denseAInv(t, f.Hessians(), f.Alpha, f.Beta)
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
		ag.MulVec(inv, gv)
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
	f := resultTestFit(t, "burgers", Settings{Seed: 1, Hidden: []int{8, 8}, Epochs: 40, Hyper: HyperSteps{Start: 30, Every: 5}, Recipe: RecipePaper})
	if f.Laplace == nil {
		t.Fatalf("no Laplace approximation: %s %s", f.Status, f.Reason)
	}
	if want := 2 * term(8); !scalar.EqualWithinAbsOrRel(f.Laplace.Comb, want, 1e-13, 1e-13) {
		t.Errorf("burgers 2-8-8-1: Laplace.Comb = %.15g, want %.15g", f.Laplace.Comb, want)
	}
}

// nonFiniteFields lists the float64 fields and slice entries of l that are
// NaN or infinite (the matrices are not exported numbers).
func nonFiniteFields(l *Laplace) []string {
	var bad []string
	v := reflect.ValueOf(l).Elem()
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case f.Kind() == reflect.Float64:
			if math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0) {
				bad = append(bad, name)
			}
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Float64:
			for k := 0; k < f.Len(); k++ {
				if x := f.Index(k).Float(); math.IsNaN(x) || math.IsInf(x, 0) {
					bad = append(bad, name)
				}
			}
		}
	}
	return bad
}

// A positive definite A can still leave an Occam argument negative (an
// indefinite exact Hessian): P=1, H=-0.8, alpha=beta=1, N=1 gives A=0.2,
// A^-1=5, so the beta argument is 1/2 - 1/2 (5*0.8)^2 = -7.5 and the alpha
// argument 1/2 - 1/2 5^2 = -12. The log evidence is then undefined: OccamOK
// false, ln sigma 0 where its argument is not positive (evidence.go), no
// NaN; a Result writes null and ranks the fit last.
func TestOccamInvalid(t *testing.T) {
	t.Parallel()
	c := &Hessians{EW: []float64{0.3}, ED: []float64{0.2}, H: [][]float64{{-0.8}}, AlphaOf: []int{0}, W: []int{1}, N: []int{1}, Hidden: []int{1}}
	l, err := NewLaplace(c, []float64{1}, []float64{1})
	if err != nil {
		t.Fatalf("A = 0.2 is positive definite: %v", err)
	}
	if l.OccamOK {
		t.Error("OccamOK with negative Occam arguments")
	}
	if !scalar.EqualWithinAbsOrRel(l.OccamArgBeta[0], -7.5, 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(l.OccamArgAlpha[0], -12, 1e-12, 1e-12) {
		t.Errorf("Occam arguments alpha %g beta %g, want -12 and -7.5", l.OccamArgAlpha[0], l.OccamArgBeta[0])
	}
	if l.LnSigmaBeta[0] != 0 || l.LnSigmaAlpha[0] != 0 {
		t.Errorf("ln sigma alpha %g beta %g, want 0 where the argument <= 0", l.LnSigmaAlpha[0], l.LnSigmaBeta[0])
	}
	if bad := nonFiniteFields(l); len(bad) > 0 {
		t.Errorf("non-finite exported numbers: %v", bad)
	}

}
