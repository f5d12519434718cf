package bayes_test

import (
	"context"
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// A 1-D Poisson problem, u_xx = -pi^2 sin(pi x) with u(0) = u(1) = 0,
// trained with the evidence choosing one beta for the equation and one for
// the boundary: the fit's status, its beta groups and its error against
// the exact solution sin(pi x).
func ExampleTrain() {
	p := &pde.Problem{Name: "poisson-1d", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Terms: []pde.Term{
			pde.PDE("u_xx = -pi^2*sin(pi*x)", 30),
			pde.Dirichlet(pde.Boundary(), 2, 0),
		},
		Exact: func(x []float64) float64 { return math.Sin(math.Pi * x[0]) },
	}
	q, err := p.Sample(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Hidden: []int{8}, Epochs: 3000})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := f.GridErrors(101)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Status, f.Model.BetaNames)
	fmt.Println("rel L2 below 1e-3:", e.RelL2 < 1e-3)
	// Output:
	// ok [beta_pde beta_boundary]
	// rel L2 below 1e-3: true
}

// One resolution for several fits: NewConfig fills the settings from the
// defaults and works out the beta groups once; each seed's fit trains
// that Config with its own seed.
func ExampleNewConfig() {
	p := &pde.Problem{Name: "poisson-1d", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Terms: []pde.Term{
			pde.PDE("u_xx = -pi^2*sin(pi*x)", 30),
			pde.Dirichlet(pde.Boundary(), 2, 0),
		},
	}
	q, err := p.Sample(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := bayes.NewConfig(q, bayes.Settings{Seed: 1, Hidden: []int{8}, Epochs: 200, Recipe: bayes.RecipePaper})
	if err != nil {
		fmt.Println(err)
		return
	}
	names, termGroup := cfg.BetaGroups()
	fmt.Println(cfg.Settings().Recipe, cfg.Settings().Hyper.Start, names, termGroup)
	for _, seed := range []uint64{1, 2} {
		f, err := bayes.TrainConfig(context.Background(), cfg.WithSeed(seed))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("seed", f.Settings.Seed, "epochs", f.Epochs)
	}
	// Output:
	// paper 66 [beta_pde beta_boundary] [0 1]
	// seed 1 epochs 200
	// seed 2 epochs 200
}
