package band

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/internal/dense"
)

// maxDeflated is the most directions below the cutoff that leastSquares
// removes by inverse iteration (deflated); with more it rotates the
// bidiagonal's full SVD into its right singular vectors instead.
const maxDeflated = 16

// leastSquares is the minimum-norm x of |A x - b| over the directions
// whose singular value exceeds rcond times the largest, A's columns scaled
// to unit norm first (a truncated SVD). A tall A is bidiagonalized, A = Q
// B P^T, as LAPACK's xGELSS does, and the step solved in B: with at most
// maxDeflated singular values at or below the cutoff, those directions are
// found by inverse iteration and projected out of a bidiagonal solve
// (solveDeflated); with more, or where that does not converge, by B's SVD
// (solveSVD). A is overwritten.
func leastSquares(A *mat.Dense, b []float64, rcond float64) ([]float64, error) {
	n, c := A.Dims()
	if n < c { // the estimate has more residuals than columns; anything else is a wider problem
		return leastSquaresSVD(A, b, rcond)
	}
	scale := columnScale(A)
	bd := bidiagonalize(A, b)
	x, ok := bd.solveDeflated(rcond)
	if !ok {
		var err error
		if x, err = bd.solveSVD(rcond); err != nil {
			return nil, err
		}
	}
	for j := range x {
		x[j] /= scale[j]
	}
	return x, nil
}

// bidiagonal is a tall A bidiagonalized by gebrd (Dgebrd's bits), A = Q
// B P^T, with Q^T b.
type bidiagonal struct {
	n, c       int
	a          []float64 // Dgebrd's reflectors (A's storage)
	lda        int
	d, e       []float64 // B's diagonal and superdiagonal
	tauQ, tauP []float64
	qb         []float64 // Q^T b: its first c values are B's right-hand side
	work       []float64
}

// bidiagonalize reduces the n x c matrix A (n >= c) to upper bidiagonal
// form in place and applies Q^T to b (a copy).
func bidiagonalize(A *mat.Dense, b []float64) *bidiagonal {
	n, c := A.Dims()
	raw := A.RawMatrix()
	bd := &bidiagonal{n: n, c: c, a: raw.Data, lda: raw.Stride,
		d: make([]float64, c), e: make([]float64, c), tauQ: make([]float64, c), tauP: make([]float64, c)}
	impl := lapackgo.Implementation{}
	work := make([]float64, 1)
	impl.Dgebrd(n, c, bd.a, bd.lda, bd.d, bd.e, bd.tauQ, bd.tauP, work, -1)
	lwork := int(work[0])
	impl.Dormbr(lapack.ApplyQ, blas.Left, blas.Trans, n, 1, c, bd.a, bd.lda, bd.tauQ, nil, 1, work, -1)
	lwork = max(lwork, int(work[0]))
	impl.Dormbr(lapack.ApplyP, blas.Left, blas.NoTrans, c, 1, n, bd.a, bd.lda, bd.tauP, nil, 1, work, -1)
	lwork = max(lwork, int(work[0]))
	impl.Dorgbr(lapack.GeneratePT, c, c, n, bd.a, bd.lda, bd.tauP, work, -1)
	lwork = max(lwork, int(work[0]), 4*c)
	bd.work = make([]float64, lwork)
	gebrd(n, c, bd.a, bd.lda, bd.d, bd.e, bd.tauQ, bd.tauP, bd.work)
	bd.qb = slices.Clone(b)
	impl.Dormbr(lapack.ApplyQ, blas.Left, blas.Trans, n, 1, c, bd.a, bd.lda, bd.tauQ, bd.qb, 1, bd.work, len(bd.work))
	return bd
}

// gebrd is gonum's Dgebrd for an m x n matrix, m >= n, with work of the
// length its query gives: the same blocks of nb columns (labrd, Dlabrd's
// bits), each followed by the trailing update A -= V Y^T + X U^T, and the
// unblocked rest (Dgebd2). The update, two Dgemm in gonum, is done row by
// row by internal/dense in the same sums (dense.SubDots, then
// dense.AddRows with the coefficients -X), so the bits are Dgebrd's, in
// about two thirds of its CPU time on the estimate's matrices
// (BenchmarkGebrd).
func gebrd(m, n int, a []float64, lda int, d, e, tauQ, tauP, work []float64) {
	impl := lapackgo.Implementation{}
	nb := impl.Ilaenv(1, "DGEBRD", " ", m, n, -1, -1)
	nx := n
	if 1 < nb && nb < n {
		nx = max(nb, impl.Ilaenv(3, "DGEBRD", " ", m, n, -1, -1))
	}
	if m < n || nb > gemmBlock || len(work) < (m+n)*nb {
		impl.Dgebrd(m, n, a, lda, d, e, tauQ, tauP, work, len(work))
		return
	}
	neg := make([]float64, nb)
	i := 0
	for ; i < n-nx; i += nb {
		x, y := work[:m*nb], work[m*nb:]
		labrd(m-i, n-i, nb, a[i*lda+i:], lda, d[i:], e[i:], tauQ[i:], tauP[i:], x, nb, y, nb)
		for r := i + nb; r < m; r++ {
			row := a[r*lda+i+nb : r*lda+n]
			dense.SubDots(row, a[r*lda+i:r*lda+i+nb], y[nb*nb:], nb)
			for l, v := range x[(r-i)*nb : (r-i+1)*nb] {
				neg[l] = -v
			}
			dense.AddRows(row, neg, a, i*lda+i+nb, lda)
		}
		for j := i; j < i+nb; j++ {
			a[j*lda+j] = d[j]
			a[j*lda+j+1] = e[j]
		}
	}
	impl.Dgebd2(m-i, n-i, a[i*lda+i:], lda, d[i:], e[i:], tauQ[i:], tauP[i:], work)
}

// labrd is gonum's Dlabrd for m >= n (the first nb columns and rows of
// a reduced, with the X and Y of the trailing update) with its product of
// the trailing matrix and each column's left reflector, a Dgemv(Trans)
// over the whole rest of a, by dense.AddRowsEvery in the same sums (its
// largest cost, run four rows at a time): the bits of Dlabrd.
func labrd(m, n, nb int, a []float64, lda int, d, e, tauQ, tauP, x []float64, ldx int, y []float64, ldy int) {
	impl := lapackgo.Implementation{}
	bi := blas64.Implementation()
	u, yt := make([]float64, m), make([]float64, n)
	for i := 0; i < nb; i++ {
		bi.Dgemv(blas.NoTrans, m-i, i, -1, a[i*lda:], lda, y[i*ldy:], 1, 1, a[i*lda+i:], lda)
		bi.Dgemv(blas.NoTrans, m-i, i, -1, x[i*ldx:], ldx, a[i:], lda, 1, a[i*lda+i:], lda)
		a[i*lda+i], tauQ[i] = impl.Dlarfg(m-i, a[i*lda+i], a[min(i+1, m-1)*lda+i:], lda)
		d[i] = a[i*lda+i]
		if i == n-1 {
			continue
		}
		a[i*lda+i] = 1
		// Y[i+1:, i] = A[i:, i+1:]^T A[i:, i], gonum's Dgemv(Trans, ..., 0, y[(i+1)*ldy+i:], ldy)
		for r := range m - i {
			u[r] = a[(i+r)*lda+i]
		}
		yi := yt[:n-i-1]
		clear(yi)
		dense.AddRowsEvery(yi, u[:m-i], a, i*lda+i+1, lda)
		for j, v := range yi {
			y[(i+1+j)*ldy+i] = v
		}
		bi.Dgemv(blas.Trans, m-i, i, 1, a[i*lda:], lda, a[i*lda+i:], lda, 0, y[i:], ldy)
		bi.Dgemv(blas.NoTrans, n-i-1, i, -1, y[(i+1)*ldy:], ldy, y[i:], ldy, 1, y[(i+1)*ldy+i:], ldy)
		bi.Dgemv(blas.Trans, m-i, i, 1, x[i*ldx:], ldx, a[i*lda+i:], lda, 0, y[i:], ldy)
		bi.Dgemv(blas.Trans, i, n-i-1, -1, a[i+1:], lda, y[i:], ldy, 1, y[(i+1)*ldy+i:], ldy)
		bi.Dscal(n-i-1, tauQ[i], y[(i+1)*ldy+i:], ldy)

		bi.Dgemv(blas.NoTrans, n-i-1, i+1, -1, y[(i+1)*ldy:], ldy, a[i*lda:], 1, 1, a[i*lda+i+1:], 1)
		bi.Dgemv(blas.Trans, i, n-i-1, -1, a[i+1:], lda, x[i*ldx:], 1, 1, a[i*lda+i+1:], 1)
		a[i*lda+i+1], tauP[i] = impl.Dlarfg(n-i-1, a[i*lda+i+1], a[i*lda+min(i+2, n-1):], 1)
		e[i] = a[i*lda+i+1]
		a[i*lda+i+1] = 1

		bi.Dgemv(blas.NoTrans, m-i-1, n-i-1, 1, a[(i+1)*lda+i+1:], lda, a[i*lda+i+1:], 1, 0, x[(i+1)*ldx+i:], ldx)
		bi.Dgemv(blas.Trans, n-i-1, i+1, 1, y[(i+1)*ldy:], ldy, a[i*lda+i+1:], 1, 0, x[i:], ldx)
		bi.Dgemv(blas.NoTrans, m-i-1, i+1, -1, a[(i+1)*lda:], lda, x[i:], ldx, 1, x[(i+1)*ldx+i:], ldx)
		bi.Dgemv(blas.NoTrans, i, n-i-1, 1, a[i+1:], lda, a[i*lda+i+1:], 1, 0, x[i:], ldx)
		bi.Dgemv(blas.NoTrans, m-i-1, i, -1, x[(i+1)*ldx:], ldx, x[i:], ldx, 1, x[(i+1)*ldx+i:], ldx)
		bi.Dscal(m-i-1, tauP[i], x[(i+1)*ldx+i:], ldx)
	}
}

// gemmBlock is gonum's Dgemm's block of the inner dimension: up to it a
// product's sums run in one pass, as gebrd's update repeats them.
const gemmBlock = 64

// solveSVD is the truncated solution through B's SVD: its left rotations
// applied to Q^T b, its right ones to P^T (xGELSS). It consumes bd.
func (bd *bidiagonal) solveSVD(rcond float64) ([]float64, error) {
	impl := lapackgo.Implementation{}
	a, lda, c, d := bd.a, bd.lda, bd.c, bd.d
	impl.Dorgbr(lapack.GeneratePT, c, c, bd.n, a, lda, bd.tauP, bd.work, len(bd.work)) // P^T in A's first c rows
	if !impl.Dbdsqr(blas.Upper, c, c, 0, 1, d, bd.e, a, lda, nil, 1, bd.qb, 1, bd.work) {
		return nil, errSVD
	}
	x := make([]float64, c)
	for k, s := range d {
		if !(s > rcond*d[0]) {
			break
		}
		uk := bd.qb[k] / s
		for j, v := range a[k*lda : k*lda+c] {
			x[j] += uk * v
		}
	}
	return x, nil
}

// solveDeflated is the truncated solution without B's singular vectors:
// B's singular values alone (dqds) give the directions to drop; the
// dropped singular vectors (smallestSingular) are projected out of B's
// right-hand side, B z = that is solved by substitution, the same
// directions projected out of z, and x = P z. In exact arithmetic it is
// solveSVD's x. ok is false, bd untouched, where more than maxDeflated
// directions are dropped, the iteration does not converge or the solve is
// not finite.
func (bd *bidiagonal) solveDeflated(rcond float64) (x []float64, ok bool) {
	c := bd.c
	sv, e := slices.Clone(bd.d), slices.Clone(bd.e)
	if !(lapackgo.Implementation{}).Dbdsqr(blas.Upper, c, 0, 0, 0, sv, e, nil, 1, nil, 1, nil, 1, bd.work) {
		return nil, false
	}
	drop := 0
	for _, s := range sv {
		if !(s > rcond*sv[0]) {
			drop++
		}
	}
	if drop > maxDeflated {
		return nil, false
	}
	z := slices.Clone(bd.qb[:c])
	var U, V [][]float64
	if drop > 0 {
		if U, V, ok = smallestSingular(bd.d, bd.e[:c-1], drop); !ok {
			return nil, false
		}
		projectOut(z, U)
	}
	bidiagonalSolve(bd.d, bd.e[:c-1], z)
	projectOut(z, V)
	if !allFinite(z) {
		return nil, false
	}
	x = make([]float64, c)
	copy(x, z)
	(lapackgo.Implementation{}).Dormbr(lapack.ApplyP, blas.Left, blas.NoTrans, c, 1, bd.n, bd.a, bd.lda, bd.tauP, x, 1, bd.work, len(bd.work))
	return x, true
}

// bidiagonalSolve solves B z = r in place for the upper bidiagonal B of
// diagonal d and superdiagonal e (back substitution).
func bidiagonalSolve(d, e, r []float64) {
	c := len(d)
	r[c-1] /= d[c-1]
	for i := c - 2; i >= 0; i-- {
		r[i] = (r[i] - e[i]*r[i+1]) / d[i]
	}
}

// bidiagonalSolveT solves B^T y = r in place (forward substitution).
func bidiagonalSolveT(d, e, r []float64) {
	r[0] /= d[0]
	for i := 1; i < len(d); i++ {
		r[i] = (r[i] - e[i-1]*r[i-1]) / d[i]
	}
}

// smallestSingular returns the k smallest singular triplets' vectors of
// the upper bidiagonal B (diagonal d, superdiagonal e), U[j] and V[j]
// with B V[j] = s_j U[j]: inverse iteration on B^T B with a block of
// k+deflationGuard vectors, each step followed by a Rayleigh-Ritz step
// (ritz), until the V[j] move by less than deflationTol (the sine of the
// largest angle between their spans) from one step to the next; ok is
// false where that takes more than deflationSteps steps or a step is not
// finite. Each step is a substitution in B and B^T per vector, so the
// iteration costs a few of B's sizes squared, far less than B's
// singular vectors.
func smallestSingular(d, e []float64, k int) (U, V [][]float64, ok bool) {
	c := len(d)
	rng := rand.New(rand.NewPCG(1, 2))
	block := make([][]float64, min(c, k+deflationGuard))
	for j := range block {
		block[j] = make([]float64, c)
		for i := range block[j] {
			block[j][i] = rng.NormFloat64()
		}
	}
	for range deflationSteps {
		for _, v := range block {
			bidiagonalSolveT(d, e, v)
			bidiagonalSolve(d, e, v)
		}
		if !orthonormalize(block) {
			return nil, nil, false
		}
		prev := V
		if U, V, ok = ritz(d, e, block, k); !ok {
			return nil, nil, false
		}
		if prev != nil && moved(V, prev) <= deflationTol {
			return U, V, true
		}
	}
	return nil, nil, false
}

const (
	// deflationGuard is the vectors smallestSingular iterates beyond the k
	// it returns: the k converge at the ratio of the k-th smallest
	// singular value to the (k+deflationGuard+1)-th, squared, each step.
	deflationGuard = 4
	// deflationSteps is the most inverse-iteration steps.
	deflationSteps = 100
	// deflationTol is the move of the vectors at which the iteration has
	// converged (on the estimate's heat matrices, 3e-12 after 7 steps,
	// 1e-14 after 9, where rounding stops it).
	deflationTol = 1e-12
)

// ritz is the Rayleigh-Ritz step on the orthonormal block: the SVD of
// W = B [block] gives the k smallest Ritz triplets' vectors, U[j] = W y_j
// / s_j and V[j] = [block] y_j; ok is false where that SVD fails.
func ritz(d, e []float64, block [][]float64, k int) (U, V [][]float64, ok bool) {
	c, m := len(d), len(block)
	W := mat.NewDense(c, m, nil)
	for j, v := range block {
		for i := range c {
			w := d[i] * v[i]
			if i < c-1 {
				w += e[i] * v[i+1]
			}
			W.Set(i, j, w)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(W, mat.SVDThin) {
		return nil, nil, false
	}
	var Uw, Y mat.Dense
	svd.UTo(&Uw)
	svd.VTo(&Y)
	for j := m - k; j < m; j++ {
		v := make([]float64, c)
		for l, b := range block {
			floats.AddScaled(v, Y.At(l, j), b)
		}
		U, V = append(U, mat.Col(nil, j, &Uw)), append(V, v)
	}
	return U, V, true
}

// moved is how far the span of the orthonormal vs lies from that of prev:
// the largest norm of a v with its components along prev removed.
func moved(vs, prev [][]float64) float64 {
	var out float64
	for _, v := range vs {
		w := slices.Clone(v)
		projectOut(w, prev)
		n := floats.Norm(w, 2)
		if math.IsNaN(n) {
			return n
		}
		out = max(out, n)
	}
	return out
}

// orthonormalize makes the vectors orthonormal in place (modified
// Gram-Schmidt, twice); false where one is dependent on the others.
func orthonormalize(vs [][]float64) bool {
	for j, v := range vs {
		for range 2 {
			for _, q := range vs[:j] {
				floats.AddScaled(v, -floats.Dot(q, v), q)
			}
			n := floats.Norm(v, 2)
			if !(n > 0) || math.IsInf(n, 0) {
				return false
			}
			floats.Scale(1/n, v)
		}
	}
	return true
}

// projectOut removes from z its components along the orthonormal qs.
func projectOut(z []float64, qs [][]float64) {
	for _, q := range qs {
		floats.AddScaled(z, -floats.Dot(q, z), q)
	}
}

// allFinite reports whether every value is finite.
func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// leastSquaresSVD is leastSquares by gonum's thin SVD, the left singular
// vectors formed.
func leastSquaresSVD(A *mat.Dense, b []float64, rcond float64) ([]float64, error) {
	n, c := A.Dims()
	scale := columnScale(A)
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, errSVD
	}
	sv := svd.Values(nil)
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	bv := mat.NewVecDense(n, b)
	x := make([]float64, c)
	for k, s := range sv {
		if !(s > rcond*sv[0]) {
			break
		}
		uk := mat.Dot(U.ColView(k), bv) / s
		for j := range x {
			x[j] += uk * V.At(j, k)
		}
	}
	for j := range x {
		x[j] /= scale[j]
	}
	return x, nil
}

// columnScale scales A's columns to unit norm (a zero column is left) and
// returns the norms it divided by. It sums the squares row by row, as A is
// stored.
func columnScale(A *mat.Dense) []float64 {
	n, c := A.Dims()
	scale := make([]float64, c)
	for i := 0; i < n; i++ {
		for j, v := range A.RawRowView(i) {
			scale[j] += v * v
		}
	}
	for j, s := range scale {
		if scale[j] = math.Sqrt(s); scale[j] == 0 {
			scale[j] = 1
		}
	}
	for i := 0; i < n; i++ {
		row := A.RawRowView(i)
		for j := range row {
			row[j] /= scale[j]
		}
	}
	return scale
}

// errSVD is leastSquares' error when gonum's SVD does not converge.
var errSVD = errors.New("error estimate: the SVD did not converge")
