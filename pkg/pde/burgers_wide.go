package pde

import (
	"math"
	"math/rand/v2"
)

// BurgersWide is DeepXDE's Burgers example at its sizes: the equation of
// Burgers at 2540 points drawn over [-1,1]x[0,1], u = 0 at 80 points on the
// sides x = -1, 1, u = -sin(pi x) at 160 points on the initial line, for a
// 2-20-20-20-1 tanh net (921 weights); plus the Burgers study's 60 measured
// points (the same draw as burgers for the same data seed). One alpha and
// betas for pde, boundary (sides and initial line) and data.
func BurgersWide(o Options) *Problem {
	b := Burgers(o)
	s := o.mustSampler()
	smp := sampler{rng: rand.New(rand.NewPCG(max(o.DataSeed, 1), 0x3de7)), lhs: s.lhs, name: s.name}
	lo, hi := b.Lo, b.Hi
	interior := smp.box(2540, lo, hi)
	ts := smp.line(80, lo[1], hi[1])
	sides := make([][]float64, len(ts))
	for i, t := range ts {
		sides[i] = []float64{lo[0] + float64(i%2)*(hi[0]-lo[0]), t}
	}
	xs := smp.line(160, lo[0], hi[0])
	initial := make([][]float64, len(xs))
	itgt := make([]float64, len(xs))
	for i, x := range xs {
		initial[i] = []float64{x, lo[1]}
		itgt[i] = -math.Sin(math.Pi * x)
	}
	pdeTerm, data := b.Terms[0], b.Terms[2]
	pdeTerm.Points = interior
	p := &Problem{
		Name: "burgers-wide", Inputs: b.Inputs, Lo: lo, Hi: hi, Sampling: smp.name, Params: b.Params,
		Terms: []Term{
			pdeTerm,
			{Name: "boundary", Group: "boundary", Points: sides, Target: make([]float64, len(sides)), Residual: DataResidual},
			{Name: "initial", Group: "boundary", Points: initial, Target: itgt, Residual: DataResidual},
			data,
		},
		Exact: b.Exact,
		// Measured (docs/results/burgers-wide.md): 1500 Adam epochs on points
		// redrawn every 100, the evidence from the middle on under the
		// cheap `auto` curvature, the measurements' beta held at their
		// noise, then L-BFGS polishes of 1000 iterations (memory 100, the
		// bayes default) around three final rounds whose betas take the
		// misfit at fresh points (the polish fits the equation at its own
		// points 10x closer than between them, and rounds on those drift
		// to a PDE-only solution, as DeepXDE's 15000 epochs do).
		Defaults: Defaults{Hidden: []int{20, 20, 20}, Epochs: 1500, HyperStart: 750, HyperEvery: 25,
			AlphaMode: "single", BetaMode: "split", FinalHyper: 3,
			PolishIter: 1000, Curvature: "auto", Resample: 100, KnownNoise: map[string]float64{"data": b.Params["noise_std"]},
			RoundBetas: "held-out"},
	}
	return withDraws(p, o, BurgersWide)
}
