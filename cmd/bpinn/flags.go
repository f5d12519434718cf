package main

import (
	"flag"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
)

// manyFits are the flags of the commands that train many fits (ensemble,
// coverage): the fit's own, how many, the seed, the output file, the
// workers.
type manyFits struct {
	fit     fitFlags
	n       cliflag.PosInt
	seed    cliflag.Seed
	out     string
	workers int
}

// register adds the flags, the count and the seed under the given names.
func (m *manyFits) register(fs *flag.FlagSet, count, countUsage, seed, seedUsage string) {
	m.fit.register(fs)
	m.n, m.seed = cliflag.PosInt{V: 100, Given: true}, cliflag.Seed{V: 1}
	fs.Var(&m.n, count, countUsage)
	fs.Var(&m.seed, seed, seedUsage)
	fs.StringVar(&m.out, "out", "", "append each fit as a JSON line to `FILE.jsonl`")
	fs.IntVar(&m.workers, "workers", 0, "run `W` fits at once; 0 is one per core")
}

// checkWorkers rejects a negative --workers.
func checkWorkers(w int) error {
	if w < 0 {
		return usagef("--workers %d: must be 0 (one per core) or more", w)
	}
	return nil
}
