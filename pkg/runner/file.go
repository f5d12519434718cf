package runner

import (
	"context"
	"fmt"
	"os"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// FileOptions configure RunFile. The zero value runs one worker per core,
// writes nothing and reports nothing.
type FileOptions struct {
	// Out, if not "", is the JSONL file each fit is appended to the moment
	// it ends (Resume opens it); the summary is then of its records alone.
	Out string
	// Resume continues Out: its seeds are not trained again.
	Resume bool
	// Config is the run's configuration, which a resumed file must hold.
	Config record.RunConfig
	// Workers is the number of fits run at once; 0 means one per core,
	// more than the cores is capped at one per core and negative is an
	// error (Workers).
	Workers int
	// DataSeed is written into every record.
	DataSeed uint64
	// GridN is Options.GridN.
	GridN int
	// Notify, if not nil, receives what the run says about Out: a torn
	// last line cut away, a resumed file's count of fits.
	Notify func(msg string)
	// Start, if not nil, is called with the number of fits to run, before
	// the first; Done with each that ended (not cancelled), in the order
	// they end, never concurrently.
	Start func(todo int)
	Done  func(done int, r *record.Result)
}

// RunFile trains one fit of cfg per seed (cfg.WithSeed), appending
// each to o.Out, and summarizes the ensemble: from o.Out's records alone
// when there is a file (sorted by seed, ties in evidence broken by seed),
// so that a resumed run prints the same summary as an uninterrupted one.
// Resume's errors are input errors (IsInput). When ctx ends the run, the
// fits that ended are kept and the error says so.
func RunFile(ctx context.Context, cfg bayes.Config, seeds []uint64, o FileOptions) (record.Summary, error) {
	var file *os.File
	var kept []record.Result
	if o.Out != "" { // fresh, or resumed after cutting a torn line
		var torn bool
		var err error
		if file, kept, torn, err = Resume(o.Out, o.Resume, o.Config); err != nil {
			return record.Summary{}, err
		}
		defer file.Close()
		if torn {
			o.notify(fmt.Sprintf("%s ended in a torn line (a fit killed mid-write); cut it away, its seed runs again", o.Out))
		}
	}
	todo := Todo(seeds, kept)
	if len(kept) > 0 {
		o.notify(fmt.Sprintf("resuming %s: %d fits done, %d to run", o.Out, len(kept), len(todo)))
	}
	if o.Start != nil {
		o.Start(len(todo))
	}
	var results []record.Result
	done := 0
	opt := Options{Workers: o.Workers, GridN: o.GridN, Records: true,
		DataSeed: func(uint64) uint64 { return o.DataSeed },
		Done: func(fo Outcome) {
			done++
			if fo.Err == nil && fo.Fit.Status != bayes.StatusCancelled {
				results = append(results, fo.Record)
				if o.Done != nil {
					o.Done(done, &fo.Record)
				}
			}
		}}
	if file != nil {
		opt.Out = file
	}
	err := Run(ctx, todo, opt, func(ctx context.Context, seed uint64) (*bayes.Fit, error) {
		return bayes.TrainConfig(ctx, cfg.WithSeed(seed))
	})
	if err != nil && ctx.Err() != nil {
		return record.Summary{}, fmt.Errorf("interrupted: %d fits ended and are kept; run again with --resume to finish", len(results))
	}
	if err != nil {
		return record.Summary{}, err
	}
	all := append(kept, results...)
	if file != nil { // rank by the file's content only
		rs, torn, err := record.ReadResults(o.Out)
		if err != nil {
			return record.Summary{}, err
		}
		if torn {
			return record.Summary{}, fmt.Errorf("%s: torn last line after a complete run: another process is writing it", o.Out)
		}
		all = rs
	}
	return record.Summarize(all)
}

func (o *FileOptions) notify(msg string) {
	if o.Notify != nil {
		o.Notify(msg)
	}
}
