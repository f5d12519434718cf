package mcmc_test

import (
	"context"
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/mcmc"
)

// ExampleSample samples a correlated two-dimensional Gaussian with NUTS
// and Stan's defaults, and reads the diagnostics a Stan user reads.
func ExampleSample() {
	// ln p(x) = -(x0² - 1.8 x0 x1 + x1²) / (2 (1 - 0.81)) + const:
	// unit variances, correlation 0.9.
	newF := func() mcmc.LogDensity {
		return func(x, grad []float64) float64 {
			const d = 1 - 0.81
			grad[0] = -(x[0] - 0.9*x[1]) / d
			grad[1] = -(x[1] - 0.9*x[0]) / d
			return -(x[0]*x[0] - 1.8*x[0]*x[1] + x[1]*x[1]) / (2 * d)
		}
	}
	res, err := mcmc.Sample(context.Background(), newF, []float64{0, 0}, &mcmc.Settings{Metric: mcmc.Dense, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for j, s := range res.Summaries() {
		fmt.Printf("x%d: mean within 4 MCSE of 0: %v, sd %.1f, R-hat < 1.01: %v, bulk ESS > 400: %v\n",
			j, math.Abs(s.Mean) < 4*s.MCSE, s.SD, s.RHat < 1.01, s.BulkESS > 400)
	}
	fmt.Println("divergences:", res.Divergences())
	// Output:
	// x0: mean within 4 MCSE of 0: true, sd 1.0, R-hat < 1.01: true, bulk ESS > 400: true
	// x1: mean within 4 MCSE of 0: true, sd 1.0, R-hat < 1.01: true, bulk ESS > 400: true
	// divergences: 0
}
