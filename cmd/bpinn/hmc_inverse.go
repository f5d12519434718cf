package main

import (
	"fmt"
	"io"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// hmcUnknowns is "bpinn hmc PROBLEM" for an inverse problem: the default
// fit, then the sampler on the joint posterior of its weights and unknowns
// at the fit's alpha and beta, each unknown's marginal beside its Laplace
// one.
func hmcUnknowns(p *pde.Problem, fitSeed uint64, hs *mcmc.Settings, stdout, stderr io.Writer) int {
	fail := func(err error) int { return report(stderr, "hmc", err) }
	fmt.Fprintf(stderr, "bpinn hmc: training the fit of %s (seed %d)\n", p.Name, fitSeed)
	f, err := bayes.Train(interrupt, p, bayes.Settings{Seed: fitSeed})
	if err != nil {
		return fail(err)
	}
	var barDone func()
	hs.Progress, barDone = hmcProgress(stderr, hs.Chains)
	su, res, err := f.SampleUnknowns(interrupt, hs)
	barDone()
	if err != nil {
		return fail(err)
	}
	steps := make([]float64, len(res.Chains))
	for c, ch := range res.Chains {
		steps[c] = ch.StepSize
	}
	fmt.Fprintf(stdout, "%s seed %d: status %s, log evidence %s; %s, %s x %d draws, step sizes %v, %d divergent\n",
		p.Name, fitSeed, f.Status, num(bayes.Num(lnZ(f)), "%.6g"), res.Sampler, nouns(len(res.Chains), "chain"), res.Len(), floats(steps), res.Divergences())
	for _, s := range su {
		fmt.Fprintf(stdout, "  %s\n", s)
	}
	return exitOK
}

// lnZ is the fit's log evidence, NaN when undefined.
func lnZ(f *bayes.Fit) float64 {
	if f.Laplace == nil || !f.Laplace.OccamOK {
		return math.NaN()
	}
	return f.Laplace.LogEvidence
}
