package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// errUsage is bad input: the command prints it in one line and exits 2.
type errUsage = cliflag.UsageError

var usagef = cliflag.Usagef

// asUsage makes err, if any, bad input (exit 2).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return errUsage{Msg: err.Error()}
}

// exitCode is an error the command has already reported: it exits with
// the code.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// report prints err in one line and returns the exit code: 2 for bad input,
// 1 for anything else.
func report(stderr io.Writer, cmd string, err error) int {
	if c, ok := err.(exitCode); ok {
		return int(c)
	}
	var u errUsage
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "bpinn %s: %s (see bpinn %s --help)\n", cmd, oneLine(u.Msg), cmd)
		return exitUsage
	}
	fmt.Fprintf(stderr, "bpinn %s: %s\n", cmd, oneLine(err.Error()))
	return exitFail
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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

// problem builds the named problem with the data flags.
func (ff *fitFlags) problem(name string) (*pde.Problem, error) {
	e, err := problems.Lookup(name)
	if err != nil {
		return nil, asUsage(err)
	}
	if ff.kappa.Given && !e.Takes("Kappa") {
		return nil, usagef("--kappa applies to %s only, not %q", takers("Kappa"), name)
	}
	if ff.reaction != 0 && !e.Takes("Reaction") {
		return nil, usagef("--reaction applies to %s only, not %q", takers("Reaction"), name)
	}
	if math.IsNaN(ff.reaction) || math.IsInf(ff.reaction, 0) {
		return nil, usagef("--reaction %v: give a finite rate", ff.reaction)
	}
	p, err := problems.New(name, ff.options())
	if err != nil {
		return nil, asUsage(err)
	}
	if ff.dataFile != "" {
		f, err := os.Open(ff.dataFile)
		if err != nil {
			return nil, usagef("--data: %v", err)
		}
		defer f.Close()
		d, err := pde.ReadData(f, p)
		if err != nil {
			return nil, usagef("--data %s: %v", ff.dataFile, err)
		}
		p = p.WithData(d)
	}
	if len(ff.init.V) > 0 {
		if p, err = withInit(p, ff.init.V); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// withInit returns p with its unknowns started at init's values.
func withInit(p *pde.Problem, init map[string]float64) (*pde.Problem, error) {
	q := *p
	q.Unknowns = slices.Clone(p.Unknowns)
	for name, v := range init {
		i := slices.IndexFunc(q.Unknowns, func(u pde.Unknown) bool { return u.Name == name })
		if i < 0 {
			var names []string
			for _, u := range q.Unknowns {
				names = append(names, u.Name)
			}
			if len(names) == 0 {
				return nil, usagef("--init %s: problem %q has no unknown coefficients", name, p.Name)
			}
			return nil, usagef("--init %s: problem %q has no unknown %q; its unknowns: %s", name, p.Name, name, strings.Join(names, ", "))
		}
		if q.Unknowns[i].Positive && !(v > 0) {
			return nil, usagef("--init %s=%g: %s is inferred on a log scale; start it above 0", name, v, name)
		}
		q.Unknowns[i].Init = v
	}
	return &q, nil
}

// takers lists the problems that an option (a field of problems.Options)
// changes.
func takers(option string) string {
	var names []string
	for _, e := range problems.Entries() {
		if e.Takes(option) {
			names = append(names, e.Name)
		}
	}
	return strings.Join(names, ", ")
}

// schedule is the schedule of problem p (built by ff.problem) for the data
// flags: with --data, the user's measurements keep none of the problem's
// stated noise.
func (ff *fitFlags) schedule(p *pde.Problem) (schedule.Schedule, error) {
	e, err := problems.Lookup(p.Name)
	if err != nil {
		return schedule.Schedule{}, asUsage(err)
	}
	sch := e.Schedule(ff.options())
	if ff.dataFile != "" {
		sch = sch.ForData()
	}
	return sch, nil
}

// context is the context the flags' fits train under: the interrupt's,
// with the hidden --nan-at's NaN injected into the loss (fault.WithNaNAt).
func (ff *fitFlags) context() context.Context {
	if ff.nanAt.V == 0 {
		return interrupt
	}
	return fault.WithNaNAt(interrupt, ff.nanAt.V)
}

// problemDefaults describes every problem's schedule for --help.
func problemDefaults() string {
	const row = "  %-15s  %-6s  %-6s  %-6v  %-11v  %-11v  %-7s  %s\n"
	head := "problems and their defaults (the paper's settings):\n" +
		fmt.Sprintf(row, "problem", "inputs", "hidden", "epochs", "hyper-start", "hyper-every", "alphas", "betas")
	return describeProblems(head, func(e problems.Entry, p *pde.Problem) string {
		d := e.Schedule(problems.Options{})
		return fmt.Sprintf(row, e.Name, strings.Join(p.Inputs, ","), intsComma(d.Hidden), d.Epochs, d.HyperStart, d.HyperEvery, d.AlphaMode, d.BetaMode)
	})
}

// describeProblems returns header followed by line(entry, problem) for
// every problem of the registry, built with the default options.
func describeProblems(header string, line func(e problems.Entry, p *pde.Problem) string) string {
	var b strings.Builder
	b.WriteString(header)
	for _, e := range problems.Entries() {
		b.WriteString(line(e, e.New(problems.Options{})))
	}
	return b.String()
}

func intsComma(v []int) string {
	s := (&cliflag.Sizes{V: v}).String()
	return s
}
