package bayes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"gonum.org/v1/gonum/floats"

	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// randomCurvature returns a curvature with PSD data Hessians H_t = J_t^T J_t.
func randomCurvature(rng *rand.Rand, P int, alphaOf []int, nAlpha int, N []int) *Hessians {
	c := &Hessians{AlphaOf: alphaOf, W: make([]int, nAlpha), N: N, Hidden: []int{3}}
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
	if got, want := Comb([]int{3}), math.Log(6)+3*math.Ln2; !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-14) {
		t.Errorf("Comb = %g, want %g", got, want)
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
		alpha, beta = l.MacKay(c)
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
	c := &Hessians{EW: []float64{1}, ED: []float64{1}, H: [][]float64{{-5, 0, 0, 1}}, AlphaOf: []int{0, 0}, W: []int{2}, N: []int{1}}
	_, err := NewLaplace(c, []float64{1}, []float64{1})
	if _, ok := err.(curv.NotPositiveDefinite); !ok {
		t.Fatalf("got %v, want curv.NotPositiveDefinite", err)
	}
	c.H[0][3] = math.NaN()
	c.H[0][0] = 5
	_, err = NewLaplace(c, []float64{1}, []float64{1})
	if e, ok := err.(curv.NotPositiveDefinite); !ok || !e.NonFinite {
		t.Fatalf("NaN in H: got %v, want a non-finite curv.NotPositiveDefinite", err)
	}
	// Positive definite but beyond double precision: reported with its
	// condition number, not as a NaN.
	c.H[0] = []float64{1e17, 0, 0, 0}
	_, err = NewLaplace(c, []float64{1}, []float64{1})
	if e, ok := err.(curv.NotPositiveDefinite); !ok || !(e.Cond > 1e16) || !strings.Contains(e.Error(), "numerically singular") {
		t.Fatalf("condition 1e17: got %v, want a numerically singular curv.NotPositiveDefinite", err)
	}
}

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
	for i := range n {
		g := J[i*P : (i+1)*P]
		if v := l.Variance(g); !scalar.EqualWithinAbsOrRel(v, want[i], 1e-12, 1e-10) {
			t.Errorf("point %d: VariancesTo %g, Variance %g", i, want[i], v)
		}
	}
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
