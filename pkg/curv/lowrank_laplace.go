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

// LowRankMaxGap is the most LogDetGap, in nats, at which
// CloseLowRankLaplace keeps the LowRank Laplace where the Dual one
// applies: its ln|A| is then within 0.1 nats of the exact one (ln Z
// within 0.05 from that term), and where it was measured against the
// dense Laplace the hyperparameters MacKay's rounds settle on moved by
// about a tenth of the gap, relative (1.3 nats: 9 %; 5e-4: 6e-5;
// docs/curvature.md).
const LowRankMaxGap = 0.1

// lowRankShare is the most the LowRank structure may cost, as a share of
// the Dual one it would replace, for CloseLowRankLaplace to try it: a
// gap above LowRankMaxGap, which sends the caller back to Dual, then
// adds at most half to the Dual's cost.
const lowRankShare = 0.5

// LowRankCheaper reports whether the LowRank Laplace with k Lanczos steps
// (0: LaplaceRank) of P weights and N < P residuals costs at most half of
// what the Dual structure does there: NewDualLaplace with laplace (the
// final Laplace and the band), else the Dual traces of Compute (a final
// round). The costs are lowRankSeconds and dualSeconds.
func LowRankCheaper(P, N, k int, laplace bool) bool {
	if k == 0 {
		k = LaplaceRank
	}
	if N >= P || N <= k { // N <= k: Lanczos would take N steps, at the dual's cost
		return false
	}
	return lowRankSeconds(P, N, k) <= lowRankShare*dualSeconds(P, N, laplace)
}

// lowRankSeconds is NewLowRankLaplace's CPU time on one core, 1.73e-9
// k (N + k) P seconds: k Lanczos steps of a product with J and one with
// J^T and their reorthogonalization, the Ritz vectors, gamma from the
// band's N rows. The constant is bayes.BenchmarkFinalLowRankLaplace's
// at 9937 weights and 2840 residuals (29.5 s; at 3441 weights 12.4 s,
// 10.2 s by this).
func lowRankSeconds(P, N, k int) float64 {
	p, n, kk := float64(P), float64(N), float64(k)
	return 1.73e-9 * kk * (n + kk) * p
}

// dualSeconds is the Dual structure's CPU time on one core: with laplace
// NewDualLaplace's, 1.21e-9 N^2 P + 1.08e-9 N^3 seconds (the LQ
// factorization, Q, the alpha traces through T Q; the N x N
// factorizations), else Compute's Dual traces, 5.7e-10 N^2 P + 3.6e-10
// N^3 (S = I + K K^T, V = L^-1 K; the Cholesky factor and inverse of S).
// The constants fit bayes.BenchmarkFinalLaplace and the Dual traces of
// a final round at 3441 and 9937 weights and 2840 residuals (58.4 s and
// 122 s; 24.0 s and 53.8 s).
func dualSeconds(P, N int, laplace bool) float64 {
	p, n := float64(P), float64(N)
	if laplace {
		return 1.21e-9*n*n*p + 1.08e-9*n*n*n
	}
	return 5.7e-10*n*n*p + 3.6e-10*n*n*n
}

// CloseLowRankLaplace is NewLowRankLaplace's Laplace of s where the Dual
// structure applies (fewer residuals than weights), LowRankCheaper says
// it costs at most half of the Dual one (laplace as there) and its
// LogDetGap is at most LowRankMaxGap; otherwise nil, and the caller goes
// on with the Dual structure: s.J is only read here.
func CloseLowRankLaplace(s *System, loss Loss, o Options, laplace bool, pool *par.Pool) *Laplace {
	if !LowRankCheaper(s.P, s.N(), o.Rank, laplace) {
		return nil
	}
	l, err := NewLowRankLaplace(s, loss, o, pool)
	if err != nil || !(l.LogDetGap <= LowRankMaxGap) {
		return nil
	}
	return l
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
