package curv

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/internal/dense"
	"github.com/evidence-pinn/bpinn/internal/par"
)

// Hessians is what the dense Laplace of a fit needs at w_MP besides the
// hyperparameters: the data Hessians H_t themselves and the loss parts. It
// sits here, beside System, because it is NewLaplace's input: it states
// what a System cannot, exact Hessians (not of the form J^T J) and
// parameters in no alpha group (an inverse problem's flat-prior unknowns);
// bayes.Fit.Hessians fills it at a fit's weights.
type Hessians struct {
	H       [][]float64 // H_t per beta group, P x P row-major
	AlphaOf []int       // parameter -> alpha group; -1 for none (a flat prior)
	Loss                // E_w^i, E_D^t, the group sizes and the symmetry term
	// Pool runs the products of NewLaplace's traces and the Laplace's
	// band on threads (nil: one); the results are the same bits for any
	// number of threads.
	Pool *par.Pool
}

// P is the number of parameters.
func (c *Hessians) P() int { return len(c.AlphaOf) }

// BuildA writes A = sum_t beta_t H_t + diag(alpha_of(k)) into a (its upper
// triangle).
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

// Laplace is the Gaussian approximation of the posterior at w_MP for given
// hyperparameters, with A factorized and inverted and every quantity of the
// paper's evidence. NewLaplace builds it from the H_t; the Dense structure
// of Compute factorizes the same way from the J_t.
//
// Conventions: LogP = ln p(D|alpha,beta) = -EHyp, the paper's convention,
// which drops the constant -N/2 ln(2 pi) (N = sum N_t, in LogPConst).
//
// Kind is the structure A is held in: Dense (NewLaplace: Chol and AInv
// set), Dual (NewDualLaplace: the Gauss-Newton A through the N x N
// matrix of the Woodbury identity and the LQ factors of the residual
// Jacobian, exact, with Chol and AInv empty) or LowRank
// (NewLowRankLaplace: the Gauss-Newton A from the leading Ritz pairs of
// the prior-whitened Gauss-Newton matrix, approximate, LogDetGap bounding
// what its ln|A| misses; Chol and AInv empty). Every other field, the
// evidence and the band (Sigmas, VariancesTo, Variance) are the same
// quantities under each.
type Laplace struct {
	Kind        Kind
	Alpha, Beta []float64
	Chol        mat.Cholesky  // of A = sum_t beta_t H_t + diag(alpha); Dense only
	AInv        *mat.SymDense // Dense only
	LogDetA     float64

	TrAlpha []float64 // tr_i(A^-1), the trace of A^-1 over group i
	TrBeta  []float64 // tr(A^-1 H_t)

	// The evidence from these traces: E_hyp, its gradient, gamma, the
	// Occam factors, LogP, LogEvidence and MacKay's update.
	Hyper

	Comb float64 // sum_l (ln M_l! + M_l ln 2), from Hessians.Comb

	// LogDetGap bounds what LowRank's ln|A| misses of the Gauss-Newton
	// A's: 0 <= ln|A| - LogDetA <= LogDetGap (0 under Dense and Dual).
	LogDetGap float64

	pool *par.Pool // the threads of VariancesTo (nil: one)
	dual *lqDual   // Dual and LowRank: A through LQ factors (lqDual)
}

// NewDualLaplace is the Laplace approximation of the Gauss-Newton A of s
// (every weight in an alpha group) in the Dual structure: the same
// quantities as NewLaplace from H_t = J_t^T J_t, exact, through the
// N x N matrix S = I + R D^-1 R^T (R the beta-weighted stacked J_t, D
// = diag(alpha)) and the LQ factorization of R D^-1/2 (lqDual), at
// O(N^2 P + N^3) time and N P + a few N^2 floats of memory instead of
// O(N P^2 + P^3) and several P^2: the structure for nets with more
// weights than residuals (N > P is an error). It takes s.J: when they are
// consecutive parts of one array (bayes.Model.stackedJacobians) that array
// is overwritten and becomes the Q the band reads, else they are stacked
// into a new one; each s.J[t] is set to nil.
// loss gives E_W, E_D, the group sizes and Comb; pool the threads of the
// band.
func NewDualLaplace(s *System, loss Loss, pool *par.Pool) (*Laplace, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(loss.EW) != len(s.Alpha) || len(loss.ED) != len(s.Beta) {
		return nil, fmt.Errorf("curv: NewDualLaplace: %d alphas, %d E_W; %d betas, %d E_D", len(s.Alpha), len(loss.EW), len(s.Beta), len(loss.ED))
	}
	tr := &Traces{TrAlpha: make([]float64, len(s.Alpha)), TrBeta: make([]float64, len(s.Beta)),
		TrSqAlpha: make([]float64, len(s.Alpha)), TrSqBeta: make([]float64, len(s.Beta))}
	w, err := newLQDual(s, tr)
	if err != nil {
		return nil, err
	}
	l := &Laplace{Kind: Dual, Alpha: append([]float64(nil), s.Alpha...), Beta: append([]float64(nil), s.Beta...),
		LogDetA: tr.LogDet, TrAlpha: tr.TrAlpha, TrBeta: tr.TrBeta, Comb: loss.Comb, pool: pool, dual: w}
	l.Hyper = Evidence(tr, l.Alpha, l.Beta, loss)
	return l, nil
}

// DualMaxRows is the most residuals for which AutoLaplace takes the Dual
// structure: its N x N matrices are a few N^2 floats (1.2 GB each at
// 12000), beside the N x P matrix Q.
const DualMaxRows = 12000

// AutoLaplace chooses the structure of a fit's final Laplace approximation
// for P weights and N residuals: Dense up to denseLimit weights (the
// reference, unchanged), above it Dual while N < P and N <= DualMaxRows
// (exact for the Gauss-Newton A, and cheaper than dense there), else
// LowRank (NewLowRankLaplace: O(k N P) for k Lanczos steps, no P x P
// and no N x N matrix).
func AutoLaplace(P, N, denseLimit int) Kind {
	switch {
	case P <= denseLimit:
		return Dense
	case N < P && N <= DualMaxRows:
		return Dual
	}
	return LowRank
}

// NewLaplace factorizes A = sum_t beta_t H_t + diag(alpha) and computes
// E_hyp, its gradient, the effective parameters, the Occam factors and the
// log evidence. It returns a NotPositiveDefinite when A is not positive
// definite. A parameter in no alpha group (AlphaOf -1) has no alpha to
// shrink it: it counts 1 in Gamma.
func NewLaplace(c *Hessians, alpha, beta []float64) (*Laplace, error) {
	P := c.P()
	if len(alpha) != len(c.W) || len(beta) != len(c.N) || len(c.H) != len(beta) || len(c.EW) != len(alpha) || len(c.ED) != len(beta) {
		panic(fmt.Sprintf("curv: NewLaplace: %d alphas for %d groups, %d betas for %d groups", len(alpha), len(c.W), len(beta), len(c.N)))
	}
	a := mat.NewSymDense(P, nil)
	BuildA(c, alpha, beta, a)
	l, trSqAlpha, err := factor(a, c.AlphaOf, alpha, beta)
	if err != nil {
		return nil, err
	}
	l.pool = c.Pool
	trSqBeta := l.betaTraces(c, symFull(l.AInv))
	l.Comb = c.Comb
	l.Hyper = NewHyper(l.LogDetA, l.TrAlpha, l.TrBeta, trSqAlpha, trSqBeta, alpha, beta, c.Loss)
	for _, g := range c.AlphaOf {
		if g < 0 {
			l.Gamma++ // fully determined by the data: sum_t GammaBeta = Gamma
		}
	}
	return l, nil
}

// factor is the part of the dense Laplace that does not depend on how A
// was formed: it factorizes A (the upper triangle of a), takes ln|A| and
// A^-1 and sets TrAlpha, returning tr((A^-1 P_i)^2).
func factor(a *mat.SymDense, alphaOf []int, alpha, beta []float64) (l *Laplace, trSqAlpha []float64, err error) {
	P := a.SymmetricDim()
	for _, v := range a.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, NotPositiveDefinite{Kind: Dense, MinDiag: v, NonFinite: true}
		}
	}
	l = &Laplace{Kind: Dense, Alpha: append([]float64(nil), alpha...), Beta: append([]float64(nil), beta...)}
	if ok := l.Chol.Factorize(a); !ok {
		minDiag := math.Inf(1)
		for i := 0; i < P; i++ {
			minDiag = math.Min(minDiag, a.At(i, i))
		}
		return nil, nil, NotPositiveDefinite{Kind: Dense, MinDiag: minDiag}
	}
	l.LogDetA = l.Chol.LogDet()
	l.AInv = mat.NewSymDense(P, nil)
	if err := l.Chol.InverseTo(l.AInv); err != nil {
		return nil, nil, NotPositiveDefinite{Kind: Dense, MinDiag: math.NaN(), Cond: l.Chol.Cond()}
	}
	return l, l.alphaTraces(alphaOf), nil
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

// alphaTraces sets l.TrAlpha, tr(A^-1 P_i), from l.AInv and returns
// tr((A^-1 P_i)^2) = sum_{a,b in i} Ainv_ab^2, each sum over whole rows of
// A^-1 in turn (read from its upper triangle); parameters in no group
// (alphaOf -1) are left out of both.
func (l *Laplace) alphaTraces(alphaOf []int) (trSqAlpha []float64) {
	P := len(alphaOf)
	inv := l.AInv.RawSymmetric()
	at := func(r, c int) float64 { return inv.Data[min(r, c)*inv.Stride+max(r, c)] }
	l.TrAlpha = make([]float64, len(l.Alpha))
	trSqAlpha = make([]float64, len(l.Alpha))
	for r := 0; r < P; r++ {
		gi := alphaOf[r]
		if gi < 0 {
			continue
		}
		l.TrAlpha[gi] += at(r, r)
		for col := 0; col < P; col++ {
			if alphaOf[col] == gi {
				v := at(r, col)
				trSqAlpha[gi] += v * v
			}
		}
	}
	return trSqAlpha
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
		c.Pool.For(P, func(lo, hi int) {
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
