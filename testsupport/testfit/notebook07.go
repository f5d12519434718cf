package testfit

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// Notebook07Schedule is the schedule notebook 07 fits its problems with:
// 8000 epochs of a net with one hidden layer of 8.
var Notebook07Schedule = schedule.Schedule{Hidden: []int{8}, Epochs: 8000}

// Notebook07 returns notebook 07's three problems of a user's own, written
// as the notebook writes them (unsampled): poisson-2d, advection-diffusion
// and reaction.
func Notebook07() []*pde.Problem {
	return []*pde.Problem{Poisson2D(), AdvectionDiffusion(), Reaction()}
}

// Poisson2D is notebook 07's -(u_xx + u_yy) = f on the unit square with
// u = 0 on the boundary.
func Poisson2D() *pde.Problem {
	return &pde.Problem{
		Name: "poisson-2d", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Sampling: pde.Halton,
		Terms: []pde.Term{
			pde.PDE("u_xx + u_yy + 5*pi^2*sin(2*pi*x)*sin(pi*y) = 0", 100),
			pde.Dirichlet(pde.Boundary(), 40, 0),
		},
		Exact: func(x []float64) float64 { return math.Sin(2*math.Pi*x[0]) * math.Sin(math.Pi*x[1]) },
	}
}

// AdvectionDiffusion is notebook 07's u_t + a u_x = D u_xx (a = 1,
// D = 0.05) with a decaying travelling sine wave as exact solution.
func AdvectionDiffusion() *pde.Problem {
	const a, d, k = 1.0, 0.05, math.Pi
	travelling := func(x []float64) float64 { return math.Exp(-d*k*k*x[1]) * math.Sin(k*(x[0]-a*x[1])) }
	return &pde.Problem{
		Name: "advection-diffusion", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Sampling: pde.Halton, Params: map[string]float64{"a": a, "D": d},
		Terms: []pde.Term{
			pde.PDE("u_t + a*u_x = D*u_xx", 100),
			pde.Dirichlet(pde.Boundary("t"), 20, travelling),
			pde.InitialValue("t", 20, travelling),
		},
		Exact: travelling,
	}
}

// Reaction is notebook 07's -u” + u^3 = f on [0, 1], u(0) = 0, with 20
// measurements of u (noise 0.05) fixing the missing condition.
func Reaction() *pde.Problem {
	exact := func(x []float64) float64 { return x[0] + 0.5*math.Sin(4*math.Pi*x[0]) }
	source := func(x []float64) float64 {
		return 8*math.Pi*math.Pi*math.Sin(4*math.Pi*x[0]) + math.Pow(exact(x), 3)
	}
	return &pde.Problem{
		Name: "reaction", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1}, Sampling: pde.LatinHypercube,
		Terms: []pde.Term{
			pde.PDE("u^3 - u_xx = f", 30).WithField("f", source),
			pde.Dirichlet(pde.Face("x", pde.Lo), 1, 0).InGroup("pde"),
			{Name: "data", Group: "data", Residual: pde.DataResidual,
				Draw: &pde.Draw{Region: pde.Interior(), N: 20, Noise: 0.05, Value: exact}},
		},
		Exact: exact,
	}
}

// ReactionWithData is Reaction with n measurements of noise 0.05 given as
// data (pde.Problem.WithData: the same at every draw, no new ones), drawn
// at random points from data seed seed, and its exact solution, which
// WithData drops.
func ReactionWithData(n int, seed uint64) (*pde.Problem, func([]float64) float64) {
	p := Reaction()
	exact := p.Exact
	p.Terms = slices.DeleteFunc(slices.Clone(p.Terms), func(t pde.Term) bool { return t.Name == "data" })
	rng := rand.New(rand.NewPCG(seed, 52))
	d := &pde.Data{}
	for range n {
		x := rng.Float64()
		d.Points = append(d.Points, []float64{x})
		d.U = append(d.U, exact([]float64{x})+0.05*rng.NormFloat64())
	}
	return p.WithData(d), exact
}
