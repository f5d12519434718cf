package ad

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/par"
)

// TestPoolSameBits runs the loss, residual and gradient of PINNs (widths
// below and above the assembly kernels' 8, rows not divisible by the
// threads, two terms of different row counts), and their per-row Jacobians,
// on 1 to 4 threads: every value the same bits as the sequential Run.
func TestPoolSameBits(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		n     int
	}{{[]int{2, 8, 8, 1}, 37}, {[]int{2, 20, 20, 1}, 301}, {[]int{3, 5, 4, 2, 1}, 9000}} {
		p := newPINN(c.sizes, c.n, 7)
		// A second term on other points of the same net: u^2 at n/3 + 1 points.
		x2 := p.g.Input("x2", c.n/3+1, c.sizes[0])
		h := x2
		for l := 0; l+1 < len(c.sizes); l++ {
			h = Add(MatMulT(h, p.ps[2*l]), p.ps[2*l+1])
			if l+2 < len(c.sizes) {
				h = Tanh(h)
			}
		}
		loss := Add(p.loss, Scale(Sum(Square(Mul(h, h))), 0.25))
		outs := append([]*Node{loss, p.r}, Grad(loss, p.ps...)...)
		pts2 := make([]float64, x2.shape.Size())
		for i := range pts2 {
			pts2[i] = math.Sin(float64(i))
		}
		run := func(threads int) [][]float64 {
			prog := p.g.Compile(outs...)
			jac := NewJacobian(p.r, p.ps)
			pool := par.New(threads)
			defer pool.Close()
			prog.SetPool(pool)
			jac.Prog.SetPool(pool)
			for _, q := range []*Program{prog, jac.Prog} {
				bindPINN(q, p)
			}
			prog.Set(x2, pts2)
			var got [][]float64
			if threads > 1 && c.n > 1000 {
				prog.Run()
				pooled := 0
				for _, ph := range prog.phases {
					if !ph.serial {
						pooled++
					}
				}
				if pooled < 2 || len(prog.phases) > 12 {
					t.Errorf("%v: %d phases, %d on the pool", c.sizes, len(prog.phases), pooled)
				}
			}
			for range 2 { // the second Run reuses the phases
				prog.Run()
				for _, o := range outs {
					got = append(got, append([]float64(nil), prog.Value(o)...))
				}
				J := make([]float64, p.r.shape.Rows*p.ps.Size())
				jac.ComputeTo(J)
				got = append(got, J)
			}
			return got
		}
		want := run(1)
		for _, threads := range []int{2, 3, 4} {
			for k, v := range run(threads) {
				for i := range v {
					if math.Float64bits(v[i]) != math.Float64bits(want[k][i]) {
						t.Fatalf("%v, %d threads: output %d [%d] = %v, sequential %v", c.sizes, threads, k, i, v[i], want[k][i])
					}
				}
			}
		}
	}
}

// TestPoolSquareProduct: a product whose right operand is also its left
// (x x for a square x) reads that operand whole on every thread.
func TestPoolSquareProduct(t *testing.T) {
	defer func(m int) { par.MinWork = m }(par.MinWork)
	par.MinWork = 0
	g := NewGraph()
	x := g.Input("x", 12, 12)
	outs := []*Node{Tanh(MatMul(x, x)), MatMulT(x, x)}
	data := make([]float64, 144)
	for i := range data {
		data[i] = math.Sin(float64(3 * i))
	}
	run := func(threads int) [][]float64 {
		prog := g.Compile(outs...)
		pool := par.New(threads)
		defer pool.Close()
		prog.SetPool(pool)
		prog.Set(x, data)
		prog.Run()
		var got [][]float64
		for _, o := range outs {
			got = append(got, append([]float64(nil), prog.Value(o)...))
		}
		return got
	}
	want := run(1)
	for _, threads := range []int{2, 3} {
		for k, v := range run(threads) {
			for i := range v {
				if math.Float64bits(v[i]) != math.Float64bits(want[k][i]) {
					t.Fatalf("%d threads: output %d [%d] = %v, sequential %v", threads, k, i, v[i], want[k][i])
				}
			}
		}
	}
}
