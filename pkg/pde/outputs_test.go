package pde

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/nn"
)

// threeOutputs is a problem of inputs x, y and outputs u, v, p with one
// term of residual res at a few points.
func threeOutputs(res Residual) *Problem {
	rng := rand.New(rand.NewPCG(5, 6))
	pts := make([][]float64, 6)
	for k := range pts {
		pts[k] = []float64{rng.Float64(), rng.Float64()}
	}
	return &Problem{Name: "flow", Inputs: []string{"x", "y"}, Outputs: []string{"u", "v", "p"},
		Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms: []Term{{Name: "pde", Points: pts, Residual: res}}}
}

// netTerm builds term 0 of p on net and returns its residual at the points
// (with its targets, if it has them).
func netTerm(t *testing.T, p *Problem, net *nn.MLP) []float64 {
	t.Helper()
	tm := p.Terms[0]
	g := ad.NewGraph()
	x := g.Input("x", len(tm.Points), p.Dim())
	var target *ad.Node
	if tm.Target != nil {
		target = g.Input("target", len(tm.Points), 1)
	}
	ps := net.Params(g)
	r, err := p.BuildResidual(0, ResidualInputs{U: net.Apply(ps, x), X: x, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	prog := g.Compile(r)
	var flat []float64
	for _, pt := range tm.Points {
		flat = append(flat, pt...)
	}
	prog.Set(x, flat)
	if target != nil {
		prog.Set(target, tm.Target)
	}
	ps.Bind(prog, net.W)
	prog.Run()
	return append([]float64(nil), prog.Value(r)...)
}

// TestOutputsJet checks every output's value and first and second
// derivatives, read by name by hand and in an equation, against finite
// differences of the network's own evaluation.
func TestOutputsJet(t *testing.T) {
	net := nn.New([]int{2, 6, 3}, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	hand := threeOutputs(func(v *Vars) *ad.Node {
		return ad.Add(ad.Add(v.DOut("u", "x"), v.D2Out("v", "y", "y")), ad.Sub(v.Out("p"), v.D2Out("p", "x", "y")))
	})
	eq := threeOutputs(Eq("u_x + v_yy + p - p_xy"))
	if err := hand.Validate(); err != nil {
		t.Fatal(err)
	}
	got, gotEq := netTerm(t, hand, net), netTerm(t, eq, net)
	f := func(x []float64, k int) float64 { return net.Eval(x, nil)[k] }
	const h = 1e-4
	for i, pt := range hand.Terms[0].Points {
		x, y := pt[0], pt[1]
		ux := (f([]float64{x + h, y}, 0) - f([]float64{x - h, y}, 0)) / (2 * h)
		vyy := (f([]float64{x, y + h}, 1) - 2*f(pt, 1) + f([]float64{x, y - h}, 1)) / (h * h)
		pxy := (f([]float64{x + h, y + h}, 2) - f([]float64{x + h, y - h}, 2) - f([]float64{x - h, y + h}, 2) + f([]float64{x - h, y - h}, 2)) / (4 * h * h)
		want := ux + vyy + f(pt, 2) - pxy
		if math.Abs(got[i]-want) > 1e-5 || got[i] != gotEq[i] {
			t.Errorf("point %d: by hand %.10g, equation %.10g, finite differences %.10g", i, got[i], gotEq[i], want)
		}
	}
}

// TestOutputsErrors checks the one-line errors of output names.
func TestOutputsErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *Problem)
		want string
	}{
		{"unknown in Out", func(p *Problem) {
			p.Terms[0].Residual = func(v *Vars) *ad.Node { return v.Out("q") }
		}, `problem "flow" term "pde": Out("q"): no output named "q"; the outputs are u, v, p`},
		{"unknown in DOut", func(p *Problem) {
			p.Terms[0].Residual = func(v *Vars) *ad.Node { return v.DOut("w", "x") }
		}, `term "pde": DOut("w"): no output named "w"`},
		{"unknown in equation", func(p *Problem) { p.Terms[0].Residual = Eq("q_x") },
			`term "pde": equation "q_x": col 1: q_x: unknown name; known are outputs u, v, p; inputs x, y`},
		{"term output", func(p *Problem) { p.Terms[0].Output = "q" },
			`problem "flow" term "pde": Output "q"; the outputs are u, v, p`},
		{"output is an input", func(p *Problem) { p.Outputs = []string{"u", "x"} },
			`problem "flow" output "x": the name is also an input`},
		{"twice", func(p *Problem) { p.Outputs = []string{"u", "u"} }, `two outputs are named "u"`},
		{"underscore", func(p *Problem) { p.Outputs = []string{"u_1"} }, `output "u_1"; name every output`},
		{"not read", func(p *Problem) { p.Terms[0].Residual = Eq("u_x + p") },
			`problem "flow" output "v": no residual reads it; use it in a term (v.Out("v"), an equation) or remove it from Outputs`},
		{"term's output not read", func(p *Problem) { p.Terms[0].Output = "p"; p.Terms[0].Residual = Eq("u_x + v") },
			`problem "flow" term "pde": Output "p", and the residual does not read p`},
		// Too few values panicked in GridOutputs when the errors were computed.
		{"exact outputs too few", func(p *Problem) { p.ExactOutputs = func([]float64) []float64 { return []float64{1, 2} } },
			`problem "flow": ExactOutputs gives 2 values at [`},
		{"parameter not finite", func(p *Problem) {
			p.Params = map[string]float64{"nu": 0.01, "D": math.Inf(1)}
			p.Terms[0].Residual = Eq("u_x + v + D*p")
		},
			`problem "flow" parameter "D" = +Inf; give a finite number in Params`},
		{"parameter NaN", func(p *Problem) { p.Params = map[string]float64{"nu": math.NaN()} },
			`problem "flow" parameter "nu" = NaN`},
	} {
		p := threeOutputs(Eq("u_x + v + p"))
		c.edit(p)
		err := p.Validate()
		if err == nil {
			err = p.ValidateExact()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMeasuredOutput checks that a data term reads the output it names.
func TestMeasuredOutput(t *testing.T) {
	net := nn.New([]int{2, 4, 3}, nn.Tanh, rand.New(rand.NewPCG(3, 4)))
	p := threeOutputs(DataResidual)
	p.Terms[0].Output = "v"
	p.Terms[0].Target = make([]float64, len(p.Terms[0].Points))
	r := netTerm(t, p, net)
	for i, pt := range p.Terms[0].Points {
		if got, want := r[i], net.Eval(pt, nil)[1]; math.Abs(got-want) > 1e-12 {
			t.Errorf("point %d: residual %g, v = %g", i, got, want)
		}
	}
}

// TestGridOutputsShortExact: an exact solution of fewer values than
// outputs is an error of GridOutputs (it panicked), and Grid's values
// are NaN there, an error of the errors (score.OnGrid).
func TestGridOutputsShortExact(t *testing.T) {
	p := threeOutputs(Eq("u_x + v + p"))
	p.ExactOutputs = func([]float64) []float64 { return nil }
	_, exact, err := p.GridOutputs(3)
	want := `problem "flow": ExactOutputs gives 0 values at [0 0] for 3 outputs (u, v, p); give one per output, in Outputs order`
	if err == nil || err.Error() != want || exact != nil {
		t.Errorf("GridOutputs: %v, %v; want %s", exact, err, want)
	}
	if _, g := p.Grid(2); len(g) != 4 || !math.IsNaN(g[0]) {
		t.Errorf("Grid: exact %v, want 4 NaNs", g)
	}
}

// OutputValues gathers, per output, the values of the conditions on the
// output's own value (a number, a text expression) and of its
// measurements; a derivative condition's values and the equation's are
// not the field's, and an output no such term constrains has none.
func TestOutputValues(t *testing.T) {
	t.Parallel()
	p := &Problem{Name: "vals", Inputs: []string{"x", "t"}, Outputs: []string{"u", "v", "w"},
		Lo: []float64{0, 0}, Hi: []float64{2, 1},
		Terms: []Term{
			PDE("u_t = v_xx + w", 5),
			Dirichlet(Boundary("t"), 4, 3),
			InitialValue("t", 3, "10*x"),
			Neumann("x", Lo, 2, 100).For("v"),
			Measurements(&Data{Points: [][]float64{{0.5, 0.5}, {1, 0.5}}, U: []float64{-1, 1}}).For("v"),
		},
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	vals := q.OutputValues()
	if len(vals) != 3 || len(vals[0]) != 7 || !slices.Equal(vals[1], []float64{-1, 1}) || vals[2] != nil {
		t.Fatalf("values %v: want u's 4 + 3, v's measurements -1, 1, none for w", vals)
	}
	for k, v := range vals[0][:4] {
		if v != 3 {
			t.Errorf("u's Dirichlet value %d is %v, want 3", k, v)
		}
	}
	initial := q.Terms[2]
	for k, v := range vals[0][4:] {
		if want := 10 * initial.Points[k][0]; math.Abs(v-want) > 1e-12 {
			t.Errorf("u's initial value %d is %v at %v, want %v", k, v, initial.Points[k], want)
		}
	}
}

// A problem's TestPoints replace the grid where it is scored, for any
// number of inputs; without them the grid stands.
func TestGridOutputsTestPoints(t *testing.T) {
	p := &Problem{Name: "cube", Inputs: []string{"x", "y", "z"}, Lo: []float64{0, 0, 0}, Hi: []float64{1, 1, 1},
		Exact: func(x []float64) float64 { return x[0] + 2*x[1] + 3*x[2] }}
	grid, _, err := p.GridOutputs(5)
	if err != nil || len(grid) < 8 {
		t.Fatalf("grid of %d points (%v)", len(grid), err)
	}
	p.TestPoints = [][]float64{{0.1, 0.2, 0.3}, {1, 0, 0}}
	pts, exact, err := p.GridOutputs(5)
	if err != nil || !slices.EqualFunc(pts, p.TestPoints, slices.Equal) || !slices.Equal(exact[0], []float64{1.4, 1}) {
		t.Errorf("with TestPoints: points %v, exact %v (%v); want the test points and 1.4, 1", pts, exact, err)
	}
}
