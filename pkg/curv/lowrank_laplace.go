package curv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/internal/par"
)

// LaplaceRank is the most Lanczos steps of NewLowRankLaplace when
// Options.Rank is 0.
const LaplaceRank = 512

// lanczosTol is 0: NewLowRankLaplace's Lanczos takes its k steps unless
// the next basis vector is exactly 0. Past G~'s numerical rank the new
// vectors are still orthogonal to the basis, so the projection stays
// valid; a tolerance relative to the first Rayleigh quotient (a fitted
// net's G~ spans 1e12 and more) ended heat's 501-weight fit short of
// eigenvalues that count in ln|A| (by 2 nats at 1e-12, 1e-3 at 1e-15).
const lanczosTol = 0

// exactSquareRows is the most rows of a beta group whose
// tr((A^-1 H_t)^2) NewLowRankLaplace computes exactly (N_t solves with
// A); above it Hutchinson's estimator in the group's residual space. A
// variable so that a test can take the estimator on a small system.
var exactSquareRows = 256

// NewLowRankLaplace is the Laplace approximation of the Gauss-Newton A
// of s in the LowRank structure, for nets where neither Dense nor Dual
// fits (N >= P or N > DualMaxRows above the dense limit). With D =
// diag(alpha) and the whitened Gauss-Newton matrix G~ = D^-1/2 G D^-1/2
// (G = sum_t beta_t J_t^T J_t), at most o.Rank (0: LaplaceRank) steps of
// Lanczos on G~ (fully reorthogonalized; products J v and J^T u only)
// give its Ritz pairs theta_i, u_i, and
//
//	A ~ D^1/2 (I + U^T Theta U) D^1/2:  ln|A| = ln|D| + sum_i ln(1 + theta_i),
//
// whose inverse, ln|A|, alpha traces and band are lqDual's with Q = U
// and L = Theta^1/2 (already the LQ factors: U has orthonormal rows), so
// the band g^T A^-1 g = |h - U^T U h|^2 + sum_i (u_i.h)^2/(1 + theta_i)
// (h = D^-1/2 g) has no cancellation. The Ritz values interlace G~'s
// eigenvalues from below, so 0 <= ln|A_true| - ln|A| <= LogDetGap = tr(G~)
// - sum theta_i, reported; the structure is exact when Lanczos exhausts
// G~'s Krylov space (rank G~ steps, e.g. N < P with o.Rank >= N).
// tr(A^-1 H_t) is the sum of g^T A^-1 g over J_t's rows;
// tr((A^-1 H_t)^2) = |J_t A^-1 J_t^T|_F^2 exactly up to exactSquareRows
// rows, else by Hutchinson with o.Probes Rademacher probes z of the
// group's residuals (E |J_t A^-1 J_t^T z|^2), seeded by o.Seed. Time
// O(k N P + k^2 P) (k Lanczos steps), memory 2 k P floats beside the
// J_t, which are read, not kept. loss gives E_W, E_D, the group sizes and
// Comb; pool the threads of the band and of the beta traces.
func NewLowRankLaplace(s *System, loss Loss, o Options, pool *par.Pool) (*Laplace, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(loss.EW) != len(s.Alpha) || len(loss.ED) != len(s.Beta) {
		return nil, fmt.Errorf("curv: NewLowRankLaplace: %d alphas, %d E_W; %d betas, %d E_D", len(s.Alpha), len(loss.EW), len(s.Beta), len(loss.ED))
	}
	if o.Rank == 0 {
		o.Rank = LaplaceRank
	}
	o = o.resolve()
	P := s.P
	tr := &Traces{TrAlpha: make([]float64, len(s.Alpha)), TrBeta: make([]float64, len(s.Beta)),
		TrSqAlpha: make([]float64, len(s.Alpha)), TrSqBeta: make([]float64, len(s.Beta))}
	w := &lqDual{p: P, invSqrtD: make([]float64, P)}
	for k, v := range s.alphaDiag() {
		w.invSqrtD[k] = 1 / math.Sqrt(v)
		tr.LogDet += math.Log(v)
	}
	for _, j := range s.J {
		if !finite(j) {
			return nil, NotPositiveDefinite{Kind: LowRank, MinDiag: math.NaN(), NonFinite: true}
		}
	}
	op := newGNOp(s, nil, &tr.Products)
	op.scale = w.invSqrtD
	start := make([]float64, P) // in G~'s range: a rank-r G~ is exhausted in r steps
	op.apply(start, randomStart(P, o.Seed))
	q, diag, off := lanczosFrom(op, start, min(o.Rank, P), lanczosTol)
	u, theta, ok := ritzPairs(q, diag, off, P)
	if !ok || !finite(theta) {
		return nil, notPD(LowRank)
	}
	q = nil // the basis: u holds what is kept
	m := len(theta)
	w.n, w.q = m, u
	b, t := make([]float64, m*m), make([]float64, m*m) // B = I + Theta, T = (Theta/(I + Theta))^1/2
	gap := 0.0
	for _, v := range colSquaresWhitened(s, w.invSqrtD) {
		gap += v
	}
	for i, th := range theta {
		th = math.Max(th, 0)
		gap -= th
		b[i*m+i] = 1 + th
		t[i*m+i] = math.Sqrt(th / (1 + th))
		tr.LogDet += math.Log1p(th)
	}
	if !w.b.Factorize(mat.NewSymDense(m, b)) { // m >= 1: Lanczos takes one step at least
		return nil, notPD(LowRank)
	}
	w.alphaTraces(t, s.AlphaOf, s.Alpha, tr)
	l := &Laplace{Kind: LowRank, Alpha: append([]float64(nil), s.Alpha...), Beta: append([]float64(nil), s.Beta...),
		LogDetGap: math.Max(gap, 0), Comb: loss.Comb, pool: pool, dual: w}
	for g, j := range s.J {
		n := s.Rows(g)
		v := make([]float64, n)
		l.dualVariancesTo(v, j, n)
		for _, x := range v {
			tr.TrBeta[g] += x
		}
		tr.TrSqBeta[g] = w.squareTrace(j, n, o, uint64(g))
	}
	l.LogDetA, l.TrAlpha, l.TrBeta = tr.LogDet, tr.TrAlpha, tr.TrBeta
	l.Hyper = Evidence(tr, l.Alpha, l.Beta, loss)
	return l, nil
}

// colSquaresWhitened is diag(G~) = sum_t beta_t diag(J_t^T J_t) / alpha_k.
func colSquaresWhitened(s *System, invSqrtD []float64) []float64 {
	d := make([]float64, s.P)
	for t, j := range s.J {
		for k, h := range colSquares(j, s.P) {
			d[k] += s.Beta[t] * h * invSqrtD[k] * invSqrtD[k]
		}
	}
	return d
}

// squareTrace is tr((A^-1 J^T J)^2) = |J A^-1 J^T|_F^2 for the n x P rows
// J: exact up to exactSquareRows rows (row i of J A^-1 J^T is J (A^-1
// j_i)), else the mean of |J A^-1 J^T z|^2 over o.Probes Rademacher
// vectors z (seeded by o.Seed and stream).
func (w *lqDual) squareTrace(J []float64, n int, o Options, stream uint64) float64 {
	if n == 0 {
		return 0
	}
	P := w.p
	impl := blas64.Implementation()
	x, y, c := make([]float64, P), make([]float64, P), make([]float64, n)
	sq := 0.0
	if n <= exactSquareRows {
		for i := range n {
			w.solve(y, J[i*P:(i+1)*P])
			impl.Dgemv(blas.NoTrans, n, P, 1, J, P, y, 1, 0, c, 1)
			sq += dot(c, c)
		}
		return sq
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x50a4e+stream))
	z := make([]float64, n)
	for range o.Probes {
		rademacher(rng, z)
		impl.Dgemv(blas.Trans, n, P, 1, J, P, z, 1, 0, x, 1)
		w.solve(y, x)
		impl.Dgemv(blas.NoTrans, n, P, 1, J, P, y, 1, 0, c, 1)
		sq += dot(c, c)
	}
	return sq / float64(o.Probes)
}

// solve writes A^-1 b into dst: D^-1/2 (h - Q^T Q h + Q^T B^-1 Q h), h =
// D^-1/2 b, B = I + L^T L (see lqDual).
func (w *lqDual) solve(dst, b []float64) {
	n, p := w.n, w.p
	for k, v := range b {
		dst[k] = v * w.invSqrtD[k]
	}
	if n > 0 {
		impl := blas64.Implementation()
		z, zb := make([]float64, n), mat.NewVecDense(n, nil)
		impl.Dgemv(blas.NoTrans, n, p, 1, w.q, p, dst, 1, 0, z, 1)
		_ = w.b.SolveVecTo(zb, mat.NewVecDense(n, slices.Clone(z))) // factorized: cannot fail
		for i := range z {
			z[i] = zb.AtVec(i) - z[i]
		}
		impl.Dgemv(blas.Trans, n, p, 1, w.q, p, z, 1, 1, dst, 1)
	}
	for k := range dst {
		dst[k] *= w.invSqrtD[k]
	}
}
