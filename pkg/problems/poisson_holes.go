package problems

import (
	"cmp"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/geom"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/refsol"
)

// The points of poisson-holes: the equation in the plate, u = 1 on the
// square (length 4) and u = 0 on the circles (length 4 * 2 pi 0.1 = 2.5),
// where the solution bends most, so they get twice the square's points.
const (
	holesPDEPoints    = 4000
	holesSquarePoints = 400
	holesCirclePoints = 800
)

// The equations of poisson-holes and of poisson-holes-raw. The solution
// changes over the holes' radius r = 0.1, where the Laplacian of each of
// its parts is of order 1/r^2 = 100 times u: written in units of r, the
// equation's residual is of the conditions' order, so that training
// starts with the equation and the conditions balanced; with PINNacle's
// unscaled residual the equation wins and u settles at a constant near
// 0.5 (rel L2 0.53, with weights by the evidence or all 1).
const (
	holesEquation    = "0.01*(u_xx + u_yy) = 0"
	holesRawEquation = "u_xx + u_yy = 0"
)

// PoissonHoles is PINNacle's Poisson2d-C: Laplace's equation on the plate
// [-0.5, 0.5]^2 minus four disks of radius r = 0.1 centred at (+-0.3,
// +-0.3), u = 1 on the square and u = 0 on the circles; the equation's
// residual is r^2 (u_xx + u_yy) (holesEquation says why), so beta_pde is
// 1e4 times the beta of the unscaled residual and the log evidence differs
// from that of the unscaled one by the constant N_pde ln(1/r^2). The
// points are drawn on the domain (pde.Draw) with Options.Sampling. Betas: one for the equation and one for the boundary,
// square and circles together: both are exact Dirichlet values of one
// solution, fitted about equally closely.
//
// There is no closed form: Exact is the project's own finite-difference
// solution (refsol.DefaultPoissonHoles, 200 x 200 cells, within 8e-5 L2RE
// of PINNacle's COMSOL reference), NaN outside the plate.
func PoissonHoles(o Options) *pde.Problem { return poissonHoles(o, "poisson-holes", holesEquation) }

// PoissonHolesRaw is poisson-holes with the equation's residual unscaled,
// u_xx + u_yy, as PINNacle writes it: the problem of the unit-weight
// baseline (PINNacle's loss).
func PoissonHolesRaw(o Options) *pde.Problem {
	return poissonHoles(o, "poisson-holes-raw", holesRawEquation)
}

func poissonHoles(o Options, name, equation string) *pde.Problem {
	p := &pde.Problem{
		Name: name, Inputs: []string{"x", "y"}, Domain: holesPlate(),
		Sampling: cmp.Or(o.Sampling, pde.Uniform),
		Terms: []pde.Term{
			pde.PDE(equation, holesPDEPoints),
			pde.Dirichlet(pde.On("square"), holesSquarePoints, 1),
			pde.Dirichlet(pde.On("holes"), holesCirclePoints, 0),
		},
		Exact: holesReference,
	}
	q, err := p.Sample(max(o.DataSeed, 1))
	if err != nil {
		panic("problems: " + name + ": " + err.Error()) // a fixed problem: a bug
	}
	return q
}

// holesPlate is the domain of poisson-holes, with the boundary parts
// "square" and "holes".
func holesPlate() geom.Domain {
	square := geom.Must(geom.NewBox([]float64{-0.5, -0.5}, []float64{0.5, 0.5}))
	c, r := refsol.HoleCentre, refsol.HoleRadius
	var disks []geom.Domain
	for _, at := range [][2]float64{{-c, -c}, {c, -c}, {-c, c}, {c, c}} {
		disks = append(disks, geom.Must(geom.NewDisk(at[0], at[1], r)))
	}
	holes := geom.Must(geom.Named("holes", geom.Must(geom.Union(disks...))))
	return geom.Must(geom.Difference(geom.Must(geom.Named("square", square)), holes))
}

// holesReference is the reference solution at x, NaN outside the plate (or
// if the reference cannot be solved, which TestPoissonHoles rules out).
func holesReference(x []float64) float64 {
	pl, err := refsol.DefaultPoissonHoles()
	if err != nil {
		return math.NaN()
	}
	u, err := pl.At(x[0], x[1])
	if err != nil {
		return math.NaN()
	}
	return u
}
