package nn

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// GaussNewtonTo writes J^T J (P x P, both triangles) into h for the
// row-major N x P Jacobian j: the Gauss-Newton Hessian of 1/2 |r|^2.
func GaussNewtonTo(h, j []float64, n, p int) {
	if len(j) != n*p || len(h) != p*p {
		panic(fmt.Sprintf("nn: GaussNewtonTo: J has %d values for %dx%d, H has %d for %dx%d", len(j), n, p, len(h), p, p))
	}
	for i := range h {
		h[i] = 0
	}
	blas64.Implementation().Dsyrk(blas.Upper, blas.Trans, p, n, 1, j, p, 0, h, p)
	for r := 0; r < p; r++ {
		for c := 0; c < r; c++ {
			h[r*p+c] = h[c*p+r]
		}
	}
}
