package problems

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// InverseNoise is the standard deviation of the measurements of the heat
// and wave inverse problems.
const InverseNoise = 0.01

// InverseMeasurements is the number of measured points of the heat and wave
// inverse problems.
const InverseMeasurements = 30

// measure returns n points drawn uniformly in the box [lo, hi] and u there
// with Gaussian noise of standard deviation std, from a stream of the data
// seed of its own (the training points of the forward problem stay those
// of the same seed).
func measure(o Options, n int, lo, hi []float64, std float64, u func(x []float64) float64) ([][]float64, []float64) {
	smp := o.mustSampler()
	smp.rng = rand.New(rand.NewPCG(max(o.DataSeed, 1), 0xda7a))
	pts := smp.box(n, lo, hi)
	y := make([]float64, n)
	for i, x := range pts {
		y[i] = u(x) + std*smp.rng.NormFloat64()
	}
	return pts, y
}

func truthOf(x float64) *float64 { return &x }

// HeatInverse is the heat problem with the diffusivity unknown: u_t =
// kappa u_xx on [0,1]^2 with Heat's 50 equation points and 50 boundary and
// initial points, and 30 measurements of u inside the domain (noise std
// 0.01). kappa (true o.Kappa, 0.1 by default) is inferred on a log scale
// from 0.05, with a flat prior; betas are split (pde, boundary, data); the
// network is 2-8-8-1, which the evidence prefers to heat's 2-6-1.
func HeatInverse(o Options) *pde.Problem {
	return withDraws(heatInverse(o, false, false), o, HeatInverse)
}

// Heat2Inverse is HeatInverse started from two modes, u(x,0) = sin(pi x) +
// 0.5 sin(2 pi x), with data from u_t = kappa u_xx - r u (r = o.Reaction):
// the first model of the model choice of docs/inverse.md. With one mode a
// reaction only shifts the decay rate, kappa pi^2 + r, which a larger kappa
// fits exactly; two modes decay at kappa pi^2 + r and 4 kappa pi^2 + r and
// tell the two apart.
func Heat2Inverse(o Options) *pde.Problem {
	return withDraws(heatInverse(o, true, false), o, Heat2Inverse)
}

// Heat2Reaction is Heat2Inverse's data fitted by u_t = kappa u_xx - r u
// with kappa (flat prior, log scale) and the reaction rate r (a zero-mean
// Gaussian prior with its own alpha: a proper prior, so that the evidence
// of this larger model is comparable with Heat2Inverse's) unknown.
func Heat2Reaction(o Options) *pde.Problem {
	return withDraws(heatInverse(o, true, true), o, Heat2Reaction)
}

func heatInverse(o Options, twoModes, reaction bool) *pde.Problem {
	p := Heat(o)
	kappa, r := p.Params["kappa"], 0.0
	exact := p.Exact
	p.Name = "heat-inverse"
	p.Params = map[string]float64{"noise_std": InverseNoise}
	if twoModes {
		p.Name, r = "heat2-inverse", o.Reaction
		p.Params["reaction"] = r
		exact = func(x []float64) float64 {
			a, b := kappa*math.Pi*math.Pi+r, 4*kappa*math.Pi*math.Pi+r
			return math.Exp(-a*x[1])*math.Sin(math.Pi*x[0]) + 0.5*math.Exp(-b*x[1])*math.Sin(2*math.Pi*x[0])
		}
		b := &p.Terms[1]
		for i, x := range b.Points {
			b.Target[i] = exact(x)
		}
	}
	pts, y := measure(o, InverseMeasurements, p.Lo, p.Hi, InverseNoise, exact)
	p.Unknowns = []pde.Unknown{{Name: "kappa", Init: 0.05, Positive: true, Prior: pde.PriorFlat, Truth: truthOf(kappa)}}
	p.Terms[0].Residual = func(v *pde.Vars) *ad.Node {
		return ad.Sub(v.D("t"), ad.Mul(v.Unknown("kappa"), v.D2("x", "x")))
	}
	if reaction {
		p.Name = "heat2-reaction"
		p.Unknowns = append(p.Unknowns, pde.Unknown{Name: "r", Init: 0, Prior: pde.PriorGaussian, Truth: truthOf(r)})
		p.Terms[0].Residual = func(v *pde.Vars) *ad.Node {
			return ad.Add(ad.Sub(v.D("t"), ad.Mul(v.Unknown("kappa"), v.D2("x", "x"))), ad.Mul(v.Unknown("r"), v.U))
		}
	}
	p.Terms = append(p.Terms, pde.Term{Name: "data", Group: "data", Points: pts, Target: y, Residual: pde.DataResidual, Measured: true})
	p.Exact = exact
	return p
}

// BurgersInverse is the Burgers problem, its points and measured data, with
// the viscosity unknown: nu (true 0.01/pi) inferred on a log scale from
// 0.01, flat prior.
func BurgersInverse(o Options) *pde.Problem {
	return withDraws(unknownNu(Burgers(o), "burgers-inverse"), o, BurgersInverse)
}

// BurgersWideInverse is burgers-wide (DeepXDE's 2-20-20-20-1 network, 2540
// equation points, 240 boundary and initial points, the Burgers study's
// measurements) with the viscosity unknown, as BurgersInverse.
func BurgersWideInverse(o Options) *pde.Problem {
	p := unknownNu(BurgersWide(o), "burgers-wide-inverse")
	return withDraws(p, o, BurgersWideInverse)
}

// unknownNu renames a Burgers problem p and makes its viscosity the unknown
// nu (true 0.01/pi), inferred on a log scale from 0.01 with a flat prior.
func unknownNu(p *pde.Problem, name string) *pde.Problem {
	p.Name = name
	delete(p.Params, "nu") // p's own map: Burgers and BurgersWide build a new one each call
	p.Unknowns = []pde.Unknown{{Name: "nu", Init: 0.01, Positive: true, Prior: pde.PriorFlat, Truth: truthOf(BurgersNu())}}
	p.Terms[0].Residual = func(v *pde.Vars) *ad.Node {
		return ad.Sub(ad.Add(v.D("t"), ad.Mul(v.U, v.D("x"))), ad.Mul(v.Unknown("nu"), v.D2("x", "x")))
	}
	return p
}

// WaveInverse is the wave problem with the wave speed unknown: u_tt = c^2
// u_xx with Wave's points and 30 measurements of u inside the domain (noise
// std 0.01); c (true 1) is inferred on a log scale from 0.8 with a flat
// prior; betas are split (pde, boundary, data).
func WaveInverse(o Options) *pde.Problem {
	p := Wave(o)
	pts, y := measure(o, InverseMeasurements, p.Lo, p.Hi, InverseNoise, p.Exact)
	p.Name = "wave-inverse"
	p.Params = map[string]float64{"noise_std": InverseNoise}
	p.Unknowns = []pde.Unknown{{Name: "c", Init: 0.8, Positive: true, Prior: pde.PriorFlat, Truth: truthOf(1)}}
	p.Terms[0].Residual = func(v *pde.Vars) *ad.Node {
		c := v.Unknown("c")
		return ad.Sub(v.D2("t", "t"), ad.Mul(ad.Mul(c, c), v.D2("x", "x")))
	}
	p.Terms = append(p.Terms, pde.Term{Name: "data", Group: "data", Points: pts, Target: y, Residual: pde.DataResidual, Measured: true})
	return withDraws(p, o, WaveInverse)
}

// Known returns p with every unknown held at its Truth: the forward problem
// with the same terms, points and data, e.g. to time an inverse fit against
// the forward fit of the same problem. An unknown without a Truth (data of
// a user's, pde.Problem.WithData) is an error.
func Known(p *pde.Problem) (*pde.Problem, error) {
	truths := map[string]float64{}
	for _, u := range p.Unknowns {
		if u.Truth == nil {
			return nil, fmt.Errorf("problem %q unknown %q: no Truth to hold it at; hold it at a value of your own with Problem.Hold", p.Name, u.Name)
		}
		truths[u.Name] = *u.Truth
	}
	return p.Hold(truths)
}
