package main

import (
	"errors"
	"flag"
	"io"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const statusText = `Reads the JSONL files of an ensemble's shards (bpinn ensemble --shard, the
tasks of scripts/slurm/ensemble.sbatch) and says how many fits each file
holds, whether all fits belong to one configuration (the same flags; merge
refuses a mix), and which seeds are missing: of seed-base .. seed-base+n-1
with --n, else the gaps below the largest seed found. With --shards N a
missing seed is listed under its shard, the task to rerun with --resume.
Records of one seed in several files must agree apart from "seconds".

Exit status 0: one configuration, no seed missing, no disagreeing
duplicates; 1: the report names what is wrong (also in one line on stderr);
2: bad input (no files, a file that cannot be read or holds no fits' JSONL).`

func cmdStatus(args []string, stdout, stderr io.Writer) int {
	fs := cliflag.NewFlagSet("status")
	var n cliflag.PosInt
	fs.Var(&n, "n", "the ensemble's `N` seeds (its --n): list the missing ones up to the last")
	seed := cliflag.Seed{V: 1}
	fs.Var(&seed, "seed-base", "the ensemble's first `seed` (its --seed-base)")
	var shards cliflag.PosInt
	fs.Var(&shards, "shards", "the `N` of the ensemble's --shard I/N: name the shard of each missing seed")
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cliflag.PrintUsage(stdout, fs, "bpinn status [--n N] [--seed-base SEED] [--shards N] FILES...", statusText, "")
		return exitOK
	}
	if err == nil {
		err = runner.Status(stdout, pos, n.V, seed.V, shards.V)
		if runner.IsInput(err) {
			err = asUsage(err)
		}
	}
	if err != nil {
		return report(stderr, "status", err)
	}
	return exitOK
}
