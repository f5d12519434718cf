package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

func TestPlanFor(t *testing.T) {
	for _, c := range []struct {
		quick, tiny bool
		recipe      bayes.Recipe
		name        string
		want        bayes.Recipe
	}{
		{false, false, "", "full", ""}, {true, false, "paper", "quick", "paper"}, {true, true, "", "tiny", Tiny().Recipe},
	} {
		p := PlanFor(c.quick, c.tiny, c.recipe)
		if p.Name != c.name || p.Recipe != c.want || p.DefaultOut() != filepath.Join("out", c.name) {
			t.Errorf("PlanFor(%v, %v, %q) = %s with recipe %q, out %s", c.quick, c.tiny, c.recipe, p.Name, p.Recipe, p.DefaultOut())
		}
	}
}

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Config
		want string // "" for none
	}{
		{Config{Only: []string{"heat", "hmc"}, FailStudy: "heat", From: []string{dir}}, ""},
		{Config{Shards: 2, From: []string{dir}}, "use one"},
		{Config{From: []string{dir, file}}, "--from " + file + ": not a folder"},
		{Config{Only: []string{"heat", "nope"}}, `--only: unknown study "nope": use one of hmc, heat,`},
		{Config{Only: []string{"heat", ""}}, `--only: unknown study ""`},
		{Config{FailStudy: "nope"}, `--fail-study: unknown study "nope"`},
		{Config{Plan: Quick(), Only: []string{"heat", "burgers-identify"}}, "--only: the quick plan runs no burgers-identify fits"},
		{Config{Plan: Full(), Only: []string{"heat", "burgers-identify"}}, ""},
	} {
		err := c.cfg.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	out := Config{Out: filepath.Join(dir, "a", "b")}
	if err := out.PrepareOut(); err != nil {
		t.Errorf("PrepareOut of a new folder: %v", err)
	}
	if ents, _ := os.ReadDir(out.Out); len(ents) != 0 {
		t.Errorf("PrepareOut left %d files behind", len(ents))
	}
	for _, o := range []string{file, filepath.Join(file, "sub")} {
		if err := (&Config{Out: o}).PrepareOut(); err == nil || !strings.Contains(err.Error(), "--out "+o) {
			t.Errorf("PrepareOut(%s): %v, want an error naming --out", o, err)
		}
	}
}

// The quick plan's own counts and scales: one poisson-holes fit at its
// whole schedule, the lid-driven studies at half theirs (epochs and polish
// iterations), the rest of the wide studies two fits each.
func TestQuickPlanCounts(t *testing.T) {
	cfg := Config{Plan: Quick()}
	cfg.defaults()
	for _, c := range []struct {
		study string
		fits  int
		scale float64
	}{
		{"heat", 12, 0.5}, {"burgers-wide", 2, 1}, {"poisson-holes", 1, 1}, {"poisson-holes-fixed", 1, 0.5},
		{"lid-driven", 1, 0.5}, {"lid-driven-fixed", 1, 0.5}, {"lotka-volterra-inverse", 4, 1},
	} {
		st := newStudy(c.study, &cfg)
		if len(st.Seeds) != c.fits || epochScale(c.study, &cfg) != c.scale {
			t.Errorf("%s: %d fits at scale %g, want %d at %g", c.study, len(st.Seeds), epochScale(c.study, &cfg), c.fits, c.scale)
		}
		if st.cost() <= 0 {
			t.Errorf("%s: expected cost %g, want > 0", c.study, st.cost())
		}
	}
}
