package pde

import (
	"math"
	"os"
	"regexp"
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
	// the grid leaves out the holes: 51^2 points of the square, of which
	// about a share pi 0.1^2 * 4 = 0.126 in the holes
	pts, exact := q.Grid(51)
	if len(pts) >= 51*51 || len(pts) < 51*51*8/10 || exact != nil {
		t.Errorf("grid of %d points (%d exact values), want about 0.874 * 51^2", len(pts), len(exact))
	}
	for _, x := range pts {
		if d, _ := distHole(x); d < 0.1-1e-9 || !q.Contains(x) {
			t.Fatalf("grid point %v in a hole", x)
		}
	}
	if q.Contains([]float64{0.3, 0.3}) || !q.Contains([]float64{0, 0}) {
		t.Errorf("Contains does not see the holes")
	}
	// and the given points are checked against the domain
	q.Terms[0].Points[0] = []float64{0.3, 0.3}
	if err := q.Validate(); err == nil || !strings.Contains(err.Error(), `term "pde": point 0 [0.3 0.3] is outside the domain`) {
		t.Errorf("a point in a hole: %v", err)
	}
}

// evalTerm evaluates term i of p for the function u that build makes from
// the input columns (TrialResidual, one output).
func evalTerm(t *testing.T, p *Problem, i int, build func(in []*ad.Node) *ad.Node) []float64 {
	t.Helper()
	r, err := p.TrialResidual(i, func(cols []*ad.Node) []*ad.Node { return []*ad.Node{build(cols)} })
	if err != nil {
		t.Fatal(err)
	}
	return r
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

// Every mistake with a domain, normals or pairs is a one-line error naming
// the problem, the term and what to change, from Sample or Validate (the
// problem is sampled first, then validated), never a panic.
func TestDomainErrors(t *testing.T) {
	t.Parallel()
	disk := must(geom.NewDisk(0, 0, 1))
	far := must(geom.NewDisk(5, 5, 1))
	unitSq := must(geom.NewBox([]float64{0, 0}, []float64{1, 1}))
	diskTime := func() geom.Domain { return must(geom.NewSpaceTime(disk, 0, 1)) }
	zero := func(v *Vars) *ad.Node { return v.U }
	cases := []struct {
		name string
		edit func(p *Problem)
		want string
	}{
		{"point outside the domain", func(p *Problem) {
			p.Terms = append(p.Terms, Term{Name: "given", Residual: zero, Points: [][]float64{{0.1, 0.1}, {-0.3, 0.31}}})
		}, `problem "plate" term "given": point 1 [-0.3 0.31] is outside the domain (signed distance 0.09); give points inside it`},
		{"unknown part", func(p *Problem) { p.Terms[1].Draw.Region = On("hole") },
			`problem "plate" term "dirichlet_square": region On("hole"): no boundary part "hole"; the parts are square/x-, square/x+, square/y-, square/y+, holes/circle`},
		{"empty intersection", func(p *Problem) { p.Domain = must(geom.Intersection(disk, far)) },
			`problem "plate": the domain is empty in x (its bounding box is [4, 1]): an empty intersection? give operands that overlap`},
		{"dimension", func(p *Problem) { p.Domain = diskTime() },
			`problem "plate": a 3-D domain for 2 inputs ["x" "y"]; give a domain with one coordinate per input, in the inputs' order`},
		{"space-time inputs", func(p *Problem) {
			p.Inputs, p.Domain = []string{"x", "y", "time"}, diskTime()
			p.Terms = p.Terms[:1]
		}, `problem "plate": inputs ["x" "y" "time"], and the space-time domain's are ["x" "y" "t"]; name them alike`},
		{"Lo/Hi not the bounding box", func(p *Problem) { p.Lo, p.Hi = []float64{-1, -1}, []float64{1, 1} },
			`problem "plate": Lo/Hi [-1 -1] to [1 1], and the domain's bounding box is [-0.5 -0.5] to [0.5 0.5]; leave Lo/Hi nil (Sample sets them) or set them to it`},
		{"u_n without normals", func(p *Problem) { p.Terms[0].Residual = Eq("u_xx + u_yy = u_n") },
			`problem "plate" term "pde": equation "u_xx + u_yy = u_n": col 15: u_n: the normal derivative, and the term has no normals; draw it on a boundary region (Boundary, Face, Faces, On) or give its points' normals as the fields NormalField(input)`},
		{"Neumann in the interior", func(p *Problem) { p.Terms[1] = NeumannOn(Interior(), 10, 0) },
			`problem "plate" term "neumann_interior": DN(): the term has no normals`},
		{"Normal of an unknown input", func(p *Problem) {
			p.Terms[1].Residual = func(v *Vars) *ad.Node { return ad.Mul(v.U, v.Normal("z")) }
		}, `term "dirichlet_square": Normal("z"): no input named "z"; the inputs are x, y`},
		{"a face of a plate", func(p *Problem) { p.Terms[1].Draw.Region = Face("x", Lo) },
			`term "dirichlet_square": region Face("x", Lo): a face of a box, and the domain is not a box; pick boundary parts with On(...) (the parts are square/x-, square/x+, square/y-, square/y+, holes/circle)`},
		{"periodic on a plate", func(p *Problem) { p.Terms[1] = Periodic("x", 4) },
			`term "periodic_x": region FacePairs("x"): a face of a box, and the domain is not a box`},
		{"Boundary leaving out an input", func(p *Problem) { p.Terms[1].Draw.Region = Boundary("y") },
			`term "dirichlet_square": region Boundary("y"): a domain's boundary leaves out no inputs (only a space-time domain's time); write Boundary(), or pick parts with On(...)`},
		{"the whole boundary of a space-time domain", func(p *Problem) {
			p.Inputs, p.Domain = []string{"x", "y", "t"}, diskTime()
			p.Terms = []Term{PDE("u_t = u_xx + u_yy", 10), Dirichlet(Boundary(), 10, 0)}
		}, `term "dirichlet_boundary": region Boundary(): the boundary of a space-time domain is its spatial boundary times the time interval: write Boundary("t"), and Initial("t") for the initial slice`},
		{"Initial without time", func(p *Problem) { p.Terms[1] = InitialValue("y", 10, 0) },
			`term "initial_y": region Initial("y"): the initial slice of a space-time domain's time input; the domain is a 2-D domain without time`},
		{"On without a domain", func(p *Problem) {
			p.Domain, p.Lo, p.Hi = nil, []float64{0, 0}, []float64{1, 1}
		}, `term "dirichlet_square": region On("square"): the problem has no Domain, so its boundary has no named parts; set Problem.Domain, or use Face, Faces or Boundary on its box`},
		{"a field named as a normal", func(p *Problem) {
			p.Terms[0].Draw.Fields = map[string]func([]float64) float64{"normal_x": func([]float64) float64 { return 0 }}
		}, `term "pde": Draw.Fields["normal_x"] is the name of a normal field, which the draw fills on a boundary; rename the field`},
		{"a normal field missing", func(p *Problem) {
			p.Terms = append(p.Terms, Term{Name: "given", Residual: zero, Points: [][]float64{{0.5, 0}}, Fields: map[string][]float64{"normal_x": {1}}})
		}, `problem "plate" term "given": normals need a field per input; missing normal_y`},
		{"a normal not of unit length", func(p *Problem) {
			p.Terms = append(p.Terms, Term{Name: "given", Residual: zero, Points: [][]float64{{0.5, 0}}, Fields: map[string][]float64{"normal_x": {1}, "normal_y": {1}}})
		}, `problem "plate" term "given": normal 0 [1 1] has length 1.41421; give unit vectors`},
		{"pairs of the wrong count", func(p *Problem) {
			p.Terms = append(p.Terms, Term{Name: "given", Residual: zero, Points: [][]float64{{0.5, 0}}, Pairs: [][]float64{{-0.5, 0}, {0, 0}}})
		}, `problem "plate" term "given": 2 pairs for 1 points; give one partner per point`},
		{"a pair outside", func(p *Problem) {
			p.Terms = append(p.Terms, Term{Name: "given", Residual: zero, Points: [][]float64{{0.5, 0}}, Pairs: [][]float64{{0.3, -0.3}}})
		}, `problem "plate" term "given": pair 0 [0.3 -0.3] is outside the domain`},
		{"Pair without pairs", func(p *Problem) {
			p.Terms[1].Residual = func(v *Vars) *ad.Node { return ad.Sub(v.U, v.Pair().U) }
		}, `term "dirichlet_square": Pair(): the term has no pairs; draw it on FacePairs(input) (pde.Periodic) or give Term.Pairs`},
		{"a box domain with faces and pairs is fine but a disk's unknown part", func(p *Problem) {
			p.Domain = unitSq
			p.Terms = []Term{PDE("u_xx + u_yy = 0", 10), Periodic("x", 4), Neumann("y", Hi, 3, 0), Dirichlet(On("circle"), 4, 0)}
		}, `term "dirichlet_circle": region On("circle"): no boundary part "circle"; the parts are x-, x+, y-, y+`},
	}
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
		p := poissonHoles()
		p.Name = "plate"
		c.edit(p)
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", c.name, r)
				}
			}()
			q, err := p.Sample(1)
			if err != nil {
				return err
			}
			return q.Validate()
		}()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v\nwant an error containing %s", c.name, err, c.want)
		}
	}
	if len(names) != len(cases) {
		t.Errorf("two cases share a name")
	}
	// a paired term that a trainer builds without the partners' u
	q := must((&Problem{Name: "ring", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Terms: []Term{Periodic("x", 2)}}).Sample(1))
	g := ad.NewGraph()
	x := g.Input("x", 2, 1)
	_, err := q.BuildResidual(0, ResidualInputs{U: ad.Tanh(x), X: x})
	if want := `problem "ring" term "periodic_x": the term pairs points (Term.Pairs, a periodic condition) and the trainer gives no u at the partners (ResidualInputs.PairU, PairX); this trainer cannot fit paired terms`; err == nil || err.Error() != want {
		t.Errorf("a paired term without PairU: %v, want %s", err, want)
	}
}

// TestDomainDoc checks that docs/problems.md shows the plate of
// example_domain_test.go verbatim, so the guide's snippet compiles and runs
// (Example_domain).
func TestDomainDoc(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("example_domain_test.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/problems.md")
	if err != nil {
		t.Fatal(err)
	}
	b := regexp.MustCompile(`(?s)// problems\.md:begin plate\n(.*?)\n// problems\.md:end`).FindSubmatch(src)
	if b == nil {
		t.Fatal("no marked block in example_domain_test.go")
	}
	if !strings.Contains(string(doc), "```go\n"+string(b[1])+"```\n") {
		t.Errorf("docs/problems.md does not show the plate of example_domain_test.go; paste:\n%s", b[1])
	}
}

// A geom.Box domain (and a space-time of one) draws the box regions as the
// box problem of the same Lo/Hi does, bit for bit, and adds its parts;
// NeumannOn on a face is Neumann there.
func TestBoxDomain(t *testing.T) {
	t.Parallel()
	terms := func() []Term {
		return []Term{PDE("u_t = u_xx + u_yy", 50), Dirichlet(Boundary("t"), 20, "x*y"), InitialValue("t", 10, 1),
			Neumann("x", Hi, 7, 0.5), NeumannOn(Face("x", Hi), 7, 0.5).Named("neumann_on"), Periodic("y", 6)}
	}
	box := &Problem{Name: "box", Inputs: []string{"x", "y", "t"}, Lo: []float64{0, -1, 0}, Hi: []float64{1, 1, 2}, Terms: terms()}
	st := must(geom.NewSpaceTime(must(geom.NewBox([]float64{0, -1}, []float64{1, 1})), 0, 2))
	dom := &Problem{Name: "box", Inputs: []string{"x", "y", "t"}, Domain: st, Terms: append(terms(), NeumannOn(On("y+"), 9, 0))}
	for _, s := range Samplers() {
		box.Sampling, dom.Sampling = s, s
		a, b := must(box.Sample(4)), must(dom.Sample(4))
		if err := b.Validate(); err != nil {
			t.Fatal(err)
		}
		if !samePoints(a.Terms, b.Terms[:len(a.Terms)]) {
			t.Errorf("%s: a space-time box draws other points than its box problem", s)
		}
		for k, x := range b.Terms[6].Points {
			if x[1] != 1 || !slices.Equal(b.Normals(b.Terms[6])[k], []float64{0, 1, 0}) {
				t.Fatalf("%s: On(y+) point %v normal %v", s, x, b.Normals(b.Terms[6])[k])
			}
		}
		u := func(c []*ad.Node) *ad.Node { return ad.Mul(ad.Sin(c[0]), ad.Exp(ad.Mul(c[1], c[2]))) }
		b.Terms[4].Points, b.Terms[4].Target = b.Terms[3].Points, b.Terms[3].Target // a face's normals are one vector
		if old, on := evalTerm(t, b, 3, u), evalTerm(t, b, 4, u); !slices.Equal(old, on) || maxAbs(old) == 0 {
			t.Errorf("%s: Neumann(x, Hi) %v, NeumannOn(Face(x, Hi)) %v", s, old, on)
		}
	}
}
