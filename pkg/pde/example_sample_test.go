package pde_test

import (
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// A 2-D Poisson problem -(u_xx + u_yy) = f on the unit square with u = 0 on
// its boundary, exact solution u = sin(pi x) sin(pi y): 100 equation points
// by Latin hypercube with the source f drawn at them, 40 boundary points by
// a Halton sequence, spread over the four edges by length. Sample draws
// them; Fresh and Redraw come with it.
func ExampleProblem_Sample() {
	exact := func(x []float64) float64 { return math.Sin(math.Pi*x[0]) * math.Sin(math.Pi*x[1]) }
	source := func(x []float64) float64 { return 2 * math.Pi * math.Pi * exact(x) }
	p := &pde.Problem{
		Name: "poisson-2d", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Sampling: pde.LatinHypercube, // the default of every Draw below
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Residual: func(v *pde.Vars) *ad.Node { // u_xx + u_yy + f
				return ad.Add(ad.Add(v.D2("x", "x"), v.D2("y", "y")), v.Field("f"))
			}, Draw: &pde.Draw{Region: pde.Interior(), N: 100, Fields: map[string]func([]float64) float64{"f": source}}},
			{Name: "boundary", Group: "boundary", Draw: &pde.Draw{Region: pde.Boundary(), N: 40, Sampler: pde.Halton,
				Value: func([]float64) float64 { return 0 }}, Residual: pde.DataResidual},
		},
		Exact: exact,
	}
	q, err := p.Sample(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := q.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	edges := map[string]int{}
	for _, x := range q.Terms[1].Points {
		switch {
		case x[0] == 0:
			edges["x=0"]++
		case x[0] == 1:
			edges["x=1"]++
		case x[1] == 0:
			edges["y=0"]++
		case x[1] == 1:
			edges["y=1"]++
		}
	}
	fresh, _ := q.Fresh()
	fmt.Println(q.Sampling, len(q.Terms[0].Points), "equation points,", len(q.Terms[1].Points), "boundary points:", edges)
	fmt.Println("fresh points differ:", fresh.Terms[0].Points[0][0] != q.Terms[0].Points[0][0])
	p.Terms[1].Draw.Region = pde.Face("z", pde.Lo) // a name the problem does not have
	_, err = p.Sample(1)
	fmt.Println(err)
	// Output:
	// lhs+halton 100 equation points, 40 boundary points: map[x=0:10 x=1:10 y=0:10 y=1:10]
	// fresh points differ: true
	// problem "poisson-2d" term "boundary": region Face("z", Lo): no input "z"; the inputs are ["x" "y"]
}
