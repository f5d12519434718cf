//go:build !purego

package ad

import (
	"math"

	"github.com/evidence-pinn/bpinn/internal/cpu"
)

// Assembly kernels (kernels_amd64.s) for products with rows 8 or more wide,
// used when the CPU has AVX2 and FMA. They use fused multiply-adds, so their last bits differ
// from the pure-Go kernels; on one machine the choice is fixed, and a
// Program gives the same bits every Run. Build with -tags purego to use the
// Go kernels only.

//go:noescape
func mulCols8(y, a, b *float64, n, k, m int)

//go:noescape
func mulCols4(y, a, b *float64, n, k, m int)

//go:noescape
func tMulCols4(y, a, b *float64, n, k, m, w int)

//go:noescape
func tMulCols1(y, a, b *float64, n, k, m, w int)

//go:noescape
func tanh8(y, a *float64, n int)

//go:noescape
func sumRows(y, a *float64, k, rows, cols int)

//go:noescape
func rowOuter(y, a, b *float64, rows, ka, kb, cols int)

//go:noescape
func mulT2(y, a, b0, b1 *float64, n, m, cols int)

//go:noescape
func polyVec(y, a0, a1, a2, b0, b1, b2 *float64, na, nb int, ca, cb, c0 float64, mode, n int)

// tanhK holds the constants of tanh8, 4 copies each (one YMM operand), in
// the order of the K_ offsets of kernels_amd64.s.
//
//lint:ignore U1000 read by kernels_amd64.s (staticcheck does not read assembly)
var tanhK = func() (k [28][4]float64) {
	c := []float64{
		math.Float64frombits(1<<63 - 1), math.Float64frombits(1 << 63), // |x| and sign masks
		tanhSmall, 20, -2, -2 * log2e, 1.5 * (1 << 52), ln2Hi / 2, ln2Lo / 2, 1,
		tanhP0, tanhP1, tanhP2, tanhQ0, tanhQ1, tanhQ2,
	}
	for n := 13; n >= 2; n-- {
		c = append(c, expM2[n])
	}
	for i, v := range c {
		k[i] = [4]float64{v, v, v, v}
	}
	return k
}()

var useAVX2 = cpu.AVX2FMA
