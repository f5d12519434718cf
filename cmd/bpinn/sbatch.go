package main

import (
	"flag"
	"io"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/scripts/slurm"
)

// writeSbatch writes scripts/slurm/ensemble.sbatch filled in for --sbatch
// tasks of --workers cores, each running the flags of args. The flags are
// checked as a run would check them, so a script is never written for a run
// that would be refused on the cluster.
func (m *ensembleFlags) writeSbatch(fs *flag.FlagSet, args, pos []string, stdout io.Writer) error {
	shards := m.sbatch.V
	for _, name := range []string{"shard", "out", "resume"} {
		if cliflag.Given(fs)[name] {
			return usagef("--sbatch with --%s: the script gives every task its own --shard, --out and --resume; drop --%s", name, name)
		}
	}
	if m.workers == 0 {
		return usagef("--sbatch needs --workers C, the cores of each task (its --cpus-per-task)")
	}
	if shards > m.n.V {
		return usagef("--sbatch %d: more shards than the %d seeds of --n; use at most %d", shards, m.n.V, m.n.V)
	}
	if _, err := m.plan(pos); err != nil {
		return err
	}
	words := append([]string{pos[0]}, cliflag.Words(fs, args, "sbatch", "workers")...)
	script, err := slurm.Ensemble(words, shards, m.workers, "bpinn ensemble "+strings.Join(args, " "))
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, script)
	return err
}
