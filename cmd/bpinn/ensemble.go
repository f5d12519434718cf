package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/internal/termbar"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const ensembleText = `Trains --n networks on PROBLEM, seeds --seed-base + i, on --workers
goroutines; --out appends each fit as a JSON line the moment it ends,
--resume continues that file, --shard I/N runs one shard of a job array and
--sbatch writes a Slurm job script instead. At the end the fits are ranked
by log evidence, with Spearman's rho between ln Z and the true rel L2.
Details: docs/cli.md and docs/scale-out.md.`

// setupEnsemble registers bpinn ensemble's flags.
func setupEnsemble(fs *flag.FlagSet) func([]string, env) error {
	var m manyFits
	m.register(fs, "n", "train `N` fits", "seed-base", "first `seed`; fit i uses seed-base + i")
	resume := fs.Bool("resume", false, "continue the --out file, skipping the seeds it holds")
	var sh cliflag.Shard
	fs.Var(&sh, "shard", "run only the seeds with (seed - seed-base) mod N == I, for job arrays")
	var sbatch cliflag.PosInt
	fs.Var(&sbatch, "sbatch", "write a Slurm job array of `N` shards (--workers cores each) to stdout instead of running")
	return func(pos []string, e env) error {
		o := ensembleOpts{n: m.n.V, base: m.seed.V, out: m.out, workers: m.workers, resume: *resume, shard: sh}
		if sbatch.Given {
			return writeSbatch(fs, e.args, pos, &m.fit, o, sbatch.V, e.stdout)
		}
		return runEnsemble(pos, &m.fit, o, e.stdout, e.stderr)
	}
}

type ensembleOpts struct {
	n       int
	base    uint64
	out     string
	workers int
	resume  bool
	shard   cliflag.Shard
}

// ensemblePlan is an ensemble's checked input: what runEnsemble runs and
// what --sbatch writes into a job script.
type ensemblePlan struct {
	p     *pde.Problem
	s     bayes.Settings
	cfg   record.RunConfig
	seeds []uint64 // this run's (this shard's) seeds
}

// planEnsemble checks the flags and the problem without running anything.
func planEnsemble(pos []string, ff *fitFlags, o ensembleOpts) (ensemblePlan, error) {
	if len(pos) != 1 {
		return ensemblePlan{}, usagef("want one problem, got %d arguments", len(pos))
	}
	if err := checkWorkers(o.workers); err != nil {
		return ensemblePlan{}, err
	}
	if o.resume && o.out == "" {
		return ensemblePlan{}, usagef("--resume needs --out FILE")
	}
	seeds, err := runner.Seeds(o.base, o.n)
	if err != nil {
		return ensemblePlan{}, usagef("--n, --seed-base: %v", err)
	}
	if o.shard.N > 0 {
		if seeds, err = runner.Shard(seeds, o.shard.I, o.shard.N); err != nil {
			return ensemblePlan{}, usagef("--shard %s: %v", &o.shard, err)
		}
	}
	p, err := ff.problem(pos[0])
	if err != nil {
		return ensemblePlan{}, err
	}
	s, err := ff.settings(p, o.base)
	if err != nil {
		return ensemblePlan{}, err
	}
	cfg, err := record.NewRunConfig(p, s, ff.dataSeed.V)
	if err != nil {
		return ensemblePlan{}, asUsage(err)
	}
	return ensemblePlan{p, s, cfg, seeds}, nil
}

func runEnsemble(pos []string, ff *fitFlags, o ensembleOpts, stdout, stderr io.Writer) error {
	plan, err := planEnsemble(pos, ff, o)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := cliflag.CheckWritable(o.out); err != nil {
			return err
		}
	}
	var prog *termbar.Fits
	sum, err := runner.RunFile(ff.context(), plan.p, plan.s, plan.seeds, runner.FileOptions{
		Out: o.out, Resume: o.resume, Config: plan.cfg, Workers: o.workers, DataSeed: ff.dataSeed.V, GridN: gridN,
		Notify: func(msg string) { fmt.Fprintf(stderr, "bpinn ensemble: %s\n", msg) },
		Start:  func(todo int) { prog = termbar.NewFits(stderr, todo, fmt.Sprintf("%s x%d", plan.p.Name, todo)) },
		Done:   func(done int, r *record.Result) { prog.Step(done, r) },
	})
	if prog != nil {
		prog.Finish()
	}
	if runner.IsInput(err) {
		return asUsage(err)
	}
	if err != nil {
		return err
	}
	return sum.WriteText(stdout)
}
