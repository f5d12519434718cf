package dense

import (
	"math/rand/v2"
	"testing"
)

// benchProduct times C = A B for P x P matrices row by row (AddRows) or
// two rows at a time (AddRows2): the products of NewLaplace's traces.
func benchProduct(b *testing.B, p int, rows int) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, x, c := make([]float64, p*p), make([]float64, p*p), make([]float64, p*p)
	for i := range a {
		a[i], x[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	for b.Loop() {
		clear(c)
		r := 0
		for ; rows == 2 && r+2 <= p; r += 2 {
			AddRows2(c[r*p:r*p+p], c[(r+1)*p:(r+1)*p+p], a[r*p:r*p+p], a[(r+1)*p:(r+1)*p+p], x, 0, p)
		}
		for ; r < p; r++ {
			AddRows(c[r*p:r*p+p], a[r*p:r*p+p], x, 0, p)
		}
	}
}

func BenchmarkProduct105(b *testing.B)    { benchProduct(b, 105, 1) }
func BenchmarkProduct105Two(b *testing.B) { benchProduct(b, 105, 2) }
func BenchmarkProduct921(b *testing.B)    { benchProduct(b, 921, 1) }
func BenchmarkProduct921Two(b *testing.B) { benchProduct(b, 921, 2) }
