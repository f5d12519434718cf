package refsol

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
)

// band is a square matrix stored by rows within kl sub- and ku
// super-diagonals, factored in place by LU without pivoting. The solvers'
// matrices eliminate stably without pivoting (the plate's diagonally
// dominant M-matrix, the cavity's pressure Laplacian, its Newton matrix
// dominated by nu times the biharmonic), so the factors keep the band and
// need no extra storage.
type band struct {
	n, kl, ku int
	a         []float64 // row r holds columns r-kl..r+ku at a[r*w+c-r+kl]
}

func newBand(n, kl, ku int) *band {
	return &band{n: n, kl: kl, ku: ku, a: make([]float64, n*(kl+ku+1))}
}

func (b *band) width() int { return b.kl + b.ku + 1 }

// set stores v at (r, c), which must lie in the band.
func (b *band) set(r, c int, v float64) { b.a[r*b.width()+c-r+b.kl] = v }

// add adds v to (r, c), which must lie in the band.
func (b *band) add(r, c int, v float64) { b.a[r*b.width()+c-r+b.kl] += v }

// row returns the stored entries of row r for columns c0..c1-1.
func (b *band) row(r, c0, c1 int) []float64 {
	o := r*b.width() - r + b.kl
	return b.a[o+c0 : o+c1]
}

// factor overwrites the matrix with its LU factors; a pivot that is zero
// or tiny against its row is an error rather than a silent overflow.
func (b *band) factor() error {
	w := b.width()
	for k := 0; k < b.n; k++ {
		piv := b.a[k*w+b.kl]
		scale := 0.0
		for _, v := range b.row(k, max(0, k-b.kl), min(b.n, k+b.ku+1)) {
			scale = max(scale, math.Abs(v))
		}
		if !(math.Abs(piv) > 1e-13*scale) {
			return fmt.Errorf("refsol: banded LU pivot %d is %g (row scale %g): the system is singular", k, piv, scale)
		}
		end := min(b.n, k+b.ku+1)
		uk := blas64.Vector{N: end - k - 1, Inc: 1, Data: b.row(k, k+1, end)}
		for i := k + 1; i < min(b.n, k+b.kl+1); i++ {
			lik := b.row(i, k, k+1)
			lik[0] /= piv
			if lik[0] == 0 {
				continue
			}
			blas64.Axpy(-lik[0], uk, blas64.Vector{N: uk.N, Inc: 1, Data: b.row(i, k+1, end)})
		}
	}
	return nil
}

// solve overwrites x with the solution of A x = x after factor.
func (b *band) solve(x []float64) {
	for i := 0; i < b.n; i++ {
		s := x[i]
		c0 := max(0, i-b.kl)
		for c, l := range b.row(i, c0, i) {
			s -= l * x[c0+c]
		}
		x[i] = s
	}
	for i := b.n - 1; i >= 0; i-- {
		s := x[i]
		end := min(b.n, i+b.ku+1)
		for c, u := range b.row(i, i+1, end) {
			s -= u * x[i+1+c]
		}
		x[i] = s / b.row(i, i, i+1)[0]
	}
}
