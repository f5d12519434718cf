package main

import (
	"flag"
	"io"
	"strings"

	"github.com/evidence-pinn/bpinn/cmd/internal/termbar"
	"github.com/evidence-pinn/bpinn/internal/atomicfile"
	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// gridN is the error grid: 100x100 for two inputs, 200 points for one.
const gridN = 100

const fitText = `Trains one network on PROBLEM (listed below) with the paper's evidence
framework and prints a short summary; --json writes the full record
(docs/results-schema.md). A fit that diverges or whose evidence is
undefined is still a completed command: exit status 0, with its status in
the summary. Exit status 2 is bad input, 1 an I/O failure. Details:
docs/cli.md.`

// setupFit registers bpinn fit's flags.
func setupFit(fs *flag.FlagSet) func([]string, env) error {
	var ff fitFlags
	ff.register(fs)
	seed := cliflag.Seed{V: 1}
	fs.Var(&seed, "seed", "`seed` of the network initialization")
	jsonPath := fs.String("json", "", "write the result JSON to `FILE`")
	return func(pos []string, e env) error {
		r, err := fitOnce(pos, &ff, seed.V, *jsonPath, e.Stderr)
		if err != nil {
			return err
		}
		return r.WriteText(e.Stdout)
	}
}

// fitOnce trains and records one fit of the problem pos names: the
// flags' work first (the context, the configuration), then the fit, its
// record and the file, each handed what the step before made.
func fitOnce(pos []string, ff *fitFlags, seed uint64, jsonPath string, stderr io.Writer) (*record.Result, error) {
	if len(pos) != 1 {
		return nil, usagef("want one problem (%s), got %d arguments", strings.Join(problems.Names(), ", "), len(pos))
	}
	ctx := ff.context()
	cfg, err := ff.config(pos[0], seed)
	if err != nil {
		return nil, err
	}
	if jsonPath != "" {
		if err := cliflag.CheckWritable(jsonPath); err != nil {
			return nil, err
		}
	}
	progress, stage, done := termbar.Fit(stderr, pos[0])
	f, err := bayes.TrainConfig(ctx, cfg.WithProgress(progress, stage))
	done()
	if err != nil {
		return nil, err
	}
	r := record.NewResult(f, gridN)
	r.DataSeed = ff.dataSeed.V
	if jsonPath != "" {
		if err := atomicfile.WriteJSON(jsonPath, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}
