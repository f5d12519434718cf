package main

import (
	"errors"
	"flag"
	"io"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const statusText = `Reads the JSONL files of an ensemble's shards and says how many fits each
holds, whether they share one configuration, and which seeds are missing.
Exit status 0: complete; 1: the report names what is wrong; 2: bad input.
Details: docs/cli.md.`

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
