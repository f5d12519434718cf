package pde_test

import (
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The heat equation u_t = kappa u_xx on [0, 1] x [0, 1] with u = 0 at
// x = 0 and x = 1 and u = sin(pi x) at t = 0, written as text: the
// equation and each condition in one line.
func ExampleEquation() {
	p := &pde.Problem{
		Name: "heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Params: map[string]float64{"kappa": 0.1},
		Terms: []pde.Term{
			pde.PDE("u_t = kappa*u_xx", 50),
			pde.Dirichlet(pde.Boundary("t"), 30, 0),
			pde.InitialValue("t", 20, "sin(pi*x)"),
		},
		Exact: func(x []float64) float64 { return math.Exp(-0.1*math.Pi*math.Pi*x[1]) * math.Sin(math.Pi*x[0]) },
	}
	q, err := p.Sample(1)
	if err == nil {
		err = q.Validate()
	}
	fmt.Println("valid:", err == nil)
	for _, t := range q.Terms {
		fmt.Printf("%s (group %s): %d points\n", t.Name, t.Group, len(t.Points))
	}
	// A name the problem does not have is an error with its column.
	p.Terms[0] = pde.PDE("u_t = kappa*u_yy", 50)
	q, _ = p.Sample(1)
	fmt.Println(q.Validate())
	// Output:
	// valid: true
	// pde (group pde): 50 points
	// dirichlet_boundary (group boundary): 30 points
	// initial_t (group boundary): 20 points
	// problem "heat" term "pde": equation "u_t = kappa*u_yy": col 13: u_yy: no input "y"; the inputs are x, t
}
