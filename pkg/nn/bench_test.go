package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// pinnGraph builds the benchmark's PINN loss: r = u_t + u u_x - 0.01 u_xx
// (u, u_t, u_x, u_xx all needed) on n random points of [0,1]^2, loss 1/2 sum r^2.
type pinnGraph struct {
	g      *ad.Graph
	m      *MLP
	x      *ad.Node
	ps     ad.Params
	r      *ad.Node
	loss   *ad.Node
	grads  []*ad.Node
	points []float64
}

func newPINNGraph(sizes []int, n int) *pinnGraph {
	rng := rand.New(rand.NewPCG(1, 2))
	return pinnGraphOf(New(sizes, Tanh, rng), n, rng)
}

// pinnGraphOf is newPINNGraph's graph for the network m: on [0,1]^2, or
// on m's input box when m has an input map (the points mapped from
// [0,1]^2 to the box's upper half).
func pinnGraphOf(m *MLP, n int, rng *rand.Rand) *pinnGraph {
	g := ad.NewGraph()
	x := g.Input("x", n, 2)
	ps := m.Params(g)
	j := ad.NewJet(m.Apply(ps, x), x)
	r := ad.Add(ad.Sub(j.D(1), ad.Scale(j.D2(0, 0), 0.01)), ad.Mul(j.U, j.D(0)))
	loss := ad.Scale(ad.Sum(ad.Square(r)), 0.5)
	pts := make([]float64, 2*n)
	for i := range pts {
		pts[i] = rng.Float64()
		if m.InShift != nil {
			pts[i] = m.InShift[i%2] + m.InScale[i%2]*pts[i]
		}
	}
	return &pinnGraph{g: g, m: m, x: x, ps: ps, r: r, loss: loss, grads: ad.Grad(loss, ps...), points: pts}
}

func benchEpoch(b *testing.B, sizes []int, n int) {
	p := newPINNGraph(sizes, n)
	prog := p.g.Compile(append([]*ad.Node{p.loss}, p.grads...)...)
	prog.Set(p.x, p.points)
	p.ps.Bind(prog, p.m.W)
	grad := make([]float64, p.m.NumWeights())
	opt := NewAdam(len(grad), nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		prog.Run()
		p.ps.Gather(prog, p.grads, grad)
		opt.Step(p.m.W, grad)
	}
}

func benchGaussNewton(b *testing.B, sizes []int, n int) {
	p := newPINNGraph(sizes, n)
	jac := ad.NewJacobian(p.r, p.ps)
	jac.Prog.Set(p.x, p.points)
	p.ps.Bind(jac.Prog, p.m.W)
	P := p.m.NumWeights()
	J := make([]float64, n*P)
	H := make([]float64, P*P)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		jac.ComputeTo(J)
		GaussNewtonTo(H, J, n, P)
	}
}

func benchExactHessian(b *testing.B, sizes []int, n int) {
	p := newPINNGraph(sizes, n)
	h := ad.NewHessian(p.loss, p.ps)
	h.Prog.Set(p.x, p.points)
	p.ps.Bind(h.Prog, p.m.W)
	P := p.m.NumWeights()
	H := make([]float64, P*P)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.ComputeTo(H)
	}
}

func BenchmarkEpoch_2_6_1_N100(b *testing.B)         { benchEpoch(b, []int{2, 6, 1}, 100) }
func BenchmarkEpoch_2_8_8_1_N460(b *testing.B)       { benchEpoch(b, []int{2, 8, 8, 1}, 460) }
func BenchmarkGaussNewton_2_6_1_N100(b *testing.B)   { benchGaussNewton(b, []int{2, 6, 1}, 100) }
func BenchmarkGaussNewton_2_8_8_1_N460(b *testing.B) { benchGaussNewton(b, []int{2, 8, 8, 1}, 460) }
func BenchmarkExactHessian_2_6_1_N100(b *testing.B)  { benchExactHessian(b, []int{2, 6, 1}, 100) }
func BenchmarkExactHessian_2_8_8_1_N460(b *testing.B) {
	benchExactHessian(b, []int{2, 8, 8, 1}, 460)
}
