package mcmc

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// metric is the Euclidean metric of the kinetic energy p^T M⁻¹ p / 2: a
// diagonal M⁻¹ (inv holds its diagonal) or a dense one (inv holds it
// row-major, and chol its Cholesky factor U, M⁻¹ = U^T U, with which
// p = U⁻¹ z ~ N(0, M) for z ~ N(0, I)).
type metric struct {
	dense bool
	dim   int
	inv   []float64
	sqrtM []float64 // diagonal: 1/sqrt(inv)
	chol  blas64.Triangular
}

func newMetric(dim int, dense bool) *metric {
	m := &metric{dense: dense, dim: dim}
	if dense {
		m.inv = make([]float64, dim*dim)
		for i := range dim {
			m.inv[i*dim+i] = 1
		}
		m.chol = blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: dim, Stride: dim, Data: make([]float64, dim*dim)}
		copy(m.chol.Data, m.inv)
		return m
	}
	m.inv = make([]float64, dim)
	m.sqrtM = make([]float64, dim)
	for i := range m.inv {
		m.inv[i], m.sqrtM[i] = 1, 1
	}
	return m
}

// sharp writes M⁻¹ p (the velocity dq/dt) into dst.
func (m *metric) sharp(dst, p []float64) {
	if !m.dense {
		for i, v := range m.inv {
			dst[i] = v * p[i]
		}
		return
	}
	blas64.Symv(1, blas64.Symmetric{Uplo: blas.Upper, N: m.dim, Stride: m.dim, Data: m.inv},
		blas64.Vector{N: m.dim, Inc: 1, Data: p}, 0, blas64.Vector{N: m.dim, Inc: 1, Data: dst})
}

// draw sets p ~ N(0, M).
func (m *metric) draw(rng *rand.Rand, p []float64) {
	if !m.dense {
		for i, s := range m.sqrtM {
			p[i] = s * rng.NormFloat64()
		}
		return
	}
	for i := range p {
		p[i] = rng.NormFloat64()
	}
	blas64.Trsv(blas.NoTrans, m.chol, blas64.Vector{N: m.dim, Inc: 1, Data: p})
}

// set replaces M⁻¹ by Stan's regularized estimate from the n x dim draws
// of a warm-up window: (n/(n+5)) Σ + 1e-3 (5/(n+5)) I, with Σ the sample
// covariance (its diagonal for a diagonal metric). It reports false, and
// keeps the metric, if the estimate is not positive definite.
func (m *metric) set(draws []float64, n int) bool {
	x := mat.NewDense(n, m.dim, draws)
	w := float64(n) / (float64(n) + 5)
	reg := 1e-3 * 5 / (float64(n) + 5)
	if !m.dense {
		col := make([]float64, n)
		for j := range m.dim {
			mat.Col(col, j, x)
			v := w*stat.Variance(col, nil) + reg
			if !(v > 0) || math.IsInf(v, 0) {
				return false
			}
			m.inv[j], m.sqrtM[j] = v, 1/math.Sqrt(v)
		}
		return true
	}
	cov := mat.NewSymDense(m.dim, nil)
	stat.CovarianceMatrix(cov, x, nil)
	for i := range m.dim {
		for j := i; j < m.dim; j++ {
			v := w * cov.At(i, j)
			if i == j {
				v += reg
			}
			cov.SetSym(i, j, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		return false
	}
	var u mat.TriDense
	chol.UTo(&u)
	for i := range m.dim {
		for j := range m.dim {
			m.inv[i*m.dim+j] = cov.At(i, j)
			m.chol.Data[i*m.dim+j] = u.At(i, j)
		}
	}
	return true
}
