package band

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	lapackgo "gonum.org/v1/gonum/lapack/gonum"
)

// TestGebrdGonum: gebrd gives gonum's Dgebrd bit for bit (the reflectors
// in a, d, e, tauQ, tauP) on matrices too small to block, with one block
// and with several, square and tall, of columns of wide magnitudes with
// zeros.
func TestGebrdGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	impl := lapackgo.Implementation{}
	for _, mn := range [][2]int{{1, 1}, {100, 60}, {170, 140}, {300, 300}, {500, 307}} {
		m, n := mn[0], mn[1]
		a := make([]float64, m*n)
		for i := range a {
			if rng.IntN(9) > 0 {
				a[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			}
		}
		work := make([]float64, 1)
		impl.Dgebrd(m, n, a, n, nil, nil, nil, nil, work, -1)
		work = make([]float64, int(work[0]))
		type out struct{ a, d, e, tauQ, tauP []float64 }
		run := func(f func(o out)) out {
			o := out{slices.Clone(a), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
			f(o)
			return o
		}
		want := run(func(o out) { impl.Dgebrd(m, n, o.a, n, o.d, o.e, o.tauQ, o.tauP, work, len(work)) })
		got := run(func(o out) { gebrd(m, n, o.a, n, o.d, o.e, o.tauQ, o.tauP, work) })
		for name, pair := range map[string][2][]float64{"a": {got.a, want.a}, "d": {got.d, want.d}, "e": {got.e, want.e}, "tauQ": {got.tauQ, want.tauQ}, "tauP": {got.tauP, want.tauP}} {
			for i, v := range pair[0] {
				if math.Float64bits(v) != math.Float64bits(pair[1][i]) {
					t.Fatalf("%d x %d: %s[%d] = %v, Dgebrd %v", m, n, name, i, v, pair[1][i])
				}
			}
		}
	}
}

// BenchmarkGebrd times the bidiagonalization of a 500 x 307 matrix, the
// size of a heat record's error estimate, by gonum's Dgebrd and by gebrd
// (the same bits).
func BenchmarkGebrd(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m, n := 500, 307
	a := make([]float64, m*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	impl := lapackgo.Implementation{}
	work := make([]float64, 1)
	impl.Dgebrd(m, n, a, n, nil, nil, nil, nil, work, -1)
	work = make([]float64, int(work[0]))
	c := make([]float64, m*n)
	d, e, tauQ, tauP := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	b.Run("gonum", func(b *testing.B) {
		for b.Loop() {
			copy(c, a)
			impl.Dgebrd(m, n, c, n, d, e, tauQ, tauP, work, len(work))
		}
	})
	b.Run("gebrd", func(b *testing.B) {
		for b.Loop() {
			copy(c, a)
			gebrd(m, n, c, n, d, e, tauQ, tauP, work)
		}
	})
}
