package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/evidence-pinn/bpinn/internal/par"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// Job trains the fit of one key: a network seed, or a data seed in a sweep.
type Job func(ctx context.Context, key uint64) (*bayes.Fit, error)

// Outcome is one ended fit of a Run.
type Outcome struct {
	Key    uint64
	Fit    *bayes.Fit    // nil when the job failed
	Record record.Result // the fit's record (on Options.GridN), when records are built
	Err    error         // the job's error or panic, or the error of writing the record; it names the key
}

// Options configure Run. The zero value runs one worker per core and
// writes nothing.
type Options struct {
	// Workers is the number of fits run at once; 0 means one per core,
	// more than the cores is capped at one per core and negative is an
	// error (Workers).
	Workers int
	// GridN is the side of the grid a record's errors are measured on;
	// 0 means the paper's 100, negative is an error.
	GridN int
	// KeyName is what a key is in errors: "seed" unless set ("data
	// seed" in a sweep).
	KeyName string
	// Records builds each fit's record for Done even when Out is nil.
	Records bool
	// DataSeed, if not nil, gives the data seed written into key's record.
	DataSeed func(key uint64) uint64
	// Out, if not nil, receives each fit's record as one JSON line the
	// moment the fit ends (an *os.File is synced after each line), so an
	// interrupted run keeps the fits that ended. A fit cancelled by the
	// context is not written: a resumed run trains it again. After the
	// first error nothing more is written.
	Out io.Writer
	// Done, if not nil, sees every outcome in the order the fits end,
	// never concurrently (per-fit progress, a study's own bookkeeping).
	Done func(Outcome)
	// Gate, if not nil, is waited on by each fit before it starts, and the
	// release it returns is called once the fit and its record are built:
	// several runs share the cores of a machine through one Gate (bpinn
	// reproduce runs its studies at once). When the context ends while a
	// fit waits, the fit runs ungated and ends as cancelled at once.
	Gate func(ctx context.Context, key uint64) (release func(), err error)
}

// Workers resolves a Workers setting: 0 is one fit per core
// (GOMAXPROCS), more than the cores is capped there (each fit already
// spreads its rows over the cores a runner leaves it, so more fits at once
// only share them), and negative is an input error.
func Workers(n int) (int, error) {
	switch {
	case n < 0:
		return 0, inputf("workers = %d: give 0 (one per core) or more", n)
	case n == 0:
		return runtime.GOMAXPROCS(0), nil
	}
	return min(n, runtime.GOMAXPROCS(0)), nil
}

// Run trains job(key) for every key on opt.Workers goroutines, records
// each fit and writes and reports it as it ends; each fit depends on its
// key alone, so the records are independent of the number of workers. The
// keys must pass CheckSeeds, or be none: then nothing runs. The error is
// the first of a job or of writing Out, else the context's when it ended
// the run (the fits that ended are kept).
func Run(ctx context.Context, keys []uint64, opt Options, job Job) error {
	if len(keys) == 0 { // a resumed run that is complete
		return nil
	}
	if err := CheckSeeds(keys); err != nil {
		return err
	}
	grid := opt.GridN
	switch {
	case grid < 0:
		return inputf("grid = %d: give the grid's side, or 0 for the paper's 100", grid)
	case grid == 0:
		grid = 100
	}
	name := opt.KeyName
	if name == "" {
		name = "seed"
	}
	workers, err := Workers(opt.Workers)
	if err != nil {
		return err
	}
	var firstErr error
	ended := 0
	// The fits running at once share the cores: each gets its part as
	// threads (the same bits on any number).
	ctx = par.WithThreads(ctx, runtime.GOMAXPROCS(0)/min(workers, len(keys)))
	Ensemble(keys, workers, func(key uint64) (o Outcome) {
		o.Key = key
		defer func() { // a panic in one fit fails the run, not the process
			if r := recover(); r != nil {
				o.Fit, o.Err = nil, fmt.Errorf("%s %d: panic: %v", name, key, r)
			}
		}()
		if opt.Gate != nil {
			if release, err := opt.Gate(ctx, key); err == nil {
				defer release()
			}
		}
		f, err := job(ctx, key)
		if err == nil && f == nil {
			err = errors.New("the job returned no fit and no error")
		}
		if err != nil {
			o.Err = fmt.Errorf("%s %d: %w", name, key, err)
			return o
		}
		o.Fit = f
		if opt.Out == nil && !opt.Records {
			return o
		}
		o.Record = record.NewResult(f, grid)
		if opt.DataSeed != nil {
			o.Record.DataSeed = opt.DataSeed(key)
		}
		return o
	}, func(key uint64, o Outcome) {
		if o.Err == nil && o.Fit.Status != bayes.StatusCancelled {
			ended++
			if opt.Out != nil && firstErr == nil {
				o.Err = record.AppendResult(opt.Out, o.Record)
			}
		}
		if firstErr == nil {
			firstErr = o.Err
		}
		if opt.Done != nil {
			opt.Done(o)
		}
	})
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("%d of %d fits ended before the run was stopped: %w", ended, len(keys), context.Cause(ctx))
	}
	return firstErr
}

// Resume opens path to append a run's records. Without resume the file
// must be new or empty. With resume the records it holds are kept (a torn
// last line, a fit killed mid-write, is cut away and reported by torn) and
// must all belong to the run cfg describes; the run then trains only the
// seeds Todo leaves.
func Resume(path string, resume bool, cfg record.RunConfig) (f *os.File, kept []record.Result, torn bool, err error) {
	if st, err := os.Stat(path); err == nil && st.Size() > 0 && !resume {
		return nil, nil, false, inputf("%s exists: use --resume to continue it, or remove it", path)
	}
	if resume { // check the file before touching it: a foreign or corrupt file is bad input
		rs, _, err := record.ReadResults(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, false, inputf("--resume: %v", err)
		}
		for _, r := range rs {
			if d := r.RunConfig.Diff(cfg); d != "" {
				return nil, nil, false, inputf("--resume: %s holds seed %d of another run (%s): use the same flags or another --out", path, r.Seed, d)
			}
		}
	}
	return record.OpenAppend(path)
}

// Todo is the seeds that kept does not hold, in their order.
func Todo(seeds []uint64, kept []record.Result) []uint64 {
	have := make(map[uint64]bool, len(kept))
	for _, r := range kept {
		have[r.Seed] = true
	}
	var todo []uint64
	for _, s := range seeds {
		if !have[s] {
			todo = append(todo, s)
		}
	}
	return todo
}
