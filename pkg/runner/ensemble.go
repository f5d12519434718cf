package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Ensemble runs fit(seed) for the given seeds on workers goroutines (0,
// a negative number or more than the cores means one per core) and calls done for each result in the order the fits end;
// done is never called concurrently. The results are independent of the
// number of workers: each fit depends on its seed alone.
func Ensemble[T any](seeds []uint64, workers int, fit func(seed uint64) T, done func(seed uint64, r T)) {
	if workers <= 0 || workers > runtime.GOMAXPROCS(0) {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan uint64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				r := fit(s)
				mu.Lock()
				done(s, r)
				mu.Unlock()
			}
		}()
	}
	for _, s := range seeds {
		jobs <- s
	}
	close(jobs)
	wg.Wait()
}

// EnsembleOptions configure TrainEnsemble. The zero value runs one worker
// per core and writes nothing.
type EnsembleOptions struct {
	// Workers is the number of fits run at once; 0 means one per core,
	// more than the cores is capped at one per core and negative is an
	// error (Workers).
	Workers int
	// Out, if not nil, receives each fit as one JSON line (record.NewResult on the
	// paper's 100 x 100 grid) the moment it ends, so an interrupted run
	// keeps the fits that ended; an *os.File is synced after each line.
	Out io.Writer
	// Progress, if not nil, is called as the fits run, never concurrently,
	// with the epochs run so far summed over the fits and the number of
	// fits done. A fit's last epoch counts only when the fit has ended
	// (its polish, final rounds and Laplace approximation run after it),
	// and a fit that ends (diverged or not) counts all its planned epochs,
	// so epochs reaches len(seeds) * the resolved Epochs with the last fit,
	// not before.
	Progress func(epochs, fits int)
	// FitProgress, if not nil, is called for each fit as bayes.Settings.Progress
	// would be (every HistoryEvery epochs), never concurrently.
	FitProgress func(seed uint64, epoch, epochs int)
}

// EnsembleRun is what TrainEnsemble returns: every fit, in the order of the
// seeds, and the one of highest log evidence.
type EnsembleRun struct {
	Fits []*bayes.Fit // Fits[i] is seed i's fit (nil when bayes.Train returned an error)
	// Best has the highest defined log evidence, ties broken by the lower
	// seed.
	Best *bayes.Fit
}

// TrainEnsemble trains one fit of p per seed (s resolved once, with each
// seed: bayes.NewConfig and TrainConfig; s.Progress is not used: see
// FitProgress) through Run and ranks them by log evidence. The seeds must
// pass CheckSeeds, the workers Workers. The error is the first of
// bayes.NewConfig (invalid settings) or of writing Out (the fits running then finish, and
// nothing more is written), the context's when it ended the run (the fits
// then end as cancelled, are not written, and the run holds them), or, when
// no fit has a defined log evidence, one that counts their statuses.
func TrainEnsemble(ctx context.Context, p *pde.Problem, s bayes.Settings, seeds []uint64, opt EnsembleOptions) (*EnsembleRun, error) {
	if err := CheckSeeds(seeds); err != nil {
		return nil, err
	}
	if _, err := Workers(opt.Workers); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	first := s // every fit's settings but its seed: resolved once, at the first
	first.Seed = seeds[0]
	cfg, err := bayes.NewConfig(p, first)
	if err != nil {
		return nil, err
	}
	var (
		mu          sync.Mutex // guards the counts, updated from every fit's goroutine
		at          = make(map[uint64]int, len(seeds))
		epochs, ran int
		index       = make(map[uint64]int, len(seeds))
	)
	for i, seed := range seeds {
		index[seed] = i
	}
	update := func(seed uint64, epoch int) { // mu is held
		epochs += epoch - at[seed]
		at[seed] = epoch
		if opt.Progress != nil {
			opt.Progress(epochs, ran)
		}
	}
	run := &EnsembleRun{Fits: make([]*bayes.Fit, len(seeds))}
	err = Run(ctx, seeds, Options{Workers: opt.Workers, Out: opt.Out, Done: func(o Outcome) {
		run.Fits[index[o.Key]] = o.Fit
		if l := laplaceOK(o.Fit); o.Err == nil && l != nil && o.Fit.Status != bayes.StatusCancelled {
			if b := run.Best; b == nil || l.LogEvidence > b.Laplace.LogEvidence ||
				l.LogEvidence == b.Laplace.LogEvidence && o.Key < b.Settings.Seed {
				run.Best = o.Fit
			}
		}
		mu.Lock()
		defer mu.Unlock()
		ran++
		planned := at[o.Key]
		if o.Fit != nil {
			planned = o.Fit.Settings.Epochs
		}
		update(o.Key, planned)
	}}, func(ctx context.Context, seed uint64) (*bayes.Fit, error) {
		progress := func(epoch, total int) {
			mu.Lock()
			defer mu.Unlock()
			update(seed, min(epoch, total-1))
			if opt.FitProgress != nil {
				opt.FitProgress(seed, epoch, total)
			}
		}
		return bayes.TrainConfig(ctx, cfg.WithSeed(seed).WithProgress(progress, s.Stage))
	})
	switch {
	case err != nil:
		return run, err
	case run.Best == nil:
		return run, fmt.Errorf("no fit of %d has a defined log evidence (%s): %s", len(seeds), countStatuses(run.Fits), firstReason(run.Fits))
	}
	return run, nil
}

// countStatuses is "3 diverged, 1 not-positive-definite".
func countStatuses(fits []*bayes.Fit) string {
	n := map[bayes.Status]int{}
	for _, f := range fits {
		if f != nil {
			n[f.Status]++
		}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

// firstReason is the first fit's reason, the example an error gives.
func firstReason(fits []*bayes.Fit) string {
	for _, f := range fits {
		if f != nil && f.Reason != "" {
			return fmt.Sprintf("seed %d: %s", f.Settings.Seed, f.Reason)
		}
	}
	return "no reason recorded"
}

// laplaceOK returns the fit's Laplace approximation if its log evidence is
// defined, else nil (for a nil fit too).
func laplaceOK(f *bayes.Fit) *curv.Laplace {
	if f == nil || f.Laplace == nil || !f.Laplace.OccamOK {
		return nil
	}
	return f.Laplace
}
