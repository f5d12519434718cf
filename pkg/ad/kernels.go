package ad

import "math"

// The dense kernels. The shapes of the networks this package serves are
// tiny (K, M <= 8 columns) and the row count N is large, so every product
// loops over rows outermost and keeps the short inner loops free of bounds
// checks. Each kernel sums in one fixed order: the same inputs give the same
// bits.

// matMul: y (NxM) = a (NxK) b (KxM). Each output sums a[r,i] b[i,j] over
// i in increasing order, in a register accumulator.
func matMul(y, a, b []float64, n, k, m int) {
	b = b[:k*m]
	switch m {
	case 1: // a row times a column: one dot product per row
		for r := 0; r < n; r++ {
			y[r] = dot(a[r*k:r*k+k], b)
		}
		return
	case 2:
		for r := 0; r < n; r++ {
			ar := a[r*k : r*k+k]
			s0, s1 := 0.0, 0.0
			for i, ai := range ar {
				bi := b[2*i : 2*i+2]
				s0 += ai * bi[0]
				s1 += ai * bi[1]
			}
			y[2*r], y[2*r+1] = s0, s1
		}
		return
	}
	if m >= 8 && useAVX2 && n > 0 && k > 0 {
		mulFMA(y, a, b, n, k, m)
		return
	}
	rowTimes(y, a, b, n, k, m)
}

// mulFMA is matMul (m >= 8, n, k >= 1) by the assembly on blocks of 8 and
// 4 columns of y, and math.FMA on the last m%4: every output is one chain
// of fused multiply-adds from zero in increasing i.
func mulFMA(y, a, b []float64, n, k, m int) {
	y, a, b = y[:n*m], a[:n*k], b[:k*m]
	j := 0
	for ; j+8 <= m; j += 8 {
		mulCols8(&y[j], &a[0], &b[j], n, k, m)
	}
	if j+4 <= m {
		mulCols4(&y[j], &a[0], &b[j], n, k, m)
		j += 4
	}
	for ; j < m; j++ {
		for r := 0; r < n; r++ {
			s := 0.0
			for i, ai := range a[r*k : r*k+k] {
				s = math.FMA(ai, b[i*m+j], s)
			}
			y[r*m+j] = s
		}
	}
}

// rowTimes: y (NxM) = a (NxK) b (KxM), with blocks of 8, 4 and 2 columns
// of y held in registers while the K rows of b go by.
func rowTimes(y, a, b []float64, n, k, m int) {
	for r := 0; r < n; r++ {
		ar := a[r*k : r*k+k]
		yr := y[r*m : r*m+m]
		j := 0
		for ; j+8 <= m; j += 8 {
			var s0, s1, s2, s3, s4, s5, s6, s7 float64
			for i, ai := range ar {
				bi := (*[8]float64)(b[i*m+j:])
				s0 += ai * bi[0]
				s1 += ai * bi[1]
				s2 += ai * bi[2]
				s3 += ai * bi[3]
				s4 += ai * bi[4]
				s5 += ai * bi[5]
				s6 += ai * bi[6]
				s7 += ai * bi[7]
			}
			yj := (*[8]float64)(yr[j:])
			yj[0], yj[1], yj[2], yj[3], yj[4], yj[5], yj[6], yj[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
		for ; j+4 <= m; j += 4 {
			var s0, s1, s2, s3 float64
			for i, ai := range ar {
				bi := (*[4]float64)(b[i*m+j:])
				s0 += ai * bi[0]
				s1 += ai * bi[1]
				s2 += ai * bi[2]
				s3 += ai * bi[3]
			}
			yj := (*[4]float64)(yr[j:])
			yj[0], yj[1], yj[2], yj[3] = s0, s1, s2, s3
		}
		for ; j+2 <= m; j += 2 {
			var s0, s1 float64
			for i, ai := range ar {
				bi := (*[2]float64)(b[i*m+j:])
				s0 += ai * bi[0]
				s1 += ai * bi[1]
			}
			yr[j], yr[j+1] = s0, s1
		}
		if j < m {
			s := 0.0
			for i, ai := range ar {
				s += ai * b[i*m+j]
			}
			yr[j] = s
		}
	}
}

// maxSmall bounds the small matrices (the weights) that the kernels copy to
// the stack: a transposed right operand, or a transposed result; maxMid
// bounds those of matMulT's second buffer (layers up to 64 wide), kept
// apart so that the small products do not zero its 32 KB.
const (
	maxSmall = 256
	maxMid   = 4096
)

// matMulT: y (NxM) = a (NxK) b^T, b is MxK.
func matMulT(y, a, b []float64, n, k, m int) {
	b = b[:m*k]
	switch {
	case k == 1: // outer product of a column and a row
		for r := 0; r < n; r++ {
			scaleTo(y[r*m:r*m+m], a[r], b)
		}
		return
	case k == 2:
		matMulT2(y, a, b, n, m)
		return
	case m >= 4 && m*k <= maxSmall:
		// b^T (KxM) on the stack, then the row kernel of matMul: the
		// same sums in the same order, with M accumulators instead of
		// one dot product at a time.
		var bt [maxSmall]float64
		matMul(y, a, transposeTo(bt[:k*m], b, m, k), n, k, m)
		return
	case m >= 4 && m*k <= maxMid:
		var bt [maxMid]float64
		matMul(y, a, transposeTo(bt[:k*m], b, m, k), n, k, m)
		return
	}
	for r := 0; r < n; r++ {
		ar := a[r*k : r*k+k]
		yr := y[r*m : r*m+m]
		for j := range yr {
			yr[j] = dot(ar, b[j*k:j*k+k])
		}
	}
}

// transposeTo: t (CxR) = x^T for x RxC; returns t.
func transposeTo(t, x []float64, rows, cols int) []float64 {
	for r := 0; r < rows; r++ {
		for c, v := range x[r*cols : r*cols+cols] {
			t[c*rows+r] = v
		}
	}
	return t
}

// matTMul: y (KxM) = a^T b, a is NxK, b is NxM. Each output sums
// a[r,i] b[r,j] over the rows r in increasing order.
func matTMul(y, a, b []float64, n, k, m int) {
	y = y[:k*m]
	switch {
	case m == 1:
		// y is a column: the same as the row b^T a.
		tMulRows(y, b, a, n, 1, k)
	case m < 8 && k > m && k*m <= maxSmall:
		// Accumulate y^T = b^T a, whose rows are longer, then transpose.
		var t [maxSmall]float64
		tMulRows(t[:m*k], b, a, n, m, k)
		transposeTo(y, t[:m*k], m, k)
	default:
		tMulRows(y, a, b, n, k, m)
	}
}

// tMulRows: y (KxM) = a^T b over the n rows of a (NxK) and b (NxM), with
// blocks of 8, 4, 2 and 1 columns of y held in registers.
func tMulRows(y, a, b []float64, n, k, m int) {
	a, b = a[:n*k], b[:n*m]
	if m >= 8 && useAVX2 && n > 0 && k > 0 {
		tMulFMA(y, a, b, n, k, m)
		return
	}
	tMulRowsGo(y, a, b, n, k, m)
}

// tMulFMA is tMulRows (m >= 8, n, k >= 1) by the assembly on blocks of 4
// or 1 rows and 8 or 4 columns of y, and math.FMA on the last m%4 columns:
// every output is one chain of fused multiply-adds from zero in increasing r.
func tMulFMA(y, a, b []float64, n, k, m int) {
	y = y[:k*m]
	j := 0
	for w := 8; j+4 <= m; j += w {
		if j+8 > m {
			w = 4
		}
		i := 0
		for ; i+4 <= k; i += 4 {
			tMulCols4(&y[i*m+j], &a[i], &b[j], n, k, m, w)
		}
		for ; i < k; i++ {
			tMulCols1(&y[i*m+j], &a[i], &b[j], n, k, m, w)
		}
	}
	for ; j < m; j++ {
		for i := 0; i < k; i++ {
			s := 0.0
			for r := 0; r < n; r++ {
				s = math.FMA(a[r*k+i], b[r*m+j], s)
			}
			y[i*m+j] = s
		}
	}
}

// tMulRowsGo is tMulRows in Go.
func tMulRowsGo(y, a, b []float64, n, k, m int) {
	for i := 0; i < k; i++ {
		yi := y[i*m : i*m+m]
		j := 0
		for ; j+8 <= m; j += 8 {
			var s0, s1, s2, s3, s4, s5, s6, s7 float64
			for r := 0; r < n; r++ {
				ai := a[r*k+i]
				br := (*[8]float64)(b[r*m+j:])
				s0 += ai * br[0]
				s1 += ai * br[1]
				s2 += ai * br[2]
				s3 += ai * br[3]
				s4 += ai * br[4]
				s5 += ai * br[5]
				s6 += ai * br[6]
				s7 += ai * br[7]
			}
			yj := (*[8]float64)(yi[j:])
			yj[0], yj[1], yj[2], yj[3], yj[4], yj[5], yj[6], yj[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
		for ; j+4 <= m; j += 4 {
			var s0, s1, s2, s3 float64
			for r := 0; r < n; r++ {
				ai := a[r*k+i]
				br := (*[4]float64)(b[r*m+j:])
				s0 += ai * br[0]
				s1 += ai * br[1]
				s2 += ai * br[2]
				s3 += ai * br[3]
			}
			yj := (*[4]float64)(yi[j:])
			yj[0], yj[1], yj[2], yj[3] = s0, s1, s2, s3
		}
		for ; j+2 <= m; j += 2 {
			var s0, s1 float64
			for r := 0; r < n; r++ {
				ai := a[r*k+i]
				br := (*[2]float64)(b[r*m+j:])
				s0 += ai * br[0]
				s1 += ai * br[1]
			}
			yi[j], yi[j+1] = s0, s1
		}
		if j < m {
			s := 0.0
			for r := 0; r < n; r++ {
				s += a[r*k+i] * b[r*m+j]
			}
			yi[j] = s
		}
	}
}

// padMatMulT: y (NxM) = PadCol(v, j, K) b^T with b MxK: y[r, :] = v[r] b[:, j].
// col is scratch of length M.
func padMatMulT(y, v, b, col []float64, n, j, k, m int) {
	for i := range col[:m] {
		col[i] = b[i*k+j]
	}
	for r := 0; r < n; r++ {
		scaleTo(y[r*m:r*m+m], v[r], col[:m])
	}
}

// padMatMul: y (NxM) = PadCol(v, j, K) b with b KxM: y[r, :] = v[r] b[j, :].
func padMatMul(y, v, b []float64, n, j, m int) {
	bj := b[j*m : j*m+m]
	for r := 0; r < n; r++ {
		scaleTo(y[r*m:r*m+m], v[r], bj)
	}
}

// matTMulPad: y (KxM) = a^T PadCol(v, j, M) with a NxK: column j of y is
// a^T v, the other columns are zero.
func matTMulPad(y, a, v []float64, n, k, j, m int) {
	y = y[:k*m]
	fill(y, 0)
	if k <= 8 {
		// Accumulate column j contiguously, then scatter it.
		var acc [8]float64
		s := acc[:k]
		for r := 0; r < n; r++ {
			axpy(s, v[r], a[r*k:r*k+k])
		}
		for i, x := range s {
			y[i*m+j] = x
		}
		return
	}
	for r := 0; r < n; r++ {
		vr := v[r]
		for i, ai := range a[r*k : r*k+k] {
			y[i*m+j] += ai * vr
		}
	}
}

// padMatTMul: y (KxM) = PadCol(v, j, K)^T b with b NxM: row j of y is
// v^T b, the other rows are zero.
func padMatTMul(y, v, b []float64, n, j, m int) {
	fill(y, 0)
	yj := y[j*m : j*m+m]
	for r := 0; r < n; r++ {
		axpy(yj, v[r], b[r*m:r*m+m])
	}
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, ai := range a {
		s += ai * b[i]
	}
	return s
}

// axpy: y += c x.
func axpy(y []float64, c float64, x []float64) {
	x = x[:len(y)]
	for i, xi := range x {
		y[i] += c * xi
	}
}

// scaleTo: y = c x.
func scaleTo(y []float64, c float64, x []float64) {
	x = x[:len(y)]
	for i, xi := range x {
		y[i] = c * xi
	}
}

func fill(x []float64, c float64) {
	for i := range x {
		x[i] = c
	}
}

// Constants of tanh: Cephes' rational approximation on |x| < 0.625 (the one
// math.Tanh uses) and the reduction of e^x by ln 2 (as in math.Exp).
const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	log2e = 1.44269504088896338700e+00

	expP1 = 1.66666666666666657415e-01
	expP2 = -2.77777777770155933842e-03
	expP3 = 6.61375632143793436117e-05
	expP4 = -1.65339022054652515390e-06
	expP5 = 4.13813679705723846039e-08

	tanhP0 = -9.64399179425052238628e-1
	tanhP1 = -9.92877231001918586564e1
	tanhP2 = -1.61468768441708447952e3
	tanhQ0 = 1.12811678491632931402e2
	tanhQ1 = 2.23548839060100448583e3
	tanhQ2 = 4.84406305325125486048e3

	tanhSmall = 0.625 // the rational's range
)

// expSmall is e^x for 0 <= x <= 41: math.Exp's algorithm without the checks
// for overflow, underflow and NaN, and with 2^k built from its bits.
func expSmall(x float64) float64 {
	k := int(x*log2e + 0.5)
	hi := x - float64(k)*ln2Hi
	lo := float64(k) * ln2Lo
	r := hi - lo
	t := r * r
	c := r - t*(expP1+t*(expP2+t*(expP3+t*(expP4+t*expP5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return y * math.Float64frombits(uint64(k+1023)<<52)
}

// tanh follows math.Tanh (within 4e-16 relative) but is faster: a rational
// function for |x| < 0.625, 1 - 2/(e^2|x| + 1) with a check-free exp up to
// |x| = 20, and ±1 beyond.
func tanh(x float64) float64 {
	z := math.Abs(x)
	switch {
	case z == 0:
		return x // keeps the sign of zero, which x + x*s*... loses
	case z < tanhSmall:
		s := x * x
		return x + x*s*((tanhP0*s+tanhP1)*s+tanhP2)/(((s+tanhQ0)*s+tanhQ1)*s+tanhQ2)
	case z > 20:
		return math.Copysign(1, x)
	case math.IsNaN(x):
		return x
	}
	return math.Copysign(1-2/(expSmall(2*z)+1), x)
}

// expM2[n] = (-2)^n/n!, the Taylor coefficients of e^-2h in h (n! is exact
// up to 18!, so each is correctly rounded).
var expM2 = func() (c [14]float64) {
	f, p := 1.0, 1.0
	for n := range c {
		if n > 0 {
			f, p = f*float64(n), -2*p
		}
		c[n] = p / f
	}
	return c
}()

// tanhTo: y = tanh(a) elementwise, y and a of the same length (or y = a).
// With AVX2 it runs tanh8 on blocks of 8, and the last len%8 values
// through tanh8 too, padded in a buffer: each value gets the same bits
// wherever it sits in the slice. The vector tanh is within 1.4 ulp of the
// exact value (2 ulp of math.Tanh); it differs from the scalar tanh in the
// last bits.
func tanhTo(y, a []float64) {
	a = a[:len(y)]
	if !useAVX2 {
		tanhToGo(y, a)
		return
	}
	n := len(y) &^ 7
	if n > 0 {
		tanh8(&y[0], &a[0], n)
	}
	if n < len(y) {
		var buf [8]float64
		copy(buf[:], a[n:])
		tanh8(&buf[0], &buf[0], 8)
		copy(y[n:], buf[:])
	}
}

// tanhToGo is tanhTo with the scalar tanh.
func tanhToGo(y, a []float64) {
	for i, ai := range a[:len(y)] {
		y[i] = tanh(ai)
	}
}

// sumRowsTo adds the rows of a (k wide) to y, row after row: the assembly
// adds 4 columns at once in the same order, so the bits are the loop's.
func sumRowsTo(y, a []float64, k int) {
	rows, c := len(a)/k, 0
	if useAVX2 && rows > 0 && k >= 4 {
		c = k &^ 3
		sumRows(&y[0], &a[0], k, rows, c)
		if c == k {
			return
		}
	}
	sumRowsGo(y, a, k, c)
}

// sumRowsGo adds the columns from c on of a's rows to y.
func sumRowsGo(y, a []float64, k, c int) {
	for r := 0; r < len(a); r += k {
		row := a[r+c : r+k]
		for j, v := range row {
			y[c+j] += v
		}
	}
}

// rowOuterTo writes, for each of the first rows rows, the outer product of
// a's row (ka wide) and b's (kb wide): one product per value, so the
// assembly's 4 at once give the loop's bits.
func rowOuterTo(y, a, b []float64, rows, ka, kb int) {
	c := 0
	if useAVX2 && rows > 0 && ka > 0 && kb >= 4 {
		c = kb &^ 3
		rowOuter(&y[0], &a[0], &b[0], rows, ka, kb, c)
		if c == kb {
			return
		}
	}
	rowOuterGo(y, a, b, rows, ka, kb, c)
}

// rowOuterGo writes the columns from c on of rowOuterTo's products.
func rowOuterGo(y, a, b []float64, rows, ka, kb, c int) {
	for r := 0; r < rows; r++ {
		ar, br := a[r*ka:r*ka+ka], b[r*kb+c:r*kb+kb]
		yr := y[r*ka*kb : (r+1)*ka*kb]
		for i, ai := range ar {
			row := yr[i*kb+c : i*kb+kb]
			for j, bj := range br {
				row[j] = ai * bj
			}
		}
	}
}

// matMulT2 is matMulT for K = 2 (a first layer of two inputs): the
// assembly reads b^T (b's two columns, each contiguous) and computes 4
// values of a row at once, each the loop's two products and their sum.
func matMulT2(y, a, b []float64, n, m int) {
	c := 0
	if useAVX2 && n > 0 && m >= 4 && 2*m <= maxMid {
		c = m &^ 3
		mulT2Avx(y, a, b, n, m, c)
		if c == m {
			return
		}
	}
	matMulT2Go(y, a, b, n, m, c)
}

// mulT2Avx writes the first c columns of matMulT2's product by the
// assembly, b^T on the stack: a small buffer for the weights of a layer
// up to 128 wide, a larger one (not zeroed for the small) above.
func mulT2Avx(y, a, b []float64, n, m, c int) {
	if 2*m <= maxSmall {
		var buf [maxSmall]float64
		bt := transposeTo(buf[:2*m], b, m, 2)
		mulT2(&y[0], &a[0], &bt[0], &bt[m], n, m, c)
		return
	}
	var buf [maxMid]float64
	bt := transposeTo(buf[:2*m], b, m, 2)
	mulT2(&y[0], &a[0], &bt[0], &bt[m], n, m, c)
}

// matMulT2Go writes the columns from c on of matMulT2's product.
func matMulT2Go(y, a, b []float64, n, m, c int) {
	for r := 0; r < n; r++ {
		a0, a1 := a[2*r], a[2*r+1]
		yr := y[r*m+c : r*m+m]
		for j := range yr {
			bj := b[2*(c+j) : 2*(c+j)+2]
			yr[j] = a0*bj[0] + a1*bj[1]
		}
	}
}
