package curv

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// gnOp applies the Gauss-Newton matrix G = sum_t beta_t J_t^T J_t (plus
// shift, a diagonal, when set) to vectors, counting Jacobian products;
// with scale (a diagonal S) it applies S G S instead, G whitened by the
// prior when S = diag(alpha)^-1/2.
type gnOp struct {
	s     *System
	shift []float64
	scale []float64
	buf   [][]float64 // per group, N_t
	sv    []float64   // S v, with scale
	n     *int
}

func newGNOp(s *System, shift []float64, count *int) *gnOp {
	o := &gnOp{s: s, shift: shift, n: count, buf: make([][]float64, len(s.J))}
	for t := range s.J {
		o.buf[t] = make([]float64, s.Rows(t))
	}
	return o
}

// jv writes J_t v into o.buf[t].
func (o *gnOp) jv(t int, v []float64) []float64 {
	n := o.s.Rows(t)
	if n > 0 {
		blas64.Implementation().Dgemv(blas.NoTrans, n, o.s.P, 1, o.s.J[t], o.s.P, v, 1, 0, o.buf[t], 1)
	}
	*o.n++
	return o.buf[t]
}

// apply writes (G + diag(shift)) v, or S G S v with scale, into dst.
func (o *gnOp) apply(dst, v []float64) {
	if o.scale != nil {
		o.sv = o.sv[:0]
		for k, x := range v {
			o.sv = append(o.sv, o.scale[k]*x)
		}
		v = o.sv
	}
	for k := range dst {
		dst[k] = 0
		if o.shift != nil {
			dst[k] = o.shift[k] * v[k]
		}
	}
	for t := range o.s.J {
		u := o.jv(t, v)
		if n := o.s.Rows(t); n > 0 {
			blas64.Implementation().Dgemv(blas.Trans, n, o.s.P, o.s.Beta[t], o.s.J[t], o.s.P, u, 1, 1, dst, 1)
		}
		*o.n++
	}
	for k, x := range o.scale {
		dst[k] *= x
	}
}

// lowRank approximates G by k steps of Lanczos with full
// reorthogonalization, G ~ U Lambda U^T (Ritz pairs), keeps G's exact
// diagonal by adding what the Ritz part misses, and treats A = D + R^T R
// (R = Lambda^1/2 U^T) by the rank-k Woodbury identity.
func lowRank(s *System, o Options, tr *Traces) error {
	P := s.P
	q, diag, off := lanczos(newGNOp(s, nil, &tr.Products), P, min(o.Rank, P), o.Seed)
	m := len(diag)
	r, ok := ritzRows(q, diag, off, P)
	if !ok {
		return notPD(LowRank)
	}
	d, h := keptDiagonal(s, r, m)
	wb, err := newWoodbury(d, r, m, P)
	if err != nil {
		return notPD(LowRank)
	}
	tr.LogDet, tr.Solve = wb.logDet, wb.solve
	wb.alphaTraces(s.AlphaOf, tr.TrAlpha, nil)
	for t, j := range s.J { // tr(A^-1 H_t) = sum_k h_tk/d_k - |J_t V^T|_F^2
		n := s.Rows(t)
		for kk, x := range h[t] {
			tr.TrBeta[t] += x / d[kk]
		}
		if n > 0 && m > 0 {
			jv := make([]float64, n*m)
			blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, n, m, P, 1, j, P, wb.v, P, 0, jv, m)
			tr.TrBeta[t] -= dot(jv, jv)
			tr.Products += 2 * m
		}
	}
	if tr.TrSqAlpha != nil {
		hutchSquares(s, o, wb.solve, tr)
	}
	return nil
}

// lanczos runs at most k steps of Lanczos on op from a random start,
// reorthogonalizing fully: the basis q and the tridiagonal matrix (diag,
// off). It stops early when G's Krylov space is exhausted.
func lanczos(op *gnOp, P, k int, seed uint64) (q [][]float64, diag, off []float64) {
	return lanczosFrom(op, randomStart(P, seed), k, 1e-12)
}

// randomStart is Lanczos' random start vector.
func randomStart(P int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x1a2c05))
	v := make([]float64, P)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// lanczosFrom is lanczos from the start v (normalized here, then
// overwritten), ending when the next basis vector's norm is at most tol
// times the first Rayleigh quotient.
func lanczosFrom(op *gnOp, v []float64, k int, tol float64) (q [][]float64, diag, off []float64) {
	P := len(v)
	q = make([][]float64, 0, k)
	scale(v, 1/math.Sqrt(dot(v, v)))
	w := make([]float64, P)
	for j := 0; j < k; j++ {
		q = append(q, append([]float64(nil), v...))
		op.apply(w, v)
		diag = append(diag, dot(v, w))
		for pass := 0; pass < 2; pass++ { // full reorthogonalization, twice
			for _, qi := range q {
				axpy(-dot(qi, w), qi, w)
			}
		}
		b := math.Sqrt(dot(w, w))
		if j == k-1 || b <= tol*math.Abs(diag[0]) || b == 0 {
			break // G's Krylov space is exhausted (rank G < k)
		}
		off = append(off, b)
		copy(v, w)
		scale(v, 1/b)
	}
	return q, diag, off
}

// ritzRows factors G ~ R^T R from the Lanczos basis q and tridiagonal
// (diag, off): row i of R (m x P) is sqrt(theta_i) Q s_i, theta_i and s_i the
// Ritz pairs. It reports false when the tridiagonal matrix cannot be
// factorized.
func ritzRows(q [][]float64, diag, off []float64, P int) ([]float64, bool) {
	r, theta, ok := ritzPairs(q, diag, off, P)
	if !ok {
		return nil, false
	}
	for i, th := range theta { // row i: sqrt(theta_i) * (Q s_i)
		scale(r[i*P:i*P+P], math.Sqrt(math.Max(th, 0)))
	}
	return r, true
}

// ritzPairs are the Ritz values theta_i (ascending) and vectors Q s_i
// (rows of u, m x P, orthonormal) of the Lanczos basis q and tridiagonal
// (diag, off); false when the tridiagonal matrix cannot be factorized.
func ritzPairs(q [][]float64, diag, off []float64, P int) (u, theta []float64, ok bool) {
	m := len(diag)
	var eig mat.EigenSym
	if !eig.Factorize(tridiagonal(diag, off), true) {
		return nil, nil, false
	}
	theta = eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	u = make([]float64, m*P)
	for i := 0; i < m; i++ {
		row := u[i*P : i*P+P]
		for j := 0; j < m; j++ {
			axpy(vecs.At(j, i), q[j], row)
		}
	}
	return u, theta, true
}

// keptDiagonal is the diagonal D = alpha + diag(G) - diag(R^T R), at least
// alpha, that keeps G's exact diagonal beside the rank-m part R (m x P), and
// each group's column squares h[t] = diag(J_t^T J_t).
func keptDiagonal(s *System, r []float64, m int) (d []float64, h [][]float64) {
	P := s.P
	h = make([][]float64, len(s.J))
	d = s.alphaDiag()
	for t, j := range s.J {
		h[t] = colSquares(j, P)
		for kk := range d {
			d[kk] += s.Beta[t] * h[t][kk]
		}
	}
	for i := 0; i < m; i++ { // keep G's diagonal: D = alpha + diag(G) - diag(R^T R)
		for kk, x := range r[i*P : i*P+P] {
			d[kk] -= x * x
		}
	}
	for kk := range d {
		d[kk] = math.Max(d[kk], s.Alpha[s.AlphaOf[kk]])
	}
	return d, h
}

// hutchSquares estimates tr((A^-1 P_i)^2) and tr((A^-1 H_t)^2) by
// Hutchinson's estimator with Rademacher probes z:
// E[(A^-1 z)^T M A^-1 M z] = tr((A^-1 M)^2) for symmetric M.
func hutchSquares(s *System, o Options, solve func(dst, b []float64), tr *Traces) {
	P := s.P
	op := newGNOp(s, nil, &tr.Products)
	rng := rand.New(rand.NewPCG(o.Seed, 0x5c0a2e))
	z, x, y, mz := make([]float64, P), make([]float64, P), make([]float64, P), make([]float64, P)
	for range o.Probes {
		rademacher(rng, z)
		solve(x, z)
		for g := range tr.TrSqAlpha {
			for k := range mz {
				mz[k] = 0
				if s.AlphaOf[k] == g {
					mz[k] = z[k]
				}
			}
			solve(y, mz)
			for k, a := range s.AlphaOf {
				if a == g {
					tr.TrSqAlpha[g] += x[k] * y[k] / float64(o.Probes)
				}
			}
		}
		for t := range s.J {
			hz := make([]float64, P)
			u := op.jv(t, z)
			if n := s.Rows(t); n > 0 {
				blas64.Implementation().Dgemv(blas.Trans, n, P, 1, s.J[t], P, u, 1, 0, hz, 1)
			}
			solve(y, hz)
			jx := append([]float64(nil), op.jv(t, x)...)
			tr.TrSqBeta[t] += dot(jx, op.jv(t, y)) / float64(o.Probes)
		}
	}
}

func rademacher(rng *rand.Rand, z []float64) {
	for i := range z {
		z[i] = 1
		if rng.Uint64()&1 == 0 {
			z[i] = -1
		}
	}
}

func scale(v []float64, a float64) {
	for i := range v {
		v[i] *= a
	}
}

// axpy: y += a x.
func axpy(a float64, x, y []float64) {
	blas64.Implementation().Daxpy(len(x), a, x, 1, y, 1)
}
