package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/par"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestAddRowsGonum checks AddRows against gonum's Dgemm and Dsyrk bit for
// bit, with zeros in the coefficients (skipped by both) and sizes around
// gonum's block of 64.
func TestAddRowsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fillM := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if rng.IntN(7) > 0 {
				v[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
			}
		}
		return v
	}
	for _, p := range []int{1, 3, 5, 63, 65, 130} {
		a, b := fillM(p*p), fillM(p*p)
		var c mat.Dense
		c.Mul(mat.NewDense(p, p, a), mat.NewDense(p, p, b))
		got := make([]float64, p)
		for i := range p {
			clear(got)
			AddRows(got, a[i*p:i*p+p], b, 0, p)
			for j, v := range got {
				if w := c.At(i, j); math.Float64bits(v) != math.Float64bits(w) {
					t.Fatalf("P %d: C[%d,%d] = %v, Dgemm %v", p, i, j, v, w)
				}
			}
		}
		// Two rows at once: with the zeros of a (which differ from row
		// to row: one by one) and with every coefficient set.
		full := fillM(p * p)
		for i := range full {
			if full[i] == 0 {
				full[i] = 1
			}
		}
		var c2 mat.Dense
		for _, m := range [][]float64{a, full} {
			c2.Mul(mat.NewDense(p, p, m), mat.NewDense(p, p, b))
			pair := make([]float64, 2*p)
			for i := 0; i+1 < p; i += 2 {
				clear(pair)
				AddRows2(pair[:p], pair[p:], m[i*p:i*p+p], m[(i+1)*p:(i+1)*p+p], b, 0, p)
				for j, v := range pair {
					if w := c2.At(i+j/p, j%p); math.Float64bits(v) != math.Float64bits(w) {
						t.Fatalf("P %d: AddRows2: C[%d,%d] = %v, Dgemm %v", p, i+j/p, j%p, v, w)
					}
				}
			}
		}
		n := 2*p + 3
		j := fillM(n * p)
		h := make([]float64, p*p)
		blas64.Implementation().Dsyrk(blas.Upper, blas.Trans, p, n, 1, j, p, 0, h, p)
		col := make([]float64, n)
		for i := range p {
			for l := range n {
				col[l] = j[l*p+i]
			}
			got := make([]float64, p-i)
			AddRows(got, col, j, i, p)
			for c, v := range got {
				if w := h[i*p+i+c]; math.Float64bits(v) != math.Float64bits(w) {
					t.Fatalf("P %d: H[%d,%d] = %v, Dsyrk %v", p, i, i+c, v, w)
				}
			}
		}
	}
}

// TestGaussNewtonThreads checks GaussNewton on 1 to 4 threads against
// gonum's Dsyrk (upper triangle, mirrored) bit for bit.
func TestGaussNewtonThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, zeros := range []bool{false, true} { // zeros: AddRows2 falls back to AddRows
		for _, p := range []int{41, 44} {
			gaussNewtonThreads(t, rng, 57, p, zeros)
		}
	}
}

func gaussNewtonThreads(t *testing.T, rng *rand.Rand, n, p int, zeros bool) {
	j := make([]float64, n*p)
	for i := range j {
		if !zeros || rng.IntN(5) > 0 {
			j[i] = rng.NormFloat64()
		}
	}
	want := make([]float64, p*p)
	blas64.Implementation().Dsyrk(blas.Upper, blas.Trans, p, n, 1, j, p, 0, want, p)
	for threads := 1; threads <= 4; threads++ {
		pool := par.New(threads)
		h := make([]float64, p*p)
		GaussNewton(pool, h, j, n, p)
		pool.Close()
		for r := range p {
			for c := range p {
				w := want[min(r, c)*p+max(r, c)]
				if v := h[r*p+c]; math.Float64bits(v) != math.Float64bits(w) {
					t.Fatalf("%d threads: H[%d,%d] = %v, Dsyrk %v", threads, r, c, v, w)
				}
			}
		}
	}
}

// TestSubDotsGonum checks SubDots against gonum's Dgemm(NoTrans, Trans)
// with alpha = -1 and beta = 1 bit for bit: inner lengths up to gonum's
// block of 64, multiples of 4 (the assembly) and not, rows of y wider
// than the dot, and values of wide magnitudes with zeros.
func TestSubDotsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if rng.IntN(7) > 0 {
				v[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
			}
		}
		return v
	}
	for _, k := range []int{1, 3, 4, 8, 13, 32, 64} {
		for _, n := range []int{1, 4, 7, 70} {
			m, stride := 5, k+3
			a, y, c := fill(m*k), fill(n*stride), fill(m*n)
			want := append([]float64(nil), c...)
			blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, m, n, k, -1, a, k, y, stride, 1, want, n)
			for i := range m {
				SubDots(c[i*n:i*n+n], a[i*k:i*k+k], y, stride)
			}
			for i, v := range c {
				if math.Float64bits(v) != math.Float64bits(want[i]) {
					t.Fatalf("k %d, n %d: C[%d,%d] = %v, Dgemm %v", k, n, i/n, i%n, v, want[i])
				}
			}
		}
	}
}

// TestAddRowsEveryGonum checks AddRowsEvery against gonum's Dgemv(Trans)
// (alpha 1, beta 0, x and y strided as Dlabrd passes them) bit for bit,
// with zeros among the coefficients (added, not skipped) and an infinite
// value in a row whose coefficient is zero (so 0 * Inf = NaN is added).
func TestAddRowsEveryGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, mn := range [][2]int{{1, 1}, {3, 5}, {9, 4}, {70, 33}, {257, 70}} {
		m, n := mn[0], mn[1]
		lda, inc := n+2, 3
		a := make([]float64, m*lda)
		for i := range a {
			a[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		x := make([]float64, m*inc)
		for i := range x {
			if rng.IntN(5) > 0 {
				x[i] = rng.NormFloat64()
			}
		}
		if m > 2 {
			x[2*inc] = 0
			a[2*lda+n-1] = math.Inf(1)
		}
		want := make([]float64, n*inc)
		blas64.Implementation().Dgemv(blas.Trans, m, n, 1, a, lda, x, inc, 0, want, inc)
		coef := make([]float64, m)
		for l := range coef {
			coef[l] = x[l*inc]
		}
		got := make([]float64, n)
		AddRowsEvery(got, coef, a, 0, lda)
		for j, v := range got {
			if w := want[j*inc]; math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("%d x %d: y[%d] = %v, Dgemv %v", m, n, j, v, w)
			}
		}
	}
}
