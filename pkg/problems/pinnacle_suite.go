package problems

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/geom"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The PINNacle suite: problems written as PINNacle's src/pde/*.py writes
// them (domain, units, equation, coefficients, conditions), with no
// schedule, weight or rescaling of their own. Each PINNacle loss term is a
// term of its own beta group: "pde", "initial", "boundary" (and, for the
// inverse problem, "data" and "boundary_a"), so that PINNacle's loss is
// every group's weight at 1. Inputs are in PINNacle's column order, the
// spatial coordinates and then t.
//
// The point counts are the project's (PINNacle draws 8192 interior and
// 2048 boundary and initial points, times 4 on its time-dependent 2-D
// problems), a tenth or less of PINNacle's, for fits on one core.
const (
	suiteInteriorPoints = 2000
	suiteBoundaryPoints = 500
	suiteInitialPoints  = 500
)

// Heat2D_Multiscale's coefficients: u_t = kx u_xx + ky u_yy with kx =
// 1/(500 pi)^2, ky = 1/pi^2, and the initial mode sin(20 pi x) sin(pi y).
var (
	heatMSKx = 1 / ((500 * math.Pi) * (500 * math.Pi))
	heatMSKy = 1 / (math.Pi * math.Pi)
)

// heatMSExact is Heat2D_Multiscale's ref_sol: the initial mode decaying at
// the rate kx (20 pi)^2 + ky pi^2.
func heatMSExact(x []float64) float64 {
	a, b := 20*math.Pi, math.Pi
	return math.Sin(a*x[0]) * math.Sin(b*x[1]) * math.Exp(-(heatMSKx*a*a+heatMSKy*b*b)*x[2])
}

// Heat2DMultiscale is PINNacle's Heat2d-MS (Heat2D_Multiscale, heat.py):
// u_t = kx u_xx + ky u_yy on [0,1]^2 x [0,5] with kx = 1/(500 pi)^2 and
// ky = 1/pi^2, u = sin(20 pi x) sin(pi y) at t = 0 and u = 0 on the
// square's sides; Exact is PINNacle's ref_sol, the initial mode decaying.
func Heat2DMultiscale(o Options) *pde.Problem {
	return suiteSample(o, &pde.Problem{
		Name: "heat2d-ms", Inputs: []string{"x", "y", "t"}, Domain: unitSquareTimes(5),
		Params: map[string]float64{"kx": heatMSKx, "ky": heatMSKy},
		Terms: []pde.Term{
			pde.PDE("u_t - kx*u_xx - ky*u_yy = 0", suiteInteriorPoints),
			pde.InitialValue("t", suiteInitialPoints, "sin(20*pi*x)*sin(pi*y)").Named("initial").InGroup("initial"),
			pde.Dirichlet(pde.Boundary("t"), suiteBoundaryPoints, 0).Named("boundary"),
		},
		Exact: heatMSExact,
	})
}

// Heat2DLongTime is PINNacle's Heat2d-LT (Heat2D_LongTime, heat.py):
// u_t = 0.001 (u_xx + u_yy) + 5 sin(k u^2) (1 + 2 sin(pi t/4))
// sin(m1 pi x) sin(m2 pi y) on [0,1]^2 x [0,100] with k = 1, m1 = 4,
// m2 = 2, u = sin(4 pi x) sin(3 pi y) at t = 0 and u = 0 on the sides. It
// has no closed form: PINNacle's reference is a COMSOL export
// (heat_longtime.dat), which refsol.ReadTimeDatFile reads from a path the
// user gives; Exact is nil.
func Heat2DLongTime(o Options) *pde.Problem {
	return suiteSample(o, &pde.Problem{
		Name: "heat2d-lt", Inputs: []string{"x", "y", "t"}, Domain: unitSquareTimes(100),
		Params: map[string]float64{"k": 1, "m1": 4, "m2": 2},
		Terms: []pde.Term{
			pde.PDE("u_t - 0.001*(u_xx + u_yy) - 5*sin(k*u^2)*(1 + 2*sin(t*pi/4))*sin(m1*pi*x)*sin(m2*pi*y) = 0", suiteInteriorPoints),
			pde.InitialValue("t", suiteInitialPoints, "sin(4*pi*x)*sin(3*pi*y)").Named("initial").InGroup("initial"),
			pde.Dirichlet(pde.Boundary("t"), suiteBoundaryPoints, 0).Named("boundary"),
		},
	})
}

// wave2DLTExact is Wave2D_LongTime's ref_sol (a = sqrt 2, m1 = 1, m2 = 3,
// n1 = 1, n2 = 2, p1 = p2 = 1): it solves u_tt + u_xx + a^2 u_yy = 0, not
// the coded equation (the sinh factors grow where a wave's sines would
// oscillate).
func wave2DLTExact(x []float64) float64 {
	pi := math.Pi
	return math.Sin(pi*x[0])*math.Sinh(pi*x[1])*math.Cos(pi*x[2]) +
		math.Sinh(3*pi*x[0])*math.Sin(2*pi*x[1])*math.Cos(pi*x[2])
}

// Wave2DLongTime is PINNacle's Wave2d-MS (Wave2D_LongTime, wave.py) as
// coded: u_tt = u_xx + a^2 u_yy, a = sqrt 2, on [0,1]^2 x [0,100], u =
// ref_sol at t = 0 and on the sides, and no condition on u_t at t = 0
// (the code sets none). Exact is PINNacle's ref_sol, which does not solve
// the coded equation (wave2DLTExact): it is the problem's reference as
// PINNacle scores it, not its solution.
func Wave2DLongTime(o Options) *pde.Problem {
	return suiteSample(o, &pde.Problem{
		Name: "wave2d-ms", Inputs: []string{"x", "y", "t"}, Domain: unitSquareTimes(100),
		Params: map[string]float64{"a": math.Sqrt2},
		Terms: []pde.Term{
			pde.PDE("u_tt - (u_xx + a*a*u_yy) = 0", suiteInteriorPoints),
			pde.InitialValue("t", suiteInitialPoints, wave2DLTExact).Named("initial").InGroup("initial"),
			pde.Dirichlet(pde.Boundary("t"), suiteBoundaryPoints, wave2DLTExact).Named("boundary"),
		},
		Exact: wave2DLTExact,
	})
}

// PoissonInv's measurements: u on the 50 x 50 grid of [0,1]^2 (boundary
// included) with Gaussian noise of standard deviation 0.1.
const (
	poissonInvGrid  = 50
	poissonInvNoise = 0.1
)

// poissonInvA is PoissonInv's a_ref: 1/(1 + x^2 + y^2 + (x-1)^2 + (y-1)^2).
func poissonInvA(x []float64) float64 {
	return 1 / (1 + x[0]*x[0] + x[1]*x[1] + (x[0]-1)*(x[0]-1) + (x[1]-1)*(x[1]-1))
}

// poissonInvU is PoissonInv's u_ref: sin(pi x) sin(pi y).
func poissonInvU(x []float64) float64 { return math.Sin(math.Pi*x[0]) * math.Sin(math.Pi*x[1]) }

// poissonInvSource is PoissonInv's f_src with the sign s of the linear
// factors: (2x + s), (2y + s). s = -1 is the source of u_ref and a_ref
// (div(a grad u) + f = 0); s = +1 is PINNacle's code.
func poissonInvSource(s float64) func(x []float64) float64 {
	return func(x []float64) float64 {
		a, pi := poissonInvA(x), math.Pi
		sx, cx := math.Sincos(pi * x[0])
		sy, cy := math.Sincos(pi * x[1])
		return 2*pi*pi*sx*sy*a + 2*pi*((2*x[0]+s)*cx*sy+(2*x[1]+s)*sx*cy)*a*a
	}
}

// PoissonInv is PINNacle's PInv (PoissonInv, inverse.py) with the source
// of its u_ref and a_ref: div(a grad u) + f = 0 on [0,1]^2 for the fields
// u and a, a unknown inside; u measured with noise 0.1 on the 50 x 50 grid
// (PINNacle's pointset term), a = a_ref on the square's sides. The source
// has (2x - 1) and (2y - 1) where PINNacle's code has (2x + 1) and (2y +
// 1), with which u_ref and a_ref are no solution (PoissonInvAsCoded).
func PoissonInv(o Options) *pde.Problem { return poissonInv(o, "poisson-inv", -1) }

// PoissonInvAsCoded is PoissonInv with PINNacle's coded source, (2x + 1)
// and (2y + 1): its reference u_ref, a_ref does not solve it.
func PoissonInvAsCoded(o Options) *pde.Problem {
	return poissonInv(o, "poisson-inv-as-coded", +1)
}

func poissonInv(o Options, name string, sign float64) *pde.Problem {
	pts, u := poissonInvData(o)
	return suiteSample(o, &pde.Problem{
		Name: name, Inputs: []string{"x", "y"}, Outputs: []string{"u", "a"},
		Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Params: map[string]float64{"noise_std": poissonInvNoise},
		Terms: []pde.Term{
			pde.PDE("a_x*u_x + a*u_xx + a_y*u_y + a*u_yy + f = 0", suiteInteriorPoints).WithField("f", poissonInvSource(sign)),
			{Name: "data", Group: "data", Output: "u", Points: pts, Target: u, Residual: pde.DataResidual, Measured: true},
			pde.Dirichlet(pde.Boundary(), suiteBoundaryPoints, poissonInvA).For("a").Named("boundary_a").InGroup("boundary_a"),
		},
		ExactOutputs: func(x []float64) []float64 { return []float64{poissonInvU(x), poissonInvA(x)} },
	})
}

// poissonInvData is PINNacle's measurement of u: the 50 x 50 grid of
// linspace(0, 1, 50), x fastest (numpy's meshgrid), with noise of the data
// seed.
func poissonInvData(o Options) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(max(o.DataSeed, 1), 0xda7a))
	var pts [][]float64
	var u []float64
	for j := range poissonInvGrid {
		for i := range poissonInvGrid {
			x := []float64{float64(i) / (poissonInvGrid - 1), float64(j) / (poissonInvGrid - 1)}
			pts = append(pts, x)
			u = append(u, poissonInvU(x)+poissonInvNoise*rng.NormFloat64())
		}
	}
	return pts, u
}

// wave1DExact is Wave1D's ref_sol (C = 2, a = 4): sin(pi x) cos(2 pi t) +
// 0.5 sin(4 pi x) cos(8 pi t).
func wave1DExact(x []float64) float64 {
	pi := math.Pi
	return math.Sin(pi*x[0])*math.Cos(2*pi*x[1]) + 0.5*math.Sin(4*pi*x[0])*math.Cos(8*pi*x[1])
}

// Wave1D is PINNacle's Wave1d-C (Wave1D, wave.py): u_tt = 4 u_xx on
// [0,1] x [0,1] (x, t), u_t = 0 (DeepXDE's Neumann condition on the face
// t = 0) and u = ref_sol at t = 0, u = ref_sol (0) at x = 0 and 1. It is
// beyond the seven: one of PINNacle's problems the defaults were
// not measured on while they were made.
func Wave1D(o Options) *pde.Problem {
	return suiteSample(o, &pde.Problem{
		Name: "wave1d", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms: []pde.Term{
			pde.PDE("u_tt - 4*u_xx = 0", suiteInteriorPoints),
			pde.InitialRate("t", suiteInitialPoints, 0).Named("rate").InGroup("rate"),
			pde.InitialValue("t", suiteInitialPoints, wave1DExact).Named("initial").InGroup("initial"),
			pde.Dirichlet(pde.Faces("x"), suiteBoundaryPoints, wave1DExact).Named("boundary"),
		},
		Exact: wave1DExact,
	})
}

// helmholtzExact is Helmholtz2D's ref_sol (A = (4, 4), scale 1): sin(4 pi
// x) sin(4 pi y).
func helmholtzExact(x []float64) float64 {
	return math.Sin(4*math.Pi*x[0]) * math.Sin(4*math.Pi*x[1])
}

// Helmholtz2D is PINNacle's Helmholtz2D (helmholtz.py, k = 1, A = (4, 4),
// scale 1): u_xx + u_yy + u = sin(4 pi x) sin(4 pi y) (1 - 32 pi^2) on
// [0,1]^2, u = 0 on the boundary. Beyond the seven, as Wave1D: a
// source that only the equation states, the walls homogeneous.
func Helmholtz2D(o Options) *pde.Problem {
	return suiteSample(o, &pde.Problem{
		Name: "helmholtz2d", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms: []pde.Term{
			pde.PDE("u_xx + u_yy + u = sin(4*pi*x)*sin(4*pi*y)*(1 - 32*pi^2)", suiteInteriorPoints),
			pde.Dirichlet(pde.Boundary(), suiteBoundaryPoints, 0).Named("boundary"),
		},
		Exact: helmholtzExact,
	})
}

// HeatInv's fields and source: u = exp(-t) sin(pi x) sin(pi y), a = 2 +
// sin(pi x) sin(pi y), and f from u_t = div(a grad u) + f.
func heatInvU(x []float64) float64 {
	return math.Exp(-x[2]) * math.Sin(math.Pi*x[0]) * math.Sin(math.Pi*x[1])
}

func heatInvA(x []float64) float64 { return 2 + math.Sin(math.Pi*x[0])*math.Sin(math.Pi*x[1]) }

func heatInvSource(x []float64) float64 {
	p := math.Pi
	sx, cx := math.Sincos(p * x[0])
	sy, cy := math.Sincos(p * x[1])
	return math.Exp(-x[2]) * ((4*p*p-1)*sx*sy + p*p*(2*sx*sx*sy*sy-cx*cx*sy*sy-sx*sx*cy*cy))
}

// HeatInv's measurements: 2500 of u with Gaussian noise of standard
// deviation 0.1.
const (
	heatInvData  = 2500
	heatInvNoise = 0.1
)

// HeatInv is PINNacle's HInv (HeatInv, inverse.py): u_t = div(a grad u) +
// f on [-1,1]^2 x [0,1] for the fields u and a, a unknown inside; u
// measured with noise 0.1 at 2500 points, a = a_ref on the square's sides
// (DeepXDE's boundary of a space-time domain: the spatial one); no
// initial condition. PINNacle reads its measurement points from
// ref/heatinv_points.dat; here they are drawn uniformly in the domain
// from the data seed. Beyond the seven, as Wave1D.
func HeatInv(o Options) *pde.Problem {
	rng := rand.New(rand.NewPCG(max(o.DataSeed, 1), 0xda7a))
	pts, u := make([][]float64, heatInvData), make([]float64, heatInvData)
	for i := range pts {
		pts[i] = []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, rng.Float64()}
		u[i] = heatInvU(pts[i]) + heatInvNoise*rng.NormFloat64()
	}
	return suiteSample(o, &pde.Problem{
		Name: "heat2d-inv", Inputs: []string{"x", "y", "t"}, Outputs: []string{"u", "a"},
		Lo: []float64{-1, -1, 0}, Hi: []float64{1, 1, 1},
		Params: map[string]float64{"noise_std": heatInvNoise},
		Terms: []pde.Term{
			pde.PDE("u_t - (a_x*u_x + a*u_xx + a_y*u_y + a*u_yy) - f = 0", suiteInteriorPoints).WithField("f", heatInvSource),
			{Name: "data", Group: "data", Output: "u", Points: pts, Target: u, Residual: pde.DataResidual, Measured: true},
			pde.Dirichlet(pde.Boundary("t"), suiteBoundaryPoints, heatInvA).For("a").Named("boundary_a").InGroup("boundary_a"),
		},
		ExactOutputs: func(x []float64) []float64 { return []float64{heatInvU(x), heatInvA(x)} },
	})
}

// Burgers1D is PINNacle's Burgers1d-C (Burgers1D, burgers.py): u_t + u
// u_x = nu u_xx on [-1,1] x [0,1], nu = 0.01/pi, u = sin(-pi x) at t = 0
// and u = 0 at x = -1 and 1. Exact is the Cole-Hopf solution (BurgersRef,
// the paper's Burgers problem's; PINNacle scores against its COMSOL export
// burgers1d.dat, itself about 1.3e-2 from it).
func Burgers1D(o Options) *pde.Problem {
	nu := BurgersNu()
	ref := sharedBurgersRef(nu)
	return suiteSample(o, &pde.Problem{
		Name: "burgers1d", Inputs: []string{"x", "t"},
		Domain: geom.Must(geom.NewSpaceTime(geom.Must(geom.NewBox([]float64{-1}, []float64{1})), 0, 1, "x", "t")),
		Params: map[string]float64{"nu": nu},
		Terms: []pde.Term{
			pde.PDE("u_t + u*u_x - nu*u_xx = 0", suiteInteriorPoints),
			pde.InitialValue("t", suiteInitialPoints, "sin(-pi*x)").Named("initial").InGroup("initial"),
			pde.Dirichlet(pde.Boundary("t"), suiteBoundaryPoints, 0).Named("boundary"),
		},
		Exact: func(x []float64) float64 { return ref.U(x[0], x[1]) },
	})
}

// ndDim is the space dimension of PoissonND and HeatND; their inputs are
// x1, ..., x5 (and t).
const ndDim = 5

// ndInputs are x1, ..., x5, then the extra inputs.
func ndInputs(extra ...string) []string {
	var in []string
	for i := range ndDim {
		in = append(in, fmt.Sprintf("x%d", i+1))
	}
	return append(in, extra...)
}

// ndSum is the text sum of f(xi) over the inputs x1..x5, f a format of %[1]s.
func ndSum(f string) string {
	var terms []string
	for _, x := range ndInputs() {
		terms = append(terms, fmt.Sprintf(f, x))
	}
	return strings.Join(terms, " + ")
}

// poissonNDExact is PoissonND's ref_sol: the sum of sin(pi/2 xi).
func poissonNDExact(x []float64) float64 {
	var s float64
	for _, v := range x[:ndDim] {
		s += math.Sin(math.Pi / 2 * v)
	}
	return s
}

// PoissonND is PINNacle's PNd (PoissonND, poisson.py), 5-D: the
// Laplacian of u plus pi^2/4 times the sum of sin(pi/2 xi) is 0 on
// [0,1]^5, inputs x1..x5, u = ref_sol on the boundary; Exact is ref_sol,
// the sum of sin(pi/2 xi).
func PoissonND(o Options) *pde.Problem {
	lo, hi := make([]float64, ndDim), make([]float64, ndDim)
	for i := range hi {
		hi[i] = 1
	}
	return suiteSample(o, &pde.Problem{
		Name: "poisson-nd", Inputs: ndInputs(), Lo: lo, Hi: hi,
		Terms: []pde.Term{
			pde.PDE(ndSum("u_%[1]s_%[1]s")+" + pi^2/4*("+ndSum("sin(pi/2*%[1]s)")+") = 0", suiteInteriorPoints),
			pde.Dirichlet(pde.Boundary(), suiteBoundaryPoints, poissonNDExact).Named("boundary"),
		},
		Exact: poissonNDExact,
	})
}

// heatNDExact is HeatND's ref_sol: exp(|x|^2/2 + t).
func heatNDExact(x []float64) float64 {
	var r2 float64
	for _, v := range x[:ndDim] {
		r2 += v * v
	}
	return math.Exp(r2/2 + x[ndDim])
}

// HeatND is PINNacle's HNd (HeatND, heat.py), the unit ball of R^5 times
// [0, 1], inputs x1..x5, t: u_t = (1/d) (the Laplacian of u) - (1/d) |x|^2
// exp(|x|^2/2 + t), d = 5, du/dn = ref_sol on the sphere (PINNacle's
// Neumann condition, whose value is ref_sol itself: there du/dn = |x| u =
// u) and u = ref_sol at t = 0; Exact is ref_sol, exp(|x|^2/2 + t).
func HeatND(o Options) *pde.Problem {
	ball := geom.Must(geom.NewBall(make([]float64, ndDim), 1))
	r2 := "(" + ndSum("%[1]s^2") + ")"
	return suiteSample(o, &pde.Problem{
		Name: "heat-nd", Inputs: ndInputs("t"),
		Domain: geom.Must(geom.NewSpaceTime(ball, 0, 1, ndInputs("t")...)),
		Params: map[string]float64{"d": ndDim},
		Terms: []pde.Term{
			pde.PDE("1/d*("+ndSum("u_%[1]s_%[1]s")+") - 1/d*"+r2+"*exp("+r2+"/2 + t) - u_t = 0", suiteInteriorPoints),
			pde.NeumannOn(pde.Boundary("t"), suiteBoundaryPoints, heatNDExact).Named("boundary"),
			pde.InitialValue("t", suiteInitialPoints, heatNDExact).Named("initial").InGroup("initial"),
		},
		Exact: heatNDExact,
	})
}

// unitSquareTimes is [0,1]^2 x [0, T], inputs x, y, t.
func unitSquareTimes(T float64) geom.Domain {
	sq := geom.Must(geom.NewBox([]float64{0, 0}, []float64{1, 1}))
	return geom.Must(geom.NewSpaceTime(sq, 0, T, "x", "y", "t"))
}

// suiteSample draws p's points with the options' sampler and data seed;
// a problem with an exact solution is scored at PINNacle's test points
// (SuiteTestPoints).
func suiteSample(o Options, p *pde.Problem) *pde.Problem {
	p.Sampling = cmp.Or(o.Sampling, pde.Uniform)
	if p.HasExact() {
		pts, err := SuiteTestPoints(p.Name)
		if err != nil {
			panic("problems: " + p.Name + ": " + err.Error()) // a fixed problem: a bug
		}
		p.TestPoints = pts
	}
	q, err := p.Sample(max(o.DataSeed, 1))
	if err != nil {
		panic("problems: " + p.Name + ": " + err.Error()) // a fixed problem: a bug
	}
	return q
}

// SuiteTestPoints returns the points at which PINNacle scores the suite
// problem of the name (L2RE over all fields at them):
//   - an analytic reference (heat2d-ms, wave2d-ms, poisson-inv,
//     poisson-inv-as-coded, wave1d, heat2d-inv, helmholtz2d):
//     TesterCallback's
//     geom.uniform_points(n, boundary=False), n = 2500 for 2 inputs and
//     20000 otherwise, by DeepXDE's rule (deepxdeUniform);
//   - poisson-nd: the same rule in 5-D, 8^5 points k/9;
//   - heat-nd: DeepXDE's rule for a ball times time asks the ball for
//     uniform_points, which it does not have: PINNacle draws 800 random
//     points in the ball (numpy's unseeded stream) at 25 times 1 - k/25;
//     heatNDTestPoints draws the 800 of the same law from a fixed seed;
//   - burgers1d: the nodes of PINNacle's burgers1d.dat, x = -1, -0.98,
//     ..., 1 at t = 0, 0.1, ..., 1 (node by node, time fastest), where
//     PINNacle scores it;
//   - heat2d-lt: an error; its points are its reference file's
//     (refsol.TimeTable.Rows).
//
// The points are float64; PINNacle's are the same numbers rounded to
// float32.
func SuiteTestPoints(name string) ([][]float64, error) {
	switch name {
	case "heat2d-ms":
		return deepxdeUniform([]float64{0, 0}, []float64{1, 1}, 0, 5, 20000), nil
	case "wave2d-ms":
		return deepxdeUniform([]float64{0, 0}, []float64{1, 1}, 0, 100, 20000), nil
	case "poisson-inv", "poisson-inv-as-coded", "wave1d", "helmholtz2d":
		return deepxdeCube([]float64{0, 0}, []float64{1, 1}, 2500), nil
	case "heat2d-inv":
		return deepxdeUniform([]float64{-1, -1}, []float64{1, 1}, 0, 1, 20000), nil
	case "burgers1d":
		var pts [][]float64
		for i := range 101 {
			for j := range 11 {
				pts = append(pts, []float64{-1 + 0.02*float64(i), 0.1 * float64(j)})
			}
		}
		return pts, nil
	case "poisson-nd":
		lo, hi := make([]float64, ndDim), make([]float64, ndDim)
		for i := range hi {
			hi[i] = 1
		}
		return deepxdeCube(lo, hi, 20000), nil
	case "heat-nd":
		return heatNDTestPoints(), nil
	case "heat2d-lt":
		return nil, fmt.Errorf("heat2d-lt: PINNacle scores it at its reference's nodes: read heat_longtime.dat with refsol.ReadTimeDatFile and take its Rows")
	}
	return nil, fmt.Errorf("%q is not a PINNacle suite problem with test points: use heat2d-ms, heat2d-lt, wave2d-ms, poisson-nd, heat-nd, poisson-inv, poisson-inv-as-coded, burgers1d, wave1d, heat2d-inv or helmholtz2d", name)
}

// heatNDTestPoints are HeatND's test points as PINNacle's rule makes them:
// nx = ceil(sqrt(20000 * 2^5 / 1)) = 800 points uniform in the unit ball
// (a direction from normal coordinates, the radius U^(1/5), as DeepXDE's
// Hypersphere.random_points), here from a fixed seed, each at the nt =
// 25 times 1 - k/25, k = 0..24.
func heatNDTestPoints() [][]float64 {
	rng := rand.New(rand.NewPCG(1, 0x7e57))
	const nx, nt = 800, 25
	space := make([][]float64, nx)
	for i := range space {
		x := make([]float64, ndDim)
		var norm float64
		for k := range x {
			x[k] = rng.NormFloat64()
			norm += x[k] * x[k]
		}
		r := math.Pow(rng.Float64(), 1.0/ndDim) / math.Sqrt(norm)
		for k := range x {
			x[k] *= r
		}
		space[i] = x
	}
	var pts [][]float64
	for k := range nt {
		t := 1 - float64(k)/nt
		for _, x := range space {
			pts = append(pts, append(append([]float64(nil), x...), t))
		}
	}
	return pts
}

// deepxdeCube is DeepXDE's Hypercube.uniform_points(n, boundary=False):
// ceil(side/dx) interior points per axis, dx = (volume/n)^(1/d), the
// first axis slowest (itertools.product).
func deepxdeCube(lo, hi []float64, n int) [][]float64 {
	d := len(lo)
	vol := 1.0
	for i := range lo {
		vol *= hi[i] - lo[i]
	}
	dx := math.Pow(vol/float64(n), 1/float64(d))
	axes := make([][]float64, d)
	for i := range lo {
		ni := int(math.Ceil((hi[i] - lo[i]) / dx))
		step := (hi[i] - lo[i]) / float64(ni+1)
		for k := 1; k <= ni; k++ {
			axes[i] = append(axes[i], lo[i]+float64(k)*step)
		}
	}
	pts := [][]float64{nil}
	for _, ax := range axes {
		var next [][]float64
		for _, p := range pts {
			for _, v := range ax {
				next = append(next, append(append([]float64(nil), p...), v))
			}
		}
		pts = next
	}
	return pts
}

// deepxdeUniform is DeepXDE's GeometryXTime.uniform_points(n,
// boundary=False) for the box [lo, hi] times [t0, t1]: nx =
// ceil(sqrt(n volume/(t1 - t0))) space points (deepxdeCube), nt =
// ceil(n/nx) times linspace(t1, t0, nt, endpoint=False) (t1 first, t0
// left out), every space point at each time.
func deepxdeUniform(lo, hi []float64, t0, t1 float64, n int) [][]float64 {
	vol := 1.0
	for i := range lo {
		vol *= hi[i] - lo[i]
	}
	nx := int(math.Ceil(math.Sqrt(float64(n) * vol / (t1 - t0))))
	nt := (n + nx - 1) / nx
	space := deepxdeCube(lo, hi, nx)
	var pts [][]float64
	step := (t0 - t1) / float64(nt)
	for k := range nt {
		t := t1 + float64(k)*step
		for _, x := range space {
			pts = append(pts, append(append([]float64(nil), x...), t))
		}
	}
	return pts
}
