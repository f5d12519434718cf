package ad

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// naive products, summing in the same order as the kernels.
func naiveMatMul(a, b []float64, n, k, m int) []float64 {
	y := make([]float64, n*m)
	for r := 0; r < n; r++ {
		for j := 0; j < m; j++ {
			for i := 0; i < k; i++ {
				y[r*m+j] += a[r*k+i] * b[i*m+j]
			}
		}
	}
	return y
}

func transpose(x []float64, rows, cols int) []float64 {
	t := make([]float64, len(x))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t[c*rows+r] = x[r*cols+c]
		}
	}
	return t
}

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()*2 - 1
	}
	return x
}

func checkClose(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-14, 1e-13) {
			t.Fatalf("%s[%d]: got %.17g want %.17g", what, i, got[i], want[i])
		}
	}
}

// TestKernels checks the matrix kernels (every block size and the
// assembly on amd64) against naive loops.
func TestKernels(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 3, 17} {
		for _, k := range []int{1, 2, 3, 4, 5, 8, 9} {
			for _, m := range []int{1, 2, 3, 4, 5, 6, 8, 12, 16, 40} {
				name := fmt.Sprintf("n%d k%d m%d", n, k, m)
				a, b := randSlice(rng, n*k), randSlice(rng, k*m)
				want := naiveMatMul(a, b, n, k, m)
				y := make([]float64, n*m)
				matMul(y, a, b, n, k, m)
				checkClose(t, name+" matMul", y, want)
				fill(y, 0)
				matMulT(y, a, transpose(b, k, m), n, k, m)
				checkClose(t, name+" matMulT", y, want)
				fill(y, 0)
				rowTimes(y, a, b, n, k, m)
				checkClose(t, name+" rowTimes", y, want)

				// a^T c with a N x K and c N x M is naiveMatMul(a^T, c).
				c := randSlice(rng, n*m)
				want = naiveMatMul(transpose(a, n, k), c, k, n, m)
				yt := make([]float64, k*m)
				matTMul(yt, a, c, n, k, m)
				checkClose(t, name+" matTMul", yt, want)
				fill(yt, 0)
				tMulRowsGo(yt, a, c, n, k, m)
				checkClose(t, name+" tMulRowsGo", yt, want)
			}
		}
	}
}
