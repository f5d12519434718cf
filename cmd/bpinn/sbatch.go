package main

import (
	"flag"
	"io"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/scripts/slurm"
)

// writeSbatch writes scripts/slurm/ensemble.sbatch filled in for shards
// tasks of o.workers cores, each running the flags of args. The flags are
// checked as a run would check them, so a script is never written for a run
// that would be refused on the cluster.
func writeSbatch(fs *flag.FlagSet, args, pos []string, ff *fitFlags, o ensembleOpts, shards int, stdout io.Writer) error {
	for _, name := range []string{"shard", "out", "resume"} {
		if isSet(fs, name) {
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
	words := append([]string{pos[0]}, flagWords(fs, args, "sbatch", "workers")...)
	script, err := slurm.Ensemble(words, shards, o.workers, "bpinn ensemble "+strings.Join(args, " "))
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, script)
	return err
}

// isSet reports whether the flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// flagWords returns the flags of args (already parsed by fs), each with its
// value, in their order and spelling, without positional arguments and
// without the flags named in drop.
func flagWords(fs *flag.FlagSet, args []string, drop ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break // only positional arguments follow
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		words := []string{a}
		if f := fs.Lookup(name); f != nil && !inline && !isBoolFlag(f) && i+1 < len(args) {
			i++
			words = append(words, args[i])
		}
		if !slices.Contains(drop, name) {
			out = append(out, words...)
		}
	}
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
