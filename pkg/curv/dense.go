package curv

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// denseTraces forms A from the J_t and factorizes it as NewLaplace does
// (factor), adding its traces to tr (blockDiag calls it on one block at a
// time, hence the sums). Only the beta traces differ: through W = L^-1 J_t^T,
// cheaper than A^-1 H_t while N_t < P.
func denseTraces(s *System, tr *Traces) error {
	P := s.P
	a := mat.NewSymDense(P, nil)
	raw := a.RawSymmetric()
	for k, d := range s.alphaDiag() {
		raw.Data[k*raw.Stride+k] = d
	}
	impl := blas64.Implementation()
	for t, j := range s.J {
		if n := s.Rows(t); n > 0 {
			impl.Dsyrk(blas.Upper, blas.Trans, P, n, s.Beta[t], j, P, 1, raw.Data, raw.Stride)
		}
	}
	l, trSqAlpha, err := factor(a, s.AlphaOf, s.Alpha, s.Beta)
	if err != nil {
		return err
	}
	tr.LogDet += l.LogDetA
	for g, v := range l.TrAlpha {
		tr.TrAlpha[g] += v
		if tr.TrSqAlpha != nil {
			tr.TrSqAlpha[g] += trSqAlpha[g]
		}
	}
	tr.Solve = func(dst, b []float64) {
		x := mat.NewVecDense(P, dst)
		_ = l.Chol.SolveVecTo(x, mat.NewVecDense(P, b)) // A factorized: cannot fail
	}
	var L mat.TriDense
	l.Chol.LTo(&L)
	lr := L.RawTriangular()
	for t, j := range s.J {
		n := s.Rows(t)
		if n == 0 {
			continue
		}
		// W = L^-1 J^T: tr(A^-1 H) = |W|_F^2, tr((A^-1 H)^2) = |W^T W|_F^2.
		w := make([]float64, P*n)
		for i := 0; i < n; i++ {
			for k := 0; k < P; k++ {
				w[k*n+i] = j[i*P+k]
			}
		}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, lr, blas64.General{Rows: P, Cols: n, Stride: n, Data: w})
		tr.TrBeta[t] += dot(w, w)
		if tr.TrSqBeta != nil {
			tr.TrSqBeta[t] += gramFrob2(w, P, n)
		}
	}
	return nil
}

// gramFrob2 returns |M^T M|_F^2 = |M M^T|_F^2 for the row-major r x c
// matrix m, through the smaller Gram matrix.
func gramFrob2(m []float64, r, c int) float64 {
	impl := blas64.Implementation()
	var g []float64
	var n int
	if c <= r {
		n = c
		g = make([]float64, n*n)
		impl.Dsyrk(blas.Upper, blas.Trans, n, r, 1, m, c, 0, g, n)
	} else {
		n = r
		g = make([]float64, n*n)
		impl.Dsyrk(blas.Upper, blas.NoTrans, n, c, 1, m, c, 0, g, n)
	}
	return frob2Upper(g, n)
}

func dot(a, b []float64) float64 {
	return blas64.Implementation().Ddot(len(a), a, 1, b, 1)
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// colSquares returns diag(J^T J) = the column sums of squares of the
// row-major n x P matrix j.
func colSquares(j []float64, P int) []float64 {
	h := make([]float64, P)
	AddColSquares(h, j)
	return h
}

// AddColSquares adds to h the column sums of squares of rows, a row-major
// block of rows len(h) wide: diag(J^T J) summed a block of J's rows at a
// time. Blocks added in the order of the rows give the bits of the whole
// J's sums.
func AddColSquares(h, rows []float64) {
	P := len(h)
	for i := 0; i+P <= len(rows); i += P {
		for k, v := range rows[i : i+P] {
			h[k] += v * v
		}
	}
}
