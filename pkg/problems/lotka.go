package problems

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// LotkaVolterra holds the predator-prey model
//
//	u' = a u - b u v,  v' = c u v - d v
//
// (u the prey, v the predators) with its rates, its initial state and the
// time horizon T.
type LotkaVolterra struct {
	A, B, C, D float64
	U0, V0     float64
	T          float64
}

// LVTruth is lotka-volterra-inverse's model: equilibrium (d/c, a/b) = (2, 2),
// started at (1, 1), over T = 10, about one and a half cycles.
var LVTruth = LotkaVolterra{A: 1, B: 0.5, C: 0.5, D: 1, U0: 1, V0: 1, T: 10}

// Rate returns the time derivative (u', v') at the state (u, v).
func (m LotkaVolterra) Rate(u, v float64) (du, dv float64) {
	return m.A*u - m.B*u*v, m.C*u*v - m.D*v
}

// Invariant is V = c u - d ln u + b v - a ln v, constant along every exact
// trajectory: the check of a numerical solution.
func (m LotkaVolterra) Invariant(u, v float64) float64 {
	return m.C*u - m.D*math.Log(u) + m.B*v - m.A*math.Log(v)
}

// LVSolution is a numerical solution of a LotkaVolterra model on [0, T]:
// classical RK4 on a uniform grid, read between nodes by cubic Hermite
// interpolation with the model's own derivatives (fourth order, like the
// steps).
type LVSolution struct {
	m    LotkaVolterra
	h    float64
	u, v []float64
}

// LVSteps is the number of RK4 steps of the reference solution: its
// invariant drifts by about 1e-13 over [0, T] (TestLVSolution).
const LVSteps = 20000

// SolveLV integrates m over [0, m.T] with n RK4 steps.
func SolveLV(m LotkaVolterra, n int) *LVSolution {
	s := &LVSolution{m: m, h: m.T / float64(n), u: make([]float64, n+1), v: make([]float64, n+1)}
	u, v, h := m.U0, m.V0, s.h
	s.u[0], s.v[0] = u, v
	for i := 1; i <= n; i++ {
		k1u, k1v := m.Rate(u, v)
		k2u, k2v := m.Rate(u+h/2*k1u, v+h/2*k1v)
		k3u, k3v := m.Rate(u+h/2*k2u, v+h/2*k2v)
		k4u, k4v := m.Rate(u+h*k3u, v+h*k3v)
		u += h / 6 * (k1u + 2*k2u + 2*k3u + k4u)
		v += h / 6 * (k1v + 2*k2v + 2*k3v + k4v)
		s.u[i], s.v[i] = u, v
	}
	return s
}

// At returns (u, v) at time t in [0, T] (clamped to it).
func (s *LVSolution) At(t float64) (u, v float64) {
	n := len(s.u) - 1
	x := math.Min(math.Max(t/s.h, 0), float64(n))
	i := min(int(x), n-1)
	r := x - float64(i)
	du0, dv0 := s.m.Rate(s.u[i], s.v[i])
	du1, dv1 := s.m.Rate(s.u[i+1], s.v[i+1])
	// Hermite basis on [0, 1], the slopes scaled by the step.
	h00, h10 := (1+2*r)*(1-r)*(1-r), r*(1-r)*(1-r)
	h01, h11 := r*r*(3-2*r), r*r*(r-1)
	u = h00*s.u[i] + h10*s.h*du0 + h01*s.u[i+1] + h11*s.h*du1
	v = h00*s.v[i] + h10*s.h*dv0 + h01*s.v[i+1] + h11*s.h*dv1
	return u, v
}

// lvTruth is LVTruth's solution, shared: a problem is rebuilt for every
// draw of its data.
var lvTruth = sync.OnceValue(func() *LVSolution { return SolveLV(LVTruth, LVSteps) })

// The measurements of lotka-volterra-inverse.
const (
	// LVNoise is their standard deviation: 1.2 to 7 % of the populations,
	// which range over [0.71, 4.31].
	LVNoise = 0.05
	// LVTimes is the number of measurement times, t = 0 and 40 uniform
	// draws in [0, T]; each measures both populations.
	LVTimes = 41
	// LVPoints is the number of equation points in (0, T).
	LVPoints = 100
)

// LotkaVolterraInverse is the predator-prey model LVTruth with all four
// rates unknown: u (prey) and v (predators) are measured at t = 0 and at
// 40 times drawn uniformly in [0, T], with Gaussian noise of standard
// deviation 0.05, times and noise from the data seed; the initial state is
// not given (the noisy measurements at t = 0 are its witness, with the
// others through the equations). The input
// is tau = t/T in [0, 1], so a net of tanh units sees an input of order
// one; the equations are u_tau = T (a u - b u v) and v_tau = T (c u v - d v)
// at 100 points drawn in [0, 1]. The rates (true 1, 0.5, 0.5, 1) are
// inferred on a log scale from 0.75 with flat priors; betas are split
// (pde, data). The truth is an RK4 solution (SolveLV).
func LotkaVolterraInverse(o Options) *pde.Problem {
	smp := o.mustSampler()
	m, sol := LVTruth, lvTruth()
	taus := smp.line(LVPoints, 0, 1)
	eqPts := make([][]float64, len(taus))
	for i, s := range taus {
		eqPts[i] = []float64{s}
	}
	rng := rand.New(rand.NewPCG(max(o.DataSeed, 1), 0xda7a))
	times := make([][]float64, LVTimes)
	yu, yv := make([]float64, LVTimes), make([]float64, LVTimes)
	for i := range times {
		tau := 0.0 // the initial state, then uniform times
		if i > 0 {
			tau = rng.Float64()
		}
		times[i] = []float64{tau}
		u, v := sol.At(tau * m.T)
		yu[i], yv[i] = u+LVNoise*rng.NormFloat64(), v+LVNoise*rng.NormFloat64()
	}
	T := m.T
	rate := func(name string) pde.Unknown {
		truth := map[string]float64{"a": m.A, "b": m.B, "c": m.C, "d": m.D}[name]
		return pde.Unknown{Name: name, Init: 0.75, Positive: true, Prior: pde.PriorFlat, Truth: truthOf(truth)}
	}
	return withDraws(&pde.Problem{
		Name: "lotka-volterra-inverse", Inputs: []string{"tau"}, Outputs: []string{"u", "v"},
		Lo: []float64{0}, Hi: []float64{1}, Sampling: smp.name,
		Params:   map[string]float64{"noise_std": LVNoise, "T": T},
		Unknowns: []pde.Unknown{rate("a"), rate("b"), rate("c"), rate("d")},
		Terms: []pde.Term{
			{Name: "pde_u", Group: "pde", Points: eqPts, Residual: func(v *pde.Vars) *ad.Node {
				u, w := v.Out("u"), v.Out("v")
				rhs := ad.Sub(ad.Mul(v.Unknown("a"), u), ad.Mul(v.Unknown("b"), ad.Mul(u, w)))
				return ad.Sub(v.DOut("u", "tau"), ad.Scale(rhs, T))
			}},
			{Name: "pde_v", Group: "pde", Points: eqPts, Residual: func(v *pde.Vars) *ad.Node {
				u, w := v.Out("u"), v.Out("v")
				rhs := ad.Sub(ad.Mul(v.Unknown("c"), ad.Mul(u, w)), ad.Mul(v.Unknown("d"), w))
				return ad.Sub(v.DOut("v", "tau"), ad.Scale(rhs, T))
			}},
			{Name: "data_u", Group: "data", Output: "u", Points: times, Target: yu, Residual: pde.DataResidual, Measured: true},
			{Name: "data_v", Group: "data", Output: "v", Points: times, Target: yv, Residual: pde.DataResidual, Measured: true},
		},
		ExactOutputs: func(x []float64) []float64 {
			u, v := sol.At(x[0] * T)
			return []float64{u, v}
		},
	}, o, LotkaVolterraInverse)
}
