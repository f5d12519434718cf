package curv

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// woodbury is A = D + R^T R (D diagonal P x P, R n x P) through the n x n
// matrix S = I + R D^-1 R^T = L L^T:
//
//	ln|A| = ln|D| + ln|S|,  A^-1 = D^-1 - V^T V,  V = L^-1 R D^-1.
//
// newWoodbury turns R into V in place: at 10^4-10^5 weights the n x P
// matrix is the memory that counts, and one copy of it is what the
// structure keeps for the band.
type woodbury struct {
	d      []float64
	n, p   int
	ch     mat.Cholesky
	v      []float64 // n x P
	colSq  []float64 // |V e_k|^2: diag(A^-1)_k = 1/d_k - colSq_k
	logDet float64
	tmp    []float64 // n
}

func newWoodbury(d, r []float64, n, P int) (*woodbury, error) {
	w := &woodbury{d: d, n: n, p: P, tmp: make([]float64, n), colSq: make([]float64, P)}
	for _, v := range d {
		if !(v > 0) {
			return nil, notPD(Dual)
		}
		w.logDet += math.Log(v)
	}
	rs := r // R D^-1/2, in place: r is newWoodbury's to overwrite (N x P is the memory that counts)
	for i := 0; i < n; i++ {
		for k := 0; k < P; k++ {
			rs[i*P+k] = r[i*P+k] / math.Sqrt(d[k])
		}
	}
	s := make([]float64, n*n)
	if n > 0 {
		blas64.Implementation().Dsyrk(blas.Upper, blas.NoTrans, n, P, 1, rs, P, 0, s, n)
	}
	for i := 0; i < n; i++ {
		s[i*n+i]++
	}
	if !finite(s) || !w.ch.Factorize(mat.NewSymDense(n, s)) {
		return nil, notPD(Dual)
	}
	w.logDet += w.ch.LogDet()
	for i := 0; i < n; i++ { // V = L^-1 (R D^-1 = R D^-1/2 D^-1/2)
		for k := 0; k < P; k++ {
			rs[i*P+k] /= math.Sqrt(d[k])
		}
	}
	if n > 0 {
		var L mat.TriDense
		w.ch.LTo(&L)
		blas64.Trsm(blas.Left, blas.NoTrans, 1, L.RawTriangular(), blas64.General{Rows: n, Cols: P, Stride: P, Data: rs})
	}
	w.v = rs
	for i := 0; i < n; i++ {
		for k, x := range rs[i*P : i*P+P] {
			w.colSq[k] += x * x
		}
	}
	return w, nil
}

// solve writes A^-1 b into dst.
func (w *woodbury) solve(dst, b []float64) {
	impl := blas64.Implementation()
	if w.n > 0 {
		impl.Dgemv(blas.NoTrans, w.n, w.p, 1, w.v, w.p, b, 1, 0, w.tmp, 1)
	}
	for k, x := range b {
		dst[k] = x / w.d[k]
	}
	if w.n > 0 {
		impl.Dgemv(blas.Trans, w.n, w.p, -1, w.v, w.p, w.tmp, 1, 1, dst, 1)
	}
}

// alphaTraces adds tr(A^-1 P_i) and, when sq is not nil,
// tr((A^-1 P_i)^2) = sum_{a,b in i} (D^-1 - V^T V)_ab^2 to tr.
func (w *woodbury) alphaTraces(alphaOf []int, trA, sq []float64) {
	for k, g := range alphaOf {
		trA[g] += 1/w.d[k] - w.colSq[k]
	}
	if sq == nil {
		return
	}
	members := make([][]int, len(trA))
	for k, g := range alphaOf {
		members[g] = append(members[g], k)
		sq[g] += (1/w.d[k] - 2*w.colSq[k]) / w.d[k]
	}
	for g, ks := range members {
		sq[g] += w.gramFrob2(ks)
	}
}

// gramFrob2 is |V_g^T V_g|_F^2 for the columns ks (ascending) of V: from
// a copy of those columns while they are at most n (the smaller Gram
// matrix), else from the n x n Gram V_g V_g^T summed over the runs of
// contiguous columns in place, so that a group of 10^4 weights is not
// copied.
func (w *woodbury) gramFrob2(ks []int) float64 {
	if len(ks) <= w.n {
		vg := make([]float64, w.n*len(ks))
		for i := 0; i < w.n; i++ {
			for c, k := range ks {
				vg[i*len(ks)+c] = w.v[i*w.p+k]
			}
		}
		return gramFrob2(vg, w.n, len(ks))
	}
	n := w.n
	g := make([]float64, n*n)
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi] == ks[hi-1]+1 {
			hi++
		}
		blas64.Implementation().Dsyrk(blas.Upper, blas.NoTrans, n, hi-lo, 1, w.v[ks[lo]:], w.p, 1, g, n)
		lo = hi
	}
	return frob2Upper(g, n)
}

// frob2Upper is |G|_F^2 of the symmetric n x n matrix whose upper
// triangle g holds.
func frob2Upper(g []float64, n int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		s += g[i*n+i] * g[i*n+i]
		for k := i + 1; k < n; k++ {
			s += 2 * g[i*n+k] * g[i*n+k]
		}
	}
	return s
}

// dual is the exact Woodbury form with R = the stacked sqrt(beta_t) J_t:
// J A^-1 J^T = I - S^-1 on the beta-weighted rows, so beta_t tr(A^-1 H_t)
// = N_t - tr_t(S^-1) and beta_t^2 tr((A^-1 H_t)^2) = |(I - S^-1)_tt|_F^2.
func dual(s *System, tr *Traces) error {
	P, N := s.P, s.N()
	r := make([]float64, 0, N*P)
	for t, j := range s.J {
		sb := math.Sqrt(s.Beta[t])
		for _, v := range j {
			r = append(r, sb*v)
		}
	}
	w, err := newWoodbury(s.alphaDiag(), r, N, P)
	if err != nil {
		return err
	}
	tr.LogDet, tr.Solve = w.logDet, w.solve
	w.alphaTraces(s.AlphaOf, tr.TrAlpha, tr.TrSqAlpha)
	rows := make([]int, len(s.J))
	for t := range s.J {
		rows[t] = s.Rows(t)
	}
	return betaTracesDual(&w.ch, rows, s.Beta, tr)
}

// betaTracesDual sets beta_t tr(A^-1 H_t) = N_t - tr_t(S^-1) and, when
// tr.TrSqBeta is not nil, beta_t^2 tr((A^-1 H_t)^2) = |(I - S^-1)_tt|_F^2
// from the factor ch of S (the beta groups' rows, rows[t] of them, in
// order).
func betaTracesDual(ch *mat.Cholesky, rows []int, beta []float64, tr *Traces) error {
	var sinv mat.SymDense
	if err := ch.InverseTo(&sinv); err != nil {
		return notPD(Dual)
	}
	off := 0
	for t, n := range rows {
		b := beta[t]
		d, sq := 0.0, 0.0
		for i := off; i < off+n; i++ {
			d += sinv.At(i, i)
			if tr.TrSqBeta == nil {
				continue
			}
			for k := off; k < off+n; k++ {
				m := -sinv.At(i, k)
				if i == k {
					m++
				}
				sq += m * m
			}
		}
		tr.TrBeta[t] = (float64(n) - d) / b
		if tr.TrSqBeta != nil {
			tr.TrSqBeta[t] = sq / (b * b)
		}
		off += n
	}
	return nil
}
