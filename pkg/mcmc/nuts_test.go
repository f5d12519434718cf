package mcmc

import (
	"math"
	"testing"
)

// TestNUTSConditionedGaussian samples a dense Gaussian of condition number
// 100 with each metric: a dense metric learns the rotation and needs short
// trajectories; a diagonal one still gets the moments right, with longer.
func TestNUTSConditionedGaussian(t *testing.T) {
	t.Parallel()
	for _, metric := range []Metric{Dense, Diag} {
		t.Run(string(metric), func(t *testing.T) {
			t.Parallel()
			g := newConditionedGaussian(t, 8, 100, 3)
			res := sample(t, g.density(), make([]float64, 8), &Settings{Metric: metric, Seed: 1})
			checkMoments(t, res, g.mu, g.cov)
			var depth float64
			for c := range res.Chains {
				ch := &res.Chains[c]
				depth += ch.MeanTreeDepth() / float64(len(res.Chains))
				if a := ch.MeanAccept(); a < 0.7 || a > 0.95 {
					t.Errorf("chain %d: got mean accept stat %.3f, want near the target 0.8", c, a)
				}
			}
			t.Logf("%s metric: mean tree depth %.2f, %d gradients", metric, depth, res.Gradients())
			if metric == Dense && depth > 3.5 {
				t.Errorf("dense metric: got mean tree depth %.2f, want <= 3.5 (the metric should undo the correlations)", depth)
			}
		})
	}
}

// funnel returns Neal's funnel in its centered form: v ~ N(0, 3²),
// x_i | v ~ N(0, e^v), i < dim-1, as ln p(v, x).
func funnel(dim int) LogDensity {
	return func(q, grad []float64) float64 {
		v := q[0]
		ev := math.Exp(-v)
		l := -v*v/18 - float64(dim-1)*v/2
		grad[0] = -v/9 - float64(dim-1)/2
		for i := 1; i < dim; i++ {
			l -= q[i] * q[i] * ev / 2
			grad[0] += q[i] * q[i] * ev / 2
			grad[i] = -q[i] * ev
		}
		return l
	}
}

// nonCenteredFunnel is the same funnel in (v, z), x = z e^{v/2}: v ~ N(0,
// 9), z ~ N(0, I).
func nonCenteredFunnel(dim int) LogDensity {
	sigma := make([]float64, dim)
	for i := range sigma {
		sigma[i] = 1
	}
	sigma[0] = 3
	return diagGaussian(sigma)
}

// TestNUTSFunnel is Neal's funnel in 10 dimensions. Non-centered, NUTS
// must get v's moments within 4 MCSE with clean diagnostics. Centered, no
// step size fits both the neck and the mouth: what NUTS must do is say so,
// by divergent transitions (the honest outcome, as Stan's), and it misses
// the neck: the chains do not reach v = -6, which has 2.3% of the mass.
func TestNUTSFunnel(t *testing.T) {
	t.Parallel()
	const dim = 10
	t.Run("non-centered", func(t *testing.T) {
		t.Parallel()
		res := sample(t, func() LogDensity { return nonCenteredFunnel(dim) }, make([]float64, dim), &Settings{Seed: 2})
		mu := make([]float64, dim)
		cov := diagSym(dim, func(i int) float64 { return map[bool]float64{true: 9, false: 1}[i == 0] })
		checkMoments(t, res, mu, cov)
	})
	t.Run("centered", func(t *testing.T) {
		t.Parallel()
		x0 := make([]float64, dim)
		x0[0] = 1
		res := sample(t, func() LogDensity { return funnel(dim) }, x0, &Settings{Seed: 2})
		div := res.Divergences()
		s := Summarize(res.Trace(nil, 0))
		minV := math.Inf(1)
		for c := range res.Draws {
			for i := range res.Len() {
				minV = math.Min(minV, res.Sample(c, i)[0])
			}
		}
		t.Logf("centered funnel: %d divergences in %d draws, v mean %.2f ± %.2f (truth 0), sd %.2f (truth 3), min v %.2f, R-hat %.3f, E-BFMI %.2f",
			div, len(res.Draws)*res.Len(), s.Mean, s.MCSE, s.SD, minV, s.RHat, res.Chains[0].EBFMI())
		if div == 0 {
			t.Error("centered funnel: got no divergence, want the sampler to report that it cannot follow the neck")
		}
		if !(s.RHat > 1.01) && !(res.Chains[0].EBFMI() < 0.3) {
			t.Errorf("centered funnel: got R-hat %.3f and E-BFMI %.2f, want one of them to flag the trouble", s.RHat, res.Chains[0].EBFMI())
		}
	})
}

// TestDetailedBalance runs NUTS, then a variant that takes every new
// subtree's proposal (a biased choice along the trajectory that breaks
// detailed balance), on a standard normal, and tests E[|x|²] = dim in
// Monte Carlo standard errors. The test must pass for NUTS and catch the
// variant: a sampler test that cannot fail proves nothing.
func TestDetailedBalance(t *testing.T) {
	t.Parallel()
	const dim = 4
	sigma := []float64{1, 1, 1, 1}
	z := func(alwaysNew bool) float64 {
		s := &Settings{Seed: 4, Samples: 2000}
		cfg, err := s.config()
		if err != nil {
			t.Fatal(err)
		}
		cfg.alwaysNew = alwaysNew
		res, err := run(t.Context(), func() LogDensity { return diagGaussian(sigma) }, make([]float64, dim), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		r2 := make([][]float64, len(res.Draws))
		for c := range r2 {
			r2[c] = make([]float64, res.Len())
			for i := range r2[c] {
				for _, x := range res.Sample(c, i) {
					r2[c][i] += x * x
				}
			}
		}
		s2 := Summarize(r2)
		return (s2.Mean - dim) / s2.MCSE
	}
	if got := z(false); !(math.Abs(got) < 4) {
		t.Errorf("NUTS: E|x|² is %.1f standard errors off, want within 4", got)
	}
	if got := z(true); !(math.Abs(got) > 4) {
		t.Errorf("biased selection: E|x|² is %.1f standard errors off, want the test to catch it (> 4)", got)
	} else {
		t.Logf("biased selection caught: %.1f standard errors off", got)
	}
}
