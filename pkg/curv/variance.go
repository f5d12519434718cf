package curv

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Sigmas returns sigma = sqrt(g^T A^-1 g) for each of the n rows g of J
// (n x P, row-major; bayes.Fit.Jacobian).
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
//
// Under Dual, g^T A^-1 g = |h - Q^T Q h|^2 + z^T (I + L^T L)^-1 z (h =
// D^-1/2 g, z = Q h; lqDual), the points in blocks of varianceBlock rows
// (two products with Q each), the blocks to the threads in turn: O(N P)
// per point.
func (l *Laplace) VariancesTo(dst, J []float64, n int) {
	P := l.P()
	if len(J) != n*P || len(dst) != n {
		panic(fmt.Sprintf("curv: VariancesTo: J has %d values for %dx%d, dst %d", len(J), n, P, len(dst)))
	}
	if l.dual != nil {
		l.dualVariancesTo(dst, J, n)
		return
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
	if l.dual != nil {
		v := []float64{0}
		l.dual.variancesTo(v, g, 1, &varianceScratch{})
		return v[0]
	}
	v := mat.NewVecDense(len(g), append([]float64(nil), g...))
	x := mat.NewVecDense(len(g), nil)
	if err := l.Chol.SolveVecTo(x, v); err != nil {
		return math.NaN()
	}
	return mat.Dot(v, x)
}

// P is the number of parameters of A.
func (l *Laplace) P() int {
	if l.dual != nil {
		return l.dual.p
	}
	return l.Chol.SymmetricDim()
}

// dualVariancesTo is VariancesTo under Dual: blocks of varianceBlock
// points to the threads in turn, each block's variances the same bits on
// any number of threads.
func (l *Laplace) dualVariancesTo(dst, J []float64, n int) {
	P, k, t := l.dual.p, min(n, varianceBlock), l.pool.Threads()
	l.pool.Run(func(w int) {
		var s varianceScratch
		for c0 := w * k; c0 < n; c0 += t * k {
			m := min(k, n-c0)
			l.dual.variancesTo(dst[c0:c0+m], J[c0*P:(c0+m)*P], m, &s)
		}
	})
}
