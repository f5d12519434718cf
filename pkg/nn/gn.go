package nn

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/internal/dense"
)

// GaussNewtonTo writes J^T J (P x P, both triangles) into h for the
// row-major N x P Jacobian j: the Gauss-Newton Hessian of 1/2 |r|^2, the
// same bits as BLAS's syrk (gonum's).
func GaussNewtonTo(h, j []float64, n, p int) {
	if len(j) != n*p || len(h) != p*p {
		panic(fmt.Sprintf("nn: GaussNewtonTo: J has %d values for %dx%d, H has %d for %dx%d", len(j), n, p, len(h), p, p))
	}
	dense.GaussNewton(nil, h, j, n, p)
}
