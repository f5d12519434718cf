package main

import (
	"flag"
	"io"
	"os"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const coverageText = `Fits an inverse problem on N draws of its data (data seed --data-seed + i,
every fit the same --seed) and prints each draw's estimates and, per
unknown, the coverage of the 95 % interval over the draws; --out appends
every record as a JSON line. Details: docs/cli.md and docs/inverse.md.`

// setupCoverage registers bpinn coverage's flags.
func setupCoverage(fs *flag.FlagSet) func([]string, env) error {
	var m manyFits
	m.register(fs, "draws", "fit `N` draws of the data", "seed", "`seed` of the network initialization, the same for every draw")
	return func(pos []string, e env) error {
		return runCoverage(pos, &m.fit, m.n.V, m.seed.V, m.out, m.workers, e.Stdout)
	}
}

func runCoverage(pos []string, ff *fitFlags, n int, seed uint64, out string, workers int, stdout io.Writer) error {
	if len(pos) != 1 {
		return usagef("want one problem, got %d arguments", len(pos))
	}
	if err := checkWorkers(workers); err != nil {
		return err
	}
	if ff.dataFile != "" {
		return usagef("--data: coverage draws the data anew for every fit; fit your file with bpinn fit --data")
	}
	cfg, err := ff.config(pos[0], seed)
	if err != nil {
		return err
	}
	if p := cfg.Problem(); len(p.Unknowns) == 0 {
		return usagef("problem %q has no unknown coefficients: coverage needs an inverse problem", p.Name)
	}
	draws, err := runner.Seeds(ff.dataSeed.V, n)
	if err != nil {
		return usagef("--draws, --data-seed: %v", err)
	}
	var file *os.File
	if out != "" {
		if file, err = os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			return err
		}
		defer file.Close()
	}
	opt := runner.Options{Workers: workers, GridN: gridN, Done: func(o runner.Outcome) { runner.WriteDraw(stdout, o) }}
	if file != nil {
		opt.Out = file
	}
	run, err := runner.Sweep(ff.context(), draws, opt, func(d uint64) (*pde.Problem, bayes.Settings, error) {
		g := *ff
		g.dataSeed.V = d
		cfg, err := g.config(pos[0], seed)
		if err != nil {
			return nil, bayes.Settings{}, err
		}
		return cfg.Problem(), cfg.Settings(), nil
	})
	if err != nil {
		return err
	}
	return run.WriteText(stdout)
}
