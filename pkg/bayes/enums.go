package bayes

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/internal/choice"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The string-valued settings are named types, each with its constants, the
// list of its choices (for flags and menus) and a Parse function whose
// error lists the choices. Their values are the names the records keep.

// Updater selects how hyperparameters move.
type Updater string

// The updaters.
const (
	UpdaterAdam   Updater = "adam"   // Adam on ln alpha, ln beta with the analytic gradient of E_hyp (the paper)
	UpdaterMacKay Updater = "mackay" // MacKay's fixed point alpha = gamma/2E_w, beta = (N-gamma)/2E_D
)

// Updaters lists the updaters, the default first.
var Updaters = []Updater{UpdaterAdam, UpdaterMacKay}

// ParseUpdater returns the updater named s.
func ParseUpdater(s string) (Updater, error) { return choice.Parse("updater", s, Updaters) }

// Recipe says what happens around the paper's Adam schedule.
type Recipe string

// The recipes.
const (
	// RecipeTuned (the default) adds to the paper's schedule what fits
	// best: hyperparameter groups move tied during the Adam phase, then a
	// Gauss-Newton polish of w_MP, then rounds of MacKay's fixed point with
	// the groups split, each followed by a re-polish, until the
	// hyperparameters settle (Final.Tol) or Final.Rounds rounds are done.
	RecipeTuned Recipe = "tuned"
	// RecipePaper is the paper's recipe as written: Adam with hyperparameter
	// steps, nothing after it unless Polish.On, Final.Rounds or Hyper.UntieAt say so.
	RecipePaper Recipe = "paper"
)

// Recipes lists the recipes, the default first.
var Recipes = []Recipe{RecipeTuned, RecipePaper}

// ParseRecipe returns the recipe named s.
func ParseRecipe(s string) (Recipe, error) { return choice.Parse("recipe", s, Recipes) }

// PolishMethod says how the polish minimizes E_T over w.
type PolishMethod string

// The polish methods.
const (
	PolishGaussNewton PolishMethod = "gauss-newton" // Newton steps with the Gauss-Newton matrix of E_T
	PolishLBFGS       PolishMethod = "lbfgs"        // gonum's L-BFGS on E_T
)

// PolishMethods lists the polish methods, the default of small nets first.
var PolishMethods = []PolishMethod{PolishGaussNewton, PolishLBFGS}

// ParsePolishMethod returns the polish method named s.
func ParsePolishMethod(s string) (PolishMethod, error) {
	return choice.Parse("polish method", s, PolishMethods)
}

// RoundBetas says where the final rounds take the misfit of an inferred
// beta (Settings.Final.Betas).
type RoundBetas string

// The final rounds' betas.
const (
	RoundBetasTraining RoundBetas = "training" // MacKay's: at the training points
	RoundBetasHeldOut  RoundBetas = "held-out" // at fresh points where the misfit is larger
)

// RoundBetasChoices lists the choices of Settings.Final.Betas, the default
// first.
var RoundBetasChoices = []RoundBetas{RoundBetasTraining, RoundBetasHeldOut}

// ParseRoundBetas returns the choice of Settings.Final.Betas named s.
func ParseRoundBetas(s string) (RoundBetas, error) {
	return choice.Parse("round betas", s, RoundBetasChoices)
}

// BetaModes lists the choices of Settings.BetaMode (pde's groupings of
// the terms under their betas), one beta for all terms first.
var BetaModes = []pde.BetaMode{pde.BetaSingle, pde.BetaSplit}

// ParseBetaMode returns the choice of Settings.BetaMode named s.
func ParseBetaMode(s string) (pde.BetaMode, error) { return choice.Parse("beta mode", s, BetaModes) }

// CurvatureAuto is the Settings.Curvature that chooses a structure by the
// network's size (curv.Auto).
const CurvatureAuto curv.Kind = "auto"

// Curvatures lists the choices of Settings.Curvature: CurvatureAuto, then
// pkg/curv's structures.
func Curvatures() []curv.Kind { return append([]curv.Kind{CurvatureAuto}, curv.Kinds()...) }

// ParseCurvature returns the choice of Settings.Curvature named s.
func ParseCurvature(s string) (curv.Kind, error) {
	if s == string(CurvatureAuto) {
		return CurvatureAuto, nil
	}
	k, err := curv.ParseKind(s)
	if err != nil {
		return "", fmt.Errorf("%v (or auto)", err)
	}
	return k, nil
}

// Scale says whether the network reads its inputs and writes its outputs
// through fixed maps (Settings.Scale, nn.MLP's maps). Under auto and box
// the network also reads the waves its problem's values ask for
// (ProblemWaves): none on a problem whose conditions and measurements
// oscillate with fewer than WaveMinPeriods periods across their points.
type Scale string

// The scales.
const (
	// ScaleNone is the network as the paper has it: its inputs are the
	// problem's coordinates, its outputs the fields.
	ScaleNone Scale = "none"
	// ScaleBox maps the domain's bounding box to [-1, 1] on the way in and
	// each field's values, as its conditions and measurements state them,
	// to their mean and spread on the way out (ScaleMaps).
	ScaleBox Scale = "box"
	// ScaleAuto maps what is far from unit scale and leaves the rest as
	// it is (AutoMaps): measured, the maps turn a box 100 wide from a
	// failed fit into a good one, while on unit boxes with values of
	// order one they are no better, and up to 6x worse (docs/results/scale.md).
	ScaleAuto Scale = "auto"
)

// Scales lists the choices of Settings.Scale.
var Scales = []Scale{ScaleNone, ScaleAuto, ScaleBox}

// ParseScale returns the choice of Settings.Scale named s.
func ParseScale(s string) (Scale, error) { return choice.Parse("scale", s, Scales) }
