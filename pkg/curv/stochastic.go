package curv

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// stochastic estimates every trace by Hutchinson and ln|A| by stochastic
// Lanczos quadrature, both from one Jacobi-preconditioned conjugate-gradient
// solve per Rademacher probe z. With M = diag(A) and Ã = M^-1/2 A M^-1/2,
// the solve x = A^-1 M^1/2 z runs Lanczos on Ã from z; its tridiagonal T
// (from the CG coefficients) gives z^T ln(Ã) z ~ |z|^2 e1^T ln(T) e1, so
// ln|A| = ln|M| + tr ln Ã. Traces by similarity:
// tr(P_i A^-1) = E[(M^-1/2 P_i z)^T x] and tr(A^-1 H_t) = E[(J_t x).(J_t M^-1/2 z)].
func stochastic(s *System, o Options, tr *Traces) error {
	P := s.P
	m := s.alphaDiag()
	for t, j := range s.J {
		for k, h := range colSquares(j, P) {
			m[k] += s.Beta[t] * h
		}
	}
	for _, v := range m {
		if !(v > 0) || math.IsInf(v, 0) {
			return notPD(Stochastic)
		}
		tr.LogDet += math.Log(v)
	}
	op := newGNOp(s, s.alphaDiag(), &tr.Products)
	cg := newPCG(op, m, o)
	rng := rand.New(rand.NewPCG(o.Seed, 0x57a0c))
	z, b, x, zs := make([]float64, P), make([]float64, P), make([]float64, P), make([]float64, P)
	inv := 1 / float64(o.Probes)
	for range o.Probes {
		rademacher(rng, z)
		for k := range b {
			b[k] = math.Sqrt(m[k]) * z[k]
			zs[k] = z[k] / math.Sqrt(m[k])
		}
		diag, off := cg.solve(x, b)
		q, err := slq(diag, off)
		if err != nil {
			return err
		}
		tr.LogDet += float64(P) * q * inv
		for k, g := range s.AlphaOf {
			tr.TrAlpha[g] += zs[k] * x[k] * inv
		}
		for t := range s.J {
			jx := append([]float64(nil), op.jv(t, x)...)
			tr.TrBeta[t] += dot(jx, op.jv(t, zs)) * inv
		}
	}
	tr.Solve = func(dst, b []float64) { cg.solve(dst, b) }
	if tr.TrSqAlpha != nil {
		hutchSquares(s, o, tr.Solve, tr)
	}
	return nil
}

// slq returns e1^T ln(T) e1 for the Lanczos tridiagonal T.
func slq(diag, off []float64) (float64, error) {
	var eig mat.EigenSym
	if !eig.Factorize(tridiagonal(diag, off), true) {
		return 0, notPD(Stochastic)
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	q := 0.0
	for i, th := range eig.Values(nil) {
		if !(th > 0) {
			return 0, notPD(Stochastic)
		}
		tau := vecs.At(0, i)
		q += tau * tau * math.Log(th)
	}
	return q, nil
}

// pcg solves A x = b by conjugate gradients preconditioned by diag(m).
type pcg struct {
	op          *gnOp
	m           []float64
	o           Options
	r, z, p, ap []float64
}

func newPCG(op *gnOp, m []float64, o Options) *pcg {
	P := len(m)
	return &pcg{op: op, m: m, o: o, r: make([]float64, P), z: make([]float64, P), p: make([]float64, P), ap: make([]float64, P)}
}

// solve writes A^-1 b into x and returns the Lanczos tridiagonal of the
// preconditioned matrix (diagonal, off-diagonal) that the run built.
func (c *pcg) solve(x, b []float64) (diag, off []float64) {
	copy(c.r, b)
	for k := range x {
		x[k] = 0
		c.z[k] = c.r[k] / c.m[k]
	}
	copy(c.p, c.z)
	rz := dot(c.r, c.z)
	rz0 := rz
	var prevAlpha, prevBeta float64
	for j := 0; j < c.o.Steps && rz > 0; j++ {
		c.op.apply(c.ap, c.p)
		alpha := rz / dot(c.p, c.ap)
		d := 1 / alpha
		if j > 0 {
			d += prevBeta / prevAlpha
			off = append(off, math.Sqrt(prevBeta)/prevAlpha)
		}
		diag = append(diag, d)
		axpy(alpha, c.p, x)
		axpy(-alpha, c.ap, c.r)
		for k := range c.z {
			c.z[k] = c.r[k] / c.m[k]
		}
		next := dot(c.r, c.z)
		beta := next / rz
		rz = next
		if math.Sqrt(rz/rz0) < c.o.Tol {
			break
		}
		for k := range c.p {
			c.p[k] = c.z[k] + beta*c.p[k]
		}
		prevAlpha, prevBeta = alpha, beta
	}
	return diag, off
}

// tridiagonal is the symmetric tridiagonal matrix of Lanczos: diag on the
// diagonal, off beside it (len(off) >= len(diag)-1).
func tridiagonal(diag, off []float64) *mat.SymDense {
	n := len(diag)
	t := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		t.SetSym(i, i, diag[i])
		if i+1 < n {
			t.SetSym(i, i+1, off[i])
		}
	}
	return t
}
