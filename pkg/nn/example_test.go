package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/nn"
)

// A network fitted to sin(πx) by Adam: its flat weights bound to a compiled
// loss and its gradient, and its weight classes grouped for the prior.
func Example() {
	m := nn.New([]int{1, 16, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	groups, err := m.Groups(nn.AlphaClasses)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d weights, %d alpha groups\n", m.NumWeights(), len(groups))

	const n = 21
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = -1 + 2*float64(i)/(n-1)
		ys[i] = math.Sin(math.Pi * xs[i])
	}
	g := ad.NewGraph()
	x, y := g.Input("x", n, 1), g.Input("y", n, 1)
	ps := m.Params(g)
	loss := ad.Mean(ad.Square(ad.Sub(m.Apply(ps, x), y)))
	grads := ad.Grad(loss, ps...) // one node per parameter, in the order of m.W
	prog := g.Compile(append([]*ad.Node{loss}, grads...)...)
	prog.Set(x, xs)
	prog.Set(y, ys)
	ps.Bind(prog, m.W) // the program reads m.W in place, so Adam's steps are seen

	grad := make([]float64, m.NumWeights())
	opt := nn.NewAdam(m.NumWeights(), &nn.AdamSettings{LR: 0.01})
	for epoch := 0; epoch < 2000; epoch++ {
		prog.Run()
		if epoch == 0 {
			fmt.Printf("mean squared error at the start: %.2f\n", prog.Scalar(loss))
		}
		ps.Gather(prog, grads, grad)
		opt.Step(m.W, grad)
	}
	prog.Run()
	fmt.Printf("after %d Adam steps below 1e-3: %v\n", opt.Steps(), prog.Scalar(loss) < 1e-3)
	fmt.Printf("u(0.5) = %.1f (sin(π/2) = 1)\n", m.Eval([]float64{0.5}, nil)[0])
	// Output:
	// 49 weights, 4 alpha groups
	// mean squared error at the start: 0.32
	// after 2000 Adam steps below 1e-3: true
	// u(0.5) = 1.0 (sin(π/2) = 1)
}
