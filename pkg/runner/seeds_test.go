package runner_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

// Each seed list that would not give one fit per seed is a one-line input
// error before anything trains, from every entry point of the runner.
func TestBadInput(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := bayes.Settings{Epochs: 10, Hyper: bayes.HyperSteps{Start: 5}}
	never := func(context.Context, uint64) (*bayes.Fit, error) {
		t.Error("a job ran on bad input")
		return nil, nil
	}
	draw := func(uint64) (*pde.Problem, bayes.Settings, error) {
		t.Error("a draw ran on bad input")
		return p, s, nil
	}
	train := func(seeds []uint64) error {
		_, err := runner.TrainEnsemble(context.Background(), p, s, seeds, runner.EnsembleOptions{})
		return err
	}
	sweep := func(seeds []uint64) error {
		_, err := runner.Sweep(context.Background(), seeds, runner.Options{}, draw)
		return err
	}
	seeds := func(base uint64, n int) func() error {
		return func() error { _, err := runner.Seeds(base, n); return err }
	}
	shard := func(n, i, of int) func() error {
		return func() error {
			all, _ := runner.Seeds(1, n)
			_, err := runner.Shard(all, i, of)
			return err
		}
	}
	if err := runner.Run(context.Background(), nil, runner.Options{}, never); err != nil {
		t.Errorf("a run of no keys (a complete resume): %v, want nothing run and no error", err)
	}
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"ensemble of no seeds", func() error { return train(nil) }, "no seeds"},
		{"ensemble with seed 0", func() error { return train([]uint64{0, 1}) }, "seed 0: seeds start at 1"},
		{"ensemble with a seed twice", func() error { return train([]uint64{1, 2, 1}) }, "seed 1 is given twice"},
		{"run with seed 0", func() error { return runner.Run(context.Background(), []uint64{0}, runner.Options{}, never) }, "seeds start at 1"},
		{"run with a seed twice", func() error {
			return runner.Run(context.Background(), []uint64{3, 3}, runner.Options{}, never)
		}, "seed 3 is given twice"},
		{"sweep of no draws", func() error { return sweep(nil) }, "no seeds"},
		{"sweep with data seed 0", func() error { return sweep([]uint64{0}) }, "seeds start at 1"},
		{"sweep with a data seed twice", func() error { return sweep([]uint64{2, 2}) }, "seed 2 is given twice"},
		{"no fits", seeds(1, 0), "at least one"},
		{"seeds from 0", seeds(0, 3), "seeds start at 1"},
		{"seeds past 2^64", seeds(^uint64(0), 2), "the last overflows 64 bits"},
		{"shard beyond the shards", shard(4, 4, 4), "0 <= I < N"},
		{"shard of no seeds", shard(2, 3, 4), "holds none"},
		// A negative count of workers ran.
		{"run with negative workers", func() error {
			return runner.Run(context.Background(), []uint64{1}, runner.Options{Workers: -2}, never)
		}, "workers = -2: give 0 (one per core) or more"},
		{"run with a negative grid", func() error {
			return runner.Run(context.Background(), []uint64{1}, runner.Options{GridN: -1}, never)
		}, "grid = -1: give the grid's side"},
		{"ensemble with negative workers", func() error {
			_, err := runner.TrainEnsemble(context.Background(), p, s, []uint64{1}, runner.EnsembleOptions{Workers: -1})
			return err
		}, "workers = -1"},
	} {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || !runner.IsInput(err) {
			t.Errorf("%s: error %v, want one input-error line containing %q", c.name, err, c.want)
		}
	}
}

// TestWorkers: 0 workers is one per core, more are capped there (4096
// started a goroutine each), negative is an error.
func TestWorkers(t *testing.T) {
	t.Parallel()
	cores := runtime.GOMAXPROCS(0)
	for _, c := range [][2]int{{0, cores}, {1, 1}, {cores, cores}, {4096, cores}} {
		if got, err := runner.Workers(c[0]); got != c[1] || err != nil {
			t.Errorf("Workers(%d) = %d (%v), want %d", c[0], got, err, c[1])
		}
	}
	if _, err := runner.Workers(-1); err == nil || !runner.IsInput(err) {
		t.Errorf("Workers(-1): %v, want an input error", err)
	}
}

// The shards of a job array hold every seed once.
func TestShardsPartition(t *testing.T) {
	t.Parallel()
	all, err := runner.Seeds(11, 7)
	if err != nil {
		t.Fatal(err)
	}
	held := map[uint64]int{}
	for i := range 3 {
		sh, err := runner.Shard(all, i, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sh {
			held[s]++
		}
	}
	for _, s := range all {
		if held[s] != 1 {
			t.Errorf("seed %d held by %d shards, want 1", s, held[s])
		}
	}
	if len(held) != len(all) {
		t.Errorf("shards hold %d seeds, want %d", len(held), len(all))
	}
}
