//go:build !amd64 || purego

package ad

var useAVX2 = false

func mulCols8(y, a, b *float64, n, k, m int)            { panic("ad: no assembly kernels") }
func mulCols4(y, a, b *float64, n, k, m int)            { panic("ad: no assembly kernels") }
func tMulCols4(y, a, b *float64, n, k, m, w int)        { panic("ad: no assembly kernels") }
func tMulCols1(y, a, b *float64, n, k, m, w int)        { panic("ad: no assembly kernels") }
func tanh8(y, a *float64, n int)                        { panic("ad: no assembly kernels") }
func sumRows(y, a *float64, k, rows, cols int)          { panic("ad: no assembly kernels") }
func rowOuter(y, a, b *float64, rows, ka, kb, cols int) { panic("ad: no assembly kernels") }
func mulT2(y, a, b0, b1 *float64, n, m, cols int)       { panic("ad: no assembly kernels") }
func polyVec(y, a0, a1, a2, b0, b1, b2 *float64, na, nb int, ca, cb, c0 float64, mode, n int) {
	panic("ad: no assembly kernels")
}
