package bayes

import (
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// Updater selects how hyperparameters move.
type Updater string

// The updaters.
const (
	UpdaterAdam   Updater = "adam"   // Adam on ln alpha, ln beta with the analytic gradient of E_hyp (the paper)
	UpdaterMacKay Updater = "mackay" // MacKay's fixed point alpha = gamma/2E_w, beta = (N-gamma)/2E_D
)

// The safe range of every hyperparameter: an update that would leave it is
// rejected and counted (Fit.Rejected).
const (
	MinHyper = 1e-8
	MaxHyper = 1e8
)

// Recipes: what happens around the paper's Adam schedule.
const (
	// RecipeTuned (the default) adds to the paper's schedule what measured
	// best (docs/results.md): hyperparameter groups move tied during the Adam
	// phase, then a Gauss-Newton polish of w_MP, then rounds of MacKay's
	// fixed point with the groups split, each followed by a re-polish, until
	// the hyperparameters settle (FinalTol) or FinalHyper rounds are done.
	RecipeTuned = "tuned"
	// RecipePaper is the paper's recipe as written: Adam with hyperparameter
	// steps, nothing after it unless Polish/FinalHyper/UntieAt say so.
	RecipePaper = "paper"
)

// Recipes lists the recipes, the default first.
var Recipes = []string{RecipeTuned, RecipePaper}

// Settings configures a fit. A zero field takes the value of the
// Schedule's field of that name, else the toolkit's default written on it;
// the paper's problems register their schedules in pkg/problems.
type Settings struct {
	// Schedule is the problem's training schedule: the net, the epochs and
	// the hyperparameter steps its author measured to work. Resolve fills
	// the fields below that are left zero from it.
	Schedule schedule.Schedule
	// Recipe is RecipeTuned ("" means tuned) or RecipePaper. Under the tuned
	// recipe Polish is always on, FinalHyper 0 means the schedule's
	// (20 where it sets none) and UntieAt 0 means Epochs+1 (tied until the
	// final rounds).
	Recipe     string
	Seed       uint64      // network initialization; 0 means 1
	Hidden     []int       // hidden layers; nil means the schedule's
	Activation string      // "" means tanh
	Epochs     int         // 0 means the schedule's; none is an error
	HyperStart int         // 0 means the schedule's (scaled to Epochs when Epochs alone is set below it), else Epochs/3
	HyperEvery int         // 0 means the schedule's, else 25
	Hessian    HessianKind // "" means gauss-newton (measured: see docs/results.md)
	AlphaMode  string      // "" means the schedule's, else single
	BetaMode   string      // "" means the schedule's, else split when the problem's terms name groups
	Updater    Updater     // "" means adam
	Alpha0     float64     // initial alphas; 0 means 0.01 (the paper starts low)
	Beta0      float64     // initial betas; 0 means 1
	LR         float64     // Adam learning rate for weights; 0 means 1e-3 (2e-3 measured worse on wave)
	HyperLR    float64     // Adam learning rate on ln alpha, ln beta; 0 means 0.05
	// Fixed keeps alpha and beta at FixedAlpha/FixedBeta (the paper's
	// fixed-weight baseline of Table 3: 0.05 and 1).
	Fixed      bool
	FixedAlpha float64 // 0 means 0.05
	FixedBeta  float64 // 0 means 1
	// FixedMean divides each group's held beta by N_t/2, so that the loss
	// sum_t beta_t E_D^t is FixedBeta times the sum over groups of their
	// mean squared residuals: DeepXDE's loss, where a weight 1 weighs a
	// term of 80 points as much as one of 2540 (docs/results/burgers-wide.md).
	FixedMean bool
	// Polish minimizes E_T over w after Adam with the hyperparameters held
	// (PolishMethod says how).
	Polish bool
	// PolishIter is the iteration limit of each polish (Newton steps or
	// L-BFGS iterations); 0 means the schedule's, else 2000 (the
	// L-BFGS polishes of heat and wave reach it; docs/results.md measures
	// shorter and longer ones).
	PolishIter int
	// PolishMethod is PolishGaussNewton ("" means Gauss-Newton: measured
	// more accurate and cheaper, docs/results.md; above
	// GaussNewtonPolishLimit weights L-BFGS) or PolishLBFGS.
	PolishMethod string
	// PolishMemory is the L-BFGS polish's memory, the number of recent
	// steps its curvature model keeps; 0 means LBFGSMemory (and none for
	// a Gauss-Newton polish).
	PolishMemory int
	// LRDecay is the factor by which the Adam learning rate has decayed at
	// the last epoch (exponential decay, LR * LRDecay^(epoch/Epochs)); 0
	// means 1 (constant rate, the paper; LR 3e-3 with decay 0.03 was worse
	// on wave, docs/results.md).
	LRDecay float64
	// UntieAt is the epoch from which the alpha groups and the beta groups
	// move separately; before it all alphas share one value and all betas
	// share one (the single-hyperparameter model), which keeps a split beta
	// from running away while the network is still far from any minimum.
	// 0 means never tied; beyond Epochs means tied through the Adam phase
	// and split only in the FinalHyper rounds.
	UntieAt int
	// FinalHyper is the most rounds, after the last epoch (and the polish),
	// of a MacKay fixed-point step on the hyperparameters at the current w,
	// each followed by a re-polish when Polish is set, so that the Laplace
	// approximation is taken at a w_MP consistent with its alpha and beta
	// (the joint fixed point of the evidence framework). The paper recipe's
	// 0 means none.
	FinalHyper int
	// FinalTol ends the final rounds once a round moves no alpha and no
	// beta by more than this relative amount; 0 means 1e-3.
	FinalTol float64
	// RoundBetas is where each final round's MacKay update of an inferred
	// beta takes its terms' misfit: RoundBetasTraining (MacKay's, at the
	// training points) or RoundBetasHeldOut, at fresh points of the same
	// terms (Problem.Fresh) where that is larger: beta_t = (N_t - gamma_t)
	// / (N_t rms_fresh^2). The polish fits the equation at its own points
	// 10x closer than between them (burgers-wide), and the training-point
	// rounds then raise beta_pde until the fit lets the initial condition
	// go (docs/results/burgers-wide.md). Not the paper's method. "" means
	// the schedule's, else training.
	RoundBetas string
	// KnownNoise holds the beta of a group at 1/std^2 for a term whose
	// noise standard deviation is known (e.g. {"data": 0.02}: measurements
	// with a stated error); the evidence then sets only the other
	// hyperparameters. Keys are beta group names, with or without "beta_".
	// nil means the schedule's KnownNoise (none for most of the paper's
	// problems: every beta inferred); an empty map, every beta inferred.
	KnownNoise map[string]float64
	// HistoryEvery records the history every this many epochs; 0 means 25.
	HistoryEvery int
	// Progress, if set, is called every HistoryEvery epochs.
	Progress func(epoch, epochs int)
	// Stage, if set, is called as each step after the Adam epochs starts,
	// with what runs: "polish", "final round k of at most n" and, last,
	// "Laplace" (the evidence and the band), so that a progress display
	// can go on after the last epoch.
	Stage func(stage string)
	// Resample moves the points of every term that is not Measured to a
	// new draw (Problem.Redraw) every Resample epochs of the Adam phase, so
	// that Adam solves the PDE everywhere rather than at one set of points;
	// the polish, the final rounds and the evidence use the problem's own
	// points. 0 means the schedule's (never for most of the paper's
	// problems); negative means never.
	Resample int
	// Curvature is the structure of A at the hyperparameter steps of the
	// Adam phase (pkg/curv, measured in docs/curvature.md): "" means the
	// schedule's, else dense (the paper's A, every earlier result);
	// CurvatureAuto picks by the number of weights P and of residuals N
	// (curv.Auto); or a curv.Kind.
	// The final MacKay rounds and the reported evidence and band use the
	// dense A while P <= DenseLimit, the structure beyond it.
	Curvature string
}

// The final rounds' betas (Settings.RoundBetas).
const (
	RoundBetasTraining = "training"
	RoundBetasHeldOut  = "held-out"
)

// DenseLimit is the most weights for which a fit computes the dense A
// (P x P, O(P^3)) after the Adam phase: at 3000 weights one factorization
// costs seconds and the matrices about 0.2 GB.
const DenseLimit = 3000

// CurvatureAuto chooses a structure by the network's size.
const CurvatureAuto = "auto"

// Resolve fills the zero fields from s.Schedule and checks the
// result; errors name the field and the fix. What neither the settings nor
// the problem give is defaulted where a default is safe (written on each
// field) and refused where none is: no epochs, no hidden layer.
func (s Settings) Resolve(p *pde.Problem) (Settings, error) {
	d := s.Schedule
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Hidden == nil {
		if d.Hidden == nil {
			return s, fmt.Errorf("problem %q: no hidden layers: set Settings.Hidden or Settings.Schedule.Hidden (e.g. []int{8}); an empty, non-nil slice asks for none", p.Name)
		}
		s.Hidden = append([]int(nil), d.Hidden...)
	}
	if s.Activation == "" {
		s.Activation = string(nn.Tanh)
	}
	userEpochs := s.Epochs != 0
	if s.Epochs == 0 {
		s.Epochs = d.Epochs
	}
	if s.Epochs == 0 {
		return s, fmt.Errorf("problem %q: no epochs: set Settings.Epochs or Settings.Schedule.Epochs (the paper's problems train 15000 to 20000)", p.Name)
	}
	if s.HyperStart == 0 {
		s.HyperStart = d.HyperStart
		if userEpochs && d.Epochs > 0 && s.HyperStart > s.Epochs {
			// Epochs set alone below the default start: the start keeps
			// its share of the epochs (a start beyond them is refused).
			s.HyperStart = max(1, int(int64(d.HyperStart)*int64(s.Epochs)/int64(d.Epochs)))
		}
	}
	if s.HyperStart == 0 {
		s.HyperStart = max(1, s.Epochs/3)
	}
	if s.HyperEvery == 0 {
		s.HyperEvery = d.HyperEvery
	}
	if s.HyperEvery == 0 {
		s.HyperEvery = 25
	}
	switch s.Recipe {
	case "", RecipeTuned:
		s.Recipe = RecipeTuned
		s.Polish = true
		if s.FinalHyper == 0 {
			s.FinalHyper = d.FinalHyper
		}
		if s.FinalHyper == 0 {
			s.FinalHyper = 20
		}
		if s.UntieAt == 0 {
			s.UntieAt = s.Epochs + 1
		}
	case RecipePaper:
	default:
		return s, fmt.Errorf("unknown recipe %q: use tuned or paper", s.Recipe)
	}
	if s.Hessian == "" {
		s.Hessian = GaussNewton
	}
	if s.AlphaMode == "" {
		s.AlphaMode = d.AlphaMode
	}
	if s.AlphaMode == "" {
		s.AlphaMode = string(nn.AlphaSingle)
	}
	s.BetaMode = cmp.Or(s.BetaMode, d.BetaMode, p.DefaultBetaMode())
	if _, _, err := p.BetaGroups(s.BetaMode); err != nil {
		return s, err
	}
	if s.KnownNoise == nil && !s.Fixed && len(d.KnownNoise) > 0 {
		s.KnownNoise = maps.Clone(d.KnownNoise)
	}
	if s.Resample == 0 {
		s.Resample = d.Resample
	}
	if s.Resample < 0 { // never, where the schedule resamples
		s.Resample = 0
	}
	if s.Curvature == "" {
		s.Curvature = d.Curvature
	}
	if s.PolishIter == 0 {
		s.PolishIter = d.PolishIter
	}
	s.RoundBetas = cmp.Or(s.RoundBetas, d.RoundBetas, RoundBetasTraining)
	if err := s.checkKnownNoise(p); err != nil {
		return s, err
	}
	if s.FixedMean && !s.Fixed {
		return s, fmt.Errorf("FixedMean scales the held betas of a fixed fit: set Fixed too")
	}
	if s.Updater == "" {
		s.Updater = UpdaterAdam
	}
	setDefault(&s.Alpha0, 0.01)
	setDefault(&s.Beta0, 1)
	setDefault(&s.LR, 1e-3)
	setDefault(&s.HyperLR, 0.05)
	setDefault(&s.LRDecay, 1)
	setDefault(&s.FixedAlpha, 0.05)
	setDefault(&s.FixedBeta, 1)
	setDefault(&s.FinalTol, 1e-3)
	if s.HistoryEvery == 0 {
		s.HistoryEvery = 25
	}
	if s.PolishIter == 0 {
		s.PolishIter = 2000
	}
	if s.PolishMethod == "" {
		s.PolishMethod = PolishGaussNewton
		if numWeights(p.Dim(), s.Hidden) > GaussNewtonPolishLimit {
			s.PolishMethod = PolishLBFGS
		}
	}
	if s.PolishMethod != PolishLBFGS && s.PolishMethod != PolishGaussNewton {
		return s, fmt.Errorf("unknown polish method %q: use %s or %s", s.PolishMethod, PolishLBFGS, PolishGaussNewton)
	}
	if s.PolishMethod == PolishLBFGS && s.PolishMemory == 0 {
		s.PolishMemory = LBFGSMemory
	}
	if s.PolishMethod == PolishGaussNewton && s.PolishMemory != 0 {
		return s, fmt.Errorf("polish-memory = %d is the L-BFGS polish's, and this fit polishes by %s: choose polish method %s or leave the memory unset", s.PolishMemory, s.PolishMethod, PolishLBFGS)
	}
	switch {
	case s.Epochs < 0:
		return s, fmt.Errorf("epochs = %d: must be positive", s.Epochs)
	case s.HyperEvery < 0:
		return s, fmt.Errorf("hyper-every = %d: must be positive", s.HyperEvery)
	case s.HyperStart < 0:
		return s, fmt.Errorf("hyper-start = %d: must be positive", s.HyperStart)
	case s.HyperStart > s.Epochs:
		return s, fmt.Errorf("hyper-start = %d is beyond epochs = %d: lower it or raise epochs", s.HyperStart, s.Epochs)
	case s.LR < 0 || s.HyperLR < 0:
		return s, fmt.Errorf("learning rates must be positive")
	case s.PolishIter < 0:
		return s, fmt.Errorf("polish-iter = %d: must be positive", s.PolishIter)
	case s.PolishMemory < 0:
		return s, fmt.Errorf("polish-memory = %d: must be positive", s.PolishMemory)
	case s.FinalTol < 0:
		return s, fmt.Errorf("final-tol = %g: must be positive", s.FinalTol)
	case s.Resample > 0 && p.Redraw == nil:
		return s, fmt.Errorf("resample: problem %q cannot draw new points (its Redraw is nil): set Problem.Redraw or drop resample", p.Name)
	case s.RoundBetas != RoundBetasTraining && s.RoundBetas != RoundBetasHeldOut:
		return s, fmt.Errorf("unknown round betas %q: use %s or %s", s.RoundBetas, RoundBetasTraining, RoundBetasHeldOut)
	case s.RoundBetas == RoundBetasHeldOut && p.Fresh == nil:
		return s, fmt.Errorf("held-out rounds: problem %q cannot draw fresh points (its Fresh is nil): set Problem.Fresh or drop them", p.Name)
	case s.FinalHyper < 0:
		return s, fmt.Errorf("final-hyper = %d: must be non-negative", s.FinalHyper)
	case s.LRDecay < 0 || s.LRDecay > 1:
		return s, fmt.Errorf("lr-decay = %g: must lie in (0, 1]", s.LRDecay)
	case s.Alpha0 < MinHyper || s.Alpha0 > MaxHyper || s.Beta0 < MinHyper || s.Beta0 > MaxHyper:
		return s, fmt.Errorf("alpha0/beta0 must lie in [%g, %g]", MinHyper, MaxHyper)
	case s.Updater != UpdaterAdam && s.Updater != UpdaterMacKay:
		return s, fmt.Errorf("unknown updater %q: use adam or mackay", s.Updater)
	}
	for _, h := range s.Hidden {
		if h <= 0 {
			return s, fmt.Errorf("hidden sizes %v: every layer needs at least one unit", s.Hidden)
		}
	}
	if _, err := ParseHessian(string(s.Hessian)); err != nil {
		return s, err
	}
	if err := s.resolveCurvature(p); err != nil {
		return s, err
	}
	if _, err := nn.ParseActivation(s.Activation); err != nil {
		return s, err
	}
	return s, nil
}

// GaussNewtonPolishLimit is the most weights for which the polish defaults
// to Gauss-Newton: at 921 weights one Gauss-Newton iteration costs about
// 1.3 s of CPU (forming sum beta J^T J) against about 30 ms for L-BFGS, and
// 20 of them did not move burgers-wide's E_T (docs/results/burgers-wide.md).
const GaussNewtonPolishLimit = 400

// LBFGSMemory is the default memory of the L-BFGS polish, against gonum's
// 15: on burgers-wide (921 weights, E_T's betas spanning 1e2-1e7) four
// polishes of 1000 iterations with memory 100 reach rel L2 0.0028, of 2000
// with 50 0.0028 and of 4000 with 15 0.0040, at about the same cost per
// iteration (docs/results/burgers-wide.md).
const LBFGSMemory = 100

// numWeights is P of a network with dim inputs, the hidden layers and one
// output.
func numWeights(dim int, hidden []int) int {
	sizes := append(append([]int{dim}, hidden...), 1)
	P := 0
	for l := 0; l+1 < len(sizes); l++ {
		P += (sizes[l] + 1) * sizes[l+1]
	}
	return P
}

// resolveCurvature turns "" into dense and auto into curv.Auto's choice,
// and checks what the size allows.
func (s *Settings) resolveCurvature(p *pde.Problem) error {
	P, N := numWeights(p.Dim(), s.Hidden), 0
	for _, t := range p.Terms {
		N += len(t.Points)
	}
	switch s.Curvature {
	case "":
		s.Curvature = string(curv.Dense)
	case CurvatureAuto:
		s.Curvature = string(curv.Auto(P, N))
	}
	if _, err := curv.ParseKind(s.Curvature); err != nil {
		return fmt.Errorf("curvature: %v (or auto)", err)
	}
	if s.Hessian == Exact && s.Curvature != string(curv.Dense) {
		return fmt.Errorf("curvature %s needs the Gauss-Newton hessian: drop hessian exact or use curvature dense", s.Curvature)
	}
	if len(p.Unknowns) > 0 && s.Curvature != string(curv.Dense) {
		// The structured curvatures know alpha groups of weights only; a
		// flat-prior unknown is in none (docs/inverse.md).
		return fmt.Errorf("curvature %s: problem %q has unknown coefficients (%s), which only the dense curvature handles; use curvature dense", s.Curvature, p.Name, p.Unknowns[0].Name)
	}
	if P > DenseLimit && s.Polish && s.PolishMethod == PolishGaussNewton {
		return fmt.Errorf("%d weights: the Gauss-Newton polish factors the %d x %d matrix (limit %d weights); use polish-method lbfgs", P, P, P, DenseLimit)
	}
	return nil
}

func setDefault(x *float64, d float64) {
	if *x == 0 {
		*x = d
	}
}

// Polish methods.
const (
	PolishLBFGS       = "lbfgs"        // gonum's L-BFGS on E_T
	PolishGaussNewton = "gauss-newton" // Newton steps with the Gauss-Newton matrix of E_T
)

// Status of a fit.
const (
	StatusOK           = "ok"
	StatusDiverged     = "diverged"              // NaN/Inf in the loss or gradient
	StatusNotPD        = "not-positive-definite" // final A not positive definite: no evidence
	StatusOccamInvalid = "occam-invalid"         // an Occam argument <= 0: log evidence undefined
	StatusPolishFailed = "polish-failed"
	StatusCancelled    = "cancelled" // the context ended the fit: the fit so far
	// StatusNoLaplace: more than DenseLimit weights, so no dense Laplace
	// approximation (no band, no log evidence).
	StatusNoLaplace = "no-laplace"
)

// HistoryPoint is the state every HistoryEvery epochs.
type HistoryPoint struct {
	Epoch int       `json:"epoch"`
	ET    float64   `json:"e_t"`
	EHyp  float64   `json:"e_hyp,omitempty"` // at the last hyperparameter step
	Alpha []float64 `json:"alpha"`
	Beta  []float64 `json:"beta"`
}

// HyperStats counts what happened at hyperparameter steps.
type HyperStats struct {
	Steps    int `json:"steps"`
	NotPD    int `json:"not_pd"`    // A not positive definite: step skipped
	Rejected int `json:"rejected"`  // update would leave [MinHyper, MaxHyper]: rejected
	OccamBad int `json:"occam_bad"` // Occam argument <= 0 at a step (log evidence undefined there)
	// FinalRounds is the number of MacKay rounds after training and
	// FinalMove the largest relative change of a hyperparameter in the last
	// one (at most FinalTol when the rounds converged).
	FinalRounds int     `json:"final_rounds"`
	FinalMove   float64 `json:"final_move"`
	// FinalBackoff says why the fit is reported at an earlier round than
	// the last: the last rounds left A numerically singular (a hyperparameter
	// running toward 0 or the cap), so the fit steps back to the latest
	// round at which A factorized and the evidence is defined.
	FinalBackoff string `json:"final_backoff,omitempty"`
}

// Fit is a trained model with its Laplace approximation.
type Fit struct {
	Model    *Model
	Settings Settings
	Alpha    []float64
	Beta     []float64
	EW, ED   []float64
	Laplace  *Laplace // nil unless A is positive definite at the end
	Status   string
	Reason   string // what went wrong and where, empty when ok
	Epochs   int    // epochs run (less than Settings.Epochs when diverged)
	History  []HistoryPoint
	Hyper    HyperStats
	Polish   *nn.PolishResult
	Seconds  float64
	// Warnings say what an ok status does not: a hyperparameter held at
	// the clamp [MinHyper, MaxHyper] (the log evidence is then computed at
	// the clamp, not at a fixed point), final rounds that stopped before
	// settling. Empty when there is nothing to say.
	Warnings []string
	known    []float64 // per beta group: the held beta (KnownNoise), NaN when inferred
	fresh    *Model    // RoundBetasHeldOut: the model on the fresh points of the rounds' misfits
	// widening widens every sigma Predict gives (a band of pkg/band,
	// through WithBand); nil for a fit as trained.
	widening func(points [][]float64, sigma []float64)
}

// FinalRounds reports whether Train runs MacKay rounds after the Adam epochs
// (and the polish): FinalHyper > 0 and the hyperparameters are not fixed.
func (s Settings) FinalRounds() bool { return s.FinalHyper > 0 && !s.Fixed }

// checkKnownNoise checks KnownNoise against the problem's beta groups.
func (s Settings) checkKnownNoise(p *pde.Problem) error {
	if len(s.KnownNoise) == 0 {
		return nil
	}
	if s.Fixed {
		return fmt.Errorf("known noise and fixed weights: the baseline holds every beta at 1; use one of them")
	}
	names, _, err := p.BetaGroups(s.BetaMode)
	if err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(s.KnownNoise)) // errors name keys in a fixed order
	given := map[string]string{}                   // group -> the key that named it
	for _, k := range keys {
		std := s.KnownNoise[k]
		name := "beta_" + strings.TrimPrefix(k, "beta_")
		if len(names) == 1 && (k == "beta" || k == names[0]) {
			name = names[0]
		}
		if !slices.Contains(names, name) {
			return fmt.Errorf("known noise for %q: %s with %s betas has the groups %s", k, p.Name, s.BetaMode, strings.Join(names, ", "))
		}
		if other, dup := given[name]; dup {
			return fmt.Errorf("known noise for %q and %q: both name %s; give it once", other, k, name)
		}
		given[name] = k
		if b := 1 / (std * std); !(std > 0) || b < MinHyper || b > MaxHyper {
			return fmt.Errorf("known noise %s = %g: a standard deviation needs 1/std^2 in [%g, %g]", k, std, MinHyper, MaxHyper)
		}
	}
	return nil
}

// KnownBetas returns, for beta groups of these names, 1/std^2 of the
// group's KnownNoise, or NaN for a group the evidence infers.
func (s Settings) KnownBetas(names []string) []float64 {
	known := fillN(len(names), math.NaN())
	for k, std := range s.KnownNoise {
		for t, n := range names {
			if n == k || n == "beta_"+strings.TrimPrefix(k, "beta_") || (len(names) == 1 && k == "beta") {
				known[t] = 1 / (std * std)
			}
		}
	}
	return known
}

// holdKnown puts the known betas back into beta.
func (f *Fit) holdKnown(beta []float64) {
	for t, b := range f.known {
		if !math.IsNaN(b) {
			beta[t] = b
		}
	}
}

// Inferred reports whether f's beta group t is set by the evidence (not
// held at a known noise, Settings.KnownNoise).
func (f *Fit) Inferred(t int) bool { return f.known == nil || math.IsNaN(f.known[t]) }

// Train builds a network and runs the paper's training: Adam on E_T, and from
// HyperStart every HyperEvery epochs a hyperparameter step on E_hyp. A fit
// that diverges stops at that epoch with status "diverged"; a fit whose
// context ends stops at the next epoch (or final round) with status
// "cancelled" and what it has so far. Only an invalid problem or settings
// return an error, before anything is built.
func Train(ctx context.Context, p *pde.Problem, s Settings) (*Fit, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s, err := s.Resolve(p)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(s.Seed, 0x1417))
	sizes := append(append([]int{p.Dim()}, s.Hidden...), 1)
	net := nn.New(sizes, nn.Activation(s.Activation), rng)
	own := p
	if s.Resample > 0 { // the model's points move: give it its own terms
		c := *p
		c.Terms = slices.Clone(p.Terms)
		own = &c
	}
	m, err := newModel(own, net, s.AlphaMode, s.BetaMode)
	if err != nil {
		return nil, err
	}
	f := &Fit{Model: m, Settings: s, Status: StatusOK}
	f.Alpha = fillN(len(m.Alphas), s.Alpha0)
	f.Beta = fillN(len(m.BetaNames), s.Beta0)
	if s.Fixed {
		f.Alpha = fillN(len(m.Alphas), s.FixedAlpha)
		f.Beta = fillN(len(m.BetaNames), s.FixedBeta)
		if s.FixedMean {
			for g, n := range m.N {
				f.Beta[g] /= float64(n) / 2
			}
		}
	}
	f.known = s.KnownBetas(m.BetaNames)
	if s.RoundBetas == RoundBetasHeldOut && s.FinalRounds() {
		q, err := p.Fresh()
		if err == nil {
			f.fresh, err = f.ModelOn(q) // compiled once; each round copies the weights in
		}
		if err != nil {
			return nil, fmt.Errorf("held-out rounds: %w", err)
		}
	}
	f.holdKnown(f.Beta)
	P := m.NumWeights()
	grad := make([]float64, P)
	f.EW = make([]float64, len(f.Alpha))
	f.ED = make([]float64, len(f.Beta))
	opt := nn.NewAdam(P, &nn.AdamSettings{LR: s.LR})
	hyper := newHyperStepper(m, s)
	lastEHyp := 0.0
	decay := math.Log(s.LRDecay) / float64(s.Epochs)
	done := ctx.Done()
	nanAt := fault.NaNAt(ctx) // a test's injected divergence
	for epoch := 1; epoch <= s.Epochs; epoch++ {
		if cancelled(done) {
			f.cancel(p, epoch-1, start, ctx)
			return f, nil
		}
		if s.LRDecay != 1 {
			opt.S.LR = s.LR * math.Exp(decay*float64(epoch-1))
		}
		et := f.lossAndGrad(grad)
		if epoch == nanAt {
			et = math.NaN()
		}
		if bad := firstBad(et, grad); bad != "" {
			f.Status, f.Epochs = StatusDiverged, epoch
			f.Reason = fmt.Sprintf("%s is not finite at epoch %d", bad, epoch)
			f.endResample(p)
			f.Seconds = time.Since(start).Seconds()
			return f, nil
		}
		opt.Step(m.Theta, grad)
		if s.Resample > 0 && epoch%s.Resample == 0 && epoch < s.Epochs {
			if err := m.redraw(uint64(epoch / s.Resample)); err != nil {
				return nil, err
			}
		}
		if !s.Fixed && epoch >= s.HyperStart && (epoch-s.HyperStart)%s.HyperEvery == 0 {
			if e, ok := hyper.step(f, epoch < s.UntieAt); ok {
				lastEHyp = e
			}
		}
		if epoch%s.HistoryEvery == 0 || epoch == s.Epochs {
			f.History = append(f.History, HistoryPoint{Epoch: epoch, ET: et, EHyp: lastEHyp,
				Alpha: append([]float64(nil), f.Alpha...), Beta: append([]float64(nil), f.Beta...)})
			if s.Progress != nil {
				s.Progress(epoch, s.Epochs)
			}
		}
	}
	f.Epochs = s.Epochs
	f.endResample(p)
	stage := func(name string) {
		if s.Stage != nil {
			s.Stage(name)
		}
	}
	if s.Polish {
		stage("polish")
		f.polish()
	}
	var good *fitState // the latest round's state at which A factorized
	if s.FinalRounds() {
		for round := 0; round < s.FinalHyper && f.Status == StatusOK; round++ {
			if cancelled(done) {
				f.cancel(p, s.Epochs, start, ctx)
				return f, nil
			}
			stage(fmt.Sprintf("final round %d of at most %d", round+1, s.FinalHyper))
			before := f.state()
			move, ok := f.finalHyperStep()
			if !ok {
				break
			}
			good = before
			f.Hyper.FinalRounds, f.Hyper.FinalMove = round+1, move
			if s.Polish {
				f.polish()
			}
			if move <= s.FinalTol {
				break
			}
		}
	}
	stage("Laplace")
	f.finish()
	if f.Status == StatusNotPD && good != nil {
		reason := f.Reason
		f.restore(good)
		f.finish()
		f.Hyper.FinalBackoff = fmt.Sprintf("after round %d: %s; reported at round %d",
			f.Hyper.FinalRounds+1, strings.TrimPrefix(reason, "at the end of training: "), f.Hyper.FinalRounds)
	}
	f.warn()
	f.Seconds = time.Since(start).Seconds()
	return f, nil
}

// cancelled reports whether done is closed, without waiting.
func cancelled(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// cancel ends a fit whose context ended after epochs epochs: the Laplace
// approximation at the weights so far (when A factorizes), status cancelled.
func (f *Fit) cancel(p *pde.Problem, epochs int, start time.Time, ctx context.Context) {
	f.Epochs = epochs
	f.endResample(p)
	f.finish()
	f.Status, f.Reason = StatusCancelled, fmt.Sprintf("%v after %d of %d epochs", context.Cause(ctx), epochs, f.Settings.Epochs)
	f.Seconds = time.Since(start).Seconds()
}

// warn lists what an ok fit's status does not say: hyperparameters at the
// clamp, final rounds that hit their cap before settling.
func (f *Fit) warn() {
	if f.Status != StatusOK || f.Settings.Fixed {
		return
	}
	at := func(kind string, names []string, vals []float64, inferred func(int) bool) {
		for i, v := range vals {
			if inferred(i) && AtClamp(v) {
				name := kind + " " + names[i] // "beta_pde" or "beta", not "beta beta_pde"
				if names[i] == kind || strings.HasPrefix(names[i], kind+"_") {
					name = names[i]
				}
				f.Warnings = append(f.Warnings, fmt.Sprintf("%s = %g is at the clamp [%g, %g]: the log evidence is computed there, not at a fixed point", name, v, MinHyper, MaxHyper))
			}
		}
	}
	alphaNames := make([]string, len(f.Model.Alphas))
	for i, g := range f.Model.Alphas {
		alphaNames[i] = g.Name
	}
	at("alpha", alphaNames, f.Alpha, func(int) bool { return true })
	at("beta", f.Model.BetaNames, f.Beta, f.Inferred)
	s := f.Settings
	if s.FinalRounds() && f.Hyper.FinalBackoff == "" && f.Hyper.FinalRounds >= s.FinalHyper && f.Hyper.FinalMove > s.FinalTol {
		f.Warnings = append(f.Warnings, fmt.Sprintf("the final rounds did not settle: %d rounds (the cap) ended moving a hyperparameter by %.3g (tolerance %g); raise FinalHyper or read the evidence as approximate", f.Hyper.FinalRounds, f.Hyper.FinalMove, s.FinalTol))
	}
}

// endResample puts the problem's own points back after a resampled Adam
// phase: the polish, the rounds and the evidence use them.
func (f *Fit) endResample(p *pde.Problem) {
	if f.Settings.Resample > 0 {
		f.Model.setTerms(p.Terms)
	}
}

// fitState is what a final MacKay round changes: the weights, the
// hyperparameters, the round counters and the polish's end point.
type fitState struct {
	w, alpha, beta []float64
	rounds         int
	move           float64
	polishF        float64
	polishStatus   string
}

func (f *Fit) state() *fitState {
	st := &fitState{w: slices.Clone(f.Model.Theta), alpha: slices.Clone(f.Alpha), beta: slices.Clone(f.Beta),
		rounds: f.Hyper.FinalRounds, move: f.Hyper.FinalMove}
	if f.Polish != nil {
		st.polishF, st.polishStatus = f.Polish.F, f.Polish.Status
	}
	return st
}

// restore goes back to st; the polish's iteration counts stay the work done.
func (f *Fit) restore(st *fitState) {
	copy(f.Model.Theta, st.w)
	copy(f.Alpha, st.alpha)
	copy(f.Beta, st.beta)
	f.Hyper.FinalRounds, f.Hyper.FinalMove = st.rounds, st.move
	if f.Polish != nil {
		f.Polish.F, f.Polish.Status = st.polishF, st.polishStatus
	}
	f.Status, f.Reason = StatusOK, ""
}

// polish minimizes E_T over w (Gauss-Newton or L-BFGS, PolishMethod) at the
// current hyperparameters.
func (f *Fit) polish() {
	ps := &nn.PolishSettings{MaxIter: f.Settings.PolishIter, Store: f.Settings.PolishMemory}
	if f.Settings.PolishMethod == PolishGaussNewton {
		ps.Hessian = f.gaussNewtonMatrix()
	}
	r, err := nn.Polish(f.Model.Theta, func(w, g []float64) float64 { return f.lossAndGrad(g) }, ps)
	if f.Polish == nil {
		f.Polish = &r
	} else {
		f.Polish.F = r.F
		f.Polish.Iterations += r.Iterations
		f.Polish.Evals += r.Evals
		f.Polish.Status = r.Status
	}
	if err != nil {
		f.Status, f.Reason = StatusPolishFailed, err.Error()
	}
}

// gaussNewtonMatrix returns a function that writes the Gauss-Newton matrix
// of E_T, sum_t beta_t J_t^T J_t + diag(alpha), at the current weights.
func (f *Fit) gaussNewtonMatrix() func(h *mat.SymDense) {
	m := f.Model
	P := m.NumWeights()
	hs := make([][]float64, len(f.Beta))
	for t := range hs {
		hs[t] = make([]float64, P*P)
	}
	return func(h *mat.SymDense) {
		m.Hessians(GaussNewton, hs)
		for i := 0; i < P; i++ {
			for j := i; j < P; j++ {
				v := 0.0
				for t, b := range f.Beta {
					v += b * hs[t][i*P+j]
				}
				if gi := m.AlphaOf[i]; i == j && gi >= 0 {
					v += f.Alpha[gi]
				}
				h.SetSym(i, j, v)
			}
		}
	}
}

// finalHyperStep moves alpha and beta to MacKay's fixed point at the current
// weights, clamped to [MinHyper, MaxHyper], and returns the largest relative
// move; false (the hyperparameters are kept) when A is not positive
// definite or the step is not finite. The
// clamp matters where a term can be fitted exactly: wave-full's split
// beta_pde would go past 1e8, and the cap reads it as a residual noise
// floor of 1e-4.
func (f *Fit) finalHyperStep() (move float64, ok bool) {
	kind := curv.Dense
	if f.Model.NumWeights() > DenseLimit {
		kind = curv.Kind(f.Settings.Curvature)
	}
	hy, loss, err := f.evidence(kind, false)
	if err != nil {
		return 0, false
	}
	alpha, beta := hy.MacKay(loss)
	if f.fresh != nil {
		copy(f.fresh.Theta, f.Model.Theta)
		held, train := f.fresh.GroupRMS(f.Beta), rmsFromED(loss.ED, loss.N) // loss: at these weights
		for t, h := range held {
			if tr := train[t]; f.Inferred(t) && h > tr {
				beta[t] *= (tr / h) * (tr / h)
			}
		}
	}
	f.holdKnown(beta)
	next := append(append([]float64(nil), alpha...), beta...)
	prev := append(append([]float64(nil), f.Alpha...), f.Beta...)
	for i, v := range next {
		if math.IsNaN(v) {
			return 0, false
		}
		next[i] = math.Min(math.Max(v, MinHyper), MaxHyper)
		move = math.Max(move, math.Abs(next[i]-prev[i])/prev[i])
	}
	copy(f.Alpha, next[:len(alpha)])
	copy(f.Beta, next[len(alpha):])
	return move, true
}

func fillN(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// lossAndGrad returns E_T and writes its gradient at the current weights.
func (f *Fit) lossAndGrad(grad []float64) float64 {
	m := f.Model
	m.DataLoss(f.Beta, f.ED, grad)
	m.WeightLoss(f.EW)
	et := 0.0
	for t, b := range f.Beta {
		et += b * f.ED[t]
	}
	for i, a := range f.Alpha {
		et += a * f.EW[i]
	}
	for k, w := range m.Theta {
		if gi := m.AlphaOf[k]; gi >= 0 {
			grad[k] += f.Alpha[gi] * w
		}
	}
	return et
}

func notFinite(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

func firstBad(et float64, grad []float64) string {
	if math.IsNaN(et) || math.IsInf(et, 0) {
		return "E_T"
	}
	for k, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Sprintf("gradient[%d]", k)
		}
	}
	return ""
}

// Curvature evaluates the loss parts and data Hessians at the current weights.
func (f *Fit) Curvature() *Curvature {
	m := f.Model
	P := m.NumWeights()
	c := &Curvature{AlphaOf: m.AlphaOf, W: m.W(), N: m.N, Hidden: m.Net.Hidden(),
		EW: make([]float64, len(f.Alpha)), ED: make([]float64, len(f.Beta))}
	grad := make([]float64, P)
	m.DataLoss(f.Beta, c.ED, grad)
	m.WeightLoss(c.EW)
	c.H = make([][]float64, len(f.Beta))
	for t := range c.H {
		c.H[t] = make([]float64, P*P)
	}
	m.Hessians(f.Settings.Hessian, c.H)
	return c
}

// finish computes the final Laplace approximation and the status.
func (f *Fit) finish() {
	if P := f.Model.NumWeights(); P > DenseLimit {
		f.Model.DataLoss(f.Beta, f.ED, make([]float64, P))
		f.Model.WeightLoss(f.EW)
		if f.Status == StatusOK {
			f.Status = StatusNoLaplace
			f.Reason = fmt.Sprintf("%d weights > %d: no dense Laplace approximation (no band, no log evidence)", P, DenseLimit)
		}
		return
	}
	c := f.Curvature()
	copy(f.EW, c.EW)
	copy(f.ED, c.ED)
	l, err := NewLaplace(c, f.Alpha, f.Beta)
	var npd ErrNotPositiveDefinite
	switch {
	case errors.As(err, &npd):
		f.Status, f.Reason = StatusNotPD, fmt.Sprintf("at the end of training: %v", err)
		return
	case err != nil:
		f.Status, f.Reason = StatusNotPD, err.Error()
		return
	}
	f.Laplace = l
	if !l.OccamOK && f.Status == StatusOK {
		f.Status = StatusOccamInvalid
		f.Reason = "an Occam factor's argument is not positive: the log evidence is undefined"
	}
}

// hyperStepper moves the hyperparameters at one epoch.
type hyperStepper struct {
	m    *Model
	s    Settings
	adam *nn.Adam
	logs []float64 // ln alpha then ln beta
	grad []float64
}

func newHyperStepper(m *Model, s Settings) *hyperStepper {
	n := len(m.Alphas) + len(m.BetaNames)
	return &hyperStepper{m: m, s: s, adam: nn.NewAdam(n, &nn.AdamSettings{LR: s.HyperLR}), logs: make([]float64, n), grad: make([]float64, n)}
}

// step returns E_hyp before the move and whether A was positive definite.
// With tied set, all alphas move as one and all betas as one: the gradient
// along the tied direction is the sum of the groups' gradients, and MacKay's
// update pools gamma, E_w and E_D over the groups.
func (h *hyperStepper) step(f *Fit, tied bool) (float64, bool) {
	f.Hyper.Steps++
	l, c, err := f.evidence(curv.Kind(h.s.Curvature), false)
	if err != nil {
		f.Hyper.NotPD++
		return 0, false
	}
	if l.OccamArgAlpha != nil && !l.OccamOK { // only the dense A has the Occam factors here
		f.Hyper.OccamBad++
	}
	nA := len(f.Alpha)
	var alpha, beta []float64
	switch {
	case h.s.Updater == UpdaterMacKay && tied:
		alpha = fillN(nA, floats.Sum(l.GammaAlpha)/(2*floats.Sum(c.EW)))
		nTot, gTot, eTot := 0.0, 0.0, 0.0
		for t, n := range c.N {
			if f.Inferred(t) {
				nTot, gTot, eTot = nTot+float64(n), gTot+l.GammaBeta[t], eTot+c.ED[t]
			}
		}
		beta = fillN(len(f.Beta), (nTot-gTot)/(2*eTot))
	case h.s.Updater == UpdaterMacKay:
		alpha, beta = l.MacKay(c)
	default:
		ga, gb := floats.Sum(l.GradLogAlpha), 0.0
		for t, g := range l.GradLogBeta {
			if f.Inferred(t) {
				gb += g
			}
		}
		for i, a := range f.Alpha {
			h.logs[i] = math.Log(a)
			h.grad[i] = l.GradLogAlpha[i]
			if tied {
				h.grad[i] = ga
			}
		}
		for t, b := range f.Beta {
			h.logs[nA+t] = math.Log(b)
			h.grad[nA+t] = l.GradLogBeta[t]
			if tied {
				h.grad[nA+t] = gb
			}
			if !f.Inferred(t) {
				h.grad[nA+t] = 0
			}
		}
		h.adam.Step(h.logs, h.grad)
		alpha, beta = make([]float64, nA), make([]float64, len(f.Beta))
		for i := range alpha {
			alpha[i] = math.Exp(h.logs[i])
		}
		for t := range beta {
			beta[t] = math.Exp(h.logs[nA+t])
		}
	}
	f.holdKnown(beta)
	for _, v := range append(append([]float64(nil), alpha...), beta...) {
		if !(v >= MinHyper && v <= MaxHyper) {
			f.Hyper.Rejected++
			return l.EHyp, true
		}
	}
	copy(f.Alpha, alpha)
	copy(f.Beta, beta)
	return l.EHyp, true
}

// evidence evaluates the evidence at the current weights and
// hyperparameters with A under kind: the dense kind through NewLaplace
// (H_t from Settings.Hessian, Occam factors included), the others through
// pkg/curv from the residual Jacobians (the Occam factors only with
// squares). seed varies the stochastic structures between steps.
func (f *Fit) evidence(kind curv.Kind, squares bool) (*curv.Hyper, curv.Loss, error) {
	if kind == curv.Dense {
		c := f.Curvature()
		l, err := NewLaplace(c, f.Alpha, f.Beta)
		if err != nil {
			return nil, curv.Loss{}, err
		}
		return &l.Hyper, c.loss(l.Comb), nil
	}
	m := f.Model
	loss := curv.Loss{EW: make([]float64, len(f.Alpha)), ED: make([]float64, len(f.Beta)), W: m.W(), N: m.N, Comb: Comb(m.Net.Hidden())}
	m.DataLoss(f.Beta, loss.ED, make([]float64, m.NumWeights()))
	m.WeightLoss(loss.EW)
	tr, err := curv.Compute(f.system(), curv.Options{Kind: kind, Squares: squares, Seed: uint64(f.Hyper.Steps + f.Hyper.FinalRounds + 1)})
	if err != nil {
		return nil, loss, err
	}
	hy := curv.Evidence(tr, f.Alpha, f.Beta, loss)
	return &hy, loss, nil
}

// system is A at the current weights and hyperparameters for pkg/curv.
func (f *Fit) system() *curv.System {
	m := f.Model
	return &curv.System{P: m.NumWeights(), J: m.GroupJacobians(), Beta: f.Beta, Alpha: f.Alpha, AlphaOf: m.AlphaOf, Layers: m.Layers()}
}

// Predict returns the network's mean and the Laplace standard deviation
// sqrt(g^T A^-1 g) at points, each a slice of the problem's inputs in order
// (sigma is nil without a Laplace approximation). Points of the wrong width
// are an error.
func (f *Fit) Predict(points [][]float64) (mean, sigma []float64, err error) {
	return f.PredictQuantity(points, output)
}

// output is the quantity u itself.
func output(v *pde.Vars) *ad.Node { return v.U }

// PredictQuantity is Predict for any quantity built from the network's jet
// at the points: a derivative (func(v *pde.Vars) *ad.Node { return
// v.D("x") }), a flux, or a term's residual (a residual that reads targets
// or fields cannot be predicted at new points). Its band comes from the same
// Laplace posterior: sigma^2 = g^T A^-1 g with g the quantity's gradient
// with respect to the weights.
func (f *Fit) PredictQuantity(points [][]float64, q pde.Residual) (mean, sigma []float64, err error) {
	mean, J, err := f.meanJacobian(points, q)
	if err != nil || J == nil {
		return mean, nil, err
	}
	sigma = f.Laplace.Sigmas(J, len(points))
	f.Widen(points, sigma)
	return mean, sigma, nil
}

// Widen applies f's widening (WithBand) to sigma, its band at points;
// nothing for a fit as trained.
func (f *Fit) Widen(points [][]float64, sigma []float64) {
	if f.widening != nil {
		f.widening(points, sigma)
	}
}

// meanJacobian returns the quantity q at points and, when f has a Laplace
// approximation, its Jacobian g = dq/dw there (n x P, row-major).
func (f *Fit) meanJacobian(points [][]float64, q pde.Residual) (mean, J []float64, err error) {
	m := f.Model
	p := m.Problem
	n := len(points)
	mean = make([]float64, n)
	if n == 0 {
		return mean, nil, nil
	}
	flat := make([]float64, 0, n*p.Dim())
	for k, x := range points {
		if len(x) != p.Dim() {
			return nil, nil, fmt.Errorf("point %d has %d coordinates; problem %q has %d inputs (%s)", k, len(x), p.Name, p.Dim(), strings.Join(p.Inputs, ", "))
		}
		flat = append(flat, x...)
	}
	g := ad.NewGraph()
	x := g.Input("x", n, p.Dim())
	netPs := m.Net.Params(g)
	// The unknowns are parameters here too: a quantity that reads one (a
	// flux kappa u_x) varies with it, and its band integrates it out; u
	// itself has zero columns for them.
	ps, unknowns := netPs, map[string]*ad.Node{}
	for _, uk := range p.Unknowns {
		unknowns[uk.Name] = g.Param("unknown_"+uk.Name, 1, 1)
		ps = append(ps, unknowns[uk.Name])
	}
	qp := &pde.Problem{Name: p.Name, Inputs: p.Inputs, Params: p.Params, Unknowns: p.Unknowns, // an equation reads both by name
		Terms: []pde.Term{{Name: "prediction", Residual: q}}}
	u, err := qp.BuildResidual(0, pde.ResidualInputs{U: m.Net.Apply(netPs, x), X: x, Unknowns: unknowns})
	if err != nil {
		return nil, nil, err
	}
	if f.Laplace == nil {
		prog := g.Compile(u)
		if prog.Uses(x) { // a quantity of the unknowns alone reads no point
			prog.Set(x, flat)
		}
		ps.Bind(prog, m.Theta)
		prog.Run()
		copy(mean, prog.Value(u))
		return mean, nil, nil
	}
	jac := ad.NewJacobian(u, ps)
	if jac.Prog.Uses(x) {
		jac.Prog.Set(x, flat)
	}
	ps.Bind(jac.Prog, m.Theta)
	J = make([]float64, n*m.NumWeights())
	jac.ComputeTo(J)
	copy(mean, jac.Prog.Value(u))
	return mean, J, nil
}

// Errors of a fit on a grid against the exact solution, NaN where
// undefined. Fit.GridErrors fills the paper band's fields;
// record.ErrorsOf fills them all, the other bands' included (what a
// record's "errors" holds).
type Errors struct {
	RelL2      float64
	MSE        float64
	MaxAbs     float64
	Coverage2S float64 // fraction of grid points with |u - u*| <= 2 sigma
	GridN      int     // grid points used
	// Q95 is the 95 % quantile over the grid of |u - u*| / sigma for the
	// paper's band (1.96 for a calibrated Gaussian band).
	Q95 float64
	// The same with the held-out band (band.HeldOut), and its sigma over
	// the paper's, median over the grid.
	Coverage2SHeldOut, SigmaRatioHeldOut float64
	// The same with the calibrated band (band.Calibrated).
	Coverage2SCalibrated, Q95Calibrated, SigmaRatioCalibrated float64
}

// GridErrors evaluates the fit on the problem's n x n grid: the errors and
// the paper band's coverage; record.ErrorsOf adds q95 and the other bands.
func (f *Fit) GridErrors(n int) (Errors, error) {
	p := f.Model.Problem
	pts, exact := p.Grid(n)
	if exact == nil {
		return Errors{}, fmt.Errorf("problem %q has no exact solution", p.Name)
	}
	if k := slices.IndexFunc(exact, notFinite); k >= 0 {
		return Errors{}, fmt.Errorf("problem %q: the exact solution at %v is %v", p.Name, pts[k], exact[k])
	}
	mean, sigma, err := f.Predict(pts)
	if err != nil {
		return Errors{}, err
	}
	if k := slices.IndexFunc(mean, notFinite); k >= 0 {
		return Errors{}, fmt.Errorf("problem %q: the fit's mean at %v is %v", p.Name, pts[k], mean[k])
	}
	return ComputeErrors(mean, sigma, exact), nil
}

// ComputeErrors compares predictions (with optional sigma) with the truth.
func ComputeErrors(mean, sigma, exact []float64) Errors {
	var num, den, maxAbs float64
	covered := 0
	for i, u := range mean {
		d := u - exact[i]
		num += d * d
		den += exact[i] * exact[i]
		maxAbs = math.Max(maxAbs, math.Abs(d))
		if sigma != nil && math.Abs(d) <= 2*sigma[i] {
			covered++
		}
	}
	nan := math.NaN()
	e := Errors{RelL2: math.Sqrt(num / den), MSE: num / float64(len(mean)), MaxAbs: maxAbs, GridN: len(mean),
		Q95: nan, Coverage2SHeldOut: nan, SigmaRatioHeldOut: nan, Coverage2SCalibrated: nan, Q95Calibrated: nan, SigmaRatioCalibrated: nan}
	if sigma != nil {
		e.Coverage2S = float64(covered) / float64(len(mean))
	}
	return e
}
