package curv

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// lqDual is the Gauss-Newton A = D + R^T R of a fit (D = diag(alpha), R
// the N x P beta-weighted stacked Jacobian, N < P) for the final Laplace:
// with K = R D^-1/2 = L Q (the LQ factorization: L N x N lower triangular,
// Q N x P with orthonormal rows),
//
//	A = D^1/2 (I + Q^T L^T L Q) D^1/2,
//	ln|A| = ln|D| + ln|S|,  S = I + K K^T = I + L L^T,
//
// and for the band, with h = D^-1/2 g split into its part in the rows of Q
// (z = Q h) and the rest,
//
//	g^T A^-1 g = |h - Q^T z|^2 + z^T (I + L^T L)^-1 z,
//
// a sum of two non-negative terms. The Woodbury form g^T D^-1 g - |V g|^2
// of woodbury subtracts two numbers some 1e11 times the variance at a
// fitted net (heat at 501 weights: sigma off by 1e-5 against the dense
// A), which grows with the weights; this form has no such cancellation.
type lqDual struct {
	n, p     int
	invSqrtD []float64 // D^-1/2
	q        []float64 // Q, N x P row-major
	b        mat.Cholesky
}

// newLQDual builds the lqDual of s and sets tr's traces (the squares
// too), taking s.J: when they are consecutive parts of one array that
// array becomes Q (no copy), else they are stacked into a new one; each
// s.J[t] is set to nil, so that a caller holding no other reference needs
// one N x P matrix at a time.
func newLQDual(s *System, tr *Traces) (*lqDual, error) {
	P, N := s.P, s.N()
	if N > P {
		return nil, fmt.Errorf("curv: the dual Laplace wants no more residuals than weights, not %d for %d; use NewLaplace", N, P)
	}
	d := s.alphaDiag()
	w := &lqDual{n: N, p: P, invSqrtD: make([]float64, P)}
	for k, v := range d {
		w.invSqrtD[k] = 1 / math.Sqrt(v)
		tr.LogDet += math.Log(v)
	}
	rows := make([]int, len(s.J))
	k, inPlace := stacked(s.J)
	if !inPlace {
		k = make([]float64, N*P)
	}
	off := 0
	for t, j := range s.J {
		rows[t] = s.Rows(t)
		sb := math.Sqrt(s.Beta[t])
		for i, v := range j {
			k[off+i] = sb * v * w.invSqrtD[i%P]
		}
		off += len(j)
		s.J[t] = nil
	}
	if !finite(k) {
		return nil, NotPositiveDefinite{Kind: Dual, MinDiag: math.NaN(), NonFinite: true}
	}
	l := w.factorLQ(k)
	var ls mat.Cholesky // S = I + L L^T
	if !factorPlusI(&ls, l, N, blas.NoTrans) || !factorPlusI(&w.b, l, N, blas.Trans) {
		return nil, notPD(Dual)
	}
	tr.LogDet += ls.LogDet()
	if err := betaTracesDual(&ls, rows, s.Beta, tr); err != nil {
		return nil, err
	}
	var lsL mat.TriDense // T = L_S^-1 L: V = T Q D^-1/2 is the woodbury's V
	ls.LTo(&lsL)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lsL.RawTriangular(), blas64.General{Rows: N, Cols: N, Stride: N, Data: l})
	w.alphaTraces(l, s.AlphaOf, s.Alpha, tr)
	return w, nil
}

// stacked returns the array whose consecutive parts js are, in order,
// if they are.
func stacked(js [][]float64) ([]float64, bool) {
	total := 0
	for _, j := range js {
		total += len(j)
	}
	if len(js) == 0 || total == 0 || len(js[0]) == 0 || cap(js[0]) < total {
		return nil, false
	}
	all := js[0][:total]
	off := 0
	for _, j := range js {
		if len(j) > 0 && &all[off] != &j[0] {
			return nil, false
		}
		off += len(j)
	}
	return all, true
}

// factorLQ factorizes k (N x P) as L Q in place, leaving Q in k (w.q),
// and returns L (N x N row-major, zero above the diagonal).
func (w *lqDual) factorLQ(k []float64) []float64 {
	n, p := w.n, w.p
	a := blas64.General{Rows: n, Cols: p, Stride: p, Data: k}
	tau := make([]float64, n)
	work := []float64{0}
	lapack64.Gelqf(a, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Gelqf(a, tau, work, len(work))
	l := make([]float64, n*n)
	for i := range n {
		copy(l[i*n:i*n+i+1], k[i*p:i*p+i+1])
	}
	lapack64.Orglq(a, tau, work[:1], -1)
	if need := int(work[0]); need > len(work) {
		work = make([]float64, need)
	}
	lapack64.Orglq(a, tau, work, len(work))
	w.q = k
	return l
}

// factorPlusI factorizes I + L L^T (NoTrans) or I + L^T L (Trans) of the
// N x N matrix l into ch; false when it does not factorize.
func factorPlusI(ch *mat.Cholesky, l []float64, n int, t blas.Transpose) bool {
	m := make([]float64, n*n)
	if n > 0 {
		blas64.Implementation().Dsyrk(blas.Upper, t, n, n, 1, l, n, 0, m, n)
	}
	for i := range n {
		m[i*n+i]++
	}
	return finite(m) && ch.Factorize(mat.NewSymDense(n, m))
}

// alphaTraces sets tr(A^-1 P_i) = sum_{k in i} (1/d_k - c_k) and
// tr((A^-1 P_i)^2) = sum (1/d_k - 2 c_k)/d_k + |V_i V_i^T|_F^2 (V = T Q
// D^-1/2, c_k = |V e_k|^2, D = alpha_i on group i) from T (N x N) and Q,
// never forming V: c_k by blocks of columns of Q, V_i V_i^T = T (Q_i
// Q_i^T) T^T / alpha_i for a group of more than N weights, else from
// V_i's own columns.
func (w *lqDual) alphaTraces(t []float64, alphaOf []int, alpha []float64, tr *Traces) {
	n, p := w.n, w.p
	members := make([][]int, len(alpha))
	for k, g := range alphaOf {
		members[g] = append(members[g], k)
	}
	for g, ks := range members {
		cols := w.columns(t, ks, min(len(ks), varianceBlock), func(v []float64) {
			ck := dot(v, v) / alpha[g]
			tr.TrAlpha[g] += 1/alpha[g] - ck
			tr.TrSqAlpha[g] += (1/alpha[g] - 2*ck) / alpha[g]
		})
		if len(ks) <= n {
			tr.TrSqAlpha[g] += gramFrob2(cols, n, len(ks)) / (alpha[g] * alpha[g])
			continue
		}
		gq := make([]float64, n*n) // Q_i Q_i^T, from the runs of contiguous columns
		for lo := 0; lo < len(ks); {
			hi := lo + 1
			for hi < len(ks) && ks[hi] == ks[hi-1]+1 {
				hi++
			}
			blas64.Implementation().Dsyrk(blas.Upper, blas.NoTrans, n, hi-lo, 1, w.q[ks[lo]:], p, 1, gq, n)
			lo = hi
		}
		for i := range n {
			for c := range i {
				gq[i*n+c] = gq[c*n+i]
			}
		}
		x, y := make([]float64, n*n), make([]float64, n*n)
		impl := blas64.Implementation()
		impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, t, n, gq, n, 0, x, n)
		impl.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, x, n, t, n, 0, y, n)
		tr.TrSqAlpha[g] += dot(y, y) / (alpha[g] * alpha[g])
	}
}

// columns calls f(T q_k) for each column k in ks of Q, in order, block columns
// at a time, and returns those columns (N x len(ks), row-major) when
// there are at most N of them, nil otherwise.
func (w *lqDual) columns(t []float64, ks []int, block int, f func(tq []float64)) []float64 {
	n, p := w.n, w.p
	var all []float64
	if len(ks) <= n {
		all = make([]float64, n*len(ks))
	}
	qb, y, v := make([]float64, n*block), make([]float64, n*block), make([]float64, n)
	for c0 := 0; c0 < len(ks); c0 += block {
		b := min(block, len(ks)-c0)
		for i := range n {
			for c := range b {
				qb[i*b+c] = w.q[i*p+ks[c0+c]]
			}
		}
		blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, n, b, n, 1, t, n, qb[:n*b], b, 0, y[:n*b], b)
		for c := range b {
			for i := range n {
				v[i] = y[i*b+c]
				if all != nil {
					all[i*len(ks)+c0+c] = v[i]
				}
			}
			f(v)
		}
	}
	return all
}

// variancesTo writes g^T A^-1 g into dst for each row g of the row-major
// m x P matrix J, varianceBlock rows at a time, in the work space s.
func (w *lqDual) variancesTo(dst, J []float64, m int, s *varianceScratch) {
	n, p := w.n, w.p
	impl := blas64.Implementation()
	k := min(m, varianceBlock)
	h, z := s.take(k*p, n*k)
	var lb mat.TriDense
	w.b.LTo(&lb)
	for c0 := 0; c0 < m; c0 += k {
		b := min(k, m-c0)
		hb, zb := h[:b*p], z[:n*b]
		for i, v := range J[c0*p : (c0+b)*p] {
			hb[i] = v * w.invSqrtD[i%p]
		}
		if n > 0 {
			impl.Dgemm(blas.NoTrans, blas.Trans, n, b, p, 1, w.q, p, hb, p, 0, zb, b)                                          // Z = Q H^T
			impl.Dgemm(blas.Trans, blas.NoTrans, b, p, n, -1, zb, b, w.q, p, 1, hb, p)                                         // H - Z^T Q
			blas64.Trsm(blas.Left, blas.NoTrans, 1, lb.RawTriangular(), blas64.General{Rows: n, Cols: b, Stride: b, Data: zb}) // L_B^-1 Z
		}
		for i := range b {
			row := hb[i*p : (i+1)*p]
			v := dot(row, row)
			for r := range n {
				v += zb[r*b+i] * zb[r*b+i]
			}
			dst[c0+i] = v
		}
	}
}

// varianceScratch is variancesTo's work space (a block of rows of D^-1/2 J
// and of Z), kept by a worker for all its blocks: 167 MB at 512 rows of
// 41k weights, which a new one a block would leave to the collector
// beside the residual Jacobian (the beta traces of a Laplace run through
// every residual).
type varianceScratch struct{ h, z []float64 }

// take returns the space for nh and nz values. variancesTo writes every
// value before it reads it.
func (s *varianceScratch) take(nh, nz int) (h, z []float64) {
	if cap(s.h) < nh {
		s.h = make([]float64, nh)
	}
	if cap(s.z) < nz {
		s.z = make([]float64, nz)
	}
	return s.h[:nh], s.z[:nz]
}
