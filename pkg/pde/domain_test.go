package pde

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/geom"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// poissonHoles is PINNacle's Poisson2d-C written with the API: Laplace's
// equation on the square [-0.5, 0.5]^2 minus four disks of radius 0.1 at
// (+-0.3, +-0.3), u = 1 on the square and u = 0 on the circles.
func poissonHoles() *Problem {
	square := must(geom.NewBox([]float64{-0.5, -0.5}, []float64{0.5, 0.5}))
	var disks []geom.Domain
	for _, c := range [][2]float64{{-0.3, -0.3}, {0.3, -0.3}, {-0.3, 0.3}, {0.3, 0.3}} {
		disks = append(disks, must(geom.NewDisk(c[0], c[1], 0.1)))
	}
	holes := must(geom.Named("holes", must(geom.Union(disks...))))
	plate := must(geom.Difference(must(geom.Named("square", square)), holes))
	return &Problem{Name: "poisson-holes", Inputs: []string{"x", "y"}, Domain: plate, Sampling: Halton,
		Terms: []Term{PDE("u_xx + u_yy = 0", 2000), Dirichlet(On("square"), 400, 1), Dirichlet(On("holes"), 200, 0)}}
}

// distHole is the distance from x to the nearest hole's centre and that
// centre.
func distHole(x []float64) (float64, []float64) {
	best, c := math.Inf(1), []float64(nil)
	for _, h := range [][]float64{{-0.3, -0.3}, {0.3, -0.3}, {-0.3, 0.3}, {0.3, 0.3}} {
		if d := math.Hypot(x[0]-h[0], x[1]-h[1]); d < best {
			best, c = d, h
		}
	}
	return best, c
}

func TestPoissonHoles(t *testing.T) {
	t.Parallel()
	p := poissonHoles()
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Lo, []float64{-0.5, -0.5}) || !slices.Equal(q.Hi, []float64{0.5, 0.5}) || p.Lo != nil {
		t.Errorf("Lo/Hi %v %v (template %v), want the square's corners on the sampled copy", q.Lo, q.Hi, p.Lo)
	}
	names := []string{"pde", "dirichlet_square", "dirichlet_holes"}
	for i, tm := range q.Terms {
		if tm.Name != names[i] || len(tm.Points) != tm.Draw.N {
			t.Fatalf("term %d: %s with %d points, want %s with %d", i, tm.Name, len(tm.Points), names[i], tm.Draw.N)
		}
	}
	for _, x := range q.Terms[0].Points {
		if d, _ := distHole(x); d < 0.1 || math.Abs(x[0]) > 0.5 || math.Abs(x[1]) > 0.5 {
			t.Fatalf("equation point %v in a hole or outside the square", x)
		}
	}
	if q.Normals(q.Terms[0]) != nil {
		t.Errorf("the interior term has normals")
	}
	// on the square: one coordinate at +-0.5, the normal along it outward
	sq := q.Terms[1]
	for k, nrm := range q.Normals(sq) {
		x := sq.Points[k]
		i := slices.IndexFunc(x, func(v float64) bool { return math.Abs(v) == 0.5 })
		want := []float64{0, 0}
		if i >= 0 {
			want[i] = math.Copysign(1, x[i])
		}
		if i < 0 || !slices.Equal(nrm, want) || sq.Target[k] != 1 {
			t.Fatalf("square point %v: normal %v (want %v), target %g", x, nrm, want, sq.Target[k])
		}
	}
	// on the circles: the outward normal of the plate points to the centre
	hl := q.Terms[2]
	for k, nrm := range q.Normals(hl) {
		x := hl.Points[k]
		d, c := distHole(x)
		if math.Abs(d-0.1) > 1e-9 || math.Abs(nrm[0]+(x[0]-c[0])/d) > 1e-9 || math.Abs(nrm[1]+(x[1]-c[1])/d) > 1e-9 || hl.Target[k] != 0 {
			t.Fatalf("hole point %v (%.3g from %v): normal %v, target %g", x, d, c, nrm, hl.Target[k])
		}
	}
	// the same seed, the same bits; another seed, other points
	again := must(p.Sample(1))
	other := must(p.Sample(2))
	if !samePoints(q.Terms, again.Terms) || samePoints(q.Terms, other.Terms) {
		t.Errorf("draws are not determined by the seed")
	}
	if !slices.Equal(q.Normals(hl)[3], again.Normals(again.Terms[2])[3]) {
		t.Errorf("normals differ between draws of one seed")
	}
	// and the given points are checked against the domain
	q.Terms[0].Points[0] = []float64{0.3, 0.3}
	if err := q.Validate(); err == nil || !strings.Contains(err.Error(), `term "pde": point 0 [0.3 0.3] is outside the domain`) {
		t.Errorf("a point in a hole: %v", err)
	}
}

// evalTerm evaluates term i of p for the function u that build makes from
// the input columns, as pkg/bayes builds a model: the term's targets,
// fields (the normals among them) and pairs fed as inputs.
func evalTerm(t *testing.T, p *Problem, i int, build func(in []*ad.Node) *ad.Node) []float64 {
	t.Helper()
	tm := p.Terms[i]
	g := ad.NewGraph()
	n, dim := len(tm.Points), p.Dim()
	feed := map[*ad.Node][]float64{}
	input := func(name string, cols int, rows [][]float64) *ad.Node {
		x := g.Input(name, n, cols)
		var flat []float64
		for _, r := range rows {
			flat = append(flat, r...)
		}
		feed[x] = flat
		return x
	}
	net := func(x *ad.Node) *ad.Node {
		cols := make([]*ad.Node, dim)
		for k := range cols {
			cols[k] = ad.SliceCol(x, k)
		}
		return build(cols)
	}
	x := input("x", dim, tm.Points)
	in := ResidualInputs{U: net(x), X: x, Fields: map[string]*ad.Node{}}
	if tm.Target != nil {
		in.Target = g.Input("target", n, 1)
		feed[in.Target] = tm.Target
	}
	for name, f := range tm.Fields {
		in.Fields[name] = g.Input("field_"+name, n, 1)
		feed[in.Fields[name]] = f
	}
	if tm.Pairs != nil {
		in.PairX = input("pair", dim, tm.Pairs)
		in.PairU = net(in.PairX)
	}
	r, err := p.BuildResidual(i, in)
	if err != nil {
		t.Fatal(err)
	}
	prog := g.Compile(r)
	for node, v := range feed {
		if prog.Uses(node) {
			prog.Set(node, v)
		}
	}
	prog.Run()
	return slices.Clone(prog.Value(r))
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// A Poisson problem on the unit disk with a Neumann and a Robin condition
// through the normal derivative: at the exact solution u = exp(x) sin(y) +
// x^2 every residual is ~0 at every drawn point; at a wrong u the
// conditions' are not.
func TestDiskNeumann(t *testing.T) {
	t.Parallel()
	exact := func(x []float64) float64 { return math.Exp(x[0])*math.Sin(x[1]) + x[0]*x[0] }
	dudn := func(x []float64) float64 { // grad u . x/|x| on the unit circle
		return (math.Exp(x[0])*math.Sin(x[1])+2*x[0])*x[0] + math.Exp(x[0])*math.Cos(x[1])*x[1]
	}
	disk := must(geom.NewDisk(0, 0, 1))
	p := &Problem{Name: "disk", Inputs: []string{"x", "y"}, Domain: disk, Sampling: LatinHypercube, Terms: []Term{
		PDE("u_xx + u_yy = 2", 300),
		NeumannOn(On(), 100, dudn),
		RobinOn(On("circle"), 50, 2, 3, func(x []float64) float64 { return 2*exact(x) + 3*dudn(x) }),
		{Name: "text", Group: "boundary", Residual: Eq("u_n = exp(x)*(sin(y)*x + cos(y)*y) + 2*x*x"), Draw: &Draw{Region: On(), N: 40}},
	}}
	q, err := p.Sample(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	good := func(c []*ad.Node) *ad.Node {
		return ad.Add(ad.Mul(ad.Exp(c[0]), ad.Sin(c[1])), ad.Square(c[0]))
	}
	bad := func(c []*ad.Node) *ad.Node { // the same Laplacian, another normal derivative
		return ad.Add(good(c), ad.Scale(c[1], 0.1))
	}
	for i, tm := range q.Terms {
		if r := maxAbs(evalTerm(t, q, i, good)); r > 1e-9 {
			t.Errorf("term %s: max |residual| %.3g at the exact solution", tm.Name, r)
		}
		if r := maxAbs(evalTerm(t, q, i, bad)); i > 0 && r < 0.01 {
			t.Errorf("term %s: max |residual| %.3g at a wrong solution", tm.Name, r)
		}
	}
}

// A heat problem on a disk times [0, 1]: the lateral boundary carries the
// spatial normals with a zero time component, the initial slice none.
func TestSpaceTimeDomain(t *testing.T) {
	t.Parallel()
	st := must(geom.NewSpaceTime(must(geom.NewDisk(0, 0, 1)), 0, 1))
	p := &Problem{Name: "disk-heat", Inputs: []string{"x", "y", "t"}, Domain: st, Terms: []Term{
		PDE("u_t = u_xx + u_yy", 100), NeumannOn(Boundary("t"), 50, 0), InitialValue("t", 30, 1)}}
	q := must(p.Sample(5))
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	for k, nrm := range q.Normals(q.Terms[1]) {
		x := q.Terms[1].Points[k]
		if math.Abs(math.Hypot(x[0], x[1])-1) > 1e-9 || nrm[2] != 0 || math.Abs(nrm[0]-x[0]) > 1e-9 || x[2] < 0 || x[2] > 1 {
			t.Fatalf("lateral point %v normal %v", x, nrm)
		}
	}
	for _, x := range q.Terms[2].Points {
		if x[2] != 0 || math.Hypot(x[0], x[1]) > 1 {
			t.Fatalf("initial point %v", x)
		}
	}
	if q.Normals(q.Terms[2]) != nil || q.Terms[1].Name != "neumann_boundary" {
		t.Errorf("initial normals %v, Neumann term %q", q.Normals(q.Terms[2]), q.Terms[1].Name)
	}
}

// Periodic pairs each point of the Lo face with the same point on the Hi
// face; its residual is ~0 for a u periodic in the input and not for
// another.
func TestPeriodic(t *testing.T) {
	t.Parallel()
	p := &Problem{Name: "ring", Inputs: []string{"x", "y"}, Lo: []float64{0, -1}, Hi: []float64{2, 1}, Terms: []Term{
		PDE("u_xx + u_yy = 0", 20), Periodic("x", 16)}}
	q := must(p.Sample(1))
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	tm := q.Terms[1]
	if tm.Name != "periodic_x" || len(tm.Pairs) != 16 {
		t.Fatalf("term %q with %d pairs", tm.Name, len(tm.Pairs))
	}
	for k, x := range tm.Points {
		if y := tm.Pairs[k]; x[0] != 0 || y[0] != 2 || x[1] != y[1] {
			t.Fatalf("pair %v %v", x, y)
		}
	}
	periodic := func(c []*ad.Node) *ad.Node { return ad.Add(ad.Sin(ad.Scale(c[0], math.Pi)), c[1]) }
	if r := maxAbs(evalTerm(t, q, 1, periodic)); r > 1e-12 {
		t.Errorf("periodic u: max |residual| %.3g", r)
	}
	if r := maxAbs(evalTerm(t, q, 1, func(c []*ad.Node) *ad.Node { return ad.Mul(c[0], c[1]) })); r < 0.1 {
		t.Errorf("u = x y: max |residual| %.3g, want about 2|y|", r)
	}
	// a residual that reads the partners' derivatives
	q.Terms[1].Residual = func(v *Vars) *ad.Node { return ad.Sub(v.D("x"), v.Pair().D("x")) }
	if r := maxAbs(evalTerm(t, q, 1, periodic)); r > 1e-12 {
		t.Errorf("u_x periodic: max |residual| %.3g", r)
	}
}
