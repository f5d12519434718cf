package ad

import (
	"fmt"
	"math/rand/v2"
)

// pinn is a hand-built PINN graph (the same as pkg/nn's benchmark): a tanh
// MLP u(x) with sizes, residual r = u_t + u u_x - 0.01 u_xx on n points,
// loss 1/2 sum r^2.
type pinn struct {
	g      *Graph
	x      *Node
	ps     Params
	r      *Node
	loss   *Node
	w      []float64
	points []float64
}

func newPINN(sizes []int, n int, seed uint64) *pinn {
	rng := rand.New(rand.NewPCG(seed, 2))
	g := NewGraph()
	x := g.Input("x", n, sizes[0])
	var ps Params
	for l := 0; l+1 < len(sizes); l++ {
		ps = append(ps, g.Param(fmt.Sprintf("W%d", l+1), sizes[l+1], sizes[l]), g.Param(fmt.Sprintf("b%d", l+1), 1, sizes[l+1]))
	}
	h := x
	for l := 0; l+1 < len(sizes); l++ {
		h = Add(MatMulT(h, ps[2*l]), ps[2*l+1])
		if l+2 < len(sizes) {
			h = Tanh(h)
		}
	}
	j := NewJet(h, x)
	r := Add(Sub(j.D(1), Scale(j.D2(0, 0), 0.01)), Mul(j.U, j.D(0)))
	loss := Scale(Sum(Square(r)), 0.5)
	w := make([]float64, ps.Size())
	for i := range w {
		w[i] = 0.8 * rng.NormFloat64()
	}
	pts := make([]float64, n*sizes[0])
	for i := range pts {
		pts[i] = rng.Float64()
	}
	return &pinn{g: g, x: x, ps: ps, r: r, loss: loss, w: w, points: pts}
}
