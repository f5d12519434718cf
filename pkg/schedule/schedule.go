// Package schedule holds a problem's training schedule: the network, the
// Adam epochs, when the hyperparameters move, and where a problem needs
// them its own polish length, curvature, known noise, resampling period and
// final rounds. A schedule is what a problem's author measured to work; it
// is data beside the problem (pkg/problems registers one per paper
// problem), not part of it, so that pkg/pde knows nothing of training.
//
// bayes.Settings carries a schedule (Settings.Schedule) and its Resolve
// fills what the settings leave zero from it, then the toolkit's defaults:
// an explicit setting wins over the schedule, the schedule over the
// defaults. The fields' meanings are those of the bayes.Settings fields of
// the same names, where Settings groups them: HyperStart and HyperEvery
// are Settings.Hyper.Start and Hyper.Every, FinalHyper and RoundBetas
// Settings.Final.Rounds and Final.Betas, PolishIter Settings.Polish.Iter.
package schedule

import (
	"maps"
	"slices"
)

// Schedule is a problem's training schedule; zero fields leave the choice
// to the toolkit's defaults (bayes.Settings.Resolve).
type Schedule struct {
	Hidden     []int  // hidden layer sizes
	Epochs     int    // Adam epochs
	HyperStart int    // first epoch with a hyperparameter update
	HyperEvery int    // epochs between hyperparameter updates
	AlphaMode  string // "single" or "classes"
	// BetaMode is "single" (one beta for every term) or "split" (one beta
	// per term group); "" leaves it to the problem (pde.Problem.DefaultBetaMode).
	BetaMode string
	// FinalHyper caps the tuned recipe's final MacKay rounds where the
	// default (20) does not suit the problem.
	FinalHyper int
	PolishIter int
	Curvature  string
	// KnownNoise holds the betas of groups whose measurements have a
	// stated noise standard deviation, by group name.
	KnownNoise map[string]float64
	Resample   int
	RoundBetas string
	// BalanceBetas starts each beta group in proportion to the inverse
	// of its mean squared residual at the initial weights
	// (bayes.HyperSteps.Balance) rather than every beta at one value.
	BalanceBetas bool
}

// ForData is the schedule for the problem with its measurements replaced
// by a user's (pde.Problem.WithData): the stated noise of the problem's own
// data is not the user's, so it is dropped, and the betas are left to the
// problem (split by term group: the data's noise is not the equation's).
func (s Schedule) ForData() Schedule {
	s.KnownNoise = nil
	s.BetaMode = ""
	return s
}

// Clone returns a copy of s that shares no slice or map with it.
func (s Schedule) Clone() Schedule {
	s.Hidden = slices.Clone(s.Hidden)
	s.KnownNoise = maps.Clone(s.KnownNoise)
	return s
}

// Facts are what Derive reads of a problem: the number of inputs, of
// fields (network outputs) and of residuals, the points of every term.
type Facts struct {
	Inputs, Outputs, Points int
}

// The bounds of a derived schedule (Derive).
const (
	// DeriveMaxWeights caps a derived net's weights: well below the dense
	// Laplace limit (bayes.DenseLimit, 3200), so that the evidence, the
	// band and the Gauss-Newton steps stay cheap.
	DeriveMaxWeights = 600
	// DeriveMinWidth and DeriveMaxWidth bound a derived layer's width.
	DeriveMinWidth, DeriveMaxWidth = 6, 32
	// DeriveWork is the Adam phase's budget of weight-residual products,
	// epochs x weights x residuals (about a minute of one core on the
	// problems of docs/results/defaults.md); DeriveMinEpochs and
	// DeriveMaxEpochs bound the epochs it gives.
	DeriveWork                       = 3e8
	DeriveMinEpochs, DeriveMaxEpochs = 2000, 10000
	// DerivePolishWork is the budget of the polishes (the one after Adam
	// and one per final round), in products weights x residuals x (1 +
	// inputs) per iteration summed over the iterations: one L-BFGS
	// iteration cost 0.74-0.92 ns per such product on one core on the
	// PINNacle suite's problems (a residual takes derivatives along each
	// input), so the budget is about 3.5 minutes of one core, and a fit
	// refitted with its conditions first stays within 10. It is what the
	// toolkit's defaults (20 rounds of 2000 iterations) cost on
	// PINNacle's Burgers1D (2.2e11), which needs them: 6 rounds or
	// polishes of 600 iterations leave it 2-3x further from the solution.
	DerivePolishWork = 2.5e11
	// DerivePolishIter and DeriveFinalRounds are a derived schedule's
	// polish length and final rounds where the budget allows them (the
	// toolkit's defaults); DeriveMinPolishIter and DeriveMinFinalRounds
	// are the least it cuts them to, polishes first.
	DerivePolishIter, DeriveMinPolishIter   = 2000, 500
	DeriveFinalRounds, DeriveMinFinalRounds = 20, 3
)

// Derive is the schedule of a problem nobody measured, from its facts:
//
//   - the net: one hidden layer for one input and one field, two otherwise,
//     as wide as fits in half the residuals (so that N_t - gamma_t, what
//     MacKay's beta reads, stays large) and in DeriveMaxWeights, within
//     [DeriveMinWidth, DeriveMaxWidth];
//   - the epochs: DeriveWork over weights x residuals, rounded down to
//     500 and within [DeriveMinEpochs, DeriveMaxEpochs];
//   - the hyperparameter steps from a third of the epochs, every 25;
//   - the starting betas balanced (BalanceBetas): each beta group's
//     inversely proportional to its mean squared residual at the initial
//     weights, so that the epochs before the first hyperparameter step do
//     not train toward whichever residual is largest in the problem's
//     units;
//   - the polishes and final rounds within DerivePolishWork
//     (polishBudget): the toolkit's 2000 iterations and 20 rounds where
//     they fit, else shorter polishes (down to DeriveMinPolishIter, by
//     100s), then fewer rounds (down to DeriveMinFinalRounds).
//
// The alpha and beta modes are the toolkit's defaults.
func Derive(f Facts) Schedule {
	layers := 2
	if f.Inputs <= 1 && f.Outputs <= 1 {
		layers = 1
	}
	budget := min(f.Points/2, DeriveMaxWeights)
	width := DeriveMinWidth
	for w := DeriveMinWidth + 1; w <= DeriveMaxWidth && Weights(f.Inputs, f.Outputs, layers, w) <= budget; w++ {
		width = w
	}
	hidden := make([]int, layers)
	for i := range hidden {
		hidden[i] = width
	}
	work := float64(Weights(f.Inputs, f.Outputs, layers, width)) * float64(max(f.Points, 1))
	epochs := int(DeriveWork/work) / 500 * 500
	epochs = min(max(epochs, DeriveMinEpochs), DeriveMaxEpochs)
	polish, rounds := polishBudget(Weights(f.Inputs, f.Outputs, layers, width), f)
	return Schedule{Hidden: hidden, Epochs: epochs, HyperStart: epochs / 3, HyperEvery: 25, BalanceBetas: true,
		PolishIter: polish, FinalHyper: rounds}
}

// polishBudget is the polish length and the final rounds of a derived
// schedule of a net of weights weights on the problem of f: the most
// iterations, 1 + rounds polishes of them, that DerivePolishWork allows,
// within their bounds.
func polishBudget(weights int, f Facts) (polish, rounds int) {
	unit := float64(weights) * float64(max(f.Points, 1)) * float64(1+f.Inputs)
	iters := int(min(DerivePolishWork/unit, 1e9)) // over all polishes
	polish = iters / (1 + DeriveFinalRounds) / 100 * 100
	polish = min(max(polish, DeriveMinPolishIter), DerivePolishIter)
	rounds = min(max(iters/polish-1, DeriveMinFinalRounds), DeriveFinalRounds)
	return polish, rounds
}

// Weights is the number of weights and biases of a fully connected net with
// inputs inputs, outputs outputs and layers hidden layers of width units.
func Weights(inputs, outputs, layers, width int) int {
	if layers == 0 {
		return (inputs + 1) * outputs
	}
	return (inputs+1)*width + (layers-1)*(width+1)*width + (width+1)*outputs
}
