//go:build !purego

package dense

import "github.com/evidence-pinn/bpinn/internal/cpu"

// useAVX says that addRows4 runs (AVX is part of AVX2).
var useAVX = cpu.AVX2FMA

//go:noescape
func addRows4(y, x0, x1, x2, x3 *float64, a *[4]float64, n int)

//go:noescape
func addRowsQuads(y *float64, m int, x *float64, offs *int, coef *float64, nq int)
