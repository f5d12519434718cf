package bayes_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// ExampleHMC samples a two-weight "posterior" exp(-U) with
// U(w) = (w0-1.2)²/(2·0.13²) + (w1+3.1)²/(2·0.11²), as HMC would sample a
// network's weights with U = E_T, and summarizes a prediction f(w) = w0+w1.
func ExampleHMC() {
	newU := func() bayes.Potential {
		return func(w, grad []float64) float64 {
			a, b := (w[0]-1.2)/0.13, (w[1]+3.1)/0.11
			grad[0], grad[1] = a/0.13, b/0.11
			return (a*a + b*b) / 2
		}
	}
	res, err := bayes.HMC(newU, []float64{1, -3}, &bayes.HMCSettings{Samples: 2000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	mean, cov := res.Mean(), res.Cov()
	fmt.Printf("mean %.2g %.2g\n", mean[0], mean[1])
	fmt.Printf("sd   %.2g %.2g\n", math.Sqrt(cov.At(0, 0)), math.Sqrt(cov.At(1, 1)))
	fmt.Println("R-hat < 1.01:", slices.Max(res.RHat()) < 1.01)
	fmt.Println("ESS > 1000:", slices.Min(res.ESS()) > 1000)
	fmt.Println("divergent:", res.Divergent)

	pred := res.Predictive(1, func(w, out []float64) { out[0] = w[0] + w[1] })
	fmt.Printf("w0+w1 = %.2g ± %.2g\n", pred.Mean[0], pred.Std[0])
	// Output:
	// mean 1.2 -3.1
	// sd   0.13 0.11
	// R-hat < 1.01: true
	// ESS > 1000: true
	// divergent: [0 0 0 0]
	// w0+w1 = -1.9 ± 0.17
}
