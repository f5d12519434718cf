package record_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// roundTrip writes r as a JSONL line and reads it back, as a notebook cell
// reads a results file.
func roundTrip(t *testing.T, r record.Result) record.Result {
	t.Helper()
	line, err := r.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	rs, _, _, err := record.DecodeResults(line)
	if err != nil || len(rs) != 1 {
		t.Fatalf("decoding the line: %v (%d results)", err, len(rs))
	}
	return rs[0]
}

func TestRestore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem string
		s       bayes.Settings
	}{
		{"heat", bayes.Settings{Seed: 2}}, // the tuned recipe: polish and final rounds
		{"wave-full", bayes.Settings{Seed: 1, Epochs: 120, Hyper: bayes.HyperSteps{Start: 50}}}, // 4 alphas, 2 betas
		{"regression", bayes.Settings{Seed: 3, Recipe: bayes.RecipePaper, AlphaMode: "classes"}},
		// the network's maps: kept by the record, the same predictions
		{"heat", bayes.Settings{Seed: 1, Epochs: 1000, Scale: bayes.ScaleBox}},
	} {
		t.Run(c.problem+"/"+string(c.s.Scale), func(t *testing.T) {
			t.Parallel()
			f := testfit.Train(t, c.problem, c.s)
			if f.Laplace == nil || !f.Laplace.OccamOK {
				t.Fatalf("the test fit has no log evidence: %s %s", f.Status, f.Reason)
			}
			r := roundTrip(t, record.NewResult(f, 20))
			p, err := problems.New(c.problem, problems.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g, err := record.Restore(p, &r)
			if err != nil {
				t.Fatal(err)
			}
			if g.Laplace == nil {
				t.Fatal("the restored fit has no Laplace approximation")
			}
			if mapped := c.s.Scale == bayes.ScaleBox; g.Model.Net.Mapped() != mapped || f.Model.Net.Mapped() != mapped {
				t.Errorf("the fit's network mapped %v, the restored one's %v; want %v", f.Model.Net.Mapped(), g.Model.Net.Mapped(), mapped)
			}
			if got, want := g.Laplace.LogEvidence, f.Laplace.LogEvidence; got != want {
				t.Errorf("log evidence: got %v, want %v", got, want)
			}
			if got, want := g.Laplace.Gamma, f.Laplace.Gamma; math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("gamma: got %v, want %v", got, want)
			}
			if !slices.Equal(g.Alpha, f.Alpha) || !slices.Equal(g.Beta, f.Beta) || !slices.Equal(g.EW, f.EW) || !slices.Equal(g.ED, f.ED) {
				t.Errorf("hyperparameters or losses differ: got %v %v %v %v, want %v %v %v %v",
					g.Alpha, g.Beta, g.EW, g.ED, f.Alpha, f.Beta, f.EW, f.ED)
			}
			if g.Status != f.Status || g.Epochs != f.Epochs || g.Settings.Seed != f.Settings.Seed {
				t.Errorf("got status %s after %d epochs (seed %d), want %s after %d (seed %d)",
					g.Status, g.Epochs, g.Settings.Seed, f.Status, f.Epochs, f.Settings.Seed)
			}
			fs, gs := f.Settings, g.Settings
			fs.Progress, gs.Progress = nil, nil
			if a, b := record.SettingsMap(fs), record.SettingsMap(gs); !mapsEqualJSON(a, b) {
				t.Errorf("settings: got %v, want %v", b, a)
			}
			if len(g.History) != len(f.History) || g.History[len(g.History)-1].EHyp != f.History[len(f.History)-1].EHyp {
				t.Errorf("history: got %d points, want %d with the same last E_hyp", len(g.History), len(f.History))
			}
			pts, _ := p.Grid(9)
			m1, s1 := testfit.Predict(t, f, pts)
			m2, s2 := testfit.Predict(t, g, pts)
			for i := range pts {
				// The mapped fit's band is checked bit for bit too.
				if m1[i] != m2[i] || math.Abs(s1[i]-s2[i]) > 1e-12*s1[i] || c.s.Scale == bayes.ScaleBox && s1[i] != s2[i] {
					t.Fatalf("at %v: got u = %v ± %v, want %v ± %v", pts[i], m2[i], s2[i], m1[i], s1[i])
				}
			}
			// Restoring again gives the same record.
			r2 := record.NewResult(g, 20)
			r2.Version, r.Version = record.VersionInfo{}, record.VersionInfo{}
			if !record.SameApartFromSeconds(r, r2) {
				t.Error("the restored fit records differently from the original")
			}
		})
	}
}

// mapsEqualJSON compares two settings maps through their JSON.
func mapsEqualJSON(a, b map[string]any) bool {
	return record.RunConfig{Settings: a}.Equal(record.RunConfig{Settings: b})
}

func TestRestoreRefusesOtherData(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 1, Recipe: bayes.RecipePaper})
	r := roundTrip(t, record.NewResult(f, 10))
	noWeights := r
	noWeights.Weights = nil
	otherEvidence := r
	z := *r.LogEvidence + 1
	otherEvidence.LogEvidence = &z
	for _, c := range []struct {
		name string
		p    *pde.Problem
		r    *record.Result
		want string
	}{
		{"no result", problems.Heat(problems.Options{}), nil, "no result"},
		{"another problem", problems.Wave(problems.Options{}), &r, `a fit of problem "heat", not "wave"`},
		{"another kappa", problems.Heat(problems.Options{Kappa: 0.5}), &r, "parameters"},
		{"another data seed", problems.Heat(problems.Options{DataSeed: 2}), &r, "other points or targets"},
		{"no weights", problems.Heat(problems.Options{}), &noWeights, "no weights"},
		{"another evidence", problems.Heat(problems.Options{}), &otherEvidence, "recomputed log evidence"},
	} {
		_, err := record.Restore(c.p, c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestRestoreWithoutEvidence restores fits that have no Laplace
// approximation: they come back without one.
func TestRestoreWithoutEvidence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem string
		s       bayes.Settings
		nanAt   int
		status  bayes.Status
	}{
		{"heat", bayes.Settings{Seed: 1, Epochs: 100, Hyper: bayes.HyperSteps{Start: 50}}, 80, bayes.StatusDiverged},
		{"regression", bayes.Settings{Seed: 3, Recipe: bayes.RecipePaper, Hessian: bayes.Exact}, 0, bayes.StatusNotPD},
	} {
		f := testfit.TrainNaN(t, c.problem, c.s, c.nanAt)
		if f.Status != c.status {
			t.Fatalf("%s: the test fit has status %s, want %s", c.problem, f.Status, c.status)
		}
		r := roundTrip(t, record.NewResult(f, 10))
		p, err := problems.New(c.problem, problems.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := record.Restore(p, &r)
		if err != nil {
			t.Fatalf("%s: %v", c.problem, err)
		}
		if g.Status != f.Status || g.Reason != f.Reason || g.Laplace != nil || g.Epochs != f.Epochs {
			t.Errorf("%s: got status %s (%s), Laplace %t, %d epochs; want %s (%s), none, %d",
				c.problem, g.Status, g.Reason, g.Laplace != nil, g.Epochs, f.Status, f.Reason, f.Epochs)
		}
	}
}

func TestBestResult(t *testing.T) {
	t.Parallel()
	num := func(x float64) *float64 { return &x }
	rs := []record.Result{{Seed: 4, LogEvidence: num(3)}, {Seed: 2}, {Seed: 3, LogEvidence: num(5)}, {Seed: 1, LogEvidence: num(5)}}
	if b := record.BestResult(rs); b == nil || b.Seed != 1 {
		t.Errorf("got %+v, want seed 1 (highest evidence, the lower seed of a tie)", b)
	}
	if b := record.BestResult(rs[1:2]); b != nil {
		t.Errorf("got seed %d, want nil without evidence", b.Seed)
	}
}

func TestTrainEnsemble(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := bayes.Settings{Epochs: 100, Hyper: bayes.HyperSteps{Start: 50}, HistoryEvery: 10, Recipe: bayes.RecipePaper}
	seeds := []uint64{3, 1, 2}
	path := filepath.Join(t.TempDir(), "heat.jsonl")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var calls, lastEpochs, lastFits int
	run, err := runner.TrainEnsemble(context.Background(), p, testfit.Scheduled(p, s), seeds, runner.EnsembleOptions{Out: out, Workers: 2, Progress: func(epochs, fits int) {
		calls++
		if epochs < lastEpochs || fits < lastFits {
			t.Errorf("progress went back: (%d, %d) after (%d, %d)", epochs, fits, lastEpochs, lastFits)
		}
		if epochs == len(seeds)*s.Epochs && fits < len(seeds) {
			t.Errorf("progress complete (%d epochs) with %d of %d fits done: the last fits still run", epochs, fits, len(seeds))
		}
		lastEpochs, lastFits = epochs, fits
	}})
	if err != nil {
		t.Fatal(err)
	}
	best := run.Best
	for i, f := range run.Fits {
		if f == nil || f.Settings.Seed != seeds[i] {
			t.Fatalf("fit %d of the run: %v, want seed %d", i, f, seeds[i])
		}
	}
	if lastEpochs != len(seeds)*s.Epochs || lastFits != len(seeds) || calls < len(seeds)*s.Epochs/s.HistoryEvery {
		t.Errorf("last progress (%d epochs, %d fits) after %d calls, want (%d, %d) after at least %d",
			lastEpochs, lastFits, calls, len(seeds)*s.Epochs, len(seeds), len(seeds)*s.Epochs/s.HistoryEvery)
	}
	rs, torn, err := record.ReadResults(path)
	if err != nil || torn || len(rs) != len(seeds) {
		t.Fatalf("got %d results (torn %t, %v), want %d", len(rs), torn, err, len(seeds))
	}
	want := record.BestResult(rs)
	if best == nil || want == nil || best.Settings.Seed != want.Seed || best.Laplace.LogEvidence != *want.LogEvidence {
		t.Fatalf("got best %v, want seed %v of the file", best, want)
	}
	// The same fit trained alone.
	s.Seed = want.Seed
	f, err := bayes.Train(context.Background(), p, testfit.Scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	if f.Laplace.LogEvidence != best.Laplace.LogEvidence {
		t.Errorf("best: got log evidence %v, want %v as trained alone", best.Laplace.LogEvidence, f.Laplace.LogEvidence)
	}

	// Invalid settings: every fit fails, nothing is written.
	s.Hyper.Start = s.Epochs + 1
	run, err = runner.TrainEnsemble(context.Background(), p, testfit.Scheduled(p, s), seeds, runner.EnsembleOptions{})
	if err == nil || run != nil {
		t.Errorf("got run %v, error %v; want nil and an error", run, err)
	}
}

// TestHeldBetas: a record says which betas its fit held at a known noise,
// in memory and read back from its JSON line; a record without settings
// holds none.
func TestHeldBetas(t *testing.T) {
	r := record.Result{Seed: 1, BetaNames: []string{"beta_pde", "beta_boundary", "beta_data"}}
	r.Problem, r.Status = "burgers-inverse", string(bayes.StatusOK)
	r.RunConfig.Settings = record.SettingsMap(bayes.Settings{KnownNoise: map[string]float64{"data": 0.02}})
	for _, c := range []struct {
		what string
		r    record.Result
	}{{"in memory", r}, {"read back", roundTrip(t, r)}} {
		if got, want := c.r.HeldBetas(), []bool{false, false, true}; !slices.Equal(got, want) {
			t.Errorf("%s: held %v, want %v", c.what, got, want)
		}
	}
	one := record.Result{Seed: 1, BetaNames: []string{"beta"}}
	one.RunConfig.Settings = record.SettingsMap(bayes.Settings{KnownNoise: map[string]float64{"beta": 0.01}})
	if got := one.HeldBetas(); !slices.Equal(got, []bool{true}) {
		t.Errorf("one beta group held at 0.01: %v, want [true]", got)
	}
	r.RunConfig.Settings = nil
	if got := r.HeldBetas(); slices.Contains(got, true) || len(got) != 3 {
		t.Errorf("no recorded settings: held %v, want three false", got)
	}
}
