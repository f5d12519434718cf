package curv_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// The evidence's traces of a small A under three structures: Dense, the
// reference; Dual, exact through the N x N Woodbury matrix; Diag, an
// approximation. Evidence turns them into the effective number of
// parameters gamma.
func Example() {
	// Six residuals of one beta group on four weights in two alpha groups.
	j := []float64{
		1, 0.5, 0, 0.2,
		0, 1, 0.3, 0,
		0.4, 0, 1, 0.1,
		0, 0.2, 0, 1,
		0.3, 0.3, 0.3, 0.3,
		1, -1, 0.5, -0.5,
	}
	s := &curv.System{
		P:       4,
		J:       [][]float64{j},
		Beta:    []float64{10},
		Alpha:   []float64{0.5, 2},
		AlphaOf: []int{0, 0, 1, 1},
	}
	loss := curv.Loss{EW: []float64{1.2, 0.3}, ED: []float64{0.05}, W: []int{2, 2}, N: []int{6}}
	for _, kind := range []curv.Kind{curv.Dense, curv.Dual, curv.Diag} {
		tr, err := curv.Compute(s, curv.Options{Kind: kind})
		if err != nil {
			panic(err)
		}
		h := curv.Evidence(tr, s.Alpha, s.Beta, loss)
		fmt.Printf("%-5s ln|A| = %.4f, gamma = %.4f\n", kind, tr.LogDet, h.Gamma)
	}
	// Output:
	// dense ln|A| = 11.3187, gamma = 3.6185
	// dual  ln|A| = 11.3187, gamma = 3.6185
	// diag  ln|A| = 11.8835, gamma = 3.7092
}
