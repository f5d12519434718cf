package bayes

import (
	"math"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// The safe range of every hyperparameter: an update that would leave it is
// rejected and counted (Fit.Rejected).
const (
	MinHyper = 1e-8
	MaxHyper = 1e8
)

// Settings configures a fit. A zero field takes the value of the
// Schedule's field of that name, else the toolkit's default written on it;
// the paper's problems register their schedules in pkg/problems. The
// fields a user sets most sit at the top level; the settings of one step
// of the fit are grouped: Hyper (the hyperparameter steps of the Adam
// phase), Fixed (the fixed-weight baseline), Polish (the minimization after
// Adam) and Final (the MacKay rounds after it).
type Settings struct {
	// Schedule is the problem's training schedule: the net, the epochs and
	// the hyperparameter steps its author measured to work. Resolve fills
	// the fields below that are left zero from it.
	Schedule schedule.Schedule
	// Recipe is RecipeTuned ("" means tuned) or RecipePaper. Under the tuned
	// recipe Polish.On is always set, Final.Rounds 0 means the schedule's
	// (20 where it sets none) and Hyper.UntieAt 0 means Epochs+1 (tied
	// until the final rounds).
	Recipe     Recipe
	Seed       uint64        // network initialization, from 1 (0 is an error)
	Hidden     []int         // hidden layers; nil means the schedule's
	Activation nn.Activation // "" means tanh
	Epochs     int           // 0 means the schedule's; none is an error
	LR         float64       // Adam learning rate for weights, at most 1; 0 means 1e-3 (2e-3 fits wave worse)
	// LRDecay is the factor by which the Adam learning rate has decayed at
	// the last epoch (exponential decay, LR * LRDecay^(epoch/Epochs)); 0
	// means 1 (constant rate, the paper; LR 3e-3 with decay 0.03 fits wave
	// worse).
	LRDecay   float64
	Hessian   HessianKind  // "" means gauss-newton (positive semi-definite, so A factorizes)
	AlphaMode nn.AlphaMode // "" means the schedule's, else single
	BetaMode  pde.BetaMode // "" means the schedule's, else split when the problem's terms name groups
	Updater   Updater      // "" means adam
	// Hyper says when and how the hyperparameters move during the Adam
	// epochs.
	Hyper HyperSteps
	// Fixed holds alpha and beta instead of inferring them: the paper's
	// fixed-weight baseline.
	Fixed FixedWeights
	// Polish minimizes E_T over w after Adam with the hyperparameters held.
	Polish PolishSettings
	// Final is the MacKay rounds after the Adam epochs and the polish.
	Final FinalRounds
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
	// problems); -1 means never (below -1 is an error).
	Resample int
	// Curvature is the structure of A (pkg/curv) at the hyperparameter
	// steps of the Adam phase: "" means the schedule's, else curv.Dense
	// (the paper's A) up to DenseLimit weights and curv.Auto above it
	// (for a problem without unknowns and with the Gauss-Newton Hessian;
	// dense otherwise); CurvatureAuto picks by the number of weights P and
	// of residuals N (curv.Auto); or another curv.Kind. The final MacKay
	// rounds, the reported evidence and the band use the final Laplace's
	// structure whatever this one (curv.AutoLaplace: the dense A up to
	// DenseLimit weights, above it the exact dual form while N < P, else
	// the low-rank one); where none fits (the exact Hessian or unknowns
	// above the limit) the final rounds use this structure and the fit
	// reports no evidence and no band (status no-laplace).
	Curvature curv.Kind
	// Scale is ScaleBox (the network reads the domain's box as [-1, 1] and
	// writes each field in the scale its conditions and data state, so that
	// an equation in physical units trains as one in unit scale) or
	// ScaleNone, or ScaleAuto (the maps only where the box or a field is
	// far from unit scale); under auto and box the network also reads the
	// waves (nn.Wave) that the problem's oscillating conditions and
	// measurements ask for (ProblemWaves). "" means auto for settings without a schedule
	// (a problem nobody measured), none under a schedule (the paper's
	// problems, whose schedules were measured without the maps).
	Scale Scale
	// Threads is the number of threads of the fit's row work (the Adam
	// epochs, the Jacobians, J^T J and the traces of A, the band): 0 means
	// GOMAXPROCS, or a runner's share of it for each of the fits it runs
	// at once; more than GOMAXPROCS is capped there, and negative is an
	// error. The fit is the same bits on any number; records leave it out.
	Threads int
	// resolved marks settings that Resolve returned: resolving them again
	// fills nothing new and skips the checks of the settings as given,
	// which read fields Resolve filled.
	resolved bool
}

// HyperSteps are the hyperparameter steps of the Adam phase (Settings.Hyper):
// from which epoch alpha and beta move, how often, by how much, and from
// where.
type HyperSteps struct {
	Start  int     // first epoch with a step; 0 means the schedule's (scaled to Epochs when Epochs alone is set below it), else Epochs/3
	Every  int     // epochs between steps; 0 means the schedule's, else 25
	LR     float64 // Adam learning rate on ln alpha, ln beta, at most 1; 0 means 0.05
	Alpha0 float64 // initial alphas; 0 means 0.01 (the paper starts low)
	Beta0  float64 // initial betas; 0 means 1
	// Balance starts the betas balanced rather than all at Beta0: each
	// inferred group's in proportion to 1 / (its mean squared residual at
	// the initial weights), their geometric mean Beta0 (Model.BalancedBetas).
	// false means the schedule's (schedule.Schedule.BalanceBetas: set by a
	// derived schedule, not by the paper's problems' measured ones).
	Balance bool
	// UntieAt is the epoch from which the alpha groups and the beta groups
	// move separately; before it all alphas share one value and all betas
	// share one (the single-hyperparameter model), which keeps a split beta
	// from running away while the network is still far from any minimum.
	// 0 means never tied; beyond Epochs means tied through the Adam phase
	// and split only in the final rounds.
	UntieAt int
}

// FixedWeights is the paper's fixed-weight baseline of Table 3
// (Settings.Fixed): alpha and beta held at Alpha and Beta, 0.05 and 1 by
// default, instead of set by the evidence.
type FixedWeights struct {
	On    bool
	Alpha float64 // 0 means 0.05
	Beta  float64 // 0 means 1
	// Mean divides each group's held beta by N_t/2, so that the loss
	// sum_t beta_t E_D^t is Beta times the sum over groups of their mean
	// squared residuals: DeepXDE's loss, where a weight 1 weighs a term of
	// 80 points as much as one of 2540.
	Mean bool
}

// PolishSettings is the polish (Settings.Polish): a minimization of E_T
// over w after Adam, with the hyperparameters held, so that the Laplace
// approximation is taken at a minimum.
type PolishSettings struct {
	On bool // always on in the tuned recipe
	// Iter is the iteration limit of each polish (Newton steps or L-BFGS
	// iterations); 0 means the schedule's, else 2000 (the L-BFGS polishes
	// of heat and wave reach it).
	Iter int
	// Method is PolishGaussNewton or PolishLBFGS; "" means Gauss-Newton
	// (more accurate and cheaper on small nets) up to
	// GaussNewtonPolishLimit weights, L-BFGS above.
	Method PolishMethod
	// Memory is the L-BFGS polish's memory, the number of recent steps its
	// curvature model keeps; 0 means LBFGSMemory (and none for a
	// Gauss-Newton polish).
	Memory int
}

// FinalRounds are the MacKay rounds after the last epoch and the polish
// (Settings.Final): each is a MacKay fixed-point step on the
// hyperparameters at the current w, followed by a re-polish when
// Polish.On is set, so that the Laplace approximation is taken at a w_MP
// consistent with its alpha and beta (the joint fixed point of the
// evidence framework).
type FinalRounds struct {
	// Rounds is the most rounds; the paper recipe's 0 means none.
	Rounds int
	// Tol ends the rounds once a round moves no alpha and no beta by more
	// than this relative amount; 0 means 1e-3.
	Tol float64
	// Betas is where each round's MacKay update of an inferred beta takes
	// its terms' misfit: RoundBetasTraining (MacKay's, at the training
	// points) or RoundBetasHeldOut, at fresh points of the same terms
	// (Problem.Fresh) where that is larger: beta_t = (N_t - gamma_t) /
	// (N_t rms_fresh^2). The polish fits the equation at its own points 10x
	// closer than between them (burgers-wide), and the training-point
	// rounds then raise beta_pde until the fit lets the initial condition
	// go. Not the paper's method. "" means the schedule's, else training.
	Betas RoundBetas
}

// DenseLimit is the most weights for which a fit computes the dense A
// (P x P, O(P^3)) after the Adam phase. Measured at 3023 parameters
// (burgers-identify: Raissi's 2-20x8-1 net and two unknowns, 4000
// residuals), one dense A costs about 10 s of CPU for J^T J and 15 s for
// its factorization and the trace products of its two beta groups, 73 MB
// per matrix; P^3 puts the limit at about 1.2 times that.
const DenseLimit = 3200

// GaussNewtonPolishLimit is the most weights for which the polish defaults
// to Gauss-Newton: at 921 weights one Gauss-Newton iteration costs about
// 1.3 s of CPU (forming sum beta J^T J) against about 30 ms for L-BFGS, and
// 20 of them did not move burgers-wide's E_T.
const GaussNewtonPolishLimit = 400

// LBFGSMemory is the default memory of the L-BFGS polish, against gonum's
// 15: on burgers-wide (921 weights, E_T's betas spanning 1e2-1e7) four
// polishes of 1000 iterations with memory 100 reach rel L2 0.0028, of 2000
// with 50 0.0028 and of 4000 with 15 0.0040, at about the same cost per
// iteration.
const LBFGSMemory = 100

// numWeights is P of p's network with the hidden layers: one input per
// input of p, one output per field.
func numWeights(p *pde.Problem, hidden []int) int {
	sizes := append(append([]int{p.Dim()}, hidden...), len(p.OutputNames()))
	P := 0
	for l := 0; l+1 < len(sizes); l++ {
		P += (sizes[l] + 1) * sizes[l+1]
	}
	return P
}

func setDefault(x *float64, d float64) {
	if *x == 0 {
		*x = d
	}
}

// RunsFinalRounds reports whether Train runs MacKay rounds after the Adam
// epochs (and the polish): Final.Rounds > 0 and the hyperparameters are not
// fixed.
func (s Settings) RunsFinalRounds() bool { return s.Final.Rounds > 0 && !s.Fixed.On }

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

func fillN(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}
