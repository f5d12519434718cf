package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// fitFlags are the training flags shared by fit, ensemble and coverage:
// the settings flags of settingFlags, which write into s, and the flags of
// the problem's data.
type fitFlags struct {
	s        bayes.Settings // what the settings flags gave; the rest stays zero (the problem's schedule)
	kappa    cliflag.PosFloat
	reaction float64
	dataFile string
	sampling cliflag.Choice
	init     cliflag.Init
	dataSeed cliflag.Seed
	nanAt    cliflag.PosInt // hidden: test-only NaN injection
}

// settingFlag is a flag that sets one field of bayes.Settings: its name,
// its help, and a value that parses the text into the field.
type settingFlag struct {
	name, usage string
	value       flag.Value
}

// settingFlags is the table of the flags that set s's fields. A field no
// flag gives stays zero, so that Resolve takes the problem's schedule or
// the toolkit's default.
func settingFlags(s *bayes.Settings) []settingFlag {
	return []settingFlag{
		{"epochs", "Adam `epochs` (default: the problem's, see below)", cliflag.Into(&s.Epochs)},
		{"hyper-start", "first `epoch` with a hyperparameter step (default: the problem's)", cliflag.Into(&s.Hyper.Start)},
		{"hyper-every", "`epochs` between hyperparameter steps (default 25)", cliflag.Into(&s.Hyper.Every)},
		{"curvature", "structure of A at the hyperparameter steps during Adam (docs/curvature.md): dense (default up to " + fmt.Sprint(bayes.DenseLimit) + " weights, and burgers-wide's auto), auto (by the number of weights; the default above " + fmt.Sprint(bayes.DenseLimit) + "), dual, diag, last-layer, layers, lowrank, stochastic; the final rounds, evidence and band are dense up to " + fmt.Sprint(bayes.DenseLimit) + " weights, above it the exact dual form while residuals < weights, else low rank (docs/curvature.md)", cliflag.OneOf(&s.Curvature, "", bayes.Curvatures())},
		{"hessian", "data Hessian in A and the evidence: Gauss-Newton (J^T J, always positive semi-definite) or exact (default gauss-newton)", cliflag.OneOf(&s.Hessian, "", []bayes.HessianKind{bayes.GaussNewton, bayes.Exact})},
		{"alphas", "single: one alpha for all weights; classes: one per layer's W and b (default: the problem's)", cliflag.OneOf(&s.AlphaMode, "", nn.AlphaModes)},
		{"betas", "single: one beta for all terms; split: one per term group, e.g. pde, boundary, data (default: the problem's)", cliflag.OneOf(&s.BetaMode, "", bayes.BetaModes)},
		{"updater", "hyperparameter steps: Adam on ln alpha, ln beta (the paper) or MacKay's fixed point", cliflag.OneOf(&s.Updater, bayes.UpdaterAdam, bayes.Updaters)},
		{"activation", "activation of the hidden layers", cliflag.OneOf(&s.Activation, nn.Tanh, nn.Activations)},
		{"hidden", "hidden layer `sizes`, e.g. 8,8 (default: the problem's)", cliflag.SizesInto(&s.Hidden)},
		{"recipe", "tuned: tied hyperparameters during Adam, then a Gauss-Newton polish and MacKay rounds to the fixed point (the best fits); paper: the paper's recipe as written", cliflag.OneOf(&s.Recipe, bayes.RecipeTuned, bayes.Recipes)},
		{"polish", "paper recipe: polish w on E_T after Adam, hyperparameters held (always on in the tuned recipe)", cliflag.Bool(&s.Polish.On)},
		{"final-hyper", "most `rounds` of MacKay's fixed point (+ re-polish) after training, ending when alpha and beta move < 0.1% (tuned recipe: default 20, burgers 3; the paper's recipe runs none unless given)", cliflag.Into(&s.Final.Rounds)},
		{"polish-method", "polish by gauss-newton (Newton steps with the Gauss-Newton matrix of E_T) or lbfgs (default gauss-newton)", cliflag.OneOf(&s.Polish.Method, "", bayes.PolishMethods)},
		{"polish-iter", "most `iterations` per polish (default: the problem's, else 2000)", cliflag.Into(&s.Polish.Iter)},
		{"polish-memory", "`steps` the L-BFGS polish remembers (default 100; gonum's 15 fits burgers-wide worse)", cliflag.Into(&s.Polish.Memory)},
		{"untie-at", "`epoch` from which alpha and beta groups move separately (default: after Adam in the tuned recipe, never tied in the paper's)", cliflag.Into(&s.Hyper.UntieAt)},
		{"resample", "move the collocation and boundary points to a new draw every `K` Adam epochs (measurements stay); the polish, rounds and evidence use the problem's points; -1 is never (default: the problem's; never, as in the paper, but burgers-wide)", cliflag.Int(&s.Resample)},
		{"scale", "box: the network reads the domain's box as [-1, 1] and writes each field in the scale its conditions and data state (mean and spread), so an equation in physical units trains as in unit scale; none: the coordinates and fields as they are; auto: box's maps only where the box or a field is more than 10x from unit scale (default: none for the paper's problems, whose schedules were measured without it; auto for a problem without a schedule)", cliflag.OneOf(&s.Scale, "", bayes.Scales)},
		{"fixed", "keep alpha = 0.05, beta = 1 fixed (the paper's baseline)", cliflag.Bool(&s.Fixed.On)},
		{"fixed-alpha", "with --fixed: the held `alpha` (default 0.05; 1e-8, the least, is about no weight decay: DeepXDE's default)", cliflag.Into(&s.Fixed.Alpha)},
		{"fixed-beta", "with --fixed: the held `beta` of every term (default 1)", cliflag.Into(&s.Fixed.Beta)},
		{"round-betas", "final rounds: each inferred beta from its terms' misfit at the training points (MacKay's) or held-out: at fresh points where larger (not the paper's) (default: the problem's, held-out for burgers-wide, poisson-holes, poisson-holes-raw and lid-driven-soft; training for the others)", cliflag.OneOf(&s.Final.Betas, "", bayes.RoundBetasChoices)},
		{"fixed-mean", "with --fixed: divide each group's beta by N/2, so the loss is the sum of the groups' mean squared residuals (DeepXDE's loss)", cliflag.Bool(&s.Fixed.Mean)},
		{"known-noise", "hold beta = 1/std^2 for beta `groups` whose noise is known, e.g. data=0.02; none: every beta from the evidence (default: the problem's, data=0.02 for burgers-inverse and the burgers-wide problems; gauge=0.001 for lid-driven, lid=0.01,walls=0.01 for lid-driven-soft; none for the others)", cliflag.NoiseInto(&s.KnownNoise)},
		{"lr", "Adam learning `rate` of the weights, at most 1 (default 1e-3)", cliflag.Into(&s.LR)},
		{"lr-decay", "`factor` by which the Adam learning rate has decayed at the last epoch, exponentially, in (0, 1] (default 1: constant, the paper)", cliflag.Into(&s.LRDecay)},
		{"hyper-lr", "Adam learning `rate` of ln alpha and ln beta, at most 1 (default 0.05)", cliflag.Into(&s.Hyper.LR)},
		{"alpha0", "initial `alpha`, held until the hyperparameter steps start (default 0.01: the paper starts low)", cliflag.Into(&s.Hyper.Alpha0)},
		{"beta0", "initial `beta` (default 1)", cliflag.Into(&s.Hyper.Beta0)},
		{"threads", "`T` threads for one fit's row work; the fit is the same bits on any number (default: every core; in an ensemble, the cores shared among its fits)", cliflag.Into(&s.Threads)},
	}
}

func (ff *fitFlags) register(fs *flag.FlagSet) {
	for _, f := range settingFlags(&ff.s) {
		fs.Var(f.value, f.name, f.usage)
	}
	ff.dataSeed = cliflag.Seed{V: 1}
	ff.sampling = cliflag.Choice{Choices: []string{string(pde.Uniform), string(pde.LatinHypercube)}} // "": the problem's
	fs.Var(&ff.kappa, "kappa", "heat diffusivity `K` (the heat problems only; default 0.1; of the inverse ones, the truth that makes the data)")
	fs.StringVar(&ff.dataFile, "data", "", "your measurements, `FILE.csv`: a header with the problem's inputs, u and optionally std, then one row per point; they replace the problem's measured term or are added as a term \"data\" (docs/inverse.md)")
	fs.Float64Var(&ff.reaction, "reaction", 0, "reaction rate `r` of the data of heat2-inverse and heat2-reaction: u_t = kappa u_xx - r u (default 0: none; docs/inverse.md)")
	fs.Var(&ff.dataSeed, "data-seed", "`seed` of the training points and noise, the same for every fit")
	fs.Var(&ff.sampling, "sampling", "training points: uniform (independent draws, the paper) or lhs (Latin hypercube: stratified, no large holes) (default: the problem's, lhs for lid-driven and lid-driven-soft, uniform for the others)")
	fs.Var(&ff.init, "init", "start the problem's unknown coefficients at these `values` (natural scale), e.g. nu=0.002 (default: the problem's)")
	fs.Var(&ff.nanAt, "nan-at", "test only: inject a NaN into the loss at this epoch")
}

// config returns the configuration of a fit of the named problem (built
// by problem) for seed: the problem validated and the settings resolved
// once (bayes.NewConfig: the schedule and the defaults filled in where a
// flag was not given). An error of either is bad input.
func (ff *fitFlags) config(name string, seed uint64) (bayes.Config, error) {
	p, sch, err := ff.problem(name)
	if err != nil {
		return bayes.Config{}, err
	}
	s := ff.s
	s.Schedule, s.Seed = sch, seed
	cfg, err := bayes.NewConfig(p, s)
	if err != nil {
		return cfg, asUsage(err)
	}
	if epochs := cfg.Settings().Epochs; ff.nanAt.Given && ff.nanAt.V > epochs {
		return cfg, usagef("--nan-at %d is beyond epochs = %d", ff.nanAt.V, epochs)
	}
	return cfg, nil
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
