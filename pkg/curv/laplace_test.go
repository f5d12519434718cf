package curv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// randomCurvature returns a curvature with PSD data Hessians H_t = J_t^T J_t.
func randomCurvature(rng *rand.Rand, P int, alphaOf []int, nAlpha int, N []int) *Hessians {
	c := &Hessians{AlphaOf: alphaOf, Loss: Loss{W: make([]int, nAlpha), N: N, Comb: math.Log(6) + 3*math.Ln2}} // a hidden layer of 3
	for _, g := range alphaOf {
		if g >= 0 { // -1: a flat-prior parameter, in no group
			c.W[g]++
		}
	}
	c.EW = make([]float64, nAlpha)
	for i := range c.EW {
		c.EW[i] = 0.5 + rng.Float64()
	}
	for _, n := range N {
		j := make([]float64, n*P)
		for i := range j {
			j[i] = rng.NormFloat64()
		}
		h := make([]float64, P*P)
		for a := 0; a < P; a++ {
			for b := 0; b < P; b++ {
				for r := 0; r < n; r++ {
					h[a*P+b] += j[r*P+a] * j[r*P+b]
				}
			}
		}
		c.H = append(c.H, h)
		c.ED = append(c.ED, 0.1+rng.Float64())
	}
	return c
}

func ehyp(c *Hessians, alpha, beta []float64) float64 {
	l, err := NewLaplace(c, alpha, beta)
	if err != nil {
		panic(err)
	}
	return l.EHyp
}

// logP as a function of alpha_i or beta_t alone.
func logPAlong(c *Hessians, alpha, beta []float64, isAlpha bool, k int, v float64) float64 {
	a, b := append([]float64(nil), alpha...), append([]float64(nil), beta...)
	if isAlpha {
		a[k] = v
	} else {
		b[k] = v
	}
	return -ehyp(c, a, b)
}

// The same checks with a flat-prior parameter (AlphaOf -1, an inverse
// problem's unknown): it has no alpha, A's diagonal there is data curvature
// alone, and it counts 1 in gamma.
func TestEHypGradientAndOccam(t *testing.T) {
	t.Parallel()
	for _, alphaOf := range [][]int{{0, 0, 0, 1, 1, 2, 2, 2}, {0, 0, 0, 1, 1, 2, 2, -1}} {
		ehypGradientAndOccam(t, alphaOf)
	}
}

func ehypGradientAndOccam(t *testing.T, alphaOf []int) {
	rng := rand.New(rand.NewPCG(1, 1))
	c := randomCurvature(rng, 8, alphaOf, 3, []int{5, 4})
	alpha, beta := []float64{0.3, 1.2, 0.05}, []float64{2, 0.7}
	l, err := NewLaplace(c, alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	// E_hyp itself against a direct dense evaluation.
	a := mat.NewSymDense(8, nil)
	BuildA(c, alpha, beta, a)
	var ch mat.Cholesky
	ch.Factorize(a)
	want := 0.5 * ch.LogDet()
	for i := range alpha {
		want += alpha[i]*c.EW[i] - float64(c.W[i])/2*math.Log(alpha[i])
	}
	flat := 0.0
	for k, g := range alphaOf {
		if g < 0 {
			flat++
			if d := a.At(k, k); d != c.H[0][k*8+k]*beta[0]+c.H[1][k*8+k]*beta[1] {
				t.Errorf("A[%d,%d] = %g of a flat parameter: want the data curvature alone", k, k, d)
			}
		}
	}
	if got, want := l.Gamma, floats.Sum(l.GammaAlpha)+flat; math.Abs(got-want) > 1e-12 {
		t.Errorf("gamma = %g, want sum of the groups' %g + %g flat", got, want-flat, flat)
	}
	// sum_t beta_t tr(A^-1 H_t) = tr(A^-1 (A - diag alpha)) = gamma.
	if got := floats.Sum(l.GammaBeta); math.Abs(got-l.Gamma) > 1e-9 {
		t.Errorf("sum of gamma_beta = %.12g, gamma = %.12g", got, l.Gamma)
	}
	for k := range beta {
		want += beta[k]*c.ED[k] - float64(c.N[k])/2*math.Log(beta[k])
	}
	if !scalar.EqualWithinAbsOrRel(l.EHyp, want, 1e-12, 1e-12) {
		t.Errorf("EHyp = %g, want %g", l.EHyp, want)
	}
	const h = 1e-5
	check := func(name string, isAlpha bool, k int, v float64, grad, lnSigma float64) {
		// d E_hyp / d ln v by central differences in ln v.
		f := func(lv float64) float64 { return -logPAlong(c, alpha, beta, isAlpha, k, math.Exp(lv)) }
		lv := math.Log(v)
		fd := (f(lv+h) - f(lv-h)) / (2 * h)
		if !scalar.EqualWithinAbsOrRel(grad, fd, 1e-7, 1e-6) {
			t.Errorf("%s: dEhyp/dln = %.10g, finite differences %.10g", name, grad, fd)
		}
		// ln sigma = -1/2 ln(-v^2 d2 lnp / dv^2).
		g := func(x float64) float64 { return logPAlong(c, alpha, beta, isAlpha, k, x) }
		hv := 1e-4 * v
		d2 := (g(v+hv) - 2*g(v) + g(v-hv)) / (hv * hv)
		wantLn := -0.5 * math.Log(-v*v*d2)
		if !scalar.EqualWithinAbsOrRel(lnSigma, wantLn, 1e-5, 1e-5) {
			t.Errorf("%s: ln sigma = %.8g, finite differences %.8g", name, lnSigma, wantLn)
		}
	}
	for i := range alpha {
		check("alpha", true, i, alpha[i], l.GradLogAlpha[i], l.LnSigmaAlpha[i])
	}
	for k := range beta {
		check("beta", false, k, beta[k], l.GradLogBeta[k], l.LnSigmaBeta[k])
	}
	if !l.OccamOK {
		t.Error("Occam arguments should be positive with PSD Hessians")
	}
	if got, want := l.LogEvidence, l.LogP+l.Comb+floats.Sum(l.LnSigmaAlpha)+floats.Sum(l.LnSigmaBeta); got != want {
		t.Errorf("LogEvidence %g != parts %g", got, want)
	}
}

// Iterating MacKay's updates at fixed curvature converges to a stationary
// point of E_hyp.
func TestMacKayFixedPoint(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	c := randomCurvature(rng, 6, []int{0, 0, 0, 1, 1, 1}, 2, []int{10, 7})
	alpha, beta := []float64{1, 1}, []float64{1, 1}
	var l *Laplace
	var err error
	for it := 0; it < 2000; it++ {
		if l, err = NewLaplace(c, alpha, beta); err != nil {
			t.Fatal(err)
		}
		alpha, beta = l.MacKay(c.Loss)
	}
	l, _ = NewLaplace(c, alpha, beta)
	for i, g := range append(l.GradLogAlpha, l.GradLogBeta...) {
		if math.Abs(g) > 1e-8 {
			t.Errorf("gradient %d = %g at the fixed point alpha=%v beta=%v", i, g, alpha, beta)
		}
	}
}

// The predictive variance g^T A^-1 g against a dense inverse.
func TestVarianceDense(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	c := randomCurvature(rng, 5, []int{0, 0, 0, 0, 0}, 1, []int{3})
	l, err := NewLaplace(c, []float64{0.5}, []float64{3})
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewSymDense(5, nil)
	BuildA(c, []float64{0.5}, []float64{3}, a)
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	g := []float64{0.3, -1, 2, 0.1, 0.7}
	gv := mat.NewVecDense(5, g)
	var tmp mat.VecDense
	tmp.MulVec(&inv, gv)
	want := mat.Dot(gv, &tmp)
	if got := l.Variance(g); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-10) {
		t.Errorf("variance %g, want %g", got, want)
	}
	// Batched: the same row twice and a zero row.
	J := append(append(append([]float64(nil), g...), g...), make([]float64, 5)...)
	vs := make([]float64, 3)
	l.VariancesTo(vs, J, 3)
	if !scalar.EqualWithinAbsOrRel(vs[0], want, 1e-12, 1e-10) || vs[0] != vs[1] || vs[2] != 0 {
		t.Errorf("VariancesTo = %v, want [%g %g 0]", vs, want, want)
	}
}

func TestNotPositiveDefinite(t *testing.T) {
	t.Parallel()
	c := &Hessians{H: [][]float64{{-5, 0, 0, 1}}, AlphaOf: []int{0, 0}, Loss: Loss{EW: []float64{1}, ED: []float64{1}, W: []int{2}, N: []int{1}}}
	_, err := NewLaplace(c, []float64{1}, []float64{1})
	if _, ok := err.(NotPositiveDefinite); !ok {
		t.Fatalf("got %v, want NotPositiveDefinite", err)
	}
	c.H[0][3] = math.NaN()
	c.H[0][0] = 5
	_, err = NewLaplace(c, []float64{1}, []float64{1})
	if e, ok := err.(NotPositiveDefinite); !ok || !e.NonFinite {
		t.Fatalf("NaN in H: got %v, want a non-finite NotPositiveDefinite", err)
	}
	// Positive definite but beyond double precision: reported with its
	// condition number, not as a NaN.
	c.H[0] = []float64{1e17, 0, 0, 0}
	_, err = NewLaplace(c, []float64{1}, []float64{1})
	if e, ok := err.(NotPositiveDefinite); !ok || !(e.Cond > 1e16) || !strings.Contains(e.Error(), "numerically singular") {
		t.Fatalf("condition 1e17: got %v, want a numerically singular NotPositiveDefinite", err)
	}
}

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
// false, ln sigma 0 where its argument is not positive (hyper.go), no
// NaN; a Result writes null and ranks the fit last.
func TestOccamInvalid(t *testing.T) {
	t.Parallel()
	c := &Hessians{H: [][]float64{{-0.8}}, AlphaOf: []int{0}, Loss: Loss{EW: []float64{0.3}, ED: []float64{0.2}, W: []int{1}, N: []int{1}, Comb: 2 * math.Ln2}} // a hidden layer of 1
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

// randomBand is a Laplace approximation of a random positive definite
// P x P matrix A (B^T B, B of P+3 rows) and the gradients of n points.
func randomBand(tb testing.TB, rng *rand.Rand, P, n int) (*Laplace, []float64) {
	b := mat.NewDense(P+3, P, nil)
	for i := range P + 3 {
		for j := range P {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	var a mat.SymDense
	a.SymOuterK(1, b.T())
	l := &Laplace{}
	if !l.Chol.Factorize(&a) {
		tb.Fatal("not positive definite")
	}
	J := make([]float64, n*P)
	for i := range J {
		J[i] = rng.NormFloat64()
	}
	return l, J
}

// TestVariancesToBlocks checks that the blocked solve gives the bits of one
// solve over every point, for block sizes that do and do not divide n.
func TestVariancesToBlocks(t *testing.T) {
	const P, n = 7, 23
	l, J := randomBand(t, rand.New(rand.NewPCG(3, 4)), P, n)
	want := blocksAsOne(t, l, J, n)
	for i := range n {
		g := J[i*P : (i+1)*P]
		if v := l.Variance(g); !scalar.EqualWithinAbsOrRel(v, want[i], 1e-12, 1e-10) {
			t.Errorf("point %d: VariancesTo %g, Variance %g", i, want[i], v)
		}
	}
}

// blocksAsOne checks that l's variances of the n rows of J in blocks of
// sizes that do and do not divide n are the bits of one block over every
// row, and returns those.
func blocksAsOne(t *testing.T, l *Laplace, J []float64, n int) []float64 {
	t.Helper()
	defer func(k int) { varianceBlock = k }(varianceBlock)
	varianceBlock = n
	want := make([]float64, n)
	l.VariancesTo(want, J, n)
	for _, k := range []int{1, 4, 5, 64} {
		varianceBlock = k
		got := make([]float64, n)
		l.VariancesTo(got, J, n)
		if !slices.Equal(got, want) {
			t.Errorf("block %d: %v, want %v", k, got, want)
		}
	}
	return want
}

// BenchmarkVariancesGrid times the band of the 100 x 100 grid at
// burgers-wide's 921 weights, solved in blocks and, for the record, as one
// solve over every point (the code before the blocks).
func BenchmarkVariancesGrid(b *testing.B) {
	const P, n = 921, 10000
	l, J := randomBand(b, rand.New(rand.NewPCG(1, 2)), P, n)
	dst := make([]float64, n)
	for _, k := range []int{varianceBlock, n} {
		b.Run(fmt.Sprint("block=", k), func(b *testing.B) {
			defer func(k int) { varianceBlock = k }(varianceBlock)
			varianceBlock = k
			for b.Loop() {
				l.VariancesTo(dst, J, n)
			}
		})
	}
}

// Under Dual the blocked variances are the bits of one block over every
// point, for block sizes that do and do not divide n: the work space a
// worker reuses from block to block (a larger last block's values left
// in it) changes nothing.
func TestDualVariancesToBlocks(t *testing.T) {
	const P, N, n = 40, 12, 23
	rng := rand.New(rand.NewPCG(5, 6))
	s := &System{P: P, Beta: []float64{3}, Alpha: []float64{0.5}, AlphaOf: make([]int, P), J: [][]float64{make([]float64, N*P)}}
	for i := range s.J[0] {
		s.J[0][i] = rng.NormFloat64()
	}
	l, err := NewDualLaplace(s, Loss{EW: []float64{1}, ED: []float64{1}, W: []int{P}, N: []int{N}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	J := make([]float64, n*P)
	for i := range J {
		J[i] = rng.NormFloat64()
	}
	blocksAsOne(t, l, J, n)
}
