package problems

import (
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// BurgersWide is DeepXDE's Burgers example at its sizes: the equation of
// Burgers at 2540 points drawn over [-1,1]x[0,1], u = 0 at 80 points on the
// sides x = -1, 1, u = -sin(pi x) at 160 points on the initial line, for a
// 2-20-20-20-1 tanh net (921 weights); plus the Burgers study's 60 measured
// points (the same draw as burgers for the same data seed). One alpha and
// betas for pde, boundary (sides and initial line) and data.
func BurgersWide(o Options) *pde.Problem {
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
	p := &pde.Problem{
		Name: "burgers-wide", Inputs: b.Inputs, Lo: lo, Hi: hi, Sampling: smp.name, Params: b.Params,
		Terms: []pde.Term{
			pdeTerm,
			{Name: "boundary", Group: "boundary", Points: sides, Target: make([]float64, len(sides)), Residual: pde.DataResidual},
			{Name: "initial", Group: "boundary", Points: initial, Target: itgt, Residual: pde.DataResidual},
			data,
		},
		Exact: b.Exact,
	}
	return withDraws(p, o, BurgersWide)
}
