package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// errUsage is bad input: the command prints it in one line and exits 2.
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usagef(format string, a ...any) error { return errUsage{fmt.Sprintf(format, a...)} }

// report prints err in one line and returns the exit code: 2 for bad input,
// 1 for anything else.
func report(stderr io.Writer, cmd string, err error) int {
	var u errUsage
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "bpinn %s: %s (see bpinn %s --help)\n", cmd, oneLine(u.msg), cmd)
		return exitUsage
	}
	fmt.Fprintf(stderr, "bpinn %s: %s\n", cmd, oneLine(err.Error()))
	return exitFail
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// positive is a number flag that must be positive (and finite) when given;
// set says whether it was given (zero means "the problem's default" in
// bayes.Settings).
type positive[T int | float64] struct {
	v   T
	set bool
}

type (
	posInt   = positive[int]
	posFloat = positive[float64]
)

func (p *positive[T]) String() string {
	if p == nil || !p.set {
		return ""
	}
	return fmt.Sprint(p.v) // the shortest form that reads back exactly
}

func (p *positive[T]) Set(s string) error {
	var v T
	switch v := any(&v).(type) {
	case *int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return intError(err)
		}
		*v = n
	case *float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("not a finite number")
		}
		*v = x
	}
	if v <= 0 {
		return errors.New("must be positive")
	}
	p.v, p.set = v, true
	return nil
}

// intError says why strconv.Atoi refused a flag's value.
func intError(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range")
	}
	return errors.New("not an integer")
}

// placeholder is implemented by flag values that name their argument in
// --help themselves (instead of a `word` in the usage text).
type placeholder interface{ placeholder() string }

// choice is a string flag limited to a list.
type choice struct {
	v       string
	choices []string
}

func (c *choice) String() string {
	if c == nil {
		return ""
	}
	return c.v
}

func (c *choice) placeholder() string { return strings.Join(c.choices, "|") }

func (c *choice) Set(s string) error {
	for _, x := range c.choices {
		if s == x {
			c.v = s
			return nil
		}
	}
	return fmt.Errorf("use %s", strings.Join(c.choices, " or "))
}

// sizes is a comma-separated list of positive layer sizes.
type sizes struct{ v []int }

func (h *sizes) String() string {
	if h == nil || h.v == nil {
		return ""
	}
	s := make([]string, len(h.v))
	for i, x := range h.v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func (h *sizes) Set(s string) error {
	var v []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return errors.New("want positive layer sizes separated by commas, e.g. 8,8")
		}
		v = append(v, n)
	}
	if len(v) > 8 {
		return errors.New("at most 8 hidden layers")
	}
	h.v = v
	return nil
}

// pairs is a flag's comma-separated KEY=VALUE list (parsePairs).
type pairs struct{ v map[string]float64 }

func (n *pairs) String() string {
	if n == nil || len(n.v) == 0 {
		return ""
	}
	var s []string
	for k, v := range n.v {
		s = append(s, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

// noiseFlag is a comma-separated list of GROUP=STD: beta groups whose noise
// standard deviation is known.
type noiseFlag struct{ pairs }

func (n *noiseFlag) Set(x string) error {
	if x == "none" { // every beta inferred, where the problem states a noise
		n.v = map[string]float64{}
		return nil
	}
	v, err := parsePairs(x, "GROUP", func(std float64) bool { return std > 0 && !math.IsInf(std, 0) },
		"GROUP=STD with a positive standard deviation, e.g. data=0.02")
	if err != nil {
		return err
	}
	n.v = v
	return nil
}

// initFlag holds NAME=VALUE starting values of a problem's unknowns.
type initFlag struct{ pairs }

func (n *initFlag) Set(x string) error {
	v, err := parsePairs(x, "unknown", func(u float64) bool { return !math.IsNaN(u) && !math.IsInf(u, 0) },
		"NAME=VALUE with a finite value, e.g. nu=0.002")
	if err != nil {
		return err
	}
	n.v = v
	return nil
}

// parsePairs parses comma-separated KEY=VALUE pairs whose values pass ok;
// what names a key in errors, want says the form.
func parsePairs(x, what string, ok func(float64) bool, want string) (map[string]float64, error) {
	v := map[string]float64{}
	for _, f := range strings.Split(x, ",") {
		k, val, cut := strings.Cut(strings.TrimSpace(f), "=")
		u, err := strconv.ParseFloat(val, 64)
		if !cut || k == "" || err != nil || !ok(u) {
			return nil, errors.New("want " + want)
		}
		if _, dup := v[k]; dup {
			return nil, fmt.Errorf("%s %s given twice", what, k)
		}
		v[k] = u
	}
	return v, nil
}

// manyFits are the flags of the commands that train many fits (ensemble,
// coverage): the fit's own, how many, the seed, the output file, the
// workers.
type manyFits struct {
	fit     fitFlags
	n       posInt
	seed    seedFlag
	out     string
	workers int
}

// register adds the flags, the count and the seed under the given names.
func (m *manyFits) register(fs *flag.FlagSet, count, countUsage, seed, seedUsage string) {
	m.fit.register(fs)
	m.n, m.seed = posInt{100, true}, seedFlag{1}
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

// seedFlag is a positive uint64: seeds start at 1 (bayes.Settings refuses 0).
type seedFlag struct{ v uint64 }

func (s *seedFlag) String() string {
	if s == nil {
		return ""
	}
	return strconv.FormatUint(s.v, 10)
}

func (s *seedFlag) Set(x string) error {
	v, err := strconv.ParseUint(x, 10, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range: seeds are 1 to 18446744073709551615")
	}
	if err != nil || v == 0 {
		return errors.New("not a positive integer: seeds start at 1")
	}
	s.v = v
	return nil
}

// options are the problems.Options of the data flags.
func (ff *fitFlags) options() problems.Options {
	return problems.Options{DataSeed: ff.dataSeed.v, Kappa: ff.kappa.v, Sampling: pde.Sampler(ff.sampling.v), Reaction: ff.reaction}
}

// problem builds the named problem with the data flags.
func (ff *fitFlags) problem(name string) (*pde.Problem, error) {
	e, err := problems.Lookup(name)
	if err != nil {
		return nil, errUsage{err.Error()}
	}
	if ff.kappa.set && !e.Takes("Kappa") {
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
		return nil, errUsage{err.Error()}
	}
	if ff.dataFile != "" {
		f, err := os.Open(ff.dataFile)
		if err != nil {
			return nil, usagef("--data: %v", err)
		}
		defer f.Close()
		d, err := datafile.ReadData(f, p)
		if err != nil {
			return nil, usagef("--data %s: %v", ff.dataFile, err)
		}
		p = p.WithData(d)
	}
	if len(ff.init.v) > 0 {
		if p, err = withInit(p, ff.init.v); err != nil {
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
		return schedule.Schedule{}, errUsage{err.Error()}
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
	if ff.nanAt.v == 0 {
		return interrupt
	}
	return fault.WithNaNAt(interrupt, ff.nanAt.v)
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
	s := (&sizes{v}).String()
	return s
}

// newFlagSet returns a FlagSet that reports errors to the caller only.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses flags and positional arguments in any order ("fit heat
// --epochs 10" and "fit --epochs 10 heat"). Everything after "--" is
// positional. It returns flag.ErrHelp for -h/--help.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage{flagError(err)}
		}
		left := fs.Args()
		if len(left) == 0 {
			return pos, nil
		}
		if used := len(rest) - len(left); used > 0 && rest[used-1] == "--" {
			return append(pos, left...), nil
		}
		pos = append(pos, left[0])
		rest = left[1:]
	}
}

// flag's error texts, and what a user of "--name" flags reads instead.
var (
	flagBadValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-([\w-]+): (.*)$`)
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoValue  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagSyntax   = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError rewrites a flag.Parse error in the words of the help: "--epochs
// 0: must be positive" instead of `invalid value "0" for flag -epochs: ...`.
func flagError(err error) string {
	s := err.Error()
	if m := flagBadValue.FindStringSubmatch(s); m != nil {
		v, uerr := strconv.Unquote(m[1])
		if uerr != nil || v == "" || strings.ContainsAny(v, " \t") {
			v = m[1]
		}
		why := m[3]
		switch why {
		case "parse error": // the flag package's own integer and bool flags
			why = "not a valid value"
		case "value out of range":
			why = "out of range"
		}
		return fmt.Sprintf("--%s %s: %s", m[2], v, why)
	}
	if m := flagUnknown.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := flagNoValue.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := flagSyntax.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("%s is not a flag: write --name or --name=value", m[1])
	}
	return s
}

// printUsage writes a command's usage line, text, flags with their defaults
// (hidden flags left out) and footer, wrapped to 80 columns.
func printUsage(w io.Writer, fs *flag.FlagSet, usageLine, text, footer string) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nflags:\n", usageLine, strings.TrimSpace(text))
	const col, width = 26, 80
	fs.VisitAll(func(f *flag.Flag) {
		if hiddenFlags[f.Name] {
			return
		}
		name, u := flag.UnquoteUsage(f)
		if p, ok := f.Value.(placeholder); ok {
			name = p.placeholder()
		}
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if def := f.DefValue; def != "" && def != "false" {
			u += " (default " + def + ")"
		}
		if len(line) >= col-1 { // the text starts on the next line
			fmt.Fprintln(w, line)
			line = ""
		}
		for _, l := range wrap(u, width-col) {
			fmt.Fprintf(w, "%-*s%s\n", col, line, l)
			line = ""
		}
	})
	if footer != "" {
		fmt.Fprintf(w, "\n%s", footer)
	}
}

// wrap splits s into lines of at most n bytes at spaces (a longer word
// keeps its own line).
func wrap(s string, n int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		if cur != "" && len(cur)+1+len(word) > n {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	return append(lines, cur)
}

// checkWritable fails early, before any training, when path cannot be
// written (a missing directory, a directory in its place).
func checkWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return usagef("cannot write %s: directory %s does not exist", path, dir)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return usagef("cannot write in %s: %v", dir, err)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}
