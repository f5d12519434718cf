package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const coverageText = `Fits an inverse problem (one with unknown coefficients: heat-inverse,
wave-inverse, burgers-inverse, burgers-wide-inverse, heat2-inverse,
heat2-reaction, lotka-volterra-inverse, burgers-identify,
burgers-identify-clean) on N draws of its data:
draw i uses data seed --data-seed + i (new points and new measurement noise),
every fit the same --seed. Prints each draw's estimates and, per unknown, the
mean estimate, the mean relative error, and the coverage of the 95 %
interval: the fraction of draws whose interval holds the truth, with its
binomial standard error (a calibrated interval: about 0.95). --out appends
every record as a JSON line (each with its own data_seed).`

func cmdCoverage(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coverage")
	var m manyFits
	m.register(fs, "draws", "fit `N` draws of the data", "seed", "`seed` of the network initialization, the same for every draw")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, fs, "bpinn coverage PROBLEM [--draws N] [flags]", coverageText, problemDefaults())
		return exitOK
	}
	if err == nil {
		err = runCoverage(pos, &m.fit, m.n.v, m.seed.v, m.out, m.workers, stdout)
	}
	if err != nil {
		return report(stderr, "coverage", err)
	}
	return exitOK
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
	p, err := ff.problem(pos[0])
	if err != nil {
		return err
	}
	if len(p.Unknowns) == 0 {
		return usagef("problem %q has no unknown coefficients: coverage needs an inverse problem", p.Name)
	}
	if _, err := ff.settings(p, seed); err != nil {
		return err
	}
	base := ff.dataSeed.v
	draws, err := runner.Seeds(base, n)
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
	opt := runner.Options{Workers: workers, GridN: gridN, Done: func(o runner.Outcome) {
		if o.Err != nil {
			return
		}
		fmt.Fprintf(stdout, "data seed %d: %s", o.Key, o.Fit.Status)
		for _, u := range o.Fit.Unknowns() {
			fmt.Fprintf(stdout, "; %s", u)
		}
		fmt.Fprintln(stdout)
	}}
	if file != nil {
		opt.Out = file
	}
	run, err := runner.Sweep(ff.context(), draws, opt, func(d uint64) (*pde.Problem, bayes.Settings, error) {
		g := *ff
		g.dataSeed.v = d
		q, err := g.problem(pos[0])
		if err != nil {
			return nil, bayes.Settings{}, err
		}
		s, err := g.settings(q, seed)
		return q, s, err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d draws (data seeds %d to %d, network seed %d), %.1f s of fits in all\n", p.Name, n, base, base+uint64(n-1), seed, run.Seconds)
	for _, s := range run.Unknowns {
		fmt.Fprintf(stdout, "  %s: mean %.6g (sd over draws %.3g), mean Laplace sd %.3g, relative error mean %.3g max %.3g; 95%% interval holds the truth in %d of %d: coverage %.2f +- %.2f\n",
			s.Name, s.Mean, s.SDOfMean, s.MeanSD, s.MeanRelErr, s.MaxRelErr, s.Covered, s.Fits, s.Coverage, s.CoverageSE)
	}
	return nil
}
