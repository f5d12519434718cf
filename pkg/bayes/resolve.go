package bayes

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// Resolve fills the zero fields from s.Schedule and checks the
// result; errors name the field and the fix. What neither the settings nor
// the problem give is defaulted where a default is safe (written on each
// field) and refused where none is: no epochs, no hidden layer. Settings
// that ask for something that cannot happen (a number that is not finite,
// a flag of one mode given with another mode) are refused before anything
// is filled; settings Resolve returned (a fit's) resolve again unchanged.
// It returns NewConfig's settings: a fit takes the Config, which carries
// them with the problem's beta groups.
func (s Settings) Resolve(p *pde.Problem) (Settings, error) {
	c, err := s.resolve(p)
	return c.settings, err
}

// resolve is NewConfig: the steps of Resolve in order. On an error the
// Config holds s as far as it was filled.
func (s Settings) resolve(p *pde.Problem) (Config, error) {
	c := Config{problem: p}
	if err := s.checkFinite(); err != nil {
		return Config{settings: s}, err
	}
	if !s.resolved {
		// Resolve fills the fields these checks read, so they apply to the
		// settings as given only.
		if err := s.checkAsGiven(); err != nil {
			return Config{settings: s}, err
		}
	}
	// The beta groups are worked out once, kept in c, and read by the
	// known-noise check.
	groups := func(s *Settings, p *pde.Problem) (err error) {
		c.betaNames, c.termGroup, err = s.resolveGroups(p)
		return err
	}
	knownNoise := func(s *Settings, p *pde.Problem) error { return s.checkKnownNoise(p, c.betaNames) }
	for _, step := range []func(*Settings, *pde.Problem) error{
		(*Settings).resolveScale,
		(*Settings).resolveNet,
		(*Settings).resolveEpochs,
		(*Settings).resolveRecipe,
		groups,
		(*Settings).resolveFromSchedule,
		knownNoise,
		(*Settings).resolveDefaults,
		(*Settings).resolvePolish,
		(*Settings).checkRanges,
		(*Settings).checkNames,
		(*Settings).resolveCurvature,
	} {
		if err := step(&s, p); err != nil {
			return Config{settings: s}, err
		}
	}
	s.resolved = true
	c.settings = s
	return c, nil
}

// checkFinite refuses a float setting that is NaN or infinite: every one
// of them scales a step or a hyperparameter, and Train would otherwise run
// to a loss that is not finite.
func (s *Settings) checkFinite() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"LR", s.LR}, {"Hyper.LR", s.Hyper.LR}, {"Hyper.Alpha0", s.Hyper.Alpha0}, {"Hyper.Beta0", s.Hyper.Beta0},
		{"Fixed.Alpha", s.Fixed.Alpha}, {"Fixed.Beta", s.Fixed.Beta}, {"Final.Tol", s.Final.Tol}, {"LRDecay", s.LRDecay},
	} {
		if notFinite(f.v) {
			return fmt.Errorf("setting %s = %v: give a finite number (0 for the default)", f.name, f.v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.KnownNoise)) { // the first in a fixed order
		if std := s.KnownNoise[k]; notFinite(std) {
			return fmt.Errorf("setting KnownNoise[%q] = %v: give a finite standard deviation", k, std)
		}
	}
	return nil
}

// checkAsGiven refuses settings of one mode given to a fit of another: a
// polish setting without a polish, a starting alpha or beta for fixed
// weights, a fixed weight without Fixed. The CLI, the notebooks and the
// library all read these errors; the CLI's flags are named in them.
func (s *Settings) checkAsGiven() error {
	if s.Recipe == RecipePaper && !s.Polish.On && (s.Polish.Method != "" || s.Polish.Iter != 0 || s.Polish.Memory != 0) {
		return errors.New("polish-method, polish-iter and polish-memory need polish in the paper's recipe (the tuned recipe always polishes): set Polish.On or leave them unset")
	}
	if s.Fixed.On && (s.Hyper.Alpha0 != 0 || s.Hyper.Beta0 != 0) {
		return errors.New("alpha0 and beta0 do not apply with fixed, which holds alpha = 0.05 and beta = 1 (or fixed-alpha, fixed-beta)")
	}
	if s.Fixed.On && s.Hyper.Balance {
		return errors.New("Hyper.Balance does not apply with fixed, which holds every beta at 1 (or fixed-beta): drop one of them")
	}
	if !s.Fixed.On && (s.Fixed.Alpha != 0 || s.Fixed.Beta != 0 || s.Fixed.Mean) {
		return errors.New("fixed-alpha, fixed-beta and fixed-mean need fixed: set Fixed.On or leave them unset")
	}
	return nil
}

// resolveNet checks the seed and fills the hidden layers and the
// activation. Seed 0 is refused rather than read as another seed, so
// that seeds 0 and 1 never train the same fit twice (pkg/runner refuses
// 0 in a seed list alike).
func (s *Settings) resolveNet(p *pde.Problem) error {
	if s.Seed == 0 {
		return errors.New("seed 0: seeds start at 1; set Settings.Seed (the CLI's default is 1)")
	}
	if s.Hidden == nil {
		if s.Schedule.Hidden == nil {
			s.Schedule = derived(s.Schedule, p)
		}
		s.Hidden = append([]int(nil), s.Schedule.Hidden...)
	}
	if s.Activation == "" {
		s.Activation = nn.Tanh
	}
	return nil
}

// derived is the schedule sc (which gives no net) with its net, epochs,
// hyperparameter steps, polish length, final rounds and balanced betas
// from schedule.Derive on p's facts where sc leaves them zero: the
// schedule of a problem nobody measured.
func derived(sc schedule.Schedule, p *pde.Problem) schedule.Schedule {
	d := schedule.Derive(schedule.Facts{Inputs: p.Dim(), Outputs: len(p.OutputNames()), Points: p.NumPoints()})
	sc = sc.Clone()
	sc.Hidden = d.Hidden
	if sc.Epochs == 0 {
		sc.Epochs, sc.HyperStart = d.Epochs, cmp.Or(sc.HyperStart, d.HyperStart)
	}
	sc.HyperEvery = cmp.Or(sc.HyperEvery, d.HyperEvery)
	sc.PolishIter = cmp.Or(sc.PolishIter, d.PolishIter)
	sc.FinalHyper = cmp.Or(sc.FinalHyper, d.FinalHyper)
	sc.BalanceBetas = true
	return sc
}

// resolveEpochs fills the epochs and when the hyperparameter steps come.
func (s *Settings) resolveEpochs(p *pde.Problem) error {
	d := s.Schedule
	userEpochs := s.Epochs != 0
	if s.Epochs == 0 {
		s.Epochs = d.Epochs
	}
	if s.Epochs == 0 {
		return fmt.Errorf("problem %q: no epochs: set Settings.Epochs or Settings.Schedule.Epochs (the paper's problems train 15000 to 20000)", p.Name)
	}
	if s.Hyper.Start == 0 {
		s.Hyper.Start = d.HyperStart
		if userEpochs && d.Epochs > 0 && s.Hyper.Start > s.Epochs {
			// Epochs set alone below the default start: the start keeps
			// its share of the epochs (a start beyond them is refused).
			s.Hyper.Start = max(1, int(int64(d.HyperStart)*int64(s.Epochs)/int64(d.Epochs)))
		}
	}
	if s.Hyper.Start == 0 {
		s.Hyper.Start = max(1, s.Epochs/3)
	}
	s.Hyper.Every = cmp.Or(s.Hyper.Every, d.HyperEvery, 25)
	return nil
}

// resolveRecipe fills what the tuned recipe adds: the polish, the final
// rounds, hyperparameters tied through the Adam phase.
func (s *Settings) resolveRecipe(*pde.Problem) error {
	switch s.Recipe {
	case "", RecipeTuned:
		s.Recipe = RecipeTuned
		s.Polish.On = true
		s.Final.Rounds = cmp.Or(s.Final.Rounds, s.Schedule.FinalHyper, 20)
		if s.Hyper.UntieAt == 0 {
			s.Hyper.UntieAt = s.Epochs + 1
		}
	case RecipePaper:
	default:
		return fmt.Errorf("unknown recipe %q: use tuned or paper", s.Recipe)
	}
	return nil
}

// resolveGroups fills the Hessian and the alpha and beta modes and
// returns the problem's beta groups under the beta mode.
func (s *Settings) resolveGroups(p *pde.Problem) (names []string, termGroup []int, err error) {
	if s.Hessian == "" {
		s.Hessian = GaussNewton
	}
	s.AlphaMode = cmp.Or(s.AlphaMode, nn.AlphaMode(s.Schedule.AlphaMode), nn.AlphaSingle)
	s.BetaMode = cmp.Or(s.BetaMode, pde.BetaMode(s.Schedule.BetaMode), p.DefaultBetaMode())
	if _, err := nn.ParseAlphaMode(string(s.AlphaMode)); err != nil {
		return nil, nil, err
	}
	if _, err := ParseBetaMode(string(s.BetaMode)); err != nil {
		return nil, nil, err
	}
	return p.BetaGroups(s.BetaMode)
}

// resolveFromSchedule fills the fields only a schedule sets: known noise,
// resampling, curvature, polish length, the final rounds' betas.
func (s *Settings) resolveFromSchedule(*pde.Problem) error {
	d := s.Schedule
	if s.Resample < -1 {
		return fmt.Errorf("setting Resample = %d: give K > 0 epochs between redraws, 0 for the schedule's or -1 for never", s.Resample)
	}
	if s.KnownNoise == nil && !s.Fixed.On && len(d.KnownNoise) > 0 {
		s.KnownNoise = maps.Clone(d.KnownNoise)
	}
	// A resolved 0 is final: it may come from a negative Resample (never,
	// where the schedule resamples), which a second Resolve must not read
	// as "the schedule's".
	if s.Resample == 0 && !s.resolved {
		s.Resample = d.Resample
	}
	if s.Resample < 0 {
		s.Resample = 0
	}
	s.Curvature = cmp.Or(s.Curvature, curv.Kind(d.Curvature))
	s.Polish.Iter = cmp.Or(s.Polish.Iter, d.PolishIter)
	s.Final.Betas = cmp.Or(s.Final.Betas, RoundBetas(d.RoundBetas), RoundBetasTraining)
	return nil
}

// resolveDefaults fills the toolkit's defaults of the remaining numbers.
func (s *Settings) resolveDefaults(*pde.Problem) error {
	if s.Fixed.Mean && !s.Fixed.On {
		return fmt.Errorf("Fixed.Mean scales the held betas of a fixed fit: set Fixed.On too")
	}
	if s.Updater == "" {
		s.Updater = UpdaterAdam
	}
	setDefault(&s.Hyper.Alpha0, 0.01)
	setDefault(&s.Hyper.Beta0, 1)
	s.Hyper.Balance = s.Hyper.Balance || s.Schedule.BalanceBetas && !s.Fixed.On
	setDefault(&s.LR, 1e-3)
	setDefault(&s.Hyper.LR, 0.05)
	setDefault(&s.LRDecay, 1)
	setDefault(&s.Fixed.Alpha, 0.05)
	setDefault(&s.Fixed.Beta, 1)
	setDefault(&s.Final.Tol, 1e-3)
	s.HistoryEvery = cmp.Or(s.HistoryEvery, 25)
	return nil
}

// resolvePolish fills the polish's length, method and memory.
func (s *Settings) resolvePolish(p *pde.Problem) error {
	s.Polish.Iter = cmp.Or(s.Polish.Iter, 2000)
	if s.Polish.Method == "" {
		s.Polish.Method = PolishGaussNewton
		if numWeights(p, s.Hidden) > GaussNewtonPolishLimit {
			s.Polish.Method = PolishLBFGS
		}
	}
	if _, err := ParsePolishMethod(string(s.Polish.Method)); err != nil {
		return err
	}
	if s.Polish.Method == PolishLBFGS && s.Polish.Memory == 0 {
		s.Polish.Memory = LBFGSMemory
	}
	if s.Polish.Method == PolishGaussNewton && s.Polish.Memory != 0 {
		return fmt.Errorf("polish-memory = %d is the L-BFGS polish's, and this fit polishes by %s: choose polish method %s or leave the memory unset", s.Polish.Memory, s.Polish.Method, PolishLBFGS)
	}
	return nil
}

// checkRanges refuses numbers outside their ranges and modes the problem
// cannot run.
func (s *Settings) checkRanges(p *pde.Problem) error {
	switch {
	case s.Epochs < 0:
		return fmt.Errorf("epochs = %d: must be positive", s.Epochs)
	case s.Hyper.Every < 0:
		return fmt.Errorf("hyper-every = %d: must be positive", s.Hyper.Every)
	case s.Hyper.Start < 0:
		return fmt.Errorf("hyper-start = %d: must be positive", s.Hyper.Start)
	case s.Hyper.Start > s.Epochs:
		return fmt.Errorf("hyper-start = %d is beyond epochs = %d: lower it or raise epochs", s.Hyper.Start, s.Epochs)
	case s.LR < 0:
		return fmt.Errorf("setting LR = %g: must be positive", s.LR)
	case s.Hyper.LR < 0:
		return fmt.Errorf("setting Hyper.LR = %g: must be positive", s.Hyper.LR)
	// The rate limits guard against a typo (5 for 5e-3): a fit at 1e150
	// would end "ok" with weights near 1e152.
	case s.LR > 1:
		return fmt.Errorf("setting LR = %g: above 1 Adam moves every weight by about that much per epoch and the net runs away; the default is 1e-3", s.LR)
	case s.Hyper.LR > 1:
		return fmt.Errorf("setting Hyper.LR = %g: above 1 one step can change alpha or beta by more than a factor e; the default is 0.05", s.Hyper.LR)
	case s.Polish.Iter < 0:
		return fmt.Errorf("polish-iter = %d: must be positive", s.Polish.Iter)
	case s.Polish.Memory < 0:
		return fmt.Errorf("polish-memory = %d: must be positive", s.Polish.Memory)
	case s.Final.Tol < 0:
		return fmt.Errorf("final-tol = %g: must be positive", s.Final.Tol)
	case s.Resample > 0 && p.Redraw == nil:
		return fmt.Errorf("resample: problem %q cannot draw new points (its Redraw is nil): set Problem.Redraw or drop resample", p.Name)
	case s.Final.Betas == RoundBetasHeldOut && p.Fresh == nil:
		return fmt.Errorf("held-out rounds: problem %q cannot draw fresh points (its Fresh is nil): set Problem.Fresh or drop them", p.Name)
	case s.Threads < 0:
		return fmt.Errorf("threads = %d: must be 0 (every core) or more", s.Threads)
	case s.Final.Rounds < 0:
		return fmt.Errorf("final-hyper = %d: must be non-negative", s.Final.Rounds)
	case s.LRDecay < 0 || s.LRDecay > 1:
		return fmt.Errorf("lr-decay = %g: must lie in (0, 1]", s.LRDecay)
	case s.Hyper.Alpha0 < MinHyper || s.Hyper.Alpha0 > MaxHyper || s.Hyper.Beta0 < MinHyper || s.Hyper.Beta0 > MaxHyper:
		return fmt.Errorf("alpha0/beta0 must lie in [%g, %g]", MinHyper, MaxHyper)
	}
	if _, err := ParseRoundBetas(string(s.Final.Betas)); err != nil {
		return err
	}
	_, err := ParseUpdater(string(s.Updater))
	return err
}

// MaxWeights is the most weights a fit's network may have: Adam's state
// alone is 2.4 GB there, and a typo in a hidden size (1<<40 units) would
// exhaust memory before any error.
const MaxWeights = 100_000_000

// checkNames refuses empty or oversized layers and unknown Hessians and
// activations.
func (s *Settings) checkNames(p *pde.Problem) error {
	in, weights := p.Dim(), 0
	for _, h := range append(slices.Clone(s.Hidden), len(p.OutputNames())) {
		if h <= 0 {
			return fmt.Errorf("hidden sizes %v: every layer needs at least one unit", s.Hidden)
		}
		if h > MaxWeights/(in+1) || weights+(in+1)*h > MaxWeights {
			return fmt.Errorf("hidden sizes %v: more than %d weights; give smaller layers", s.Hidden, MaxWeights)
		}
		weights += (in + 1) * h
		in = h
	}
	if _, err := ParseHessian(string(s.Hessian)); err != nil {
		return err
	}
	_, err := nn.ParseActivation(string(s.Activation))
	return err
}

// resolveCurvature turns "" into dense and auto into curv.Auto's choice,
// and checks what the size allows.
func (s *Settings) resolveCurvature(p *pde.Problem) error {
	P, N := numWeights(p, s.Hidden), 0
	for _, t := range p.Terms {
		N += len(t.Points)
	}
	switch s.Curvature {
	case "":
		s.Curvature = curv.Dense
		if P > DenseLimit && len(p.Unknowns) == 0 && s.Hessian != Exact {
			// The dense A is P^2 values factored at every hyperparameter
			// step: 13 GB and O(P^3) for a 5 x 100 net. Above the limit
			// the default is what the problem's size allows.
			s.Curvature = curv.Auto(P, N)
		}
	case CurvatureAuto:
		s.Curvature = curv.Auto(P, N)
	}
	if _, err := ParseCurvature(string(s.Curvature)); err != nil {
		return fmt.Errorf("curvature: %v", err)
	}
	if s.Hessian == Exact && s.Curvature != curv.Dense {
		return fmt.Errorf("curvature %s needs the Gauss-Newton hessian: drop hessian exact or use curvature dense", s.Curvature)
	}
	if len(p.Unknowns) > 0 && s.Curvature != curv.Dense {
		// The structured curvatures know alpha groups of weights only; a
		// flat-prior unknown is in none.
		return fmt.Errorf("curvature %s: problem %q has unknown coefficients (%s), which only the dense curvature handles; use curvature dense", s.Curvature, p.Name, p.Unknowns[0].Name)
	}
	if P > DenseLimit && s.Polish.On && s.Polish.Method == PolishGaussNewton {
		return fmt.Errorf("%d weights: the Gauss-Newton polish factors the %d x %d matrix (limit %d weights); use polish-method lbfgs", P, P, P, DenseLimit)
	}
	return nil
}

// checkKnownNoise checks KnownNoise against the problem's beta groups,
// names.
func (s Settings) checkKnownNoise(p *pde.Problem, names []string) error {
	if len(s.KnownNoise) == 0 {
		return nil
	}
	if s.Fixed.On {
		return fmt.Errorf("known noise and fixed weights: the baseline holds every beta at 1; use one of them")
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
