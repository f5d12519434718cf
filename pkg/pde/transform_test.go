package pde

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/geom"
	"github.com/evidence-pinn/bpinn/pkg/nn"
)

// lidTransforms are hard constraints of a flow in the unit square: u the
// lid's 4x(1-x) at y = 1 and 0 on the other walls, v a G and D of curved
// parts (sin, exp) so that every derivative of both shows.
var lidTransforms = []Transform{
	{Output: "u", G: "4*x*(1-x)*y", D: "16*x*(1-x)*y*(1-y)"},
	{Output: "v", G: "sin(x) + y^2", D: "exp(x)*y"},
}

// TestTransformJet checks the value and the first and second derivatives
// of transformed fields (and of an untransformed one), read in equations,
// against finite differences of G + D*N evaluated outside the graph.
func TestTransformJet(t *testing.T) {
	net := nn.New([]int{2, 6, 3}, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	field := func(x []float64, k int) float64 {
		n := net.Eval(x, nil)[k]
		switch k {
		case 0:
			return 4*x[0]*(1-x[0])*x[1] + 16*x[0]*(1-x[0])*x[1]*(1-x[1])*n
		case 1:
			return math.Sin(x[0]) + x[1]*x[1] + math.Exp(x[0])*x[1]*n
		}
		return n
	}
	const h = 1e-4
	at := func(pt []float64, dx, dy float64) []float64 { return []float64{pt[0] + dx, pt[1] + dy} }
	for k, name := range []string{"u", "v", "p"} {
		f := func(x []float64) float64 { return field(x, k) }
		for _, c := range []struct {
			sub  string
			want func(pt []float64) float64
			tol  float64
		}{
			{"", f, 1e-14},
			{"_x", func(pt []float64) float64 { return (f(at(pt, h, 0)) - f(at(pt, -h, 0))) / (2 * h) }, 1e-7},
			{"_y", func(pt []float64) float64 { return (f(at(pt, 0, h)) - f(at(pt, 0, -h))) / (2 * h) }, 1e-7},
			{"_xx", func(pt []float64) float64 { return (f(at(pt, h, 0)) - 2*f(pt) + f(at(pt, -h, 0))) / (h * h) }, 1e-5},
			{"_yy", func(pt []float64) float64 { return (f(at(pt, 0, h)) - 2*f(pt) + f(at(pt, 0, -h))) / (h * h) }, 1e-5},
			{"_xy", func(pt []float64) float64 {
				return (f(at(pt, h, h)) - f(at(pt, h, -h)) - f(at(pt, -h, h)) + f(at(pt, -h, -h))) / (4 * h * h)
			}, 1e-5},
		} {
			// every output is read, so that Validate passes
			p := threeOutputs(Eq(name + c.sub + " + 1e-300*(u + v + p)"))
			p.Transforms = lidTransforms
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			got := netTerm(t, p, net)
			for i, pt := range p.Terms[0].Points {
				if want := c.want(pt); !(math.Abs(got[i]-want) <= c.tol*(1+math.Abs(want))) {
					t.Errorf("%s%s at %v: graph %.12g, finite differences %.12g", name, c.sub, pt, got[i], want)
				}
			}
		}
	}
}

// TestTransformMeetsBox checks that a transformed field is its Dirichlet
// values to round-off at random points of the unit square's walls, for
// any weights, and that Sample leaves the met terms out.
func TestTransformMeetsBox(t *testing.T) {
	lid := func(x []float64) float64 { return 4 * x[0] * (1 - x[0]) }
	p := &Problem{Name: "cavity", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Transforms: []Transform{{G: "4*x*(1-x)*y", D: "16*x*(1-x)*y*(1-y)", Meets: []string{"lid", "walls", "bottom"}}},
		Terms: []Term{
			PDE("u_xx + u_yy = 0", 20),
			Dirichlet(Face("y", Hi), 10, lid).Named("lid"),
			Dirichlet(Faces("x"), 10, 0).Named("walls"),
			Dirichlet(Face("y", Lo), 10, 0).Named("bottom"),
		}}
	q, err := p.Sample(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(q.Terms) != 1 || q.Terms[0].Name != "pde" {
		t.Fatalf("Sample kept %d terms (%v), want the equation alone", len(q.Terms), q.Terms)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var pts [][]float64
	var want []float64
	for range 50 {
		s := rng.Float64()
		for _, pt := range [][]float64{{s, 1}, {s, 0}, {0, s}, {1, s}} {
			pts = append(pts, pt)
			want = append(want, map[bool]float64{true: lid(pt), false: 0}[pt[1] == 1])
		}
	}
	checkMeets(t, q, pts, want, 1e-15)
}

// TestTransformMeetsCSG is TestTransformMeetsBox on an annulus (a CSG
// difference of two disks): u = 1 on the outer circle, 0 on the inner one,
// at the points of the domain's own boundary sampler.
func TestTransformMeetsCSG(t *testing.T) {
	outer := geom.Must(geom.Named("outer", geom.Must(geom.NewDisk(0, 0, 1))))
	inner := geom.Must(geom.Named("inner", geom.Must(geom.NewDisk(0, 0, 0.5))))
	ring := geom.Must(geom.Difference(outer, inner))
	p := &Problem{Name: "ring", Inputs: []string{"x", "y"}, Domain: ring,
		Terms: []Term{
			PDE("u_xx + u_yy = 0", 20),
			Dirichlet(On("outer"), 60, 1),
			Dirichlet(On("inner"), 60, 0),
		}}
	soft, err := p.Sample(5)
	if err != nil {
		t.Fatal(err)
	}
	p.Transforms = []Transform{{G: "(x^2 + y^2 - 0.25)/0.75", D: "(x^2 + y^2 - 0.25)*(1 - x^2 - y^2)", Meets: []string{"dirichlet_outer", "dirichlet_inner"}}}
	q, err := p.Sample(5)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(q.Terms[0].Points, soft.Terms[0].Points, slices.Equal) {
		t.Error("the equation's points moved when the conditions were met by a transform")
	}
	var pts [][]float64
	var want []float64
	for _, tm := range soft.Terms[1:] {
		pts = append(pts, tm.Points...)
		want = append(want, tm.Target...)
	}
	checkMeets(t, q, pts, want, 1e-12)
}

// checkMeets evaluates q's first field at pts on two random networks and
// checks that it is want to tol.
func checkMeets(t *testing.T, q *Problem, pts [][]float64, want []float64, tol float64) {
	t.Helper()
	r := *q
	r.Terms = []Term{{Name: "field", Points: pts, Target: make([]float64, len(pts)), Residual: DataResidual}}
	for seed := range uint64(2) {
		net := nn.New([]int{2, 8, 1}, nn.Tanh, rand.New(rand.NewPCG(seed, 9)))
		for i, u := range netTerm(t, &r, net) {
			if !(math.Abs(u-want[i]) <= tol) {
				t.Errorf("net %d at %v: u = %.17g, want %.17g", seed, pts[i], u, want[i])
			}
		}
	}
}

// TestTransformSampleDraws checks that the terms left by Sample keep the
// points they have without a transform, in the draw, in Redraw and in
// Fresh.
func TestTransformSampleDraws(t *testing.T) {
	mk := func(tr []Transform) *Problem {
		return &Problem{Name: "cavity", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Transforms: tr,
			Terms: []Term{
				Dirichlet(Face("y", Hi), 10, 1).Named("lid"),
				PDE("u_xx + u_yy = 0", 20),
				Dirichlet(Faces("x"), 10, 0).Named("walls"),
			}}
	}
	soft, err := mk(nil).Sample(2)
	if err != nil {
		t.Fatal(err)
	}
	hard, err := mk([]Transform{{G: "0", D: "x*(1-x)", Meets: []string{"walls"}}}).Sample(2)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, a, b *Problem) {
		t.Helper()
		if len(b.Terms) != 2 || b.Terms[0].Name != "lid" || b.Terms[1].Name != "pde" {
			t.Fatalf("%s: terms %v, want lid and pde", what, b.Terms)
		}
		for i := range b.Terms {
			if !slices.EqualFunc(a.Terms[i].Points, b.Terms[i].Points, slices.Equal) {
				t.Errorf("%s: term %q moved", what, b.Terms[i].Name)
			}
		}
	}
	same("draw", soft, hard)
	r1, err1 := soft.Redraw(1)
	r2, err2 := hard.Redraw(1)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	same("redraw", r1, r2)
	f1, err1 := soft.Fresh()
	f2, err2 := hard.Fresh()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	same("fresh", f1, f2)
}

// TestTransformErrors checks the one-line errors of transforms.
func TestTransformErrors(t *testing.T) {
	box := func(tr ...Transform) *Problem {
		return &Problem{Name: "cavity", Inputs: []string{"x", "y"}, Outputs: []string{"u", "v"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
			Params: map[string]float64{"a": 2}, Transforms: tr,
			Terms: []Term{
				PDE("u_xx + v_yy = 0", 20),
				{Name: "lid", Output: "u", Group: "boundary", Residual: DataResidual, Draw: &Draw{Region: Face("y", Hi), N: 10, Value: func(x []float64) float64 { return 4 * x[0] * (1 - x[0]) }}},
				{Name: "walls", Output: "u", Group: "boundary", Residual: DataResidual, Draw: &Draw{Region: Faces("x"), N: 10, Value: func([]float64) float64 { return 0 }}},
				{Name: "rate", Output: "v", Group: "boundary", Residual: DerivativeResidual("x"), Draw: &Draw{Region: Faces("x"), N: 10, Value: func([]float64) float64 { return 0 }}},
			}}
	}
	ok := Transform{Output: "u", G: "4*x*(1-x)*y", D: "a*x*(1-x)*y*(1-y)", Meets: []string{"lid", "walls"}}
	edit := func(f func(*Transform)) Transform { tr := ok; f(&tr); return tr }
	for _, c := range []struct {
		name string
		p    *Problem
		want string
	}{
		{"no such field", box(edit(func(tr *Transform) { tr.Output = "w" })),
			`problem "cavity": a transform of output "w"; the outputs are u, v`},
		{"unknown name in G", box(edit(func(tr *Transform) { tr.G = "z*y" })),
			`problem "cavity" transform of "u": G: equation "z*y": col 1: z: unknown name; a transform reads inputs x, y; parameters a; constants e, pi`},
		{"an output in D", box(edit(func(tr *Transform) { tr.D = "v*x" })),
			`transform of "u": D: equation "v*x": col 1: v: an output, which moves with the solution; a transform reads inputs x, y`},
		{"a derivative in D", box(edit(func(tr *Transform) { tr.D = "u_x" })), `col 1: u_x: an output, which moves with the solution`},
		{"an equation", box(edit(func(tr *Transform) { tr.G = "y = 1" })),
			`transform of "u": G "y = 1" has "="; give an expression of the inputs`},
		{"syntax", box(edit(func(tr *Transform) { tr.D = "x*(1-x" })), `transform of "u": D: equation "x*(1-x"`},
		{"no D", box(edit(func(tr *Transform) { tr.D = ""; tr.Meets = nil })),
			`problem "cavity" transform of "u": no D; give the expression that vanishes where G holds`},
		{"two of a field", box(edit(func(tr *Transform) { tr.Meets = nil }), Transform{G: "0", D: "x"}),
			`problem "cavity": two transforms of "u"; give each field one`},
		{"not finite", box(edit(func(tr *Transform) { tr.G = "1/(x - x)"; tr.Meets = nil })),
			`problem "cavity" transform of "u": G = +Inf, D = `},
		{"D does not vanish", box(edit(func(tr *Transform) { tr.D = "x*(1-x)" })),
			`, a point of term "lid"; D must vanish where the term states the value`},
		{"G is not the value", box(edit(func(tr *Transform) { tr.G = "x*(1-x)*y" })),
			`, term "lid" states `},
		{"no such term", box(edit(func(tr *Transform) { tr.Meets = []string{"lid", "roof"} })),
			`problem "cavity" transform of "u": Meets "roof", and the problem has no such term; name the field's condition terms`},
		{"a term of another field", box(edit(func(tr *Transform) { tr.Meets = []string{"rate"} })),
			`problem "cavity" transform of "u": Meets term "rate", a term of "v"; name the field's own conditions`},
		{"a term without values", box(edit(func(tr *Transform) { tr.Meets = []string{"pde"} })),
			`problem "cavity" transform of "u": Meets term "pde", which states no exact values`},
	} {
		q, err := c.p.Sample(1) // Sample checks what it can at the drawn points
		if err == nil {
			err = q.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// A met term still in the problem (points given, not drawn by Sample):
	// Validate checks it and says to leave it out.
	q, err := box(ok).Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	given, err := box().Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	kept := *given
	kept.Terms = slices.Clone(given.Terms)
	for i := range kept.Terms {
		kept.Terms[i].Draw = nil
	}
	kept.Transforms = q.Transforms
	want := `problem "cavity" term "lid": met exactly by the transform of "u" (residual zero, no beta); draw the problem with Sample, which leaves it out, or remove the term`
	if err := kept.Validate(); err == nil || err.Error() != want {
		t.Errorf("a met term kept: got %v, want %q", err, want)
	}
}
