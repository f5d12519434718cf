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
	if useAVX && len(y) > 0 {
		addRowsAVX(y, a, x, off, stride)
		return
	}
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
		addRows4Of(y, x[off+ls[0]*stride:][:m], x[off+ls[1]*stride:][:m], x[off+ls[2]*stride:][:m], x[off+ls[3]*stride:][:m],
			[4]float64{a[ls[0]], a[ls[1]], a[ls[2]], a[ls[3]]})
	}
	addRowsEach(y, a, x, off, stride, ls[:k])
}

// addRowsEach adds the terms ls of AddRows one at a time.
func addRowsEach(y, a, x []float64, off, stride int, ls []int) {
	m := len(y)
	for _, l := range ls {
		al := a[l]
		xl := x[off+l*stride:][:m]
		for c := range y {
			y[c] += float64(al * xl[c])
		}
	}
}

// quadBatch is how many terms addRowsAVX hands to addRowsQuads at once
// (a multiple of 4; their offsets and coefficients live on the stack).
const quadBatch = 256

// addRowsAVX is AddRows by addRowsQuads: the terms gathered in batches,
// every group of four in one call, the last len%4 terms one at a time.
func addRowsAVX(y, a, x []float64, off, stride int) {
	m := len(y)
	var offs [quadBatch]int
	var coef [quadBatch]float64
	k := 0
	for l, v := range a {
		if v == 0 {
			continue
		}
		_ = x[off+l*stride+m-1] // the row x_l lies in x
		offs[k], coef[k] = off+l*stride, v
		k++
		if k == quadBatch {
			addRowsQuads(&y[0], m, &x[0], &offs[0], &coef[0], k/4)
			k = 0
		}
	}
	if q := k / 4; q > 0 {
		addRowsQuads(&y[0], m, &x[0], &offs[0], &coef[0], q)
	}
	for i := k &^ 3; i < k; i++ {
		xl := x[offs[i]:][:m]
		for c := range y {
			y[c] += float64(coef[i] * xl[c])
		}
	}
}

// GaussNewton writes J^T J (P x P, both triangles) into h for the
// row-major N x P Jacobian j, the bits of gonum's Dsyrk: row i of the
// upper triangle is AddRows over column i of J. Rows go four at a time
// (AddRows4 over the columns the four share, AddRows for the rest of the
// triangle), blocks of four to pool's threads in turn, which balances the
// triangle.
func GaussNewton(pool *par.Pool, h, j []float64, n, p int) {
	t := pool.Threads()
	pool.Run(func(w int) {
		var cols, y [4][]float64
		for k := range cols {
			cols[k] = make([]float64, n)
		}
		for i := 4 * w; i < p; i += 4 * t {
			rows := min(4, p-i)
			for k := range rows {
				for l := range cols[k] {
					cols[k][l] = j[l*p+i+k]
				}
				clear(h[(i+k)*p+i+k : (i+k)*p+p])
			}
			if rows == 4 {
				for k := range y {
					y[k] = h[(i+k)*p+i+3 : (i+k)*p+p]
				}
				AddRows4(&y, &cols, j, i+3, p) // the columns the four rows share
				for k := range 3 {             // the corner of the triangle
					AddRows(h[(i+k)*p+i+k:(i+k)*p+i+3], cols[k], j, i+k, p)
				}
				continue
			}
			for k := range rows {
				AddRows(h[(i+k)*p+i+k:(i+k)*p+p], cols[k], j, i+k, p)
			}
		}
	})
	for r := 0; r < p; r++ {
		for c := 0; c < r; c++ {
			h[r*p+c] = h[c*p+r]
		}
	}
}

// AddRows4 is AddRows for four rows y[k] of one length with coefficients
// a[k] and the same x rows: each group of four terms is added to all four
// rows in turn while its rows of x are in the L1 cache, so x is read from
// memory once per four rows of y instead of once per row. Every y[k] gets
// AddRows's sums, so the same bits. Rows whose zeros fall differently go
// one by one, and so do all when x is small enough to stay in the L2 cache
// (below fourRowsMin values), where the four-row pass measured slower.
func AddRows4(y, a *[4][]float64, x []float64, off, stride int) {
	m := len(y[0])
	for k := 0; k < 4; k++ {
		if len(x) < fourRowsMin || !sameZeros(a[0], a[k]) {
			for k := range 4 {
				AddRows(y[k], a[k], x, off, stride)
			}
			return
		}
	}
	var ls [4]int
	n := 0
	for l, v := range a[0] {
		if v == 0 {
			continue
		}
		ls[n] = l
		n++
		if n < 4 {
			continue
		}
		n = 0
		x0 := x[off+ls[0]*stride:][:m]
		x1 := x[off+ls[1]*stride:][:m]
		x2 := x[off+ls[2]*stride:][:m]
		x3 := x[off+ls[3]*stride:][:m]
		for k := range 4 {
			ak := a[k]
			addRows4Of(y[k], x0, x1, x2, x3, [4]float64{ak[ls[0]], ak[ls[1]], ak[ls[2]], ak[ls[3]]})
		}
	}
	for k := range 4 {
		for _, l := range ls[:n] {
			al := a[k][l]
			xl := x[off+l*stride:][:m]
			yk := y[k][:m]
			for c := range yk {
				yk[c] += float64(al * xl[c])
			}
		}
	}
}

// fourRowsMin is the least size of x (1 MB) for which AddRows4 takes four
// rows per pass: at 105 weights (88 KB) the rows one by one were 4 %
// faster in a whole Burgers fit, at 921 weights (6.8 MB) the four-row pass
// 1.4x faster (BenchmarkProduct). The tests lower it.
var fourRowsMin = 1 << 17

// sameZeros reports whether a and b are zero at the same places.
func sameZeros(a, b []float64) bool {
	b = b[:len(a)]
	for i, v := range a {
		if (v == 0) != (b[i] == 0) {
			return false
		}
	}
	return true
}

// addRows4Of: y[c] = (((y[c] + a0 x0[c]) + a1 x1[c]) + a2 x2[c]) + a3 x3[c].
func addRows4Of(y, x0, x1, x2, x3 []float64, a4 [4]float64) {
	m := len(y)
	c0 := 0
	if useAVX && m >= 4 {
		c0 = m &^ 3
		addRows4(&y[0], &x0[0], &x1[0], &x2[0], &x3[0], &a4, c0)
	}
	a0, a1, a2, a3 := a4[0], a4[1], a4[2], a4[3]
	x0, x1, x2, x3 = x0[:m], x1[:m], x2[:m], x3[:m]
	for c := c0; c < m; c++ {
		s := y[c] + float64(a0*x0[c])
		s += float64(a1 * x1[c])
		s += float64(a2 * x2[c])
		y[c] = s + float64(a3*x3[c])
	}
}
