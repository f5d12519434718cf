package posterior_test

import (
	"context"
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// ExampleCompareHMC compares the Laplace band of a short regression fit
// with 2 NUTS chains on the same posterior.
func ExampleCompareHMC() {
	reg, err := problems.Lookup("regression")
	if err != nil {
		fmt.Println(err)
		return
	}
	fs := bayes.Settings{Schedule: reg.Schedule(problems.Options{}), Seed: 1, Epochs: 3000, Recipe: bayes.RecipePaper}
	fit, err := bayes.Train(context.Background(), reg.New(problems.Options{}), fs)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &mcmc.Settings{Chains: 2, Samples: 500, Warmup: 500, TargetAccept: 0.8, MaxDepth: 8, Seed: 1}
	c, err := posterior.CompareHMC(context.Background(), fit, s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("grid points:", len(c.X))
	fmt.Println("predictive R-hat < 1.1:", *c.Diagnostics.MaxRHat < 1.1)
	fmt.Println("Laplace/HMC width inside the data in [0.5, 2]:",
		*c.WidthRatio.Inside > 0.5 && *c.WidthRatio.Inside < 2)
	// Output:
	// grid points: 201
	// predictive R-hat < 1.1: true
	// Laplace/HMC width inside the data in [0.5, 2]: true
}
