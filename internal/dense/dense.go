// Package dense holds the products of the evidence's dense steps (J^T J,
// A^-1 H_t) and of the error estimate's bidiagonalization (its trailing
// updates) written to give the bits of gonum's BLAS, which they replace
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
		addRowsAVX(y, a, x, off, stride, true)
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

// AddRowsEvery is AddRows with every term added, zero coefficients too:
// the sums of gonum's amd64 GemvT (y = A^T x from y = 0 on a row-major A:
// x[l] times row l added in increasing l, each product rounded before its
// addition), where AddRows has those of its Daxpy. Four terms at once
// with AVX, one at a time in the same order without.
func AddRowsEvery(y, a, x []float64, off, stride int) {
	if useAVX && len(y) > 0 {
		addRowsAVX(y, a, x, off, stride, false)
		return
	}
	for l, al := range a {
		xl := x[off+l*stride:][:len(y)]
		for c := range y {
			y[c] += float64(al * xl[c])
		}
	}
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

// addRowsAVX is AddRows (skipping zero coefficients) or AddRowsEvery by
// addRowsQuads: the terms gathered in batches, every group of four in one
// call, the last len%4 terms one at a time.
func addRowsAVX(y, a, x []float64, off, stride int, skipZeros bool) {
	m := len(y)
	var offs [quadBatch]int
	var coef [quadBatch]float64
	k := 0
	for l, v := range a {
		if v == 0 && skipZeros {
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

// AddRows2 is AddRows for two rows y0, y1 of one length with coefficients
// a0, a1 and the same rows of x, each group of four rows of x read once
// for both (with AVX; the products at 105 weights are bound by reading x
// from the L2 cache): the same sums, so the same bits. Rows whose zeros
// fall differently go one by one.
func AddRows2(y0, y1, a0, a1, x []float64, off, stride int) {
	m := len(y0)
	if !useAVX || m == 0 || !sameZeros(a0, a1) {
		AddRows(y0, a0, x, off, stride)
		AddRows(y1, a1, x, off, stride)
		return
	}
	y1 = y1[:m]
	var offs [quadBatch]int
	var c0, c1 [quadBatch]float64
	k := 0
	for l, v := range a0 {
		if v == 0 {
			continue
		}
		_ = x[off+l*stride+m-1] // the row x_l lies in x
		offs[k], c0[k], c1[k] = off+l*stride, v, a1[l]
		k++
		if k == quadBatch {
			addRowsQuads2(&y0[0], &y1[0], m, &x[0], &offs[0], &c0[0], &c1[0], k/4)
			k = 0
		}
	}
	if q := k / 4; q > 0 {
		addRowsQuads2(&y0[0], &y1[0], m, &x[0], &offs[0], &c0[0], &c1[0], q)
	}
	for i := k &^ 3; i < k; i++ {
		xl := x[offs[i]:][:m]
		for c := range y0 {
			y0[c] += float64(c0[i] * xl[c])
			y1[c] += float64(c1[i] * xl[c])
		}
	}
}

// GaussNewton writes J^T J (P x P, both triangles) into h for the
// row-major N x P Jacobian j, the bits of gonum's Dsyrk: row i of the
// upper triangle is AddRows over column i of J. Rows go two at a time
// (AddRows2 over the columns both have), pairs to pool's threads in turn,
// which balances the triangle.
func GaussNewton(pool *par.Pool, h, j []float64, n, p int) {
	t := pool.Threads()
	pool.Run(func(w int) {
		c0, c1 := make([]float64, n), make([]float64, n)
		for i := 2 * w; i < p; i += 2 * t {
			column(c0, j, i, p)
			row := h[i*p+i : i*p+p]
			clear(row)
			if i+1 == p {
				AddRows(row, c0, j, i, p)
				continue
			}
			column(c1, j, i+1, p)
			next := h[(i+1)*p+i+1 : (i+1)*p+p]
			clear(next)
			AddRows2(row[1:], next, c0, c1, j, i+1, p)
			AddRows(row[:1], c0, j, i, p) // the diagonal, which row i+1 has not
		}
	})
	for r := 0; r < p; r++ {
		for c := 0; c < r; c++ {
			h[r*p+c] = h[c*p+r]
		}
	}
}

// column copies column i of the row-major n x p matrix j into c.
func column(c, j []float64, i, p int) {
	for l := range c {
		c[l] = j[l*p+i]
	}
}

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
	a0, a1, a2, a3 := a4[0], a4[1], a4[2], a4[3]
	x0, x1, x2, x3 = x0[:m], x1[:m], x2[:m], x3[:m]
	for c := range y {
		s := y[c] + float64(a0*x0[c])
		s += float64(a1 * x1[c])
		s += float64(a2 * x2[c])
		y[c] = s + float64(a3*x3[c])
	}
}
