package runner

import (
	"cmp"
	"context"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// Draw builds the problem and settings of one data seed of a sweep: the
// same problem on a new draw of its points and measurement noise.
type Draw func(dataSeed uint64) (*pde.Problem, bayes.Settings, error)

// SweepRun is what Sweep returns: each unknown summarized over the draws
// (the coverage of its 95 % interval among them) and the fits' seconds.
type SweepRun struct {
	Draws    int
	Unknowns []score.UnknownSummary
	Seconds  float64 // the fits' own seconds, summed
}

// Sweep is the coverage study of an inverse problem: one fit per data seed
// (the problem and settings from draw, the record carrying its data seed),
// through Run with opt (its DataSeed and KeyName are Sweep's), the
// unknowns summarized over the draws in the order of the data seeds. The
// data seeds must pass CheckSeeds.
func Sweep(ctx context.Context, dataSeeds []uint64, opt Options, draw Draw) (*SweepRun, error) {
	if err := CheckSeeds(dataSeeds); err != nil {
		return nil, err
	}
	type ended struct {
		seed uint64
		us   []score.Unknown
	}
	var all []ended
	run := &SweepRun{}
	done := opt.Done
	opt.KeyName, opt.DataSeed = "data seed", func(d uint64) uint64 { return d }
	opt.Done = func(o Outcome) {
		if o.Err == nil {
			all = append(all, ended{o.Key, o.Fit.Unknowns()})
			run.Seconds += o.Fit.Seconds
		}
		if done != nil {
			done(o)
		}
	}
	err := Run(ctx, dataSeeds, opt, func(ctx context.Context, d uint64) (*bayes.Fit, error) {
		p, s, err := draw(d)
		if err != nil {
			return nil, err
		}
		return bayes.Train(ctx, p, s)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b ended) int { return cmp.Compare(a.seed, b.seed) })
	us := make([][]score.Unknown, len(all))
	for i, e := range all {
		us[i] = e.us
	}
	run.Draws, run.Unknowns = len(all), score.SummarizeUnknowns(us)
	return run, nil
}
