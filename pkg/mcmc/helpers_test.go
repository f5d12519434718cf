package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussian is the target N(mu, cov) with the precision prec = cov⁻¹.
type gaussian struct {
	mu   []float64
	cov  *mat.SymDense
	prec *mat.SymDense
}

// newConditionedGaussian returns a seeded Gaussian of dimension dim whose
// covariance Q diag(λ) Qᵀ has eigenvalues spread log-evenly over [1, cond]
// in a random rotation Q: condition number cond, every coordinate
// correlated with the others.
func newConditionedGaussian(t testing.TB, dim int, cond float64, seed uint64) gaussian {
	rng := rand.New(rand.NewPCG(seed, 0))
	a := mat.NewDense(dim, dim, nil)
	for i := range dim {
		for j := range dim {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	lam := make([]float64, dim)
	for i := range lam {
		lam[i] = math.Pow(cond, float64(i)/float64(dim-1))
	}
	cov, prec := mat.NewSymDense(dim, nil), mat.NewSymDense(dim, nil)
	for i := range dim {
		for j := i; j < dim; j++ {
			var c, p float64
			for k, l := range lam {
				c += q.At(i, k) * l * q.At(j, k)
				p += q.At(i, k) / l * q.At(j, k)
			}
			cov.SetSym(i, j, c)
			prec.SetSym(i, j, p)
		}
	}
	mu := make([]float64, dim)
	for i := range mu {
		mu[i] = rng.NormFloat64()
	}
	return gaussian{mu: mu, cov: cov, prec: prec}
}

// density returns a constructor of ln p(x) = -(x-mu)ᵀ P (x-mu)/2.
func (g gaussian) density() func() LogDensity {
	dim := len(g.mu)
	return func() LogDensity {
		d := make([]float64, dim)
		return func(x, grad []float64) float64 {
			for i := range d {
				d[i] = x[i] - g.mu[i]
			}
			var l float64
			for i := range dim {
				var s float64
				for j, dj := range d {
					s += g.prec.At(i, j) * dj
				}
				grad[i] = -s
				l -= d[i] * s
			}
			return l / 2
		}
	}
}

// diagGaussian returns ln p(x) = -sum x_i²/(2 sigma_i²).
func diagGaussian(sigma []float64) LogDensity {
	return func(x, grad []float64) float64 {
		var l float64
		for i, s := range sigma {
			grad[i] = -x[i] / (s * s)
			l -= x[i] * x[i] / (2 * s * s)
		}
		return l
	}
}

func sample(t testing.TB, f func() LogDensity, x0 []float64, s *Settings) *Result {
	t.Helper()
	res, err := Sample(context.Background(), f, x0, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// zMean and zVar return how many Monte Carlo standard errors the sample
// mean and variance of coordinate j are from mu and v: the MCSE of a mean
// of a series is its sd/sqrt(ESS), and the variance is the mean of the
// series (x - x̄)².
func zMean(res *Result, j int, mu float64) float64 {
	tr := res.Trace(nil, j)
	s := Summarize(tr)
	return (s.Mean - mu) / s.MCSE
}

func zVar(res *Result, j int, v float64) float64 {
	tr := res.Trace(nil, j)
	m, _ := meanStd(slices.Concat(tr...))
	for _, c := range tr {
		for i := range c {
			c[i] = (c[i] - m) * (c[i] - m)
		}
	}
	s := Summarize(tr)
	return (s.Mean - v) / s.MCSE
}

// checkMoments checks every coordinate's mean and variance against the
// truth within 4 Monte Carlo standard errors, and the diagnostics against
// Stan's thresholds: R-hat < 1.01, bulk and tail ESS > 400 (100 per chain),
// E-BFMI > 0.3, no divergence.
func checkMoments(t *testing.T, res *Result, mu []float64, cov mat.Symmetric) {
	t.Helper()
	for j := range res.Dim() {
		if z := zMean(res, j, mu[j]); !(math.Abs(z) < 4) {
			t.Errorf("mean[%d]: %.1f standard errors off", j, z)
		}
		if z := zVar(res, j, cov.At(j, j)); !(math.Abs(z) < 4) {
			t.Errorf("var[%d]: %.1f standard errors off", j, z)
		}
	}
	for j, s := range res.Summaries() {
		if !(s.RHat < 1.01) || !(s.BulkESS > 400) || !(s.TailESS > 400) {
			t.Errorf("x[%d]: got R-hat %.4f, bulk ESS %.0f, tail ESS %.0f; want < 1.01, > 400, > 400", j, s.RHat, s.BulkESS, s.TailESS)
		}
	}
	for c := range res.Chains {
		ch := &res.Chains[c]
		if d := ch.Divergences(); d != 0 {
			t.Errorf("chain %d: got %d divergences, want 0", c, d)
		}
		if e := ch.EBFMI(); !(e > 0.3) {
			t.Errorf("chain %d: got E-BFMI %.3f, want > 0.3", c, e)
		}
	}
}

func diagSym(dim int, f func(i int) float64) *mat.SymDense {
	s := mat.NewSymDense(dim, nil)
	for i := range dim {
		s.SetSym(i, i, f(i))
	}
	return s
}

// choleskyLower returns L, cov = L Lᵀ, row-major.
func choleskyLower(g gaussian) []float64 {
	var chol mat.Cholesky
	if !chol.Factorize(g.cov) {
		panic("test covariance is not positive definite")
	}
	var l mat.TriDense
	chol.LTo(&l)
	dim := len(g.mu)
	out := make([]float64, dim*dim)
	for i := range dim {
		for j := range dim {
			out[i*dim+j] = l.At(i, j)
		}
	}
	return out
}
