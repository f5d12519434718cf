package dense

import "gonum.org/v1/gonum/floats"

// SubDots subtracts from each c[j] the dot product of v with y_j =
// y[j*stride : j*stride+len(v)]: one row of gonum's Dgemm(NoTrans, Trans)
// with alpha = -1 and beta = 1 (c_j += -1 * Ddot(v, y_j)) when len(v) is at
// most its block of 64, and so its bits. The dot is gonum's (floats.Dot);
// with AVX, four of them at once in the order of gonum's amd64 DotUnitary
// (four partial sums, of the terms 0, 1, 2 and 3 mod 4, each product
// rounded before its addition, added as (s0+s2) + (s1+s3)) where len(v) is
// a multiple of 4.
func SubDots(c, v, y []float64, stride int) {
	k := len(v)
	j := 0
	if useAVX && k > 0 && k%4 == 0 && len(c) >= 4 {
		n4 := len(c) &^ 3
		_ = y[(n4-1)*stride+k-1] // the last row read lies in y
		subDots4(&c[0], n4, &v[0], k, &y[0], stride)
		j = n4
	}
	for ; j < len(c); j++ {
		c[j] -= floats.Dot(v, y[j*stride:j*stride+k])
	}
}
