//go:build !purego

package dense

import "github.com/evidence-pinn/bpinn/internal/cpu"

// useAVX says that the assembly runs (AVX is part of AVX2).
var useAVX = cpu.AVX2FMA

//go:noescape
func addRowsQuads(y *float64, m int, x *float64, offs *int, coef *float64, nq int)

//go:noescape
func addRowsQuads2(y0, y1 *float64, m int, x *float64, offs *int, c0, c1 *float64, nq int)

//go:noescape
func subDots4(c *float64, n int, v *float64, k int, y *float64, stride int)
