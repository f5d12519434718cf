package main

import (
	"flag"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const statusText = `Reads the JSONL files of an ensemble's shards and says how many fits each
holds, whether they share one configuration, and which seeds are missing.
Exit status 0: complete; 1: the report names what is wrong; 2: bad input.
Details: docs/cli.md.`

// setupStatus registers bpinn status's flags.
func setupStatus(fs *flag.FlagSet) func([]string, env) error {
	var n cliflag.PosInt
	fs.Var(&n, "n", "the ensemble's `N` seeds (its --n): list the missing ones up to the last")
	seed := cliflag.Seed{V: 1}
	fs.Var(&seed, "seed-base", "the ensemble's first `seed` (its --seed-base)")
	var shards cliflag.PosInt
	fs.Var(&shards, "shards", "the `N` of the ensemble's --shard I/N: name the shard of each missing seed")
	return func(pos []string, e env) error {
		err := runner.Status(e.Stdout, pos, n.V, seed.V, shards.V)
		if runner.IsInput(err) {
			return asUsage(err)
		}
		return err
	}
}
