//go:build !amd64 || purego

package dense

var useAVX = false

func addRows4(y, x0, x1, x2, x3 *float64, a *[4]float64, n int) { panic("dense: no assembly kernel") }

func addRowsQuads(y *float64, m int, x *float64, offs *int, coef *float64, nq int) {
	panic("dense: no assembly kernel")
}
