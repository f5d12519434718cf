package mcmc

import (
	"math"
	"slices"
	"testing"
)

// mixture returns ln p of w N(-m, sd²) + (1-w) N(m, sd²) in 1-D.
func mixture(w, m, sd float64) LogDensity {
	return func(x, grad []float64) float64 {
		a := math.Log(w) - (x[0]+m)*(x[0]+m)/(2*sd*sd)
		b := math.Log(1-w) - (x[0]-m)*(x[0]-m)/(2*sd*sd)
		l := logAddExp(a, b)
		pa := math.Exp(a - l) // the left component's share at x
		grad[0] = -pa*(x[0]+m)/(sd*sd) - (1-pa)*(x[0]-m)/(sd*sd)
		return l
	}
}

// rightShare is the fraction of all draws above 0, and per chain.
func rightShare(res *Result) (all float64, perChain []float64) {
	for _, c := range res.Trace(nil, 0) {
		n := 0
		for _, x := range c {
			if x > 0 {
				n++
			}
		}
		perChain = append(perChain, float64(n)/float64(len(c)))
		all += float64(n) / float64(len(c)*len(res.Chains))
	}
	return all, perChain
}

// TestTemperedMixture samples two Gaussians (weights 0.3 and 0.7) 32
// nats of barrier apart, every chain started in the lighter one. NUTS alone
// never leaves it; with a ladder up to T = 16, where the barrier is 2
// nats, the exchanges bring the other mode down and the T = 1 draws put
// 0.7 of the mass on the right within a few standard errors, in every
// chain. The same seed gives the same bits; the hot replicas' gradients
// are counted.
func TestTemperedMixture(t *testing.T) {
	t.Parallel()
	const w, m, sd = 0.3, 4, 0.5
	newF := func() LogDensity { return mixture(w, m, sd) }
	x0 := []float64{-m}
	base := Settings{Samples: 2000, Warmup: 500, Chains: 4, Seed: 7}
	plain := sample(t, newF, x0, &base)
	if share, _ := rightShare(plain); share > 0.01 {
		t.Fatalf("NUTS without tempering put %.3f of its draws in the far mode; the test needs a barrier it cannot cross", share)
	}
	s := base
	s.Temperatures = []float64{1, 2, 4, 8, 16}
	res := sample(t, newF, x0, &s)
	share, per := rightShare(res)
	ind := make([][]float64, len(res.Chains)) // the indicator's trace, for its Monte Carlo error
	for c, tr := range res.Trace(nil, 0) {
		for _, x := range tr {
			ind[c] = append(ind[c], math.Max(0, math.Copysign(1, x)))
		}
	}
	sum := Summarize(ind)
	if z := (share - (1 - w)) / sum.MCSE; !(math.Abs(z) < 4) {
		t.Errorf("tempered: %.3f of the draws in the right mode (MCSE %.3f), want 0.7: %.1f standard errors off", share, sum.MCSE, z)
	}
	for c, p := range per {
		if !(p > 0.4 && p < 0.95) {
			t.Errorf("chain %d: %.3f of its draws in the right mode, want both modes visited", c, p)
		}
		ch := &res.Chains[c]
		for k, a := range ch.SwapAccept {
			if !(a > 0.1) {
				t.Errorf("chain %d: exchanges between replicas %d and %d accepted %.3f of the time, want > 0.1", c, k, k+1, a)
			}
		}
		if len(ch.SwapAccept) != 4 {
			t.Errorf("chain %d: %d exchange rates, want 4 (5 temperatures)", c, len(ch.SwapAccept))
		}
	}
	if !(res.Gradients() > 3*plain.Gradients()) {
		t.Errorf("tempered run counted %d gradients, the plain one %d: want the 5 replicas. (over 3 times)", res.Gradients(), plain.Gradients())
	}
	if z := zMean(res, 0, (1-2*w)*m); !(math.Abs(z) < 4) {
		t.Errorf("tempered mean %.1f standard errors from %.2f", z, (1-2*w)*m)
	}
	again := sample(t, newF, x0, &s)
	for c := range res.Draws {
		if !slices.Equal(res.Draws[c], again.Draws[c]) {
			t.Errorf("chain %d: the same seed gave different tempered draws", c)
		}
	}
}

// TestTemperedGaussian checks that tempering keeps the T = 1 replica's
// target: a correlated 5-D Gaussian with a dense metric, moments within 4
// standard errors and Stan's diagnostics; and that a ladder of just {1} is
// the untempered run, bit for bit.
func TestTemperedGaussian(t *testing.T) {
	t.Parallel()
	g := newConditionedGaussian(t, 5, 30, 11)
	s := Settings{Metric: Dense, Samples: 1000, Warmup: 500, Seed: 3, Temperatures: []float64{1, 1.5, 2.25}}
	res := sample(t, g.density(), make([]float64, 5), &s)
	checkMoments(t, res, g.mu, g.cov)

	one := Settings{Samples: 100, Warmup: 100, Chains: 2, Seed: 3}
	a := sample(t, g.density(), make([]float64, 5), &one)
	one.Temperatures = []float64{1}
	b := sample(t, g.density(), make([]float64, 5), &one)
	for c := range a.Draws {
		if !slices.Equal(a.Draws[c], b.Draws[c]) || b.Chains[c].SwapAccept != nil {
			t.Errorf("chain %d: Temperatures {1} changed the draws or reported exchanges", c)
		}
	}
}

// TestExchangeRescales checks one accepted exchange: the replicas trade
// positions, and each one's potential and gradient are those of its own
// temperature at its new position, as a fresh evaluation gives them.
func TestExchangeRescales(t *testing.T) {
	t.Parallel()
	sigma := []float64{1, 2}
	cfg, err := (&Settings{Temperatures: []float64{1, 3}, Jitter: -1}).config()
	if err != nil {
		t.Fatal(err)
	}
	tp, err := newTempered(0, func() LogDensity { return diagGaussian(sigma) }, []float64{0.5, -1}, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := tp.reps[0], tp.reps[1]
	copy(a.z.q, []float64{2, 3}) // the cold replica far out, the hot one nearer the mode:
	copy(b.z.q, []float64{0.1, 0.2})
	a.potential(&a.z) // ln p_b > ln p_a, so the exchange is accepted for sure
	b.potential(&b.z)
	tp.exchange(true)
	if tp.swapped[0] != 1 || a.z.q[0] != 0.1 || b.z.q[0] != 2 {
		t.Fatalf("exchange: swapped %d, cold at %v, hot at %v; want the positions traded", tp.swapped[0], a.z.q, b.z.q)
	}
	for _, ch := range []*chain{a, b} {
		fresh := newPoint(2)
		copy(fresh.q, ch.z.q)
		ch.potential(&fresh)
		if math.Abs(fresh.u-ch.z.u) > 1e-12 || math.Abs(fresh.g[0]-ch.z.g[0]) > 1e-12 || math.Abs(fresh.g[1]-ch.z.g[1]) > 1e-12 {
			t.Errorf("T = %g: after the exchange U %g, grad %v; at its temperature U %g, grad %v", ch.temp, ch.z.u, ch.z.g, fresh.u, fresh.g)
		}
	}
}
