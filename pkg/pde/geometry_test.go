package pde

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// spaceTime is a 3-D and time box with unequal sides, so face areas differ.
func spaceTime() *Problem {
	return &Problem{Name: "box", Inputs: []string{"x", "y", "z", "t"},
		Lo: []float64{-1, 0, 2, 0}, Hi: []float64{1, 1, 5, 0.5}}
}

// onFace reports which input of x sits exactly on a face of p's box, and
// the side (-1 for none); every coordinate must be inside the box.
func onFace(t *testing.T, p *Problem, x []float64) (dims []int, sides []Side) {
	t.Helper()
	if len(x) != p.Dim() {
		t.Fatalf("point %v has %d coordinates, want %d", x, len(x), p.Dim())
	}
	for d, v := range x {
		switch {
		case v < p.Lo[d] || v > p.Hi[d] || math.IsNaN(v):
			t.Fatalf("point %v: %s = %g outside [%g, %g]", x, p.Inputs[d], v, p.Lo[d], p.Hi[d])
		case v == p.Lo[d]:
			dims, sides = append(dims, d), append(sides, Lo)
		case v == p.Hi[d]:
			dims, sides = append(dims, d), append(sides, Hi)
		}
	}
	return dims, sides
}

// Every region, with every sampler, on a 4-input box: the right number of
// points, inside the box, on the region's faces exactly, split as the
// documentation says.
func TestRegionPoints(t *testing.T) {
	t.Parallel()
	p := spaceTime()
	const n = 101
	// face areas of Boundary("t"): x faces 1*3*0.5 = 1.5, y faces 2*3*0.5 = 3,
	// z faces 2*1*0.5 = 1, total 2*(1.5+3+1) = 11
	boundaryShare := map[int]float64{0: 1.5 / 11, 1: 3.0 / 11, 2: 1.0 / 11}
	for _, s := range Samplers() {
		for _, c := range []struct {
			r     Region
			faces map[int]float64 // the expected share of the points on each face of an input (-1: interior)
		}{
			{Interior(), map[int]float64{-1: 1}},
			{Face("y", Lo), map[int]float64{1: 1}},
			{Face("z", Hi), map[int]float64{2: 1}},
			{Faces("x"), map[int]float64{0: 0.5}},
			{Boundary("t"), boundaryShare},
			{Initial("t"), map[int]float64{3: 1}},
		} {
			got, err := c.r.draw(p, s, rand.New(rand.NewPCG(3, 4)), n)
			if err != nil {
				t.Fatalf("%s %v: %v", s, c.r, err)
			}
			pts := got.x
			// a face's points carry its outward normal; the interior and the
			// initial slice none
			if hasNormals := c.faces[-1] == 0 && c.r.kind != kindInitial; hasNormals != (got.normal != nil) || got.pair != nil {
				t.Fatalf("%s %v: normals %v, pairs %v", s, c.r, got.normal != nil, got.pair != nil)
			}
			for k, nrm := range got.normal {
				dims, sides := onFace(t, p, pts[k])
				want := make([]float64, p.Dim())
				want[dims[0]] = map[Side]float64{Lo: -1, Hi: 1}[sides[0]]
				if !slices.Equal(nrm, want) {
					t.Fatalf("%s %v: normal %v at %v, want %v", s, c.r, nrm, pts[k], want)
				}
			}
			if len(pts) != n {
				t.Fatalf("%s %v: %d points, want %d", s, c.r, len(pts), n)
			}
			count := map[Side]map[int]int{Lo: {}, Hi: {}}
			for _, x := range pts {
				dims, sides := onFace(t, p, x)
				switch {
				case c.faces[-1] == 1 && len(dims) > 0:
					t.Fatalf("%s %v: interior point %v on a face", s, c.r, x)
				case c.faces[-1] == 1:
					continue
				case len(dims) != 1 || c.faces[dims[0]] == 0:
					t.Fatalf("%s %v: point %v is not on exactly one of the region's faces", s, c.r, x)
				}
				count[sides[0]][dims[0]]++
			}
			for d, share := range c.faces {
				if d < 0 {
					continue
				}
				lo, hi := count[Lo][d], count[Hi][d]
				switch {
				case c.r.kind == kindFace || c.r.kind == kindInitial:
					if want := map[Side]int{c.r.side: n}; lo != want[Lo] || hi != want[Hi] {
						t.Errorf("%s %v: %d points on the Lo face and %d on the Hi face of %s", s, c.r, lo, hi, p.Inputs[d])
					}
				// largest remainders: each face within one point of its share
				case math.Abs(float64(lo)-share*n) >= 1 || math.Abs(float64(hi)-share*n) >= 1 || lo < hi:
					t.Errorf("%s %v: %d and %d points on the faces of %s, want %.2f each (the odd one on Lo)", s, c.r, lo, hi, p.Inputs[d], share*n)
				}
			}
		}
	}
}

// A face of a 1-input problem is a point: n copies of it.
func TestRegionPoint1D(t *testing.T) {
	t.Parallel()
	p := &Problem{Inputs: []string{"x"}, Lo: []float64{-2}, Hi: []float64{3}}
	got, err := Faces("x").draw(p, Halton, rand.New(rand.NewPCG(1, 1)), 3)
	if err != nil {
		t.Fatal(err)
	}
	pts := got.x
	if want := [][]float64{{-2}, {-2}, {3}}; !slices.EqualFunc(pts, want, slices.Equal) {
		t.Errorf("Faces(x) of [-2, 3], 3 points: %v, want %v", pts, want)
	}
}

// Region strings are the Go that makes them, for error messages.
func TestRegionString(t *testing.T) {
	t.Parallel()
	for r, want := range map[*Region]string{
		{}:                      "no region",
		ptr(Interior()):         "Interior()",
		ptr(Face("x", Hi)):      `Face("x", Hi)`,
		ptr(Face("x", Side(7))): `Face("x", Side(7))`,
		ptr(Faces("y")):         `Faces("y")`,
		ptr(Boundary()):         "Boundary()",
		ptr(Boundary("t", "z")): `Boundary("t", "z")`,
		ptr(Initial("t")):       `Initial("t")`,
	} {
		if got := r.String(); got != want {
			t.Errorf("String() = %s, want %s", got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// A 4-input grid: m^4 points with m = round(sqrt(n)), from corner to corner,
// the first input fastest.
func TestGrid4D(t *testing.T) {
	t.Parallel()
	p := spaceTime()
	p.Exact = func(x []float64) float64 { return x[0] + x[3] }
	pts, exact := p.Grid(36)
	if len(pts) != 6*6*6*6 || len(exact) != len(pts) {
		t.Fatalf("4-D grid of n = 36: %d points (%d exact), want 6^4", len(pts), len(exact))
	}
	if !slices.Equal(pts[0], p.Lo) || !slices.Equal(pts[len(pts)-1], p.Hi) || exact[len(pts)-1] != 1.5 {
		t.Errorf("grid from %v to %v (exact %g), want %v to %v (1.5)", pts[0], pts[len(pts)-1], exact[len(pts)-1], p.Lo, p.Hi)
	}
	if pts[1][0] != -0.6 || pts[1][1] != 0 {
		t.Errorf("second grid point %v: want x to vary first", pts[1])
	}
}
