package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/evidence-pinn/bpinn/cmd/internal/termbar"
	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const ensembleText = `Trains --n networks on PROBLEM, seeds --seed-base + i, on --workers
goroutines; --out appends each fit as a JSON line the moment it ends,
--resume continues that file, --shard I/N runs one shard of a job array and
--sbatch writes a Slurm job script instead. At the end the fits are ranked
by log evidence, with Spearman's rho between ln Z and the true rel L2.
Details: docs/cli.md and docs/scale-out.md.`

// ensembleFlags are the flags of bpinn ensemble.
type ensembleFlags struct {
	manyFits
	resume bool
	shard  cliflag.Shard
	sbatch cliflag.PosInt
}

// setupEnsemble registers bpinn ensemble's flags.
func setupEnsemble(fs *flag.FlagSet) func([]string, env) error {
	var m ensembleFlags
	m.register(fs, "n", "train `N` fits", "seed-base", "first `seed`; fit i uses seed-base + i")
	fs.BoolVar(&m.resume, "resume", false, "continue the --out file, skipping the seeds it holds")
	fs.Var(&m.shard, "shard", "run only the seeds with (seed - seed-base) mod N == I, for job arrays")
	fs.Var(&m.sbatch, "sbatch", "write a Slurm job array of `N` shards (--workers cores each) to stdout instead of running")
	return func(pos []string, e env) error {
		if m.sbatch.Given {
			return m.writeSbatch(fs, e.Args, pos, e.Stdout)
		}
		return m.run(pos, e.Stdout, e.Stderr)
	}
}

// ensemblePlan is an ensemble's checked input: what run runs and what
// --sbatch writes into a job script.
type ensemblePlan struct {
	cfg   bayes.Config     // every fit's but its seed
	rc    record.RunConfig // what the fits' records carry
	seeds []uint64         // this run's (this shard's) seeds
}

// plan checks the flags and the problem without running anything.
func (m *ensembleFlags) plan(pos []string) (ensemblePlan, error) {
	if len(pos) != 1 {
		return ensemblePlan{}, usagef("want one problem, got %d arguments", len(pos))
	}
	if err := checkWorkers(m.workers); err != nil {
		return ensemblePlan{}, err
	}
	if m.resume && m.out == "" {
		return ensemblePlan{}, usagef("--resume needs --out FILE")
	}
	seeds, err := runner.Seeds(m.seed.V, m.n.V)
	if err != nil {
		return ensemblePlan{}, usagef("--n, --seed-base: %v", err)
	}
	if m.shard.N > 0 {
		if seeds, err = runner.Shard(seeds, m.shard.I, m.shard.N); err != nil {
			return ensemblePlan{}, usagef("--shard %s: %v", &m.shard, err)
		}
	}
	cfg, err := m.fit.config(pos[0], m.seed.V)
	if err != nil {
		return ensemblePlan{}, err
	}
	return ensemblePlan{cfg, record.NewRunConfig(cfg, m.fit.dataSeed.V), seeds}, nil
}

// run trains the ensemble (runner.RunFile) and prints its summary.
func (m *ensembleFlags) run(pos []string, stdout, stderr io.Writer) error {
	plan, err := m.plan(pos)
	if err != nil {
		return err
	}
	if m.out != "" {
		if err := cliflag.CheckWritable(m.out); err != nil {
			return err
		}
	}
	var prog *termbar.Fits
	sum, err := runner.RunFile(m.fit.context(), plan.cfg, plan.seeds, runner.FileOptions{
		Out: m.out, Resume: m.resume, Config: plan.rc, Workers: m.workers, DataSeed: m.fit.dataSeed.V, GridN: gridN,
		Notify: func(msg string) { fmt.Fprintf(stderr, "bpinn ensemble: %s\n", msg) },
		Start:  func(todo int) { prog = termbar.NewFits(stderr, todo, fmt.Sprintf("%s x%d", plan.rc.Problem, todo)) },
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
