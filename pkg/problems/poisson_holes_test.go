package problems

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/refsol"
)

// poisson-holes: its terms and groups, points on the plate and on the
// named boundaries with their targets, the reference as Exact (NaN in the
// holes), and a grid that leaves the holes out.
func TestPoissonHoles(t *testing.T) {
	t.Parallel()
	p, err := New("poisson-holes", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Sampling != pde.Uniform || p.Lo[0] != -0.5 || p.Hi[1] != 0.5 {
		t.Errorf("sampling %q, box %v..%v; want uniform over [-0.5, 0.5]^2", p.Sampling, p.Lo, p.Hi)
	}
	want := []struct {
		name, group string
		n           int
		target      float64
		onCircle    bool
	}{{"pde", "pde", holesPDEPoints, 0, false}, {"dirichlet_square", "boundary", holesSquarePoints, 1, false}, {"dirichlet_holes", "boundary", holesCirclePoints, 0, true}}
	if len(p.Terms) != len(want) {
		t.Fatalf("%d terms, want %d", len(p.Terms), len(want))
	}
	for i, w := range want {
		tm := p.Terms[i]
		if tm.Name != w.name || tm.Group != w.group || len(tm.Points) != w.n {
			t.Errorf("term %d: %s/%s with %d points, want %s/%s with %d", i, tm.Name, tm.Group, len(tm.Points), w.name, w.group, w.n)
		}
		for k, x := range tm.Points {
			d := math.Hypot(math.Abs(x[0])-refsol.HoleCentre, math.Abs(x[1])-refsol.HoleCentre)
			onSquare := math.Max(math.Abs(x[0]), math.Abs(x[1])) > 0.5-1e-12
			switch {
			case w.name == "pde" && (d < refsol.HoleRadius || !p.Contains(x)):
				t.Fatalf("pde point %v is in a hole", x)
			case w.onCircle && math.Abs(d-refsol.HoleRadius) > 1e-12, w.name == "dirichlet_square" && !onSquare:
				t.Fatalf("%s point %v is off its boundary", w.name, x)
			case tm.Target != nil && tm.Target[k] != w.target:
				t.Fatalf("%s target %g, want %g", w.name, tm.Target[k], w.target)
			}
		}
	}
	if u := p.Exact([]float64{0.3, 0.3}); !math.IsNaN(u) {
		t.Errorf("Exact at a hole's centre = %g, want NaN", u)
	}
	if u := p.Exact([]float64{0, 0.5}); math.Abs(u-1) > 1e-12 {
		t.Errorf("Exact on the square = %g, want 1", u)
	}
	pts, exact := p.Grid(100)
	if len(pts) >= 10000 || len(pts) < 8500 {
		t.Errorf("grid of %d points, want the square's 10000 less about 12.6 %% in the holes", len(pts))
	}
	for i, u := range exact {
		if math.IsNaN(u) || u < -1e-9 || u > 1+1e-9 {
			t.Fatalf("reference %g at %v: want a value in [0, 1] (maximum principle)", u, pts[i])
		}
	}
	if _, err := New("poisson-holes", Options{Sampling: pde.LatinHypercube}); err != nil {
		t.Errorf("lhs: %v", err)
	}
}
