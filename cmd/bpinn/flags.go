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
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
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

// seedFlag is a positive uint64 (seed 0 would silently mean seed 1).
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

// fitFlags are the training flags shared by fit and ensemble.
type fitFlags struct {
	epochs, hyperStart, hyperEvery                posInt
	hessian, alphas, betas                        choice
	updater, activation                           choice
	recipe, sampling, polishMethod                choice
	curvature, roundBetas                         choice
	finalHyper, untieAt, polishIter, polishMemory posInt
	resample                                      int
	hidden                                        sizes
	polish, fixed, fixedMean                      bool
	kappa, lr, hyperLR                            posFloat
	reaction                                      float64
	dataFile                                      string
	alpha0, beta0                                 posFloat
	fixedAlpha, fixedBeta                         posFloat
	knownNoise                                    noiseFlag
	init                                          initFlag
	dataSeed                                      seedFlag
	nanAt                                         posInt // hidden: test-only NaN injection
}

// hiddenFlags are not shown by --help.
var hiddenFlags = map[string]bool{"nan-at": true}

func (ff *fitFlags) register(fs *flag.FlagSet) {
	ff.hessian = choice{"", []string{string(bayes.GaussNewton), string(bayes.Exact)}}
	ff.alphas = choice{"", []string{"single", "classes"}}
	ff.betas = choice{"", []string{"single", "split"}}
	ff.updater = choice{string(bayes.UpdaterAdam), []string{string(bayes.UpdaterAdam), string(bayes.UpdaterMacKay)}}
	ff.activation = choice{"tanh", []string{"tanh", "sin", "softplus", "sigmoid"}}
	ff.recipe = choice{bayes.RecipeTuned, bayes.Recipes}
	ff.dataSeed = seedFlag{1}
	ff.sampling = choice{string(pde.Uniform), []string{string(pde.Uniform), string(pde.LatinHypercube)}} // what the paper's problems draw
	ff.polishMethod = choice{"", []string{bayes.PolishGaussNewton, bayes.PolishLBFGS}}
	ff.curvature = choice{"", append([]string{bayes.CurvatureAuto}, curvKinds()...)}
	ff.roundBetas = choice{"", []string{bayes.RoundBetasTraining, bayes.RoundBetasHeldOut}}
	fs.Var(&ff.epochs, "epochs", "Adam `epochs` (default: the problem's, see below)")
	fs.Var(&ff.hyperStart, "hyper-start", "first `epoch` with a hyperparameter step (default: the problem's)")
	fs.Var(&ff.hyperEvery, "hyper-every", "`epochs` between hyperparameter steps (default 25)")
	fs.Var(&ff.curvature, "curvature", "structure of A at the hyperparameter steps during Adam (docs/curvature.md): dense (default but burgers-wide's auto), auto (by the number of weights), dual, diag, last-layer, layers, lowrank, stochastic; the final rounds, evidence and band stay dense up to 3000 weights")
	fs.Var(&ff.hessian, "hessian", "data Hessian in A and the evidence: Gauss-Newton (J^T J, always positive semi-definite) or exact (default gauss-newton)")
	fs.Var(&ff.alphas, "alphas", "single: one alpha for all weights; classes: one per layer's W and b (default: the problem's)")
	fs.Var(&ff.betas, "betas", "single: one beta for all terms; split: one per term group, e.g. pde, boundary, data (default: the problem's)")
	fs.Var(&ff.updater, "updater", "hyperparameter steps: Adam on ln alpha, ln beta (the paper) or MacKay's fixed point")
	fs.Var(&ff.activation, "activation", "activation of the hidden layers")
	fs.Var(&ff.hidden, "hidden", "hidden layer `sizes`, e.g. 8,8 (default: the problem's)")
	fs.Var(&ff.recipe, "recipe", "tuned: tied hyperparameters during Adam, then a Gauss-Newton polish and MacKay rounds to the fixed point (measured best, docs/results.md); paper: the paper's recipe as written")
	fs.BoolVar(&ff.polish, "polish", false, "paper recipe: polish w on E_T after Adam, hyperparameters held (always on in the tuned recipe)")
	fs.Var(&ff.finalHyper, "final-hyper", "most `rounds` of MacKay's fixed point (+ re-polish) after training, ending when alpha and beta move < 0.1% (tuned recipe: default 20, burgers 3; the paper's recipe runs none unless given)")
	fs.Var(&ff.polishMethod, "polish-method", "polish by gauss-newton (Newton steps with the Gauss-Newton matrix of E_T) or lbfgs (default gauss-newton)")
	fs.Var(&ff.polishIter, "polish-iter", "most `iterations` per polish (default: the problem's, else 2000)")
	fs.Var(&ff.polishMemory, "polish-memory", "`steps` the L-BFGS polish remembers (default 100; gonum's 15 was measured worse, docs/results/burgers-wide.md)")
	fs.Var(&ff.untieAt, "untie-at", "`epoch` from which alpha and beta groups move separately (default: after Adam in the tuned recipe, never tied in the paper's)")
	fs.IntVar(&ff.resample, "resample", 0, "move the collocation and boundary points to a new draw every `K` Adam epochs (measurements stay); the polish, rounds and evidence use the problem's points; -1 is never (default: the problem's; never, as in the paper, but burgers-wide)")
	fs.BoolVar(&ff.fixed, "fixed", false, "keep alpha = 0.05, beta = 1 fixed (the paper's baseline)")
	fs.Var(&ff.fixedAlpha, "fixed-alpha", "with --fixed: the held `alpha` (default 0.05; 1e-8, the least, is about no weight decay: DeepXDE's default)")
	fs.Var(&ff.fixedBeta, "fixed-beta", "with --fixed: the held `beta` of every term (default 1)")
	fs.Var(&ff.roundBetas, "round-betas", "final rounds: each inferred beta from its terms' misfit at the training points (MacKay's) or held-out: at fresh points where larger (not the paper's; docs/results/burgers-wide.md) (default: the problem's, burgers-wide held-out; training for the others)")
	fs.BoolVar(&ff.fixedMean, "fixed-mean", false, "with --fixed: divide each group's beta by N/2, so the loss is the sum of the groups' mean squared residuals (DeepXDE's loss; docs/results/burgers-wide.md)")
	fs.Var(&ff.init, "init", "start the problem's unknown coefficients at these `values` (natural scale), e.g. nu=0.002 (default: the problem's)")
	fs.Var(&ff.knownNoise, "known-noise", "hold beta = 1/std^2 for beta `groups` whose noise is known, e.g. data=0.02; none: every beta from the evidence (default: the problem's, data=0.02 for burgers-inverse and the burgers-wide problems; none for the others)")
	fs.Var(&ff.lr, "lr", "Adam learning `rate` of the weights, at most 1 (default 1e-3)")
	fs.Var(&ff.hyperLR, "hyper-lr", "Adam learning `rate` of ln alpha and ln beta, at most 1 (default 0.05)")
	fs.Var(&ff.alpha0, "alpha0", "initial `alpha`, held until the hyperparameter steps start (default 0.01: the paper starts low)")
	fs.Var(&ff.beta0, "beta0", "initial `beta` (default 1)")
	fs.Var(&ff.kappa, "kappa", "heat diffusivity `K` (the heat problems only; default 0.1; of the inverse ones, the truth that makes the data)")
	fs.StringVar(&ff.dataFile, "data", "", "your measurements, `FILE.csv`: a header with the problem's inputs, u and optionally std, then one row per point; they replace the problem's measured term or are added as a term \"data\" (docs/inverse.md)")
	fs.Float64Var(&ff.reaction, "reaction", 0, "reaction rate `r` of the data of heat2-inverse and heat2-reaction: u_t = kappa u_xx - r u (default 0: none; docs/inverse.md)")
	fs.Var(&ff.dataSeed, "data-seed", "`seed` of the training points and noise, the same for every fit")
	fs.Var(&ff.sampling, "sampling", "training points: uniform (independent draws, the paper) or lhs (Latin hypercube: stratified, no large holes)")
	fs.Var(&ff.nanAt, "nan-at", "test only: inject a NaN into the loss at this epoch")
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
		d, err := pde.ReadData(f, p)
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

// settings returns the bayes settings for seed, in which unset flags stay
// zero so the problem's schedule applies, after checking them resolved (as
// a combination, the schedule and the defaults filled in).
func (ff *fitFlags) settings(p *pde.Problem, seed uint64) (bayes.Settings, error) {
	sch, err := ff.schedule(p)
	if err != nil {
		return bayes.Settings{}, err
	}
	s := bayes.Settings{
		Schedule: sch,
		Seed:     seed, Hidden: ff.hidden.v, Activation: ff.activation.v,
		Epochs: ff.epochs.v, HyperStart: ff.hyperStart.v, HyperEvery: ff.hyperEvery.v,
		Curvature: ff.curvature.v,
		Hessian:   bayes.HessianKind(ff.hessian.v), AlphaMode: ff.alphas.v, BetaMode: ff.betas.v,
		Updater: bayes.Updater(ff.updater.v), Fixed: ff.fixed, Polish: ff.polish,
		Recipe: ff.recipe.v, FinalHyper: ff.finalHyper.v, UntieAt: ff.untieAt.v, PolishIter: ff.polishIter.v,
		PolishMethod: ff.polishMethod.v, PolishMemory: ff.polishMemory.v, KnownNoise: ff.knownNoise.v, Resample: ff.resample,
		LR: ff.lr.v, HyperLR: ff.hyperLR.v, Alpha0: ff.alpha0.v, Beta0: ff.beta0.v,
		FixedAlpha: ff.fixedAlpha.v, FixedBeta: ff.fixedBeta.v, FixedMean: ff.fixedMean, RoundBetas: ff.roundBetas.v,
	}
	r, err := s.Resolve(p)
	if err != nil {
		return s, errUsage{err.Error()}
	}
	if r.Recipe == bayes.RecipePaper && !r.Polish && (ff.polishMethod.v != "" || ff.polishIter.set || ff.polishMemory.set) {
		return s, usagef("--polish-method, --polish-iter and --polish-memory need --polish in the paper's recipe (the tuned recipe always polishes)")
	}
	if ff.fixed && (ff.alpha0.set || ff.beta0.set) {
		return s, usagef("--alpha0 and --beta0 do not apply with --fixed, which holds alpha = 0.05 and beta = 1 (or --fixed-alpha, --fixed-beta)")
	}
	if !ff.fixed && (ff.fixedAlpha.set || ff.fixedBeta.set || ff.fixedMean) {
		return s, usagef("--fixed-alpha, --fixed-beta and --fixed-mean need --fixed")
	}
	// Guards against a typo (5 for 5e-3); the library takes any rate, and a
	// fit at 1e150 ends "ok" with weights near 1e152.
	if ff.resample < -1 {
		return s, usagef("--resample %d: give K > 0 epochs between redraws, or -1 for never", ff.resample)
	}
	if ff.lr.v > 1 {
		return s, usagef("--lr %g: above 1 Adam moves every weight by about that much per epoch and the net runs away; the default is 1e-3", ff.lr.v)
	}
	if ff.hyperLR.v > 1 {
		return s, usagef("--hyper-lr %g: above 1 one step can change alpha or beta by more than a factor e; the default is 0.05", ff.hyperLR.v)
	}
	if ff.nanAt.set && ff.nanAt.v > r.Epochs {
		return s, usagef("--nan-at %d is beyond epochs = %d", ff.nanAt.v, r.Epochs)
	}
	return s, nil
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

func curvKinds() []string {
	var out []string
	for _, k := range curv.Kinds() {
		out = append(out, string(k))
	}
	return out
}
