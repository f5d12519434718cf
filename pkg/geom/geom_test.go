package geom_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

func TestContains(t *testing.T) {
	t.Parallel()
	a, b := twoDisks(t)
	union := must(geom.Union(a, b))
	inter := must(geom.Intersection(a, b))
	diff := must(geom.Difference(a, b))
	for _, c := range []struct {
		name string
		d    geom.Domain
		x    []float64
		want bool
	}{
		{"box1 in", must(geom.NewBox([]float64{0}, []float64{1})), []float64{0.5}, true},
		{"box1 on", must(geom.NewBox([]float64{0}, []float64{1})), []float64{1 + geom.Tol/2}, true},
		{"box1 out", must(geom.NewBox([]float64{0}, []float64{1})), []float64{1 + 1e-6}, false},
		{"box2 corner", must(geom.NewBox([]float64{0, 0}, []float64{1, 1})), []float64{1, 1}, true},
		{"box2 out", must(geom.NewBox([]float64{0, 0}, []float64{1, 1})), []float64{0.5, -0.1}, false},
		{"box4 in", must(geom.NewBox([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1})), []float64{0.1, 0.9, 0.5, 0.5}, true},
		{"box4 out", must(geom.NewBox([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1})), []float64{0.1, 0.9, 0.5, 1.5}, false},
		{"disk in", must(geom.NewDisk(0, 0, 1)), []float64{0.6, 0.7}, true},
		{"disk out", must(geom.NewDisk(0, 0, 1)), []float64{0.8, 0.7}, false},
		{"disk NaN", must(geom.NewDisk(0, 0, 1)), []float64{math.NaN(), 0}, false},
		{"ball in", must(geom.NewBall([]float64{0, 0, 0}, 1)), []float64{0.5, 0.5, 0.5}, true},
		{"ball out", must(geom.NewBall([]float64{0, 0, 0}, 1)), []float64{0.6, 0.6, 0.6}, false},
		{"L in", lShape(t, false), []float64{0.5, 1.5}, true},
		{"L notch", lShape(t, false), []float64{1.5, 1.5}, false},
		{"L cw in", lShape(t, true), []float64{1.5, 0.5}, true},
		{"L cw notch", lShape(t, true), []float64{1.5, 1.5}, false},
		{"L on edge", lShape(t, false), []float64{1, 1.5}, true},
		{"union a only", union, []float64{-0.9, 0}, true},
		{"union b only", union, []float64{1.9, 0}, true},
		{"union neither", union, []float64{0.5, 0.95}, false},
		{"intersection both", inter, []float64{0.5, 0}, true},
		{"intersection a only", inter, []float64{-0.5, 0}, false},
		{"difference a only", diff, []float64{-0.5, 0}, true},
		{"difference both", diff, []float64{0.5, 0}, false},
		{"difference on b", diff, []float64{0, 0}, true},
		{"holes centre", holes(t), []float64{0, 0}, true},
		{"holes in hole", holes(t), []float64{0.3, -0.3}, false},
		{"holes on circle", holes(t), []float64{0.4, 0.3}, true},
		{"holes outside", holes(t), []float64{0.6, 0}, false},
	} {
		if got := c.d.Contains(c.x); got != c.want {
			t.Errorf("%s: Contains(%v) = %v, want %v", c.name, c.x, got, c.want)
		}
	}
}

func TestContainsPanicsOnDimension(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "dimension 3 in a 2-D") {
			t.Errorf("panic %v, want one naming the dimensions", r)
		}
	}()
	must(geom.NewDisk(0, 0, 1)).Contains([]float64{0, 0, 0})
}

var schemes = []geom.Scheme{geom.Uniform, geom.LatinHypercube, geom.Halton}

func TestSampleInterior(t *testing.T) {
	t.Parallel()
	for _, c := range domains(t) {
		for _, s := range schemes {
			for _, n := range []int{1, 7, 300} {
				pts, err := geom.SampleInterior(c.d, n, s, src(uint64(n)))
				if err != nil {
					t.Fatalf("%s %s n=%d: %v", c.name, s, n, err)
				}
				if len(pts) != n {
					t.Errorf("%s %s: %d points, want %d", c.name, s, len(pts), n)
				}
				if err := geom.Check(c.d, pts); err != nil {
					t.Errorf("%s %s: %v", c.name, s, err)
				}
			}
		}
	}
}

func TestSampleBoundary(t *testing.T) {
	t.Parallel()
	for _, c := range domains(t) {
		for _, s := range schemes {
			const n = 500
			bp, err := geom.SampleBoundary(c.d, n, s, src(2))
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, s, err)
			}
			if len(bp.X) != n || len(bp.Normal) != n || len(bp.Part) != n {
				t.Fatalf("%s %s: %d points, %d normals, %d parts, want %d", c.name, s, len(bp.X), len(bp.Normal), len(bp.Part), n)
			}
			for i, x := range bp.X {
				if sd := c.d.SignedDistance(x); math.Abs(sd) > 1e-9 {
					t.Errorf("%s %s: point %v of part %s at signed distance %g, want 0", c.name, s, x, bp.Part[i], sd)
					continue
				}
				nrm := bp.Normal[i]
				if l := math.Sqrt(dot(nrm, nrm)); math.Abs(l-1) > 1e-12 {
					t.Errorf("%s %s: normal %v at %v of length %g", c.name, s, nrm, x, l)
				}
				g := fdGradient(c.d.SignedDistance, x)
				for k := range g {
					if math.Abs(g[k]-nrm[k]) > 1e-5 {
						t.Errorf("%s %s: normal %v at %v of part %s, want the signed distance's gradient %v", c.name, s, nrm, x, bp.Part[i], g)
						break
					}
				}
			}
		}
	}
}

// fdGradient is the central-difference gradient of f at x.
func fdGradient(f func([]float64) float64, x []float64) []float64 {
	const h = 1e-7
	g := make([]float64, len(x))
	y := slices.Clone(x)
	for k := range x {
		y[k] = x[k] + h
		fp := f(y)
		y[k] = x[k] - h
		fm := f(y)
		y[k] = x[k]
		g[k] = (fp - fm) / (2 * h)
	}
	return g
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	for _, c := range domains(t) {
		if got := geom.Measure(c.d); math.Abs(got-c.measure) > c.tol*c.measure {
			t.Errorf("%s: boundary measure %.12g, want %.12g", c.name, got, c.measure)
		}
	}
}

// TestPartFractions checks that boundary points fall on each part in
// proportion to its measure: within 5 binomial standard deviations, for
// every scheme.
func TestPartFractions(t *testing.T) {
	t.Parallel()
	a, b := twoDisks(t)
	for _, c := range []struct {
		name  string
		d     geom.Domain
		parts []string
		want  map[string]float64 // measure of each picked part
	}{
		{"holes", holes(t), nil, map[string]float64{
			"square/x-": 1, "square/x+": 1, "square/y-": 1, "square/y+": 1,
			"holes/hole0/circle": 0.2 * math.Pi, "holes/hole1/circle": 0.2 * math.Pi,
			"holes/hole2/circle": 0.2 * math.Pi, "holes/hole3/circle": 0.2 * math.Pi}},
		{"holes only", holes(t), []string{"holes"}, map[string]float64{
			"holes/hole0/circle": 1, "holes/hole1/circle": 1, "holes/hole2/circle": 1, "holes/hole3/circle": 1}},
		{"difference", must(geom.Difference(a, b)), nil, map[string]float64{
			"a/circle": 4 * math.Pi / 3, "b/circle": 2 * math.Pi / 3}},
		{"interval", must(geom.Difference(must(geom.NewBox([]float64{0}, []float64{3})), must(geom.NewBox([]float64{1}, []float64{2})))), nil,
			map[string]float64{"x-": 2, "x+": 2}},
		{"L", lShape(t, true), []string{"edge0", "edge4"}, map[string]float64{"edge0": 1, "edge4": 2}},
	} {
		for _, s := range schemes {
			const n = 4000
			bp, err := geom.SampleBoundary(c.d, n, s, src(3), c.parts...)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, s, err)
			}
			count := map[string]int{}
			for _, p := range bp.Part {
				count[p]++
			}
			var total float64
			for _, m := range c.want {
				total += m
			}
			for name, m := range c.want {
				p := m / total
				got := float64(count[name]) / n
				if sd := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 5*sd {
					t.Errorf("%s %s: part %s has a fraction %.4f of the points, want %.4f +- %.4f", c.name, s, name, got, p, 5*sd)
				}
				delete(count, name)
			}
			if len(count) > 0 {
				t.Errorf("%s %s: points on unexpected parts %v", c.name, s, count)
			}
		}
	}
}

// TestArcLengthUniform checks that points on one circle are uniform by
// angle: the counts in 8 equal arcs are within 5 binomial deviations.
func TestArcLengthUniform(t *testing.T) {
	t.Parallel()
	d := must(geom.NewDisk(0.3, -0.2, 2))
	for _, s := range schemes {
		const n, bins = 4000, 8
		bp := must(geom.SampleBoundary(d, n, s, src(4)))
		var count [bins]int
		for _, x := range bp.X {
			a := math.Atan2(x[1]+0.2, x[0]-0.3) + math.Pi
			count[min(bins-1, int(a/(2*math.Pi)*bins))]++
		}
		p := 1.0 / bins
		for i, c := range count {
			if sd := math.Sqrt(p * (1 - p) / n); math.Abs(float64(c)/n-p) > 5*sd {
				t.Errorf("%s: arc %d holds %d of %d points, want %.0f +- %.0f", s, i, c, n, p*n, 5*sd*n)
			}
		}
	}
}

// TestAreaUniform checks that points on a sphere are uniform by area: by
// Archimedes, the zones between equally spaced heights have equal areas.
func TestAreaUniform(t *testing.T) {
	t.Parallel()
	d := must(geom.NewBall([]float64{1, 2, 3}, 0.5))
	for _, s := range schemes {
		const n, bins = 4000, 4
		bp := must(geom.SampleBoundary(d, n, s, src(4)))
		var count [bins]int
		for _, x := range bp.X {
			count[min(bins-1, int((x[2]-2.5)*bins))]++
		}
		p := 1.0 / bins
		for i, c := range count {
			if sd := math.Sqrt(p * (1 - p) / n); math.Abs(float64(c)/n-p) > 5*sd {
				t.Errorf("%s: zone %d holds %d of %d points, want %.0f +- %.0f", s, i, c, n, p*n, 5*sd*n)
			}
		}
	}
}

// TestHighSphereUniform checks the spheres of the 4-D and 5-D balls: every
// point at the radius with its outward unit normal, and the moments of a
// uniform point n on the unit sphere of R^d: E n_i = 0, E n_i^2 = 1/d,
// E n_i^4 = 3/(d(d+2)) for every coordinate. The interior's points lie in
// the ball.
func TestHighSphereUniform(t *testing.T) {
	t.Parallel()
	for _, d := range []int{4, 5} {
		c := make([]float64, d)
		for i := range c {
			c[i] = 0.1 * float64(i+1)
		}
		b := must(geom.NewBall(c, 2))
		for _, s := range schemes {
			const n = 8000
			bp := must(geom.SampleBoundary(b, n, s, src(9)))
			var m1, m2, m4 [5]float64
			for k, x := range bp.X {
				var norm float64
				for i := range d {
					u := (x[i] - c[i]) / 2
					norm += u * u
					if math.Abs(u-bp.Normal[k][i]) > 1e-12 {
						t.Fatalf("%d-D %s: normal %v at %v", d, s, bp.Normal[k], x)
					}
					m1[i] += u / n
					m2[i] += u * u / n
					m4[i] += u * u * u * u / n
				}
				if math.Abs(norm-1) > 1e-12 {
					t.Fatalf("%d-D %s: point %v at %g radii", d, s, x, math.Sqrt(norm))
				}
			}
			for i := range d {
				want2, want4 := 1/float64(d), 3/float64(d*(d+2))
				if math.Abs(m1[i]) > 0.03 || math.Abs(m2[i]-want2) > 0.01 || math.Abs(m4[i]-want4) > 0.01 {
					t.Errorf("%d-D %s: coordinate %d moments %.4f %.4f %.4f, want 0 %.4f %.4f", d, s, i, m1[i], m2[i], m4[i], want2, want4)
				}
			}
		}
		if got := geom.Parts(b)[0].Measure; math.Abs(got-map[int]float64{4: 2 * math.Pi * math.Pi * 8, 5: 8.0 / 3 * math.Pi * math.Pi * 16}[d]) > 1e-9 {
			t.Errorf("%d-D sphere of radius 2: measure %g", d, got)
		}
		for _, x := range must(geom.SampleInterior(b, 500, geom.Uniform, src(3))) {
			if b.SignedDistance(x) > 1e-12 {
				t.Fatalf("%d-D interior point %v outside the ball", d, x)
			}
		}
	}
}

func TestParts(t *testing.T) {
	t.Parallel()
	var names []string
	for _, p := range geom.Parts(holes(t)) {
		names = append(names, p.Name)
	}
	want := []string{"square/x-", "square/x+", "square/y-", "square/y+",
		"holes/hole0/circle", "holes/hole1/circle", "holes/hole2/circle", "holes/hole3/circle"}
	if !slices.Equal(names, want) {
		t.Errorf("parts %q, want %q", names, want)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	d := holes(t)
	for _, s := range schemes {
		p1 := must(geom.SampleInterior(d, 50, s, src(7)))
		p2 := must(geom.SampleInterior(d, 50, s, src(7)))
		p3 := must(geom.SampleInterior(d, 50, s, src(8)))
		b1 := must(geom.SampleBoundary(d, 50, s, src(7)))
		b2 := must(geom.SampleBoundary(d, 50, s, src(7)))
		for i := range p1 {
			if !slices.Equal(p1[i], p2[i]) || !slices.Equal(b1.X[i], b2.X[i]) || !slices.Equal(b1.Normal[i], b2.Normal[i]) {
				t.Fatalf("%s: point %d differs between two draws of one seed", s, i)
			}
		}
		if slices.Equal(p1[0], p3[0]) {
			t.Errorf("%s: seeds 7 and 8 give the same first point %v", s, p1[0])
		}
	}
}

func TestPolygonNormalsOutward(t *testing.T) {
	t.Parallel()
	// Edge 0 of the counter-clockwise L runs (0,0) -> (2,0): normal -y;
	// reversed, the clockwise L's edge 0 runs (0,2) -> (1,2): normal +y.
	for _, c := range []struct {
		cw   bool
		want []float64
	}{{false, []float64{0, -1}}, {true, []float64{0, 1}}} {
		bp := must(geom.SampleBoundary(lShape(t, c.cw), 5, geom.Uniform, src(1), "edge0"))
		for _, n := range bp.Normal {
			if !slices.Equal(n, c.want) {
				t.Errorf("cw=%v: edge0 normal %v, want %v", c.cw, n, c.want)
			}
		}
	}
}

func TestNormal(t *testing.T) {
	t.Parallel()
	d := holes(t)
	for _, c := range []struct {
		x, want []float64
	}{
		{[]float64{0.5, 0.1}, []float64{1, 0}},
		{[]float64{0, -0.5}, []float64{0, -1}},
		{[]float64{0.4, 0.3}, []float64{-1, 0}}, // into the hole
		{[]float64{-0.3, -0.2}, []float64{0, -1}},
	} {
		n := must(geom.Normal(d, c.x))
		for k := range n {
			if math.Abs(n[k]-c.want[k]) > 1e-6 {
				t.Errorf("Normal(%v) = %v, want %v", c.x, n, c.want)
				break
			}
		}
	}
}

func TestPeriodic(t *testing.T) {
	t.Parallel()
	b := must(geom.NewBox([]float64{0, -1, 2}, []float64{1, 1, 3}))
	lo, hi := must2(t)(b.Periodic(1, 20, geom.Halton, src(5)))
	if len(lo) != 20 || len(hi) != 20 {
		t.Fatalf("%d and %d points, want 20 pairs", len(lo), len(hi))
	}
	for i := range lo {
		if lo[i][1] != -1 || hi[i][1] != 1 || lo[i][0] != hi[i][0] || lo[i][2] != hi[i][2] {
			t.Errorf("pair %d: %v and %v, want y = -1 and 1 and the other coordinates equal", i, lo[i], hi[i])
		}
	}
}

func must2(t *testing.T) func(a, b [][]float64, err error) ([][]float64, [][]float64) {
	return func(a, b [][]float64, err error) ([][]float64, [][]float64) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}

func TestSpaceTime(t *testing.T) {
	t.Parallel()
	st := must(geom.NewSpaceTime(holes(t), 0, 2))
	if !slices.Equal(st.Inputs, []string{"x", "y", "t"}) {
		t.Errorf("inputs %q, want x y t", st.Inputs)
	}
	lo, hi := st.Bounds()
	if !slices.Equal(lo, []float64{-0.5, -0.5, 0}) || !slices.Equal(hi, []float64{0.5, 0.5, 2}) {
		t.Errorf("bounds %v %v, want the square's times [0, 2]", lo, hi)
	}
	// the lateral boundary: each part's length times the time span
	space := geom.Parts(st.Space)
	for i, p := range geom.Parts(st) {
		if p.Name != space[i].Name || math.Abs(p.Measure-2*space[i].Measure) > 1e-12 {
			t.Errorf("part %s of measure %g, want %s of %g", p.Name, p.Measure, space[i].Name, 2*space[i].Measure)
		}
	}
	for _, s := range schemes {
		in := must(st.Interior(100, s, src(6)))
		if len(in) != 100 {
			t.Errorf("%s: %d interior points, want 100", s, len(in))
		}
		for _, x := range in {
			if !st.Contains(x) || st.SignedDistance(x) > 0 {
				t.Errorf("%s: interior point %v outside", s, x)
			}
		}
		bp := must(st.Boundary(100, s, src(6), "holes"))
		for i, x := range bp.X {
			if len(x) != 3 || x[2] < 0 || x[2] > 2 || math.Abs(st.Space.SignedDistance(x[:2])) > 1e-9 || bp.Normal[i][2] != 0 ||
				!strings.HasPrefix(bp.Part[i], "holes/") {
				t.Errorf("%s: boundary point %v normal %v part %s", s, x, bp.Normal[i], bp.Part[i])
			}
		}
		init := must(st.Initial(100, s, src(6)))
		for _, x := range init {
			if x[2] != 0 || !st.Space.Contains(x[:2]) {
				t.Errorf("%s: initial point %v", s, x)
			}
		}
	}
}

// badPieces is a box whose first piece claims more kept measure than it
// has: a user's Domain with a wrong Piece.
type badPieces struct{ *geom.Box }

func (b badPieces) Pieces() []geom.Piece {
	ps := slices.Clone(b.Box.Pieces())
	ps[0].Measure = 2
	return ps
}

// TestBadInputs holds every error a user can meet, one row each.
func TestBadInputs(t *testing.T) {
	t.Parallel()
	sq := must(geom.NewBox([]float64{0, 0}, []float64{1, 1}))
	far := must(geom.NewBox([]float64{2, 2}, []float64{3, 3}))
	d1 := must(geom.NewDisk(0, 0, 1))
	d2 := must(geom.NewDisk(1.9, 1.9, 1))
	ball := must(geom.NewBall([]float64{0, 0, 0}, 1))
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"box lo >= hi", func() error { _, err := geom.NewBox([]float64{0, 1}, []float64{1, 1}); return err }, "box lo[1] = 1 >= hi[1] = 1"},
		{"box NaN", func() error { _, err := geom.NewBox([]float64{math.NaN()}, []float64{1}); return err }, "box lo coordinate 0 is NaN"},
		{"box lengths", func() error { _, err := geom.NewBox([]float64{0}, []float64{1, 1}); return err }, "lengths 1 and 2"},
		{"box dim 5", func() error { _, err := geom.NewBox(make([]float64, 5), []float64{1, 1, 1, 1, 1}); return err }, "box of dimension 5"},
		{"box dim 0", func() error { _, err := geom.NewBox(nil, nil); return err }, "box of dimension 0"},
		{"disk radius 0", func() error { _, err := geom.NewDisk(0, 0, 0); return err }, "radius 0; give a finite radius > 0"},
		{"disk radius < 0", func() error { _, err := geom.NewDisk(0, 0, -1); return err }, "radius -1"},
		{"disk NaN", func() error { _, err := geom.NewDisk(math.NaN(), 0, 1); return err }, "ball centre coordinate 0 is NaN"},
		{"ball dim", func() error { _, err := geom.NewBall([]float64{0}, 1); return err }, "centre of 1 coordinates"},
		{"ball dim 6", func() error { _, err := geom.NewBall(make([]float64, 6), 1); return err }, "centre of 6 coordinates; give 2 (disk) to 5"},
		{"polygon 2 vertices", func() error { _, err := geom.NewPolygon([][2]float64{{0, 0}, {1, 0}}); return err }, "polygon of 2 vertices"},
		{"polygon bowtie", func() error {
			_, err := geom.NewPolygon([][2]float64{{0, 0}, {1, 1}, {1, 0}, {0, 1}})
			return err
		}, "not simple: edges 0 and 2 intersect"},
		{"polygon touching", func() error {
			_, err := geom.NewPolygon([][2]float64{{0, 0}, {2, 0}, {1, 0}, {1, 1}})
			return err
		}, "not simple"},
		{"polygon zero area", func() error { _, err := geom.NewPolygon([][2]float64{{0, 0}, {1, 1}, {2, 2}}); return err }, "polygon of zero area (its vertices are collinear)"},
		{"polygon repeated vertex", func() error { _, err := geom.NewPolygon([][2]float64{{0, 0}, {1, 0}, {1, 0}, {0, 1}}); return err }, "vertices 1 and 2 coincide"},
		{"polygon NaN", func() error { _, err := geom.NewPolygon([][2]float64{{0, 0}, {1, math.NaN()}, {0, 1}}); return err }, "polygon vertex 1 coordinate 1 is NaN"},
		{"union dims", func() error { _, err := geom.Union(sq, ball); return err }, "Union of a 2-D and a 3-D domain"},
		{"difference nil", func() error { _, err := geom.Difference(sq, nil); return err }, "Difference operand 1 is nil"},
		{"intersection of none", func() error { _, err := geom.Intersection(); return err }, "Intersection of no domains"},
		{"named empty", func() error { _, err := geom.Named("", sq); return err }, `part name ""`},
		{"named slash", func() error { _, err := geom.Named("a/b", sq); return err }, `part name "a/b"`},
		{"n = 0", func() error { _, err := geom.SampleInterior(sq, 0, geom.Uniform, src(1)); return err }, "0 points asked for"},
		{"n < 0 boundary", func() error { _, err := geom.SampleBoundary(sq, -3, geom.Uniform, src(1)); return err }, "-3 points asked for"},
		{"unknown scheme", func() error { _, err := geom.SampleInterior(sq, 3, geom.Scheme("sobol"), src(1)); return err }, `unknown sampler "sobol"`},
		{"disjoint intersection interior", func() error {
			_, err := geom.SampleInterior(must(geom.Intersection(sq, far)), 10, geom.Uniform, src(1))
			return err
		}, "the domain is empty"},
		{"empty intersection interior", func() error {
			_, err := geom.SampleInterior(must(geom.Intersection(d1, d2)), 10, geom.Halton, src(1))
			return err
		}, "empty or too thin"},
		{"empty intersection boundary", func() error {
			_, err := geom.SampleBoundary(must(geom.Intersection(d1, d2)), 10, geom.Uniform, src(1))
			return err
		}, "has measure zero"},
		{"unknown part", func() error { _, err := geom.SampleBoundary(sq, 10, geom.Uniform, src(1), "x-", "top"); return err }, `no boundary part "top"; the parts are x-, x+, y-, y+`},
		{"point outside", func() error { return geom.Check(sq, [][]float64{{0.5, 0.5}, {1.5, 0.5}}) }, "point 1 [1.5 0.5] is outside the domain"},
		{"point NaN", func() error { return geom.Check(sq, [][]float64{{0.5, math.NaN()}}) }, "point 0: point coordinate 1 is NaN"},
		{"point width", func() error { return geom.Check(sq, [][]float64{{0.5}}) }, "point 0 has 1 coordinates; the domain is 2-D"},
		{"normal off boundary", func() error { _, err := geom.Normal(sq, []float64{0.5, 0.5}); return err }, "not on the boundary"},
		{"periodic axis", func() error { _, _, err := sq.Periodic(2, 5, geom.Uniform, src(1)); return err }, "periodic axis 2 of a 2-D box"},
		{"time interval", func() error { _, err := geom.NewSpaceTime(sq, 1, 1); return err }, "time interval [1, 1]; give t0 < t1"},
		{"time inputs", func() error { _, err := geom.NewSpaceTime(sq, 0, 1, "x", "t"); return err }, "2 input names for a 2-D domain"},
		{"space-time nil", func() error { _, err := geom.NewSpaceTime(nil, 0, 1); return err }, "space-time of a nil domain"},
		{"space-time literal", func() error {
			_, err := (&geom.SpaceTime{Space: sq, T0: 1, T1: math.NaN()}).Interior(5, geom.Uniform, src(1))
			return err
		}, "time interval coordinate 1 is NaN"},
		{"piece measure", func() error {
			_, err := geom.SampleBoundary(badPieces{sq}, 5, geom.Uniform, src(1))
			return err
		}, `boundary piece "x-" of dimension 1 keeps 2 of 1`},
		{"nil sampler", func() error { _, err := geom.SampleInterior(sq, 3, nil, src(1)); return err }, "nil sampler or source"},
	} {
		err := c.err()
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q spans lines", c.name, err)
		}
	}
}
