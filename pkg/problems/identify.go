package problems

import (
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"gonum.org/v1/gonum/stat"
)

// IdentifyPoints is the number of measurements of burgers-identify, which
// are also its equation's points (Raissi et al.'s N_u).
const IdentifyPoints = 2000

// IdentifyNoise is burgers-identify's noise relative to the spread of the
// measured values: std = IdentifyNoise * std(u) (Raissi et al.'s 1 %).
const IdentifyNoise = 0.01

// BurgersIdentify is Raissi, Perdikaris and Karniadakis' continuous-time
// identification of Burgers' equation (J. Comput. Phys. 378, 2019):
// u_t + l1 u u_x - l2 u_xx = 0 on [-1,1]x[0,1] with both coefficients
// unknown (true l1 = 1, l2 = 0.01/pi), from u measured at 2000 points
// drawn uniformly in the domain (the exact Cole-Hopf solution with
// Gaussian noise of 1 % of the values' standard deviation); the equation is
// imposed at the same points and no boundary or initial condition is
// given. Like Raissi's, l1 starts at 0 on its own scale and l2 at e^-6 on
// a log scale; both have flat priors. The schedule's net is his 2-20x8-1.
func BurgersIdentify(o Options) *pde.Problem {
	return withDraws(burgersIdentify(o, "burgers-identify", IdentifyNoise), o, BurgersIdentify)
}

// BurgersIdentifyClean is BurgersIdentify on noise-free measurements
// (Raissi's first case).
func BurgersIdentifyClean(o Options) *pde.Problem {
	return withDraws(burgersIdentify(o, "burgers-identify-clean", 0), o, BurgersIdentifyClean)
}

func burgersIdentify(o Options, name string, rel float64) *pde.Problem {
	s := o.mustSampler()
	// A stream of its own, so that the points differ from burgers' of the
	// same data seed and the noise follows them.
	smp := sampler{rng: rand.New(rand.NewPCG(max(o.DataSeed, 1), 0x1de7)), lhs: s.lhs, name: s.name}
	ref := sharedBurgersRef(BurgersNu())
	lo, hi := []float64{-1, 0}, []float64{1, 1}
	pts := smp.box(IdentifyPoints, lo, hi)
	u := make([]float64, len(pts))
	for i, x := range pts {
		u[i] = ref.U(x[0], x[1])
	}
	std := rel * stat.PopStdDev(u, nil) // numpy's std, as Raissi's noise * np.std(u_train)
	for i := range u {
		if rel > 0 { // a clean draw takes no numbers from the stream
			u[i] += std * smp.rng.NormFloat64()
		}
	}
	return &pde.Problem{
		Name: name, Inputs: []string{"x", "t"}, Lo: lo, Hi: hi, Sampling: smp.name,
		Params: map[string]float64{"noise_std": std, "noise_rel": rel},
		Unknowns: []pde.Unknown{
			{Name: "l1", Init: 0, Prior: pde.PriorFlat, Truth: truthOf(1)},
			{Name: "l2", Init: math.Exp(-6), Positive: true, Prior: pde.PriorFlat, Truth: truthOf(BurgersNu())},
		},
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Points: pts, Residual: func(v *pde.Vars) *ad.Node {
				return ad.Sub(ad.Add(v.D("t"), ad.Mul(v.Unknown("l1"), ad.Mul(v.U, v.D("x")))), ad.Mul(v.Unknown("l2"), v.D2("x", "x")))
			}},
			{Name: "data", Group: "data", Points: pts, Target: u, Residual: pde.DataResidual, Measured: true},
		},
		Exact: func(x []float64) float64 { return ref.U(x[0], x[1]) },
	}
}
