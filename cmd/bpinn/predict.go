package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/evidence-pinn/bpinn/cmd/internal/termbar"
	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

const predictText = `Reads a fit's record (bpinn fit --json, or an ensemble's JSONL: pick the fit
with --seed) and points from stdin, and prints a header naming the
columns, then per point its inputs and each output's mean, Laplace sigma
and the sigma of each band the record holds (u_sigma_heldout,
u_sigma_calibrated), from the record alone, without training. A bad line is an error naming it (exit 2). Details: docs/cli.md.`

// setupPredict registers bpinn predict's flags.
func setupPredict(fs *flag.FlagSet) func([]string, env) error {
	var seed cliflag.Seed
	fs.Var(&seed, "seed", "the `seed` of the fit to use when the file holds several")
	return func(pos []string, e env) error { return runPredict(pos, seed.V, e.In(), e.Stdout, e.Stderr) }
}

func runPredict(pos []string, seed uint64, in io.Reader, out, hint io.Writer) error {
	if len(pos) != 1 {
		return usagef("want one record file (bpinn fit --json FILE), got %d arguments", len(pos))
	}
	r, err := record.ReadFit(pos[0], seed)
	if err != nil {
		return asUsage(err)
	}
	p, err := problems.Rebuild(r.Problem, r.DataSeed, r.Sampling, r.Params, r.Truths())
	if err != nil {
		return usagef("%s: %v; a fit of a problem of your own is restored in Go (record.Restore, then record.Predict)", pos[0], err)
	}
	f, err := record.Restore(p, r)
	if err != nil {
		return usagef("%s: %v", pos[0], err)
	}
	if termbar.IsTerminal(in) { // otherwise the command seems to hang
		fmt.Fprintf(hint, "bpinn predict: type points (%s), one per line; end with Ctrl-D\n", strings.Join(p.Inputs, " "))
	}
	pts, err := datafile.ReadPoints(in, p)
	if pe := (*datafile.PointError)(nil); errors.As(err, &pe) {
		return usagef("%v", pe)
	}
	if err != nil {
		return err
	}
	pr, err := record.Predict(f, r.Bands, pts)
	if err != nil {
		return err
	}
	return pr.WriteTable(out)
}
