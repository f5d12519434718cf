package mcmc

import (
	"fmt"
	"math"
	"slices"
)

// Sampler names a transition kernel.
type Sampler string

// The samplers.
const (
	// NUTS is the no-U-turn sampler with multinomial sampling of the
	// trajectory and the generalized no-U-turn criterion (Betancourt 2017),
	// as in Stan.
	NUTS Sampler = "nuts"
	// HMC is static Hamiltonian Monte Carlo: Leapfrog steps per iteration,
	// then a Metropolis test of the end point (Neal 2011).
	HMC Sampler = "hmc"
)

// Metric names the form of the inverse metric (inverse mass matrix) that
// warm-up estimates from the draws.
type Metric string

// The metrics.
const (
	// Diag estimates one variance per coordinate.
	Diag Metric = "diag"
	// Dense estimates the full covariance: it undoes linear correlations,
	// at O(dim²) per leapfrog step.
	Dense Metric = "dense"
	// Unit keeps the identity (no metric adaptation).
	Unit Metric = "unit"
)

// Settings are a sampler's settings. The zero value, like a nil *Settings,
// is Stan's default run: NUTS, 4 chains of 1000 draws after 1000 warm-up
// iterations, target acceptance 0.8, a diagonal metric, tree depth 10.
type Settings struct {
	// Sampler is NUTS (default) or HMC.
	Sampler Sampler
	// Samples is the number of draws kept per chain (default 1000).
	Samples int
	// Warmup is the number of warm-up iterations per chain, which adapt
	// the step size and the metric and are then discarded (default 1000).
	// Use NoWarmup for none.
	Warmup int
	// NoWarmup, if true, keeps draws from the first iteration on (Warmup is
	// ignored): nothing is adapted.
	NoWarmup bool
	// Chains is the number of independent chains, each on its own
	// goroutine (default 4).
	Chains int
	// Leapfrog is the number of leapfrog steps of an HMC iteration
	// (default 20, the paper's). NUTS ignores it.
	Leapfrog int
	// MaxDepth caps a NUTS trajectory at 2^MaxDepth leapfrog steps
	// (default 10, Stan's). HMC ignores it.
	MaxDepth int
	// StepSize is the initial leapfrog step ε. If 0, it is found by Stan's
	// heuristic: ε is doubled (halved) until the acceptance probability of
	// one leapfrog step from the start crosses 0.8.
	StepSize float64
	// NoStepAdapt, if true, keeps ε fixed during warm-up.
	NoStepAdapt bool
	// TargetAccept is the mean acceptance statistic δ that dual averaging
	// aims for during warm-up (default 0.8). A larger δ gives a smaller
	// step, fewer divergences and longer trajectories.
	TargetAccept float64
	// Metric is Diag (default), Dense or Unit.
	Metric Metric
	// Thin keeps every Thin-th iteration after warm-up (default 1).
	Thin int
	// Jitter is the standard deviation of the Gaussian noise added to each
	// coordinate of x0 to start each chain (default 0.01; negative: none).
	Jitter float64
	// Temperatures, if it has more than the 1 it starts with, runs each
	// chain as parallel tempering: one replica per temperature T sampling
	// p^(1/T), each with its own warm-up, and after every iteration a
	// proposed exchange of the states of two adjacent replicas, accepted
	// with the Metropolis probability that keeps each replica's density.
	// Only the T = 1 replica's draws are kept. The hotter replicas cross
	// regions of low density that the cold one crosses rarely, and the
	// exchanges bring those states down; the cost is one replica's
	// gradients per temperature. nil or {1}: no tempering.
	Temperatures []float64
	// Seed seeds the chains: chain c draws from rand.NewPCG(Seed, c), so
	// the same Seed gives the same draws whatever the scheduling.
	Seed uint64
	// Progress, if not nil, is called with the chain index, the iterations
	// done and their total (warm-up included), at most about 100 times per
	// chain, from the chain's goroutine: it must be safe for concurrent use.
	Progress func(chain, done, total int)
}

// Defaults.
const (
	DefaultSamples  = 1000
	DefaultWarmup   = 1000
	DefaultChains   = 4
	DefaultLeapfrog = 20
	DefaultMaxDepth = 10
	DefaultTarget   = 0.8
	defaultJitter   = 0.01

	// divergenceLimit is the energy error H - H0 above which a transition
	// is divergent (Stan's max_deltaH).
	divergenceLimit = 1000
	// maxMaxDepth bounds MaxDepth: 2^30 leapfrog steps per draw is beyond
	// any run that ends.
	maxMaxDepth = 30
)

// config is Settings with its defaults applied.
type config struct {
	sampler                                           Sampler
	metric                                            Metric
	samples, warmup, chains, leapfrog, maxDepth, thin int
	step, target, jitter                              float64
	temps                                             []float64 // nil: no tempering
	adaptStep                                         bool
	seed                                              uint64
	progress                                          func(chain, done, total int)

	// alwaysNew is for tests only: NUTS then takes every new subtree's
	// proposal, a biased selection that breaks detailed balance.
	alwaysNew bool
}

func (s *Settings) config() (config, error) {
	if s == nil {
		s = &Settings{}
	}
	neg := func(field string, v int, def int) error {
		return fmt.Errorf("mcmc: Settings.%s is %d; use a positive value, or 0 for the default %d", field, v, def)
	}
	switch {
	case s.Sampler != "" && s.Sampler != NUTS && s.Sampler != HMC:
		return config{}, fmt.Errorf("mcmc: Settings.Sampler is %q; use %q or %q", s.Sampler, NUTS, HMC)
	case s.Metric != "" && s.Metric != Diag && s.Metric != Dense && s.Metric != Unit:
		return config{}, fmt.Errorf("mcmc: Settings.Metric is %q; use %q, %q or %q", s.Metric, Diag, Dense, Unit)
	case s.Samples < 0:
		return config{}, neg("Samples", s.Samples, DefaultSamples)
	case s.Warmup < 0:
		return config{}, fmt.Errorf("mcmc: Settings.Warmup is %d; use a positive value, 0 for the default %d, or NoWarmup for none", s.Warmup, DefaultWarmup)
	case s.Chains < 0:
		return config{}, neg("Chains", s.Chains, DefaultChains)
	case s.Leapfrog < 0:
		return config{}, neg("Leapfrog", s.Leapfrog, DefaultLeapfrog)
	case s.MaxDepth < 0 || s.MaxDepth > maxMaxDepth:
		return config{}, fmt.Errorf("mcmc: Settings.MaxDepth is %d; use 1 to %d, or 0 for the default %d", s.MaxDepth, maxMaxDepth, DefaultMaxDepth)
	case s.Thin < 0:
		return config{}, neg("Thin", s.Thin, 1)
	case !(s.StepSize >= 0) || math.IsInf(s.StepSize, 1):
		return config{}, fmt.Errorf("mcmc: Settings.StepSize is %g; use a finite positive step, or 0 to find one", s.StepSize)
	case !(s.TargetAccept >= 0 && s.TargetAccept < 1):
		return config{}, fmt.Errorf("mcmc: Settings.TargetAccept is %g; use a probability in (0,1), or 0 for the default %g", s.TargetAccept, DefaultTarget)
	case math.IsNaN(s.Jitter) || math.IsInf(s.Jitter, 0):
		return config{}, fmt.Errorf("mcmc: Settings.Jitter is %g; use a finite value, 0 for the default %g, or negative for none", s.Jitter, defaultJitter)
	case !ladder(s.Temperatures):
		return config{}, fmt.Errorf("mcmc: Settings.Temperatures is %v; use 1 first, then increasing finite temperatures (e.g. 1, 1.5, 2.2), or nil for none", s.Temperatures)
	}
	c := config{
		sampler:   s.Sampler,
		metric:    s.Metric,
		samples:   orInt(s.Samples, DefaultSamples),
		warmup:    orInt(s.Warmup, DefaultWarmup),
		chains:    orInt(s.Chains, DefaultChains),
		leapfrog:  orInt(s.Leapfrog, DefaultLeapfrog),
		maxDepth:  orInt(s.MaxDepth, DefaultMaxDepth),
		thin:      orInt(s.Thin, 1),
		step:      s.StepSize,
		target:    s.TargetAccept,
		jitter:    s.Jitter,
		adaptStep: !s.NoStepAdapt,
		seed:      s.Seed,
		progress:  s.Progress,
	}
	if c.sampler == "" {
		c.sampler = NUTS
	}
	if c.metric == "" {
		c.metric = Diag
	}
	if s.NoWarmup {
		c.warmup = 0
	}
	if len(s.Temperatures) > 1 {
		c.temps = slices.Clone(s.Temperatures)
	}
	if c.target == 0 {
		c.target = DefaultTarget
	}
	switch {
	case c.jitter == 0:
		c.jitter = defaultJitter
	case c.jitter < 0:
		c.jitter = 0
	}
	return c, nil
}

// Validate returns the error Sample would return for these settings, if
// any: a one-line message naming the field.
func (s *Settings) Validate() error {
	_, err := s.config()
	return err
}

// Resolved returns s with every default filled in (Jitter is left as
// given): what a run with s does. Invalid settings are returned as given.
func (s *Settings) Resolved() Settings {
	var out Settings
	if s != nil {
		out = *s
	}
	c, err := s.config()
	if err != nil {
		return out
	}
	out.Sampler, out.Metric = c.sampler, c.metric
	out.Samples, out.Warmup, out.Chains = c.samples, c.warmup, c.chains
	out.Leapfrog, out.MaxDepth, out.Thin = c.leapfrog, c.maxDepth, c.thin
	out.TargetAccept = c.target
	return out
}

// ladder reports whether t is nil or a tempering ladder: 1, then strictly
// increasing finite temperatures.
func ladder(t []float64) bool {
	if len(t) == 0 {
		return true
	}
	if t[0] != 1 {
		return false
	}
	for i := 1; i < len(t); i++ {
		if !(t[i] > t[i-1]) || math.IsInf(t[i], 1) {
			return false
		}
	}
	return true
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
