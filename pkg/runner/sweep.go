package runner

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

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
	Problem   string   // the problem's name
	Seed      uint64   // the network seed of the fits
	DataSeeds []uint64 // the sweep's data seeds
	Draws     int
	Unknowns  []score.UnknownSummary
	Seconds   float64 // the fits' own seconds, summed
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
	run := &SweepRun{DataSeeds: dataSeeds}
	done := opt.Done
	opt.KeyName, opt.DataSeed = "data seed", func(d uint64) uint64 { return d }
	opt.Done = func(o Outcome) {
		if o.Err == nil {
			all = append(all, ended{o.Key, o.Fit.Unknowns()})
			run.Seconds += o.Fit.Seconds
			run.Problem, run.Seed = o.Fit.Model.Problem.Name, o.Fit.Settings.Seed
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

// WriteDraw writes one line on an ended draw of a sweep: its data seed,
// status and estimates (nothing for a draw that failed).
func WriteDraw(w io.Writer, o Outcome) {
	if o.Err != nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "data seed %d: %s", o.Key, o.Fit.Status)
	for _, u := range o.Fit.Unknowns() {
		fmt.Fprintf(&b, "; %s", u)
	}
	fmt.Fprintln(&b)
	w.Write([]byte(b.String()))
}

// WriteText writes the sweep's summary: per unknown, the mean estimate,
// the relative errors and the coverage of the 95 % interval over the
// draws with its binomial standard error.
func (r *SweepRun) WriteText(w io.Writer) error {
	var b strings.Builder
	n := len(r.DataSeeds)
	fmt.Fprintf(&b, "%s: %d draws (data seeds %d to %d, network seed %d), %.1f s of fits in all\n", r.Problem, n, r.DataSeeds[0], r.DataSeeds[n-1], r.Seed, r.Seconds)
	for _, s := range r.Unknowns {
		fmt.Fprintf(&b, "  %s: mean %.6g (sd over draws %.3g), mean Laplace sd %.3g, relative error mean %.3g max %.3g; 95%% interval holds the truth in %d of %d: coverage %.2f +- %.2f\n",
			s.Name, s.Mean, s.SDOfMean, s.MeanSD, s.MeanRelErr, s.MaxRelErr, s.Covered, s.Fits, s.Coverage, s.CoverageSE)
	}
	_, err := w.Write([]byte(b.String()))
	return err
}
