//go:build !amd64 || purego

package dense

var useAVX = false

func addRowsQuads(y *float64, m int, x *float64, offs *int, coef *float64, nq int) {
	panic("dense: no assembly kernel")
}

func addRowsQuads2(y0, y1 *float64, m int, x *float64, offs *int, c0, c1 *float64, nq int) {
	panic("dense: no assembly kernel")
}

func subDots4(c *float64, n int, v *float64, k int, y *float64, stride int) {
	panic("dense: no assembly kernel")
}
