package pde

import (
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// A user-defined 3-input problem: u = x y z on the unit cube, Laplace
// residual, validated and gridded; the residual, through the jet, is 0 on
// harmonic functions and the Laplacian on another.
func TestUserProblem3D(t *testing.T) {
	t.Parallel()
	p := &Problem{
		Name: "laplace-3d", Inputs: []string{"x", "y", "z"}, Lo: []float64{0, 0, 0}, Hi: []float64{1, 1, 1},
		Terms: []Term{{Name: "pde", Group: "pde", Points: [][]float64{{0.5, 0.5, 0.5}, {0.1, 0.2, 0.3}},
			Residual: func(v *Vars) *ad.Node {
				return ad.Add(ad.Add(v.D2("x", "x"), v.D2("y", "y")), v.D2("z", "z"))
			}}},
		Exact: func(x []float64) float64 { return x[0] * x[1] * x[2] },
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	pts, exact := p.Grid(100)
	if m := int(math.Round(math.Cbrt(float64(len(pts))))); m != 22 || len(exact) != len(pts) {
		t.Errorf("3-D grid of %d points (%d exact), want 22^3", len(pts), len(exact))
	}
	last := pts[len(pts)-1]
	if last[0] != 1 || last[1] != 1 || last[2] != 1 || exact[len(exact)-1] != 1 {
		t.Errorf("grid ends at %v (exact %g), want the corner (1,1,1)", last, exact[len(exact)-1])
	}
	x, y, z := func(in []*ad.Node) *ad.Node { return in[0] }, func(in []*ad.Node) *ad.Node { return in[1] }, func(in []*ad.Node) *ad.Node { return in[2] }
	for _, c := range []struct {
		name string
		u    func(in []*ad.Node) *ad.Node
		lap  func(x []float64) float64
	}{
		{"x y z", func(in []*ad.Node) *ad.Node { return ad.Mul(ad.Mul(x(in), y(in)), z(in)) }, func([]float64) float64 { return 0 }},
		// every second derivative nonzero, summing to 0
		{"x^2 + y^2 - 2 z^2", func(in []*ad.Node) *ad.Node {
			return ad.Sub(ad.Add(ad.Square(x(in)), ad.Square(y(in))), ad.Scale(ad.Square(z(in)), 2))
		}, func([]float64) float64 { return 0 }},
		{"x^2 y + z^3", func(in []*ad.Node) *ad.Node {
			return ad.Add(ad.Mul(ad.Square(x(in)), y(in)), ad.Pow(z(in), 3))
		}, func(p []float64) float64 { return 2*p[1] + 6*p[2] }},
	} {
		r := termResidual(t, p.Terms[0], p.Inputs, c.u)
		for k, pt := range p.Terms[0].Points {
			if want := c.lap(pt); math.Abs(r[k]-want) > 1e-12 {
				t.Errorf("u = %s: Laplace residual at %v is %g, want %g", c.name, pt, r[k], want)
			}
		}
	}
}

func TestValidateErrors(t *testing.T) {
	t.Parallel()
	base := heatLike
	cases := []struct {
		name string
		edit func(p *Problem)
		want string
	}{
		{"no terms", func(p *Problem) { p.Terms = nil }, "no loss terms"},
		{"empty points", func(p *Problem) { p.Terms[0].Points = nil }, "no points; give it Points or a Draw"},
		{"outside", func(p *Problem) { p.Terms[0].Points[0] = []float64{2, 0.5} }, "outside"},
		{"dimension", func(p *Problem) { p.Terms[0].Points[0] = []float64{0.5} }, "coordinates"},
		{"targets", func(p *Problem) { p.Terms[1].Target = p.Terms[1].Target[:3] }, "targets for"},
		{"nan target", func(p *Problem) { p.Terms[1].Target[0] = math.NaN() }, "target 0"},
		{"domain", func(p *Problem) { p.Hi[0] = p.Lo[0] }, "Lo < Hi"},
		{"residual", func(p *Problem) { p.Terms[0].Residual = nil }, "no Residual"},
		{"mean of u", func(p *Problem) {
			p.Terms[0].Residual = func(v *Vars) *ad.Node { return ad.Sub(v.U, ad.Mean(v.U)) }
		}, `term "pde": the residual mixes the points`},
		{"points and a draw", func(p *Problem) { p.Terms[0].Draw = &Draw{Region: Interior(), N: 3} }, `term "pde": both Points and a Draw`},
	}
	for _, c := range cases {
		p := base()
		c.edit(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if err := base().Validate(); err != nil {
		t.Errorf("heat does not validate: %v", err)
	}
}

// termResidual evaluates tm's residual for the function u that build makes
// from the input columns, the way pkg/bayes builds a model: the jet of u at
// the term's points, the targets fed as an input node.
func termResidual(t *testing.T, tm Term, inputs []string, build func(in []*ad.Node) *ad.Node) []float64 {
	t.Helper()
	g := ad.NewGraph()
	n := len(tm.Points)
	dim := len(inputs)
	x := g.Input("x", n, dim)
	cols := make([]*ad.Node, dim)
	for i := range cols {
		cols[i] = ad.SliceCol(x, i)
	}
	var target *ad.Node
	if tm.Target != nil {
		target = g.Input("target", n, 1)
	}
	p := &Problem{Name: "test", Inputs: inputs, Terms: []Term{tm}}
	r, err := p.BuildResidual(0, ResidualInputs{U: build(cols), X: x, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	prog := g.Compile(r)
	flat := make([]float64, 0, n*dim)
	for _, p := range tm.Points {
		flat = append(flat, p...)
	}
	if prog.Uses(x) {
		prog.Set(x, flat)
	}
	if target != nil && prog.Uses(target) {
		prog.Set(target, tm.Target)
	}
	prog.Run()
	return append([]float64(nil), prog.Value(r)...)
}

// heatLike is a heat problem given by its points: u_t = 0.1 u_xx at four
// points, u = sin(pi x) at four on the boundary and the initial line.
func heatLike() *Problem {
	return &Problem{
		Name: "heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms: []Term{
			{Name: "pde", Group: "pde", Points: [][]float64{{0.2, 0.3}, {0.5, 0.5}, {0.7, 0.1}, {0.9, 0.9}},
				Residual: func(v *Vars) *ad.Node { return ad.Sub(v.D("t"), ad.Scale(v.D2("x", "x"), 0.1)) }},
			{Name: "boundary", Group: "boundary", Points: [][]float64{{0, 0.5}, {1, 0.5}, {0.5, 0}, {0.25, 0}},
				Target: []float64{0, 0, 1, math.Sqrt(0.5)}, Residual: DataResidual},
		},
	}
}
