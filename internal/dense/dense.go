// Package dense holds the products of the evidence's dense steps (J^T J,
// A^-1 H_t) written to give the bits of gonum's BLAS, which they replace
// so that their rows can be spread over threads and run faster on one.
package dense

import "github.com/evidence-pinn/bpinn/internal/par"

// AddRows adds sum_l a[l] x_l to y, x_l = x[off+l*stride : ...+len(y)],
// term by term in increasing l and skipping a[l] == 0: the same sums as
// len(a) of gonum's Daxpy (y += a[l] x_l, each product rounded before its
// addition) and so the bits of its Dgemm (C = A B: row i of C is AddRows
// over row i of A and the rows of B) and its Dsyrk (C = A^T A). Four terms
// go at once, so y is loaded and stored once per four, 4 columns per
// instruction where the processor has AVX.
func AddRows(y, a, x []float64, off, stride int) {
	m := len(y)
	var ls [4]int
	k := 0
	for l, v := range a {
		if v == 0 {
			continue
		}
		ls[k] = l
		k++
		if k < 4 {
			continue
		}
		k = 0
		a4 := [4]float64{a[ls[0]], a[ls[1]], a[ls[2]], a[ls[3]]}
		a0, a1, a2, a3 := a4[0], a4[1], a4[2], a4[3]
		x0 := x[off+ls[0]*stride:][:m]
		x1 := x[off+ls[1]*stride:][:m]
		x2 := x[off+ls[2]*stride:][:m]
		x3 := x[off+ls[3]*stride:][:m]
		c0 := 0
		if useAVX && m >= 4 {
			c0 = m &^ 3
			addRows4(&y[0], &x0[0], &x1[0], &x2[0], &x3[0], &a4, c0)
		}
		for c := c0; c < m; c++ {
			s := y[c] + float64(a0*x0[c])
			s += float64(a1 * x1[c])
			s += float64(a2 * x2[c])
			y[c] = s + float64(a3*x3[c])
		}
	}
	for _, l := range ls[:k] {
		al := a[l]
		xl := x[off+l*stride:][:m]
		for c := range y {
			y[c] += float64(al * xl[c])
		}
	}
}

// GaussNewton writes J^T J (P x P, both triangles) into h for the
// row-major N x P Jacobian j, the bits of gonum's Dsyrk. Row i of the
// upper triangle is AddRows over column i of J; the rows go to pool's
// threads in turn (row i to thread i mod T), which balances the triangle.
func GaussNewton(pool *par.Pool, h, j []float64, n, p int) {
	t := pool.Threads()
	pool.Run(func(w int) {
		col := make([]float64, n)
		for i := w; i < p; i += t {
			for l := range col {
				col[l] = j[l*p+i]
			}
			row := h[i*p+i : i*p+p]
			clear(row)
			AddRows(row, col, j, i, p)
		}
	})
	for r := 0; r < p; r++ {
		for c := 0; c < r; c++ {
			h[r*p+c] = h[c*p+r]
		}
	}
}
