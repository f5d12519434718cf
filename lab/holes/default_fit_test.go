package holes_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/refsol"
)

// pinnacleHoles returns PINNacle's Poisson2d-C export from $PINNACLE_DIR
// or ../shared/pinnacle beside the repository, nil where it is absent (a
// user's machine).
func pinnacleHoles(t *testing.T) *refsol.Table {
	t.Helper()
	dir := os.Getenv("PINNACLE_DIR")
	if dir == "" {
		dir = "../../../shared/pinnacle" // from lab/holes: beside the repository
	}
	path := filepath.Join(dir, "poisson1_cg_data.dat")
	if _, err := os.Stat(path); err != nil {
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
// problem's schedule, about 2 min of CPU (-timeout 30m on a busy machine):
//
//	BPINN_HOLES_FIT=1 go test -timeout 30m -run TestPoissonHolesDefaultFit -v ./lab/holes
func TestPoissonHolesDefaultFit(t *testing.T) {
	if os.Getenv("BPINN_HOLES_FIT") == "" {
		t.Skip("set BPINN_HOLES_FIT=1 to train the default poisson-holes fit")
	}
	e, err := problems.Lookup("poisson-holes")
	if err != nil {
		t.Fatal(err)
	}
	p := e.New(problems.Options{})
	f, err := bayes.Train(context.Background(), p, bayes.Settings{Seed: 1, Schedule: e.Schedule(problems.Options{})})
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
