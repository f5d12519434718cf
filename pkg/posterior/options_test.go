package posterior_test

import (
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// options are the defaults of bpinn hmc for the named problem.
func options(t *testing.T, name string) (posterior.Options, *problems.Entry) {
	t.Helper()
	e, err := problems.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return posterior.Options{Seed: 1, Fit: bayes.Settings{Schedule: e.Schedule(problems.Options{}), Seed: 1, Recipe: bayes.RecipePaper}}, &e
}

func TestOptionsDefaults(t *testing.T) {
	o, e := options(t, "regression")
	plan, err := o.Resolve(e.New(problems.Options{}))
	s := plan.Sampler
	if err != nil || plan.Unknowns || s.Sampler != mcmc.NUTS || s.Metric != mcmc.Diag || s.Samples != 400 || s.Warmup != 500 ||
		s.Chains != mcmc.DefaultChains || s.MaxDepth != 12 || s.TargetAccept != 0.98 || plan.Fit.Settings().Epochs != 15000 {
		t.Errorf("regression: %+v, %v; want NUTS, diag, 400 draws after 500, max depth 12, target 0.98, 15000 epochs", plan, err)
	}
	o.Leapfrog = new(10) // a leapfrog count picks static HMC and its defaults
	o.Warmup = new(0)
	plan, err = o.Resolve(e.New(problems.Options{}))
	if s := plan.Sampler; err != nil || s.Sampler != mcmc.HMC || s.Samples != 15000 || s.Leapfrog != 10 || !s.NoWarmup || s.TargetAccept != 0.8 {
		t.Errorf("regression with a leapfrog count: %+v, %v; want HMC, 15000 draws, no warm-up, target 0.8", plan.Sampler, err)
	}

	o, e = options(t, "heat-inverse")
	o.Whitening = new("gauss-newton")
	plan, err = o.Resolve(e.New(problems.Options{}))
	if err != nil || !plan.Unknowns || plan.Sampler.Metric != posterior.UnknownsMetric || plan.Whitening != bayes.GaussNewton || plan.Fit.Settings().Recipe != bayes.RecipeTuned {
		t.Errorf("heat-inverse: %+v, %v; want the unknowns, a dense metric, Gauss-Newton whitening, the tuned defaults", plan, err)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, c := range []struct {
		problem string
		set     func(*posterior.Options)
		want    string
	}{
		{"regression", func(o *posterior.Options) { o.Sampler = "gibbs" }, `--sampler is "gibbs"`},
		{"regression", func(o *posterior.Options) { o.Sampler, o.Leapfrog = mcmc.NUTS, new(20) }, "--leapfrog is for --sampler hmc"},
		{"regression", func(o *posterior.Options) { o.Metric = new(mcmc.Metric("full")) }, `--metric is "full"`},
		{"regression", func(o *posterior.Options) { o.Samples = new(0) }, "--samples is 0: need at least 1"},
		{"regression", func(o *posterior.Options) { o.Warmup = new(-1) }, "--burn-in is -1"},
		{"regression", func(o *posterior.Options) { o.Chains = new(0) }, "--chains is 0"},
		{"regression", func(o *posterior.Options) { o.Leapfrog = new(0) }, "--leapfrog is 0"},
		{"regression", func(o *posterior.Options) { o.TargetAccept = new(1.0) }, "--target-accept is 1"},
		{"regression", func(o *posterior.Options) { o.MaxDepth = new(21) }, "--max-depth is 21"},
		{"regression", func(o *posterior.Options) { o.Epochs = new(999) }, "--epochs is 999: need at least 1000"},
		{"heat", func(o *posterior.Options) { o.Whitening = new("exact") }, "--whitening is for inverse problems"},
		{"heat-inverse", func(o *posterior.Options) { o.Whitening = new("") }, `--whitening is "": use exact or gauss-newton`},
		{"heat-inverse", func(o *posterior.Options) { o.Epochs = new(10) }, "--epochs is 10"},
		{"lid-driven", func(o *posterior.Options) {}, "lid-driven has 3 fields (u, v, p): the comparison with the sampled posterior is for a problem of one field"},
	} {
		o, e := options(t, c.problem)
		c.set(&o)
		_, err := o.Resolve(e.New(problems.Options{}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", c.problem, err, c.want)
		}
	}
}
