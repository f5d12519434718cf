package posterior

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Options are a user's choices for sampling a fit's posterior (bpinn hmc):
// the fit to train and the sampler to run. A nil field was not given and
// takes its default, which depends on the sampler (DefaultSampler) and on
// whether the problem has unknowns; a given field is checked as given, so
// that a zero is an error rather than the default. Resolve fills and checks
// them; its errors name the options as bpinn hmc's flags.
type Options struct {
	Sampler      mcmc.Sampler // "" is NUTS, or HMC when Leapfrog is given
	Metric       *mcmc.Metric // Diag, UnknownsMetric for a problem with unknowns
	Samples      *int         // draws kept per chain
	Warmup       *int         // warm-up iterations per chain; 0 for none
	Chains       *int         // mcmc.DefaultChains
	TargetAccept *float64
	MaxDepth     *int // NUTS
	Leapfrog     *int // HMC
	// Temperatures is mcmc.Settings.Temperatures (nil: no tempering).
	Temperatures []float64
	Seed         uint64

	// Fit holds the fit's schedule, seed, hidden sizes and recipe; Epochs
	// (nil: the schedule's) must reach the schedule's first hyperparameter
	// step. A problem with unknowns trains the tuned defaults with Fit's
	// schedule, seed and hidden sizes only.
	Fit    bayes.Settings
	Epochs *int

	// SampleHyper and Whiten are CompareOptions' (problems without
	// unknowns); Whitening is SampleUnknowns' (problems with unknowns:
	// "exact", the default, or "gauss-newton").
	SampleHyper, Whiten bool
	Whitening           *string
}

// Plan is a resolved Options.
type Plan struct {
	// Unknowns: the problem has unknowns, sampled by SampleUnknowns with
	// Whitening; otherwise CompareHMC compares with Compare's options.
	Unknowns  bool
	Fit       bayes.Config // the fit's configuration, resolved once
	Sampler   mcmc.Settings
	Compare   CompareOptions
	Whitening bayes.HessianKind
}

// Resolve fills the defaults of o for problem p and checks the combination;
// an error is one line naming the option and what to give.
func (o Options) Resolve(p *pde.Problem) (Plan, error) {
	if o.Sampler == "" {
		o.Sampler = mcmc.NUTS
		if o.Leapfrog != nil {
			o.Sampler = mcmc.HMC
		}
	}
	defaults := DefaultSampler(mcmc.Settings{Sampler: o.Sampler})
	ds := defaults.Resolved()
	or := func(v *int, def int) int {
		if v == nil {
			return def
		}
		return *v
	}
	metric := mcmc.Diag
	if o.Metric != nil {
		metric = *o.Metric
	} else if len(p.Unknowns) > 0 {
		metric = UnknownsMetric // docs/inverse.md
	}
	target := ds.TargetAccept
	if o.TargetAccept != nil {
		target = *o.TargetAccept
	}
	s := mcmc.Settings{Sampler: o.Sampler, Metric: metric, Samples: or(o.Samples, ds.Samples),
		Warmup: or(o.Warmup, ds.Warmup), Chains: or(o.Chains, mcmc.DefaultChains), Leapfrog: or(o.Leapfrog, 0),
		MaxDepth: or(o.MaxDepth, ds.MaxDepth), TargetAccept: target, Temperatures: o.Temperatures, Seed: o.Seed}
	s.NoWarmup = s.Warmup == 0
	if err := o.check(&s); err != nil {
		return Plan{}, err
	}
	if len(p.Unknowns) > 0 {
		wh := bayes.Exact
		if o.Whitening != nil {
			var err error
			if wh, err = bayes.ParseHessian(*o.Whitening); err != nil || *o.Whitening == "" {
				return Plan{}, fmt.Errorf("--whitening is %q: use exact or gauss-newton", *o.Whitening)
			}
		}
		fit, err := bayes.NewConfig(p, bayes.Settings{Schedule: o.Fit.Schedule, Seed: o.Fit.Seed, Hidden: o.Fit.Hidden, Scale: o.Fit.Scale})
		if err != nil {
			return Plan{}, err
		}
		return Plan{Unknowns: true, Fit: fit, Sampler: s, Whitening: wh}, nil
	}
	if err := oneField(p); err != nil {
		return Plan{}, err
	}
	if o.Whitening != nil {
		return Plan{}, fmt.Errorf("--whitening is for inverse problems (heat-inverse, ...); %q has no unknowns: use --whiten", p.Name)
	}
	fs := o.Fit
	fs.Epochs = or(o.Epochs, 0)
	fit, err := bayes.NewConfig(p, fs)
	if err != nil {
		return Plan{}, err
	}
	// The calibrated band comes beside the Laplace one wherever a record
	// has it: where the problem has fresh points.
	return Plan{Fit: fit, Sampler: s, Compare: CompareOptions{SampleHyper: o.SampleHyper, Whiten: o.Whiten, Calibrated: p.Fresh != nil}}, nil
}

// check checks the sampler's settings s resolved from o, in the order of
// bpinn hmc's flags.
func (o Options) check(s *mcmc.Settings) error {
	switch {
	case s.Sampler != mcmc.NUTS && s.Sampler != mcmc.HMC:
		return fmt.Errorf("--sampler is %q: use nuts or hmc", s.Sampler)
	case o.Leapfrog != nil && s.Sampler != mcmc.HMC:
		return errors.New("--leapfrog is for --sampler hmc; NUTS chooses its trajectory lengths (see --max-depth)")
	case s.Metric != mcmc.Dense && s.Metric != mcmc.Diag && s.Metric != mcmc.Unit:
		return fmt.Errorf("--metric is %q: use dense, diag or unit", s.Metric)
	case s.Samples <= 0:
		return fmt.Errorf("--samples is %d: need at least 1", s.Samples)
	case s.Warmup < 0:
		return fmt.Errorf("--burn-in is %d: need 0 or more", s.Warmup)
	case s.Chains <= 0:
		return fmt.Errorf("--chains is %d: need at least 1", s.Chains)
	case o.Leapfrog != nil && s.Leapfrog <= 0:
		return fmt.Errorf("--leapfrog is %d: need at least 1", s.Leapfrog)
	case !(s.TargetAccept > 0 && s.TargetAccept < 1):
		return fmt.Errorf("--target-accept is %g: need a probability in (0, 1), e.g. 0.9", s.TargetAccept)
	case s.MaxDepth < 1 || s.MaxDepth > 20:
		return fmt.Errorf("--max-depth is %d: need 1 to 20", s.MaxDepth)
	case (&mcmc.Settings{Temperatures: s.Temperatures}).Validate() != nil:
		return fmt.Errorf("--temperatures is %v: give 1 first, then increasing finite temperatures, e.g. 1,1.3,1.7,2.2", s.Temperatures)
	case o.Epochs != nil && *o.Epochs < o.Fit.Schedule.HyperStart:
		return fmt.Errorf("--epochs is %d: need at least %d, the epoch of the first hyperparameter step", *o.Epochs, o.Fit.Schedule.HyperStart)
	}
	return nil
}

// oneField refuses a problem of several fields: CompareHMC compares the
// band of one field on a grid (the sampled unknowns of an inverse problem
// take any number).
func oneField(p *pde.Problem) error {
	if names := p.OutputNames(); len(names) > 1 {
		return fmt.Errorf("%s has %d fields (%s): the comparison with the sampled posterior is for a problem of one field", p.Name, len(names), strings.Join(names, ", "))
	}
	return nil
}
