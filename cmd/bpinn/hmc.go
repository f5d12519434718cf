package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/cmd/internal/termbar"
	"github.com/evidence-pinn/bpinn/internal/atomicfile"
	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const hmcText = `Trains the Laplace fit of PROBLEM and samples the same posterior (alpha and
beta held at the fit's values) from its mode, then compares its band with
the Laplace band and the calibrated one (where the problem has fresh
points) on a grid; for an inverse problem (heat-inverse, ...) it
samples the weights and the unknowns jointly and sets each unknown's
marginal beside its Laplace interval. Details: docs/hmc.md, docs/inverse.md
and docs/cli.md.`

const hmcFooter = `exit status: 0 ok, 1 the fit or the sampler failed, or writing FILE failed
after the run; 2 bad input (FILE's directory is checked before the run).
`

// hmcFlags are the flags of bpinn hmc: they fill o, where a flag not given
// leaves nil, the default of posterior.Options (which depends on the
// sampler and the problem).
type hmcFlags struct {
	o             posterior.Options
	sampler       string
	seed, fitSeed cliflag.Seed
	hidden        cliflag.Sizes
	recipe        cliflag.Choice
	jsonPath      string
}

func newHMCFlags(fs *flag.FlagSet) *hmcFlags {
	h := &hmcFlags{seed: cliflag.Seed{V: 1}, fitSeed: cliflag.Seed{V: 1},
		recipe: cliflag.Choice{V: string(bayes.RecipePaper), Choices: cliflag.Names(bayes.Recipes)}}
	o := &h.o
	fs.StringVar(&h.sampler, "sampler", "", "`S`: nuts (the default) or hmc")
	fs.Var(cliflag.OptInt(&o.Samples, ""), "samples", "`N` draws kept per chain (default 400; hmc: 15000, the paper's)")
	fs.Var(cliflag.OptInt(&o.Warmup, ""), "burn-in", "`B` warm-up iterations per chain, adapting the step size and the metric (default 500; hmc: 1000; 0 for none)")
	fs.Var(cliflag.OptInt(&o.Chains, strconv.Itoa(mcmc.DefaultChains)), "chains", "`C` independent chains, run concurrently")
	fs.Var(cliflag.OptString(&o.Metric, string(mcmc.Diag)), "metric", "`M`: diag (inverse problems: dense), dense or unit: the inverse metric that warm-up estimates")
	fs.Var(cliflag.OptFloat(&o.TargetAccept, ""), "target-accept", "`D`, the mean acceptance statistic that warm-up aims for (default 0.98; hmc: 0.8; lower is faster, with more divergent draws)")
	fs.Var(cliflag.OptInt(&o.MaxDepth, ""), "max-depth", "NUTS: at most 2^`D` leapfrog steps per draw (default 12)")
	fs.Var((*temperatures)(&o.Temperatures), "temperatures", "parallel tempering: a comma-separated ladder `T,...` from 1 up (e.g. 1,1.3,1.7,2.2), a replica per temperature in each chain, exchanging states; costs one chain's gradients per temperature (default: none)")
	fs.Var(cliflag.OptInt(&o.Leapfrog, ""), "leapfrog", "hmc: `L` leapfrog steps per iteration (default 20; giving it selects --sampler hmc)")
	fs.Var(cliflag.Bool(&o.SampleHyper), "sample-hyper", "sample ln alpha and ln beta jointly with the weights (flat priors on the logs) and compare their marginals with the evidence's optimum and Occam widths")
	fs.Var(cliflag.Bool(&o.Whiten), "whiten", "sample in coordinates whitened by the fit's Laplace precision A: z = L^T (w - w_MP), A = L L^T (the warm-up's metric then starts from A^-1)")
	fs.Var(cliflag.OptString(&o.Whitening, string(bayes.Exact)), "whitening", "`W`, inverse problems: exact (|H|, the exact Hessian of E_T at the fit's mode with its eigenvalues made positive) or gauss-newton (the fit's A) whitens the coordinates z = L^T (theta - theta_MP), L L^T = |H| or A")
	fs.Var(&h.seed, "seed", "sampler seed `S`")
	fs.Var(&h.fitSeed, "fit-seed", "seed `S` of the network initialization of the fit")
	fs.Var(cliflag.OptInt(&o.Epochs, ""), "epochs", "`N` training epochs of the fit (default: the problem's)")
	fs.Var(&h.hidden, "hidden", "hidden layer `sizes` of the fit, e.g. 6 or 8,8 (default: the problem's)")
	fs.Var(&h.recipe, "recipe", "paper: the paper's schedule, Adam with hyperparameter updates; tuned (bpinn fit's default): then a Gauss-Newton polish and MacKay rounds, which end at a mode of the posterior")
	fs.StringVar(&h.jsonPath, "json", "", "write the settings, per-chain diagnostics, both predictive bands and the comparison to `FILE` (atomically)")
	return h
}

// options are the posterior.Options of the flags for the problem of entry.
func (h *hmcFlags) options(entry problems.Entry) posterior.Options {
	o := h.o
	o.Sampler, o.Seed = mcmc.Sampler(h.sampler), h.seed.V
	o.Fit = bayes.Settings{Schedule: entry.ScheduleFor(problems.Options{}), Seed: h.fitSeed.V, Recipe: bayes.Recipe(h.recipe.V), Hidden: h.hidden.V}
	return o
}

// temperatures is the --temperatures flag: comma-separated numbers (the
// ladder itself is checked with the other options).
type temperatures []float64

func (t *temperatures) String() string {
	if t == nil {
		return ""
	}
	s := make([]string, len(*t))
	for i, v := range *t {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (t *temperatures) Set(s string) error {
	var v []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number: give temperatures like 1,1.3,1.7,2.2", f)
		}
		v = append(v, x)
	}
	*t = v
	return nil
}

// setupHMC registers bpinn hmc's flags.
func setupHMC(fs *flag.FlagSet) func([]string, env) error {
	h := newHMCFlags(fs)
	return func(pos []string, e env) error { return runHMC(h, pos, e.Stdout, e.Stderr) }
}

// runHMC checks the flags and the problem, then trains the fit and samples
// it; a failure after the checks is not a usage error (exit 1).
func runHMC(h *hmcFlags, positional []string, stdout, stderr io.Writer) error {
	if len(positional) == 0 {
		return usagef(`missing the problem, e.g. "regression" or "heat"`)
	}
	if len(positional) > 1 {
		return usagef("one problem expected, got %q", positional)
	}
	entry, err := problems.Lookup(positional[0])
	if err != nil {
		return usagef("%v", err)
	}
	p := entry.New(problems.Options{})
	plan, err := h.options(entry).Resolve(p)
	if err != nil {
		return usagef("%v", err)
	}
	if h.jsonPath != "" {
		if err := cliflag.CheckWritable(h.jsonPath); err != nil {
			return err
		}
	}
	hs, s := &plan.Sampler, plan.Fit.Settings()
	if plan.Unknowns { // an inverse problem: the unknowns' marginals (docs/inverse.md)
		return hmcUnknowns(plan.Fit, hs, plan.Whitening, stdout, stderr)
	}
	fmt.Fprintf(stderr, "bpinn hmc: training the Laplace fit of %s (%s recipe, %d epochs, seed %d)\n", p.Name, s.Recipe, s.Epochs, s.Seed)
	fit, err := bayes.TrainConfig(interrupt, plan.Fit)
	if err != nil {
		return err
	}
	if fit.Laplace == nil || fit.Status == bayes.StatusDiverged {
		return fmt.Errorf("the fit with seed %d ended %s (%s); try another --fit-seed", s.Seed, fit.Status, fit.Reason)
	}
	var barDone func()
	hs.Progress, barDone = termbar.Chains(stderr, hs.Chains)
	fmt.Fprintf(stderr, "bpinn hmc: sampling with %s (%s metric, %s), %s x %d draws after %d warm-up\n",
		hs.Sampler, hs.Metric, posterior.SamplerLine(string(hs.Sampler), hs.MaxDepth, hs.Resolved().Leapfrog), runner.Plural(hs.Chains, "chain"), hs.Samples, hs.Warmup)
	cmp, err := posterior.CompareHMC(interrupt, fit, hs, &plan.Compare)
	barDone()
	if err != nil {
		return err
	}
	rep := posterior.NewReport(fit, cmp)
	rep.WriteText(stdout)
	if h.jsonPath != "" {
		if err := atomicfile.WriteJSON(h.jsonPath, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", h.jsonPath)
	}
	return nil
}

// hmcUnknowns is "bpinn hmc PROBLEM" for an inverse problem: the fit of
// cfg (the tuned defaults but the seed and net), then the sampler on the
// joint posterior of its weights and unknowns at the fit's alpha and beta,
// each unknown's marginal beside its Laplace one.
func hmcUnknowns(cfg bayes.Config, hs *mcmc.Settings, whiten bayes.HessianKind, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "bpinn hmc: training the fit of %s (seed %d)\n", cfg.Problem().Name, cfg.Settings().Seed)
	f, err := bayes.TrainConfig(interrupt, cfg)
	if err != nil {
		return err
	}
	var barDone func()
	hs.Progress, barDone = termbar.Chains(stderr, hs.Chains)
	su, res, err := posterior.SampleUnknowns(interrupt, f, hs, whiten)
	barDone()
	if err != nil {
		return err
	}
	return posterior.WriteUnknowns(stdout, f, su, res, whiten)
}
