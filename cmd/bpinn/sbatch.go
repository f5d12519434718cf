package main

import (
	"flag"
	"io"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/evidence-pinn/bpinn/scripts/slurm"
)

// writeSbatch writes scripts/slurm/ensemble.sbatch filled in for shards
// tasks of o.workers cores, each running the flags of args. The flags are
// checked as a run would check them, so a script is never written for a run
// that would be refused on the cluster.
func writeSbatch(fs *flag.FlagSet, args, pos []string, ff *fitFlags, o ensembleOpts, shards int, stdout io.Writer) error {
	for _, name := range []string{"shard", "out", "resume"} {
		if cliflag.Given(fs)[name] {
			return usagef("--sbatch with --%s: the script gives every task its own --shard, --out and --resume; drop --%s", name, name)
		}
	}
	if o.workers == 0 {
		return usagef("--sbatch needs --workers C, the cores of each task (its --cpus-per-task)")
	}
	if shards > o.n {
		return usagef("--sbatch %d: more shards than the %d seeds of --n; use at most %d", shards, o.n, o.n)
	}
	if _, err := planEnsemble(pos, ff, o); err != nil {
		return err
	}
	words := append([]string{pos[0]}, cliflag.Words(fs, args, "sbatch", "workers")...)
	script, err := slurm.Ensemble(words, shards, o.workers, "bpinn ensemble "+strings.Join(args, " "))
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, script)
	return err
}
