package dense

import (
	"math/rand/v2"
	"testing"
)

// benchProduct times C = A B for P x P matrices row by row (AddRows) or
// four rows at a time (AddRows4): the products of NewLaplace's traces.
func benchProduct(b *testing.B, p int, four bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, x, c := make([]float64, p*p), make([]float64, p*p), make([]float64, p*p)
	for i := range a {
		a[i], x[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	for b.Loop() {
		clear(c)
		r := 0
		for ; four && r+4 <= p; r += 4 {
			var y, ar [4][]float64
			for k := range y {
				y[k], ar[k] = c[(r+k)*p:(r+k)*p+p], a[(r+k)*p:(r+k)*p+p]
			}
			AddRows4(&y, &ar, x, 0, p)
		}
		for ; r < p; r++ {
			AddRows(c[r*p:r*p+p], a[r*p:r*p+p], x, 0, p)
		}
	}
}

func BenchmarkProduct105(b *testing.B)     { benchProduct(b, 105, false) }
func BenchmarkProduct105Four(b *testing.B) { benchProduct(b, 105, true) }
func BenchmarkProduct921(b *testing.B)     { benchProduct(b, 921, false) }
func BenchmarkProduct921Four(b *testing.B) { benchProduct(b, 921, true) }
