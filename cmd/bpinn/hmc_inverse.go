package main

import (
	"fmt"
	"io"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

// hmcUnknowns is "bpinn hmc PROBLEM" for an inverse problem: the fit of
// settings fs (the tuned defaults but the seed and net), then the sampler
// on the joint posterior of its weights and unknowns at the fit's alpha
// and beta, each unknown's marginal beside its Laplace one.
func hmcUnknowns(p *pde.Problem, fs bayes.Settings, hs *mcmc.Settings, whiten bayes.HessianKind, stdout, stderr io.Writer) int {
	fail := func(err error) int { return report(stderr, "hmc", err) }
	fmt.Fprintf(stderr, "bpinn hmc: training the fit of %s (seed %d)\n", p.Name, fs.Seed)
	f, err := bayes.Train(interrupt, p, fs)
	if err != nil {
		return fail(err)
	}
	var barDone func()
	hs.Progress, barDone = hmcProgress(stderr, hs.Chains)
	su, res, err := posterior.SampleUnknowns(interrupt, f, hs, whiten)
	barDone()
	if err != nil {
		return fail(err)
	}
	steps := make([]float64, len(res.Chains))
	leap := 0
	for c, ch := range res.Chains {
		steps[c] = ch.StepSize
		for _, l := range ch.Leapfrog {
			leap += l
		}
	}
	fmt.Fprintf(stdout, "%s seed %d: status %s, log evidence %s; %s (%s metric) in coordinates whitened by %s, %s x %d draws, step cliflag.Sizes %v, %.0f leapfrog steps per draw, %d divergent\n",
		p.Name, fs.Seed, f.Status, num(logEvidence(f), "%.6g"), res.Sampler, res.Metric, whitenedBy(whiten), runner.Plural(len(res.Chains), "chain"), res.Len(), floats(steps),
		float64(leap)/float64(len(res.Chains)*res.Len()), res.Divergences())
	for _, s := range su {
		fmt.Fprintf(stdout, "  %s\n", s)
	}
	return exitOK
}

// logEvidence is the fit's log evidence, nil when undefined.
func logEvidence(f *bayes.Fit) *float64 {
	if f.Laplace == nil || !f.Laplace.OccamOK {
		return nil
	}
	return &f.Laplace.LogEvidence
}

// whitenedBy names the precision of a whitening.
func whitenedBy(w bayes.HessianKind) string {
	if w == bayes.GaussNewton {
		return "the fit's A"
	}
	return "|H|, the exact Hessian at the mode"
}
