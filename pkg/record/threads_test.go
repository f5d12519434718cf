package record_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// threadsCases are short fits of heat, burgers and burgers-wide with every
// step of a fit (Adam with hyperparameter steps, the polish, a final
// round, the Laplace approximation; the record adds its bands on a grid).
var threadsCases = []struct {
	name string
	s    bayes.Settings
}{
	{"heat", bayes.Settings{Seed: 1, Epochs: 60, Hyper: bayes.HyperSteps{Start: 20, Every: 10}, Final: bayes.FinalRounds{Rounds: 1}, Polish: bayes.PolishSettings{Iter: 20}}},
	{"burgers", bayes.Settings{Seed: 1, Epochs: 60, Hyper: bayes.HyperSteps{Start: 20, Every: 10}, Final: bayes.FinalRounds{Rounds: 1}, Polish: bayes.PolishSettings{Iter: 20}}},
	// burgers-wide (921 weights): the paper recipe, whose one dense Laplace
	// approximation at the end is most of its time.
	{"burgers-wide", bayes.Settings{Seed: 1, Recipe: bayes.RecipePaper, Epochs: 8, Hyper: bayes.HyperSteps{Start: 4, Every: 4}, Polish: bayes.PolishSettings{On: true, Iter: 5}}},
}

// recordJSON is the record of the fit of c on threads threads, its time
// left out.
func recordJSON(t *testing.T, name string, s bayes.Settings, threads int) []byte {
	t.Helper()
	r := record.NewResult(testfit.Train(t, name, withThreads(s, threads)), 12)
	r.Seconds = 0
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestThreadsSameRecord: the records of a fit on 1, 2 and 4 threads are
// the same bytes, with every step of the programs split over the threads.
func TestThreadsSameRecord(t *testing.T) {
	defer func(m int) { par.MinWork = m }(par.MinWork)
	par.MinWork = 0
	// Threads are capped at GOMAXPROCS: 4 threads need 4 (the test is not
	// parallel, so the others do not run meanwhile).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
	for _, c := range threadsCases {
		if testing.Short() && c.name == "burgers-wide" {
			continue
		}
		want := recordJSON(t, c.name, c.s, 1)
		for _, threads := range []int{2, 4} {
			if got := recordJSON(t, c.name, c.s, threads); !bytes.Equal(got, want) {
				t.Errorf("%s: the record on %d threads differs from the one on 1", c.name, threads)
			}
		}
	}
}

// TestThreadsOneAsBefore: burgers's short fit on one thread gives the
// numbers the sequential code gave before threads existed (recorded from
// `bpinn fit burgers --seed 1 --epochs 60 --hyper-start 20 --hyper-every
// 10 --final-hyper 1 --polish-iter 20` of that code), to the bit.
func TestThreadsOneAsBefore(t *testing.T) {
	r := record.NewResult(testfit.Train(t, threadsCases[1].name, withThreads(threadsCases[1].s, 1)), 100)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"log evidence", *r.LogEvidence, 508.2325291413396},
		{"rel L2", *r.Errors.RelL2, 0.5395634271512753},
		{"gamma", *r.Gamma, 43.33220973526124},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, before threads %v", c.name, c.got, c.want)
		}
	}
}

func withThreads(s bayes.Settings, threads int) bayes.Settings {
	s.Threads = threads
	return s
}
