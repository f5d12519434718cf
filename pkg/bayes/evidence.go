package bayes

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/internal/dense"
	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// Hessians is what the evidence needs at w_MP: the loss parts and the data
// Hessians H_t, from which A is built (BuildA). AlphaOf maps each weight to
// its alpha group.
type Hessians struct {
	EW      []float64   // E_w^i per alpha group
	ED      []float64   // E_D^t per beta group
	H       [][]float64 // H_t per beta group, P x P row-major
	AlphaOf []int       // parameter -> alpha group; -1 for none (a flat prior)
	W       []int       // W_i: weights per alpha group
	N       []int       // N_t: residuals per beta group
	Hidden  []int       // hidden layer sizes M_l (for comb)

	pool *par.Pool // the threads of NewLaplace's products (nil: one)
}

// P is the number of weights.
func (c *Hessians) P() int { return len(c.AlphaOf) }

// Laplace is the Gaussian approximation of the posterior at w_MP for given
// hyperparameters, with every quantity of the paper's evidence.
//
// Conventions: LogP = ln p(D|alpha,beta) = -EHyp, the paper's convention,
// which drops the constant -N/2 ln(2 pi) (N = sum N_t, in LogPConst).
type Laplace struct {
	Alpha, Beta []float64
	Chol        mat.Cholesky // of A = sum_t beta_t H_t + diag(alpha)
	AInv        *mat.SymDense
	LogDetA     float64

	TrAlpha []float64 // tr_i(A^-1), the trace of A^-1 over group i
	TrBeta  []float64 // tr(A^-1 H_t)

	// The evidence from these traces (pkg/curv): E_hyp, its gradient,
	// gamma, the Occam factors, LogP and LogEvidence.
	curv.Hyper

	Comb float64 // sum_l (ln M_l! + M_l ln 2)

	pool *par.Pool // the threads of VariancesTo (nil: one)
}

// Comb is the paper's symmetry term sum_l (ln M_l! + M_l ln 2).
func Comb(hidden []int) float64 {
	s := 0.0
	for _, m := range hidden {
		lg, _ := math.Lgamma(float64(m) + 1)
		s += lg + float64(m)*math.Ln2
	}
	return s
}

// BuildA writes A = sum_t beta_t H_t + diag(alpha_of(k)) into a.
func BuildA(c *Hessians, alpha, beta []float64, a *mat.SymDense) {
	P := c.P()
	for r := 0; r < P; r++ {
		for col := r; col < P; col++ {
			s := 0.0
			for t, h := range c.H {
				s += beta[t] * h[r*P+col]
			}
			if gi := c.AlphaOf[r]; r == col && gi >= 0 {
				s += alpha[gi]
			}
			a.SetSym(r, col, s)
		}
	}
}

// NewLaplace factorizes A and computes E_hyp, its gradient, the effective
// parameters, the Occam factors and the log evidence. It returns
// a curv.NotPositiveDefinite when A is not positive definite.
//
// It is pkg/curv's dense structure computed from the H_t rather than from
// the residual Jacobians: it takes exact Hessians (not of the form J^T J)
// and parameters in no alpha group (flat-prior unknowns), which curv's
// System cannot state, and its sums run in another order, so the two agree
// to about 1e-9 relative at worst, not to the bit (heat, Burgers, wave at
// 600 epochs: ln|A| 3e-13 to 7e-12, traces 1e-11 to 7e-10, ln Z 2e-13 to
// 3e-12 relative); the records keep this one's numbers.
func NewLaplace(c *Hessians, alpha, beta []float64) (*Laplace, error) {
	P := c.P()
	if len(alpha) != len(c.W) || len(beta) != len(c.N) || len(c.H) != len(beta) || len(c.EW) != len(alpha) || len(c.ED) != len(beta) {
		panic(fmt.Sprintf("bayes: NewLaplace: %d alphas for %d groups, %d betas for %d groups", len(alpha), len(c.W), len(beta), len(c.N)))
	}
	a := mat.NewSymDense(P, nil)
	BuildA(c, alpha, beta, a)
	for _, v := range a.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, curv.NotPositiveDefinite{Kind: curv.Dense, MinDiag: v, NonFinite: true}
		}
	}
	l := &Laplace{Alpha: append([]float64(nil), alpha...), Beta: append([]float64(nil), beta...), pool: c.pool}
	if ok := l.Chol.Factorize(a); !ok {
		minDiag := math.Inf(1)
		for i := 0; i < P; i++ {
			minDiag = math.Min(minDiag, a.At(i, i))
		}
		return nil, curv.NotPositiveDefinite{Kind: curv.Dense, MinDiag: minDiag}
	}
	l.LogDetA = l.Chol.LogDet()
	l.AInv = mat.NewSymDense(P, nil)
	if err := l.Chol.InverseTo(l.AInv); err != nil {
		return nil, curv.NotPositiveDefinite{Kind: curv.Dense, MinDiag: math.NaN(), Cond: l.Chol.Cond()}
	}
	full := symFull(l.AInv)
	trSqAlpha, flat := l.alphaTraces(c, full)
	trSqBeta := l.betaTraces(c, full)

	l.Comb = Comb(c.Hidden)
	l.Hyper = curv.NewHyper(l.LogDetA, l.TrAlpha, l.TrBeta, trSqAlpha, trSqBeta, alpha, beta, c.loss(l.Comb))
	// A flat-prior parameter has no alpha to shrink it: it is fully
	// determined by the data and counts 1 (sum_t GammaBeta = Gamma).
	l.Gamma += float64(flat)
	return l, nil
}

// symFull is a symmetric matrix, row-major with both triangles, from its
// upper triangle.
func symFull(m *mat.SymDense) []float64 {
	P := m.SymmetricDim()
	data := m.RawSymmetric().Data // upper triangle valid, stride P
	full := make([]float64, P*P)
	for r := 0; r < P; r++ {
		copy(full[r*P+r:r*P+P], data[r*P+r:r*P+P])
		for col := 0; col < r; col++ {
			full[r*P+col] = data[col*P+r]
		}
	}
	return full
}

// alphaTraces sets l.TrAlpha, tr(A^-1 P_i), from A^-1 (full) and returns
// tr((A^-1 P_i)^2) = sum_{a,b in i} Ainv_ab^2 and the number of parameters
// in no alpha group (flat-prior unknowns).
func (l *Laplace) alphaTraces(c *Hessians, full []float64) (trSqAlpha []float64, flat int) {
	P := c.P()
	l.TrAlpha = make([]float64, len(l.Alpha))
	trSqAlpha = make([]float64, len(l.Alpha))
	for r := 0; r < P; r++ {
		gi := c.AlphaOf[r]
		if gi < 0 {
			flat++
			continue
		}
		l.TrAlpha[gi] += full[r*P+r]
		for col := 0; col < P; col++ {
			if c.AlphaOf[col] == gi {
				v := full[r*P+col]
				trSqAlpha[gi] += v * v
			}
		}
	}
	return trSqAlpha, flat
}

// betaTraces sets l.TrBeta, tr(M_t) with M_t = A^-1 H_t, from A^-1 (full) and
// returns tr(M_t^2). Rows of M_t go to the threads; the sums of its
// entries run on one, in one order.
func (l *Laplace) betaTraces(c *Hessians, full []float64) (trSqBeta []float64) {
	P := c.P()
	l.TrBeta = make([]float64, len(l.Beta))
	trSqBeta = make([]float64, len(l.Beta))
	pr := make([]float64, P*P)
	for t, h := range c.H {
		c.pool.For(P, func(lo, hi int) {
			clear(pr[lo*P : hi*P])
			r := lo
			for ; r+2 <= hi; r += 2 { // two rows per pass over H
				dense.AddRows2(pr[r*P:r*P+P], pr[(r+1)*P:(r+1)*P+P], full[r*P:r*P+P], full[(r+1)*P:(r+1)*P+P], h, 0, P)
			}
			for ; r < hi; r++ {
				dense.AddRows(pr[r*P:r*P+P], full[r*P:r*P+P], h, 0, P)
			}
		})
		s, s2 := 0.0, 0.0
		for r := 0; r < P; r++ {
			s += pr[r*P+r]
			for col := 0; col < P; col++ {
				s2 += pr[r*P+col] * pr[col*P+r]
			}
		}
		l.TrBeta[t], trSqBeta[t] = s, s2
	}
	return trSqBeta
}

// MacKay returns the fixed-point update alpha_i = gamma_i/(2 E_w^i),
// beta_t = (N_t - gamma_t)/(2 E_D^t), where the gradient of E_hyp vanishes.
func (l *Laplace) MacKay(c *Hessians) (alpha, beta []float64) { return l.Hyper.MacKay(c.loss(l.Comb)) }

// loss is what curv.NewHyper needs of c.
func (c *Hessians) loss(comb float64) curv.Loss {
	return curv.Loss{EW: c.EW, ED: c.ED, W: c.W, N: c.N, Comb: comb}
}

// Sigmas returns sigma = sqrt(g^T A^-1 g) for each of the n rows g of J
// (n x P, row-major; Fit.Jacobian).
func (l *Laplace) Sigmas(J []float64, n int) []float64 {
	s := make([]float64, n)
	l.VariancesTo(s, J, n)
	for i, v := range s {
		s[i] = math.Sqrt(math.Max(0, v))
	}
	return s
}

// VariancesTo writes g_n^T A^-1 g_n into dst for each row g_n of the
// row-major n x P matrix J (the network output's gradients at n points):
// triangular solves L X = J^T, then the column norms. The points go in
// blocks of varianceBlock columns, so that a block of X stays in the cache
// through its solve (the whole X of the 100 x 100 grid at 921 weights is
// 74 MB); each column is solved by the same operations either way, and the
// blocks go to the threads in turn.
func (l *Laplace) VariancesTo(dst, J []float64, n int) {
	P := l.Chol.SymmetricDim()
	if len(J) != n*P || len(dst) != n {
		panic(fmt.Sprintf("bayes: VariancesTo: J has %d values for %dx%d, dst %d", len(J), n, P, len(dst)))
	}
	var L mat.TriDense
	l.Chol.LTo(&L)
	lr := L.RawTriangular()
	k := min(n, varianceBlock)
	t := l.pool.Threads()
	l.pool.Run(func(w int) {
		if w*k < n {
			solveBlocks(dst, J, lr, P, n, k, w*k, t*k)
		}
	})
}

// solveBlocks is VariancesTo's work on the blocks of k points that start
// at c0, c0+step, ....
func solveBlocks(dst, J []float64, lr blas64.Triangular, P, n, k, c0, step int) {
	x := make([]float64, P*k)
	for ; c0 < n; c0 += step {
		m := min(k, n-c0)
		for i := range m {
			g := J[(c0+i)*P : (c0+i+1)*P]
			for r, v := range g {
				x[r*m+i] = v
			}
		}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, lr, blas64.General{Rows: P, Cols: m, Stride: m, Data: x[:P*m]})
		d := dst[c0 : c0+m]
		for i := range d {
			d[i] = 0
		}
		for r := range P {
			for i, v := range x[r*m : r*m+m] {
				d[i] += v * v
			}
		}
	}
}

// varianceBlock is the number of points VariancesTo solves at once: at 921
// weights, 512 points (3.8 MB) took 1.15 s for the grid against 2.4 s in
// one solve and 1.8 s in blocks of 64 (BenchmarkVariancesGrid; gonum's
// solve runs along rows of the block, which want to be long).
var varianceBlock = 512

// Variance returns g^T A^-1 g, the predictive variance for the gradient g of
// the network output with respect to the weights.
func (l *Laplace) Variance(g []float64) float64 {
	v := mat.NewVecDense(len(g), append([]float64(nil), g...))
	x := mat.NewVecDense(len(g), nil)
	if err := l.Chol.SolveVecTo(x, v); err != nil {
		return math.NaN()
	}
	return mat.Dot(v, x)
}
