package main

import (
	"context"
	"flag"
	"math"
	"os"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// usagef and asUsage make bad input: the command prints it in one line
// and exits 2.
var usagef, asUsage = cliflag.Usagef, cliflag.AsUsage

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

// options are the problems.Options of the data flags.
func (ff *fitFlags) options() problems.Options {
	return problems.Options{DataSeed: ff.dataSeed.V, Kappa: ff.kappa.V, Sampling: pde.Sampler(ff.sampling.V), Reaction: ff.reaction}
}

// problem builds the named problem with the data flags, and its
// schedule for them: with --data, the user's measurements keep none of
// the problem's stated noise.
func (ff *fitFlags) problem(name string) (*pde.Problem, schedule.Schedule, error) {
	var none schedule.Schedule
	e, err := problems.Lookup(name)
	if err != nil {
		return nil, none, asUsage(err)
	}
	if ff.kappa.Given && !e.Takes("Kappa") {
		return nil, none, usagef("--kappa applies to %s only, not %q", problems.Takers("Kappa"), name)
	}
	if ff.reaction != 0 && !e.Takes("Reaction") {
		return nil, none, usagef("--reaction applies to %s only, not %q", problems.Takers("Reaction"), name)
	}
	if math.IsNaN(ff.reaction) || math.IsInf(ff.reaction, 0) {
		return nil, none, usagef("--reaction %v: give a finite rate", ff.reaction)
	}
	o := ff.options()
	p, err := problems.New(name, o)
	if err != nil {
		return nil, none, asUsage(err)
	}
	sch := e.ScheduleFor(o)
	if ff.dataFile != "" {
		f, err := os.Open(ff.dataFile)
		if err != nil {
			return nil, none, usagef("--data: %v", err)
		}
		defer f.Close()
		d, err := datafile.ReadData(f, p)
		if err != nil {
			return nil, none, usagef("--data %s: %v", ff.dataFile, err)
		}
		p, sch = p.WithData(d), sch.ForData()
	}
	if len(ff.init.V) > 0 {
		if p, err = problems.WithInit(p, ff.init.V); err != nil {
			return nil, none, usagef("--init %v", err)
		}
	}
	return p, sch, nil
}

// context is the context the flags' fits train under: the interrupt's,
// with the hidden --nan-at's NaN injected into the loss (fault.WithNaNAt).
func (ff *fitFlags) context() context.Context {
	if ff.nanAt.V == 0 {
		return interrupt
	}
	return fault.WithNaNAt(interrupt, ff.nanAt.V)
}
