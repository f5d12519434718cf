//go:build !amd64 || purego

package ad

var useAVX2 = false

func mulRows8(y, a, b *float64, n, k int)    { panic("ad: no assembly kernels") }
func tMulRows8x4(y, a, b *float64, n, k int) { panic("ad: no assembly kernels") }
func tMulRows8x1(y, a, b *float64, n, k int) { panic("ad: no assembly kernels") }
func tanh8(y, a *float64, n int)             { panic("ad: no assembly kernels") }
