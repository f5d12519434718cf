package geom

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestShare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		w    []float64
		want []int
	}{
		{10, []float64{1, 1}, []int{5, 5}},
		{11, []float64{1, 1}, []int{6, 5}},
		{7, []float64{1, 1, 1}, []int{3, 2, 2}},
		{10, []float64{3, 1}, []int{8, 2}}, // 7.5, 2.5: tie to the first
		{1, []float64{1, 5, 1}, []int{0, 1, 0}},
		{0, []float64{1, 2}, []int{0, 0}},
		{100, []float64{1.5, 1.5, 3, 3, 1, 1}, []int{14, 14, 27, 27, 9, 9}},
	} {
		if got := share(c.n, c.w); !slices.Equal(got, c.want) {
			t.Errorf("share(%d, %v) = %v, want %v", c.n, c.w, got, c.want)
		}
	}
}

// FacePoints puts each face's share of the points exactly on the face,
// inside the box, with the face's outward normal, and none on the whole
// box's points.
func TestFacePoints(t *testing.T) {
	t.Parallel()
	lo, hi := []float64{-1, 0, 2}, []float64{1, 3, 5}
	// areas: x faces 3*3 = 9, the whole box 2*3*3 = 18: 2:1:1 of 8 points
	faces := []Face{{Axis: -1}, {Axis: 0}, {Axis: 0, High: true}}
	x, normal, err := FacePoints(lo, hi, faces, 8, Halton, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != 8 || len(normal) != 8 {
		t.Fatalf("%d points, %d normals; want 8 each", len(x), len(normal))
	}
	for i, p := range x {
		for d := range p {
			if p[d] < lo[d] || p[d] > hi[d] {
				t.Errorf("point %d %v is outside the box", i, p)
			}
		}
		var want []float64
		switch {
		case i >= 6:
			want = []float64{1, 0, 0}
		case i >= 4:
			want = []float64{-1, 0, 0}
		}
		if !slices.Equal(normal[i], want) || (want != nil && p[0] != want[0]) || (want == nil && (p[0] == -1 || p[0] == 1)) {
			t.Errorf("point %d %v, normal %v: want on the face of normal %v", i, p, normal[i], want)
		}
	}
}

// Lattice spans the box corner to corner, the first coordinate fastest;
// one point per axis is the centre.
func TestLattice(t *testing.T) {
	t.Parallel()
	got := Lattice([]float64{0, -1}, []float64{1, 1}, 3)
	want := [][]float64{{0, -1}, {0.5, -1}, {1, -1}, {0, 0}, {0.5, 0}, {1, 0}, {0, 1}, {0.5, 1}, {1, 1}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("3 x 3 lattice of [0, 1] x [-1, 1]: %v, want %v", got, want)
	}
	if got := Lattice([]float64{0, 2}, []float64{1, 4}, 1); !slices.EqualFunc(got, [][]float64{{0.5, 3}}, slices.Equal) {
		t.Errorf("one point: %v, want the centre [0.5 3]", got)
	}
}
