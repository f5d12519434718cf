package bayes

import (
	"strings"

	"gonum.org/v1/gonum/floats"

	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// randomCurvature returns a curvature with PSD data Hessians H_t = J_t^T J_t.
func randomCurvature(rng *rand.Rand, P int, alphaOf []int, nAlpha int, N []int) *Curvature {
	c := &Curvature{AlphaOf: alphaOf, W: make([]int, nAlpha), N: N, Hidden: []int{3}}
	for _, g := range alphaOf {
		c.W[g]++
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

func ehyp(c *Curvature, alpha, beta []float64) float64 {
	l, err := NewLaplace(c, alpha, beta)
	if err != nil {
		panic(err)
	}
	return l.EHyp
}

// logP as a function of alpha_i or beta_t alone.
func logPAlong(c *Curvature, alpha, beta []float64, isAlpha bool, k int, v float64) float64 {
	a, b := append([]float64(nil), alpha...), append([]float64(nil), beta...)
	if isAlpha {
		a[k] = v
	} else {
		b[k] = v
	}
	return -ehyp(c, a, b)
}

func TestEHypGradientAndOccam(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	alphaOf := []int{0, 0, 0, 1, 1, 2, 2, 2}
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
	c := &Curvature{EW: []float64{1}, ED: []float64{1}, H: [][]float64{{-5, 0, 0, 1}}, AlphaOf: []int{0, 0}, W: []int{2}, N: []int{1}}
	_, err := NewLaplace(c, []float64{1}, []float64{1})
	if _, ok := err.(ErrNotPositiveDefinite); !ok {
		t.Fatalf("got %v, want ErrNotPositiveDefinite", err)
	}
	c.H[0][3] = math.NaN()
	c.H[0][0] = 5
	_, err = NewLaplace(c, []float64{1}, []float64{1})
	if e, ok := err.(ErrNotPositiveDefinite); !ok || !e.NonFinite {
		t.Fatalf("NaN in H: got %v, want a non-finite ErrNotPositiveDefinite", err)
	}
	// Positive definite but beyond double precision: reported with its
	// condition number, not as a NaN.
	c.H[0] = []float64{1e17, 0, 0, 0}
	_, err = NewLaplace(c, []float64{1}, []float64{1})
	if e, ok := err.(ErrNotPositiveDefinite); !ok || !(e.Cond > 1e16) || !strings.Contains(e.Error(), "numerically singular") {
		t.Fatalf("condition 1e17: got %v, want a numerically singular ErrNotPositiveDefinite", err)
	}
}

// Predictions at one point equal those at the same point within a batch
// (one point used to trip the per-row Jacobian: a broadcast of one row is
// the identity).
func TestPredictOnePoint(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 1, Epochs: 200, HyperStart: 100, Recipe: RecipePaper})
	pts := [][]float64{{0.3, 0.4}, {0.7, 0.1}}
	m2, s2 := mustPredict(t, f, pts)
	m1, s1 := mustPredict(t, f, pts[:1])
	if m1[0] != m2[0] || !scalar.EqualWithinAbsOrRel(s1[0], s2[0], 1e-12, 1e-9) {
		t.Errorf("one point: mean %g sigma %g, in a batch: mean %g sigma %g", m1[0], s1[0], m2[0], s2[0])
	}
}

func TestSpearman(t *testing.T) {
	t.Parallel()
	cases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{9, 4, 1, 0}, -1},
		// Ties get the average rank; NaN pairs are skipped.
		{[]float64{1, 2, 2, 3, math.NaN()}, []float64{1, 3, 2, 4, 7}, 0.9486832980505138},
	}
	for _, c := range cases {
		if got := Spearman(c.x, c.y); !scalar.EqualWithinAbsOrRel(got, c.want, 1e-12, 1e-12) {
			t.Errorf("Spearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if got := Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(got) {
		t.Errorf("constant side: got %v, want NaN", got)
	}
	if got := Spearman([]float64{1, 2}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("two pairs: got %v, want NaN", got)
	}
}
