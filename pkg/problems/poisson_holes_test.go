package problems

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
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

// pinnacleHoles returns PINNacle's Poisson2d-C export from
// $PINNACLE_DIR or ../shared/pinnacle beside the repository, nil where it
// is absent (a user's machine).
func pinnacleHoles(t *testing.T) *refsol.Table {
	t.Helper()
	path := pinnacleFile(t, "poisson1_cg_data.dat")
	if path == "" {
		t.Logf("poisson1_cg_data.dat is absent (PINNacle's export; set PINNACLE_DIR): measuring on the grid only")
		return nil
	}
	tab, err := refsol.ReadDatFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// holesL2RE is a fit's L2RE on PINNacle's points.
func holesL2RE(t *testing.T, tab *refsol.Table, f *bayes.Fit) float64 {
	t.Helper()
	pts := make([][]float64, len(tab.Points))
	for i, x := range tab.Points {
		pts[i] = []float64{x[0], x[1]}
	}
	mean, _, err := f.Predict(pts)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	e, err := tab.L2RE(func(x, y float64) ([]float64, error) { i++; return []float64{mean[i-1]}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPoissonHolesDefaultFit measures what a user runs first, `bpinn fit
// poisson-holes` (defaults, seed 1), against the reference on the grid
// and, where present, PINNacle's 1246 points: both within the issue's
// 6e-3 (measured 2.3e-3 and 3.1e-3), the calibrated band within its
// coverage and q95 targets. Opt-in (BPINN_HOLES_FIT=1): one fit of the
// problem's schedule, about 2 min of CPU (-timeout 30m on a busy machine).
func TestPoissonHolesDefaultFit(t *testing.T) {
	if os.Getenv("BPINN_HOLES_FIT") == "" {
		t.Skip("set BPINN_HOLES_FIT=1 to train the default poisson-holes fit")
	}
	e, _ := Lookup("poisson-holes")
	p := e.New(Options{})
	f, err := bayes.Train(context.Background(), p, bayes.Settings{Seed: 1, Schedule: e.Schedule(Options{})})
	if err != nil {
		t.Fatal(err)
	}
	r := record.NewResult(f, 100)
	t.Logf("rel L2 %.4g on %d grid points, betas %v, alpha %v, %.1f s", r.RelL2(), r.Errors.Points, f.Beta, f.Alpha, f.Seconds)
	if got := r.RelL2(); !(got <= holesTarget) {
		t.Errorf("rel L2 %.4g on the grid, want <= %g", got, holesTarget)
	}
	if c, q := record.Val(r.Errors.Coverage2SCalibrated), record.Val(r.Errors.Q95Calibrated); !(c >= 0.9 && c <= 0.99 && q >= 1.4 && q <= 2.6) {
		t.Errorf("calibrated band: coverage %.3f, q95 %.2f; want [0.90, 0.99] and [1.4, 2.6]", c, q)
	}
	if tab := pinnacleHoles(t); tab != nil {
		l2re := holesL2RE(t, tab, f)
		t.Logf("L2RE %.4g on PINNacle's %d points", l2re, len(tab.Points))
		if !(l2re <= holesTarget) {
			t.Errorf("L2RE %.4g on PINNacle's points, want <= %g", l2re, holesTarget)
		}
	}
}

// holesTarget is issue 39's target for the default fit: half of
// PINNacle's best listed Poisson2d-C error.
const holesTarget = 6e-3
