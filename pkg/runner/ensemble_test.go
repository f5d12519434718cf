package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// An ensemble whose every fit diverges goes on: no error, no best fit, one
// diverged JSON line per seed, and progress counts each fit's planned
// epochs (ensemble.go's contract), not the epochs it ran.
func TestTrainEnsembleAllDiverged(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := bayes.Settings{Epochs: 100, Hyper: bayes.HyperSteps{Start: 50}, Recipe: bayes.RecipePaper}
	path := filepath.Join(t.TempDir(), "diverged.jsonl")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var lastEpochs, lastFits int
	run, err := runner.TrainEnsemble(fault.WithNaNAt(context.Background(), 30), p, testfit.Scheduled(p, s), []uint64{1, 2, 3}, runner.EnsembleOptions{Out: out, Progress: func(epochs, fits int) { lastEpochs, lastFits = epochs, fits }})
	if err == nil || !strings.Contains(err.Error(), "no fit of 3 has a defined log evidence (3 diverged)") || run.Best != nil || len(run.Fits) != 3 {
		t.Fatalf("got best %v, error %v; want no best, 3 fits, and an error counting 3 diverged", run.Best, err)
	}
	if lastEpochs != 300 || lastFits != 3 {
		t.Errorf("last progress (%d epochs, %d fits), want (300, 3)", lastEpochs, lastFits)
	}
	rs, torn, err := record.ReadResults(path)
	if err != nil || torn || len(rs) != 3 {
		t.Fatalf("%d results (torn %v, %v), want 3", len(rs), torn, err)
	}
	var seeds []uint64
	for _, r := range rs {
		seeds = append(seeds, r.Seed)
		if r.Status != string(bayes.StatusDiverged) || r.Epochs != 30 || r.LogEvidence != nil {
			t.Errorf("seed %d: status %s epochs %d, want diverged at 30 without evidence", r.Seed, r.Status, r.Epochs)
		}
	}
	if slices.Sort(seeds); !slices.Equal(seeds, []uint64{1, 2, 3}) {
		t.Errorf("seeds %v, want 1, 2, 3", seeds)
	}
}
