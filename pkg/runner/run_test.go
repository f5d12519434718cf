package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// A run stopped by its context keeps what ended: each ended fit is a
// complete JSON line, the cancelled one is not written (a resume trains it
// again), Done sees every outcome, and the error counts the kept fits.
func TestRunCancelKeepsEndedFits(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := testfit.Scheduled(p, bayes.Settings{Epochs: 100, Hyper: bayes.HyperSteps{Start: 50}, Recipe: bayes.RecipePaper})
	path := filepath.Join(t.TempDir(), "run.jsonl")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []uint64
	err = runner.Run(ctx, []uint64{1, 2, 3}, runner.Options{Workers: 1, Out: out, GridN: 10, Done: func(o runner.Outcome) {
		seen = append(seen, o.Key)
	}}, func(ctx context.Context, seed uint64) (*bayes.Fit, error) {
		if seed == 3 {
			cancel()
		}
		si := s
		si.Seed = seed
		return bayes.Train(ctx, p, si)
	})
	if err == nil || !strings.Contains(err.Error(), "2 of 3 fits ended before the run was stopped") {
		t.Errorf("error %v, want one counting 2 of 3 fits ended", err)
	}
	if !slices.Equal(seen, []uint64{1, 2, 3}) {
		t.Errorf("Done saw %v, want 1, 2, 3", seen)
	}
	rs, torn, err := record.ReadResults(path)
	if err != nil || torn || len(rs) != 2 || rs[0].Seed != 1 || rs[1].Seed != 2 || rs[0].Status != string(bayes.StatusOK) {
		t.Fatalf("file holds %d records (torn %v, %v), want seeds 1 and 2 ok", len(rs), torn, err)
	}
	if todo := runner.Todo([]uint64{1, 2, 3}, rs); !slices.Equal(todo, []uint64{3}) {
		t.Errorf("Todo after the cut run: %v, want [3]", todo)
	}
}

// A job's error or panic fails the run with one line naming its key; the
// other fits still end and are reported.
func TestRunJobFailure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		fail func()
		want string
	}{
		{"error", nil, "data seed 2: no data"},
		{"panic", func() { panic("deep inside") }, "data seed 2: panic: deep inside"},
	} {
		var ok int
		err := runner.Run(context.Background(), []uint64{1, 2, 3}, runner.Options{Workers: 2, KeyName: "data seed", Done: func(o runner.Outcome) {
			if o.Err == nil {
				ok++
			}
		}}, func(_ context.Context, d uint64) (*bayes.Fit, error) {
			if d == 2 {
				if c.fail != nil {
					c.fail()
				}
				return nil, errNoData
			}
			return &bayes.Fit{Status: bayes.StatusOK}, nil
		})
		if err == nil || err.Error() != c.want || ok != 2 {
			t.Errorf("%s: error %v and %d fits ended, want %q and 2", c.name, err, ok, c.want)
		}
	}
}

var errNoData = errors.New("no data")

// Gate is waited on by every fit before it trains and released after its
// record is built: with a gate of one slot, no two fits of a two-worker
// run train at once, and every slot taken is given back.
func TestRunGate(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := testfit.Scheduled(p, bayes.Settings{Epochs: 20, Hyper: bayes.HyperSteps{Start: 10}, Recipe: bayes.RecipePaper})
	slot := make(chan struct{}, 1)
	var inside, most, taken, given atomic.Int32
	err := runner.Run(context.Background(), []uint64{1, 2, 3, 4}, runner.Options{Workers: 2, Records: true, GridN: 5,
		Gate: func(ctx context.Context, _ uint64) (func(), error) {
			slot <- struct{}{}
			taken.Add(1)
			return func() { given.Add(1); <-slot }, nil
		}}, func(ctx context.Context, seed uint64) (*bayes.Fit, error) {
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		si := s
		si.Seed = seed
		return bayes.Train(ctx, p, si)
	})
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() != 1 || taken.Load() != 4 || given.Load() != 4 {
		t.Errorf("at most %d fits trained at once (want 1); %d slots taken, %d given back (want 4, 4)", most.Load(), taken.Load(), given.Load())
	}
}
