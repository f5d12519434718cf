package bayes

import (
	"errors"
	"maps"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Config is a fit's configuration resolved for its problem, once, by
// NewConfig: the problem validated, every setting filled in from the
// schedule and the defaults and checked, the names of the modes checked,
// the problem's beta groups worked out. Train, the records (pkg/record)
// and the runner (pkg/runner) take it as it is, so that nothing downstream
// validates, resolves or parses again.
//
// A Config is a value that its holders do not change: its methods return
// copies, and With* return a changed copy. The zero Config is not usable;
// TrainConfig refuses it.
type Config struct {
	settings  Settings // resolved
	problem   *pde.Problem
	betaNames []string // the problem's beta groups under settings.BetaMode
	termGroup []int    // term -> its group in betaNames
}

// NewConfig validates p and its exact solution (pde.Problem.Validate,
// ValidateExact), resolves s for it (Settings.Resolve says how) and
// returns the configuration of that fit: the one place where a fit's
// input is checked. Errors name the term or the setting and the fix.
func NewConfig(p *pde.Problem, s Settings) (Config, error) {
	if p == nil {
		return Config{settings: s}, errors.New("bayes: NewConfig of no problem: pass the problem to fit")
	}
	if err := p.Validate(); err != nil {
		return Config{settings: s}, err
	}
	if err := p.ValidateExact(); err != nil {
		return Config{settings: s}, err
	}
	return s.resolve(p)
}

// Settings returns the resolved settings (a copy: changing it changes no
// Config).
func (c Config) Settings() Settings {
	s := c.settings
	s.Hidden = slices.Clone(s.Hidden)
	s.KnownNoise = maps.Clone(s.KnownNoise)
	return s
}

// Problem returns the problem c was resolved for.
func (c Config) Problem() *pde.Problem { return c.problem }

// BetaGroups returns the names of the fit's beta groups and, for each term
// of the problem, the index of its group: pde.Problem.BetaGroups under the
// resolved BetaMode, worked out once.
func (c Config) BetaGroups() (names []string, termGroup []int) {
	return slices.Clone(c.betaNames), slices.Clone(c.termGroup)
}

// WithSeed returns c with the network's seed seed: the fits of an
// ensemble share one Config but their seeds. It panics on seed 0, which
// NewConfig refuses (seeds start at 1).
func (c Config) WithSeed(seed uint64) Config {
	if seed == 0 {
		panic("bayes: Config.WithSeed(0): seeds start at 1")
	}
	c.settings.Seed = seed
	return c
}

// WithProgress returns c with the callbacks Settings.Progress and
// Settings.Stage (nil: none), which change nothing of the fit.
func (c Config) WithProgress(progress func(epoch, epochs int), stage func(stage string)) Config {
	c.settings.Progress, c.settings.Stage = progress, stage
	return c
}

// Config returns f's configuration as f holds it: its Settings (resolved
// when Train or FitAt made f), its model's problem and beta groups; what
// pkg/record records, with nothing resolved or parsed again. It panics if
// f has no Model.
func (f *Fit) Config() Config {
	m := f.Model
	return Config{settings: f.Settings, problem: m.Problem, betaNames: m.BetaNames, termGroup: m.TermGroup}.clone()
}

// clone is c with copies of its slices and map: a Config of its own.
func (c Config) clone() Config {
	c.settings = c.Settings()
	c.betaNames, c.termGroup = c.BetaGroups()
	return c
}
