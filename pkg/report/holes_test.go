package report

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// TestPoissonHolesStudies runs the poisson-holes pair briefly (one fit
// each, 1 % of the epochs): the evidence study and its unit-weight
// baseline, their records with errors over the plate alone, and the
// figures, whose maps leave the holes blank. The tiny plan leaves the pair
// out, as it does burgers-wide.
func TestPoissonHolesStudies(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two small fits")
	}
	fakeECharts(t)
	cfg := Config{Plan: Quick()}
	e, f := newStudy("poisson-holes", &cfg), newStudy("poisson-holes-fixed", &cfg)
	if len(e.Seeds) != 1 || len(f.Seeds) != 1 || f.Problem != "poisson-holes-raw" {
		t.Errorf("quick: %d and %d fits of %s; want 1 each, the baseline on poisson-holes-raw", len(e.Seeds), len(f.Seeds), f.Problem)
	}
	p, err := problems.New("poisson-holes", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Base.Seed = 1 // a study's Base leaves the seed to each fit
	if fs, err := f.Base.Resolve(p); err != nil || !fs.Fixed.On || !fs.Fixed.Mean || fs.Fixed.Alpha != bayes.MinHyper || fs.Fixed.Beta != 1 || fs.Resample != 0 {
		t.Errorf("poisson-holes-fixed settings %+v (%v)", fs, err)
	}
	if rep, err := Run(context.Background(), Config{Plan: Tiny(), Out: t.TempDir(), Only: []string{"poisson-holes"}}); err != nil || len(rep.Studies) != 0 {
		t.Errorf("tiny plan ran %d poisson-holes studies (%v), want none", len(rep.Studies), err)
	}

	dir := t.TempDir()
	plan := Tiny()
	plan.WideFits, plan.WideEpochScale = 1, 0.01
	rep, err := Run(context.Background(), Config{Plan: plan, Out: dir, Workers: 2, Only: []string{"poisson-holes", "poisson-holes-fixed"}})
	if err != nil {
		t.Fatal(err)
	}
	if fl := rep.Failed(); len(fl) > 0 {
		t.Fatalf("study %s failed: %v", fl[0].Name, fl[0].Err)
	}
	grid, _ := p.Grid(100)
	if n := len(grid); n >= 100*100 || n < 8500 {
		t.Fatalf("grid of %d points; want the 10000 of the square less those in the holes (share 0.126)", n)
	}
	for _, name := range []string{"poisson-holes", "poisson-holes-fixed"} {
		rs, _, err := record.ReadResults(filepath.Join(dir, name+".jsonl"))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %d records (%v)", name, len(rs), err)
		}
		if e := rs[0].Errors; e == nil || e.Points != len(grid) || math.IsNaN(rs[0].RelL2()) {
			t.Errorf("%s: errors %+v, want finite ones on the %d grid points of the plate", name, e, len(grid))
		}
	}
	// The maps mask the holes: about 12.6 % of the grid, nowhere else.
	best := rep.Study("poisson-holes").Best
	if best == nil {
		t.Fatal("no poisson-holes fit has an evidence")
	}
	u, absErr := figdata.Fields(best, 60)
	masked := 0
	for i, m := range u.Mask {
		x := []float64{u.X[i%60], u.Y[i/60]}
		if m != !best.Model.Problem.Contains(x) || absErr.Mask[i] != m {
			t.Fatalf("mask %v at %v, want %v", m, x, !m)
		}
		if m {
			masked++
		}
	}
	if share := float64(masked) / 3600; share < 0.1 || share > 0.15 {
		t.Errorf("%.3f of the map masked, want about 0.126 (the holes)", share)
	}
	pg, page := writePage(t, rep, dir)
	if len(pg.Failures) > 0 {
		t.Errorf("failures: %+v", pg.Failures)
	}
	want := map[string][]string{"poisson-holes": {"points", "evidence-histogram", "evidence-vs-error", "training", "solution-map", "error-map"}}
	if rep.Study("poisson-holes-fixed").Best != nil {
		want["poisson-holes-fixed"] = want["poisson-holes"]
	} else {
		want["poisson-holes-fixed"] = []string{"evidence-histogram", "evidence-vs-error"}
	}
	checkPage(t, page, want)
}
