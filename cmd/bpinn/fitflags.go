package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// fitFlags are the training flags shared by fit, ensemble and coverage:
// the settings flags of settingFlags, which write into s, and the flags of
// the problem's data.
type fitFlags struct {
	s        bayes.Settings // what the settings flags gave; the rest stays zero (the problem's schedule)
	kappa    posFloat
	reaction float64
	dataFile string
	sampling choice
	init     initFlag
	dataSeed seedFlag
	nanAt    posInt // hidden: test-only NaN injection
}

// hiddenFlags are not shown by --help.
var hiddenFlags = map[string]bool{"nan-at": true}

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
		{"epochs", "Adam `epochs` (default: the problem's, see below)", into(&s.Epochs)},
		{"hyper-start", "first `epoch` with a hyperparameter step (default: the problem's)", into(&s.HyperStart)},
		{"hyper-every", "`epochs` between hyperparameter steps (default 25)", into(&s.HyperEvery)},
		{"curvature", "structure of A at the hyperparameter steps during Adam (docs/curvature.md): dense (default but burgers-wide's auto), auto (by the number of weights), dual, diag, last-layer, layers, lowrank, stochastic; the final rounds, evidence and band stay dense up to " + fmt.Sprint(bayes.DenseLimit) + " weights", oneOf(&s.Curvature, "", bayes.Curvatures())},
		{"hessian", "data Hessian in A and the evidence: Gauss-Newton (J^T J, always positive semi-definite) or exact (default gauss-newton)", oneOf(&s.Hessian, "", []bayes.HessianKind{bayes.GaussNewton, bayes.Exact})},
		{"alphas", "single: one alpha for all weights; classes: one per layer's W and b (default: the problem's)", oneOf(&s.AlphaMode, "", []string{string(nn.AlphaSingle), string(nn.AlphaClasses)})},
		{"betas", "single: one beta for all terms; split: one per term group, e.g. pde, boundary, data (default: the problem's)", oneOf(&s.BetaMode, "", []string{"single", "split"})},
		{"updater", "hyperparameter steps: Adam on ln alpha, ln beta (the paper) or MacKay's fixed point", oneOf(&s.Updater, bayes.UpdaterAdam, bayes.Updaters)},
		{"activation", "activation of the hidden layers", oneOf(&s.Activation, nn.Tanh, nn.Activations)},
		{"hidden", "hidden layer `sizes`, e.g. 8,8 (default: the problem's)", &sizesInto{&s.Hidden}},
		{"recipe", "tuned: tied hyperparameters during Adam, then a Gauss-Newton polish and MacKay rounds to the fixed point (the best fits); paper: the paper's recipe as written", oneOf(&s.Recipe, bayes.RecipeTuned, bayes.Recipes)},
		{"polish", "paper recipe: polish w on E_T after Adam, hyperparameters held (always on in the tuned recipe)", &boolInto{&s.Polish}},
		{"final-hyper", "most `rounds` of MacKay's fixed point (+ re-polish) after training, ending when alpha and beta move < 0.1% (tuned recipe: default 20, burgers 3; the paper's recipe runs none unless given)", into(&s.FinalHyper)},
		{"polish-method", "polish by gauss-newton (Newton steps with the Gauss-Newton matrix of E_T) or lbfgs (default gauss-newton)", oneOf(&s.PolishMethod, "", bayes.PolishMethods)},
		{"polish-iter", "most `iterations` per polish (default: the problem's, else 2000)", into(&s.PolishIter)},
		{"polish-memory", "`steps` the L-BFGS polish remembers (default 100; gonum's 15 fits burgers-wide worse)", into(&s.PolishMemory)},
		{"untie-at", "`epoch` from which alpha and beta groups move separately (default: after Adam in the tuned recipe, never tied in the paper's)", into(&s.UntieAt)},
		{"resample", "move the collocation and boundary points to a new draw every `K` Adam epochs (measurements stay); the polish, rounds and evidence use the problem's points; -1 is never (default: the problem's; never, as in the paper, but burgers-wide)", &intInto{&s.Resample}},
		{"fixed", "keep alpha = 0.05, beta = 1 fixed (the paper's baseline)", &boolInto{&s.Fixed}},
		{"fixed-alpha", "with --fixed: the held `alpha` (default 0.05; 1e-8, the least, is about no weight decay: DeepXDE's default)", into(&s.FixedAlpha)},
		{"fixed-beta", "with --fixed: the held `beta` of every term (default 1)", into(&s.FixedBeta)},
		{"round-betas", "final rounds: each inferred beta from its terms' misfit at the training points (MacKay's) or held-out: at fresh points where larger (not the paper's) (default: the problem's, burgers-wide held-out; training for the others)", oneOf(&s.RoundBetas, "", bayes.RoundBetasChoices)},
		{"fixed-mean", "with --fixed: divide each group's beta by N/2, so the loss is the sum of the groups' mean squared residuals (DeepXDE's loss)", &boolInto{&s.FixedMean}},
		{"known-noise", "hold beta = 1/std^2 for beta `groups` whose noise is known, e.g. data=0.02; none: every beta from the evidence (default: the problem's, data=0.02 for burgers-inverse and the burgers-wide problems; lid=0.01,walls=0.01 for lid-driven; none for the others)", &noiseInto{dst: &s.KnownNoise}},
		{"lr", "Adam learning `rate` of the weights, at most 1 (default 1e-3)", into(&s.LR)},
		{"hyper-lr", "Adam learning `rate` of ln alpha and ln beta, at most 1 (default 0.05)", into(&s.HyperLR)},
		{"alpha0", "initial `alpha`, held until the hyperparameter steps start (default 0.01: the paper starts low)", into(&s.Alpha0)},
		{"beta0", "initial `beta` (default 1)", into(&s.Beta0)},
	}
}

func (ff *fitFlags) register(fs *flag.FlagSet) {
	for _, f := range settingFlags(&ff.s) {
		fs.Var(f.value, f.name, f.usage)
	}
	ff.dataSeed = seedFlag{1}
	ff.sampling = choice{string(pde.Uniform), []string{string(pde.Uniform), string(pde.LatinHypercube)}} // what the paper's problems draw
	fs.Var(&ff.kappa, "kappa", "heat diffusivity `K` (the heat problems only; default 0.1; of the inverse ones, the truth that makes the data)")
	fs.StringVar(&ff.dataFile, "data", "", "your measurements, `FILE.csv`: a header with the problem's inputs, u and optionally std, then one row per point; they replace the problem's measured term or are added as a term \"data\" (docs/inverse.md)")
	fs.Float64Var(&ff.reaction, "reaction", 0, "reaction rate `r` of the data of heat2-inverse and heat2-reaction: u_t = kappa u_xx - r u (default 0: none; docs/inverse.md)")
	fs.Var(&ff.dataSeed, "data-seed", "`seed` of the training points and noise, the same for every fit")
	fs.Var(&ff.sampling, "sampling", "training points: uniform (independent draws, the paper) or lhs (Latin hypercube: stratified, no large holes)")
	fs.Var(&ff.init, "init", "start the problem's unknown coefficients at these `values` (natural scale), e.g. nu=0.002 (default: the problem's)")
	fs.Var(&ff.nanAt, "nan-at", "test only: inject a NaN into the loss at this epoch")
}

// settings returns the bayes settings for seed, in which unset flags stay
// zero so the problem's schedule applies, after checking them resolved (as
// a combination, the schedule and the defaults filled in): an error of
// Resolve is bad input.
func (ff *fitFlags) settings(p *pde.Problem, seed uint64) (bayes.Settings, error) {
	sch, err := ff.schedule(p)
	if err != nil {
		return bayes.Settings{}, err
	}
	s := ff.s
	s.Schedule, s.Seed = sch, seed
	r, err := s.Resolve(p)
	if err != nil {
		return s, errUsage{err.Error()}
	}
	if s.Resample < -1 {
		return s, usagef("--resample %d: give K > 0 epochs between redraws, or -1 for never", s.Resample)
	}
	// Guards against a typo (5 for 5e-3); the library takes any rate, and a
	// fit at 1e150 ends "ok" with weights near 1e152.
	if s.LR > 1 {
		return s, usagef("--lr %g: above 1 Adam moves every weight by about that much per epoch and the net runs away; the default is 1e-3", s.LR)
	}
	if s.HyperLR > 1 {
		return s, usagef("--hyper-lr %g: above 1 one step can change alpha or beta by more than a factor e; the default is 0.05", s.HyperLR)
	}
	if ff.nanAt.set && ff.nanAt.v > r.Epochs {
		return s, usagef("--nan-at %d is beyond epochs = %d", ff.nanAt.v, r.Epochs)
	}
	return s, nil
}

// into is a flag that must be positive (and finite), parsed by positive,
// written into *dst.
func into[T int | float64](dst *T) flag.Value { return &positiveInto[T]{dst: dst} }

type positiveInto[T int | float64] struct{ dst *T }

func (p *positiveInto[T]) String() string {
	if p == nil || p.dst == nil || *p.dst == 0 {
		return ""
	}
	return fmt.Sprint(*p.dst)
}

func (p *positiveInto[T]) Set(s string) error {
	var v positive[T]
	if err := v.Set(s); err != nil {
		return err
	}
	*p.dst = v.v
	return nil
}

// oneOf is a flag limited to choices, written into *dst; def is what
// --help shows as the default when the flag is not given (dst then stays
// "", which Resolve fills).
func oneOf[T ~string](dst *T, def T, choices []T) flag.Value {
	return &choiceInto[T]{choice{string(def), choiceNames(choices)}, dst}
}

// choiceNames are the strings of choices.
func choiceNames[T ~string](choices []T) []string {
	s := make([]string, len(choices))
	for i, c := range choices {
		s[i] = string(c)
	}
	return s
}

type choiceInto[T ~string] struct {
	choice
	dst *T
}

func (c *choiceInto[T]) Set(s string) error {
	if err := c.choice.Set(s); err != nil {
		return err
	}
	*c.dst = T(s)
	return nil
}

// boolInto is a boolean flag written into *dst.
type boolInto struct{ dst *bool }

func (b *boolInto) IsBoolFlag() bool { return true }

func (b *boolInto) String() string {
	if b == nil || b.dst == nil {
		return "false"
	}
	return strconv.FormatBool(*b.dst)
}

func (b *boolInto) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("parse error") // the flag package's own word, which flagError rewrites
	}
	*b.dst = v
	return nil
}

// intInto is an integer flag of any sign written into *dst.
type intInto struct{ dst *int }

func (n *intInto) String() string {
	if n == nil || n.dst == nil || *n.dst == 0 {
		return ""
	}
	return strconv.Itoa(*n.dst)
}

func (n *intInto) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return intError(err)
	}
	*n.dst = v
	return nil
}

// sizesInto is a sizes flag written into *dst.
type sizesInto struct{ dst *[]int }

func (h *sizesInto) String() string {
	if h == nil || h.dst == nil {
		return ""
	}
	return (&sizes{*h.dst}).String()
}

func (h *sizesInto) Set(s string) error {
	var v sizes
	if err := v.Set(s); err != nil {
		return err
	}
	*h.dst = v.v
	return nil
}

// noiseInto is a known-noise flag written into *dst.
type noiseInto struct {
	noiseFlag
	dst *map[string]float64
}

func (n *noiseInto) Set(s string) error {
	if err := n.noiseFlag.Set(s); err != nil {
		return err
	}
	*n.dst = n.v
	return nil
}
