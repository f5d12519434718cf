package mcmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestHMCGaussian checks static HMC (the paper's sampler) on dense
// Gaussians with each metric and a thinned and a fixed-step run.
func TestHMCGaussian(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name     string
		dim      int
		cond     float64
		settings Settings
	}{
		{"dim6/diag", 6, 10, Settings{Sampler: HMC, Samples: 2000, Warmup: 500, Seed: 1}},
		{"dim6/dense", 6, 100, Settings{Sampler: HMC, Metric: Dense, Samples: 2000, Warmup: 500, Seed: 1}},
		{"dim8/thin2", 8, 10, Settings{Sampler: HMC, Samples: 1500, Warmup: 400, Thin: 2, Leapfrog: 15, Seed: 2}},
		{"dim5/unit/fixed step", 5, 3, Settings{Sampler: HMC, Metric: Unit, Samples: 3000, Warmup: 300, StepSize: 0.3, NoStepAdapt: true, Seed: 3}},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			g := newConditionedGaussian(t, test.dim, test.cond, uint64(test.dim))
			s := test.settings
			res := sample(t, g.density(), make([]float64, test.dim), &s)
			if res.Dim() != test.dim || res.Len() != s.Samples || len(res.Draws) != 4 {
				t.Fatalf("got Dim %d Len %d chains %d, want %d %d 4", res.Dim(), res.Len(), len(res.Draws), test.dim, s.Samples)
			}
			for c := range res.Chains {
				if s.NoStepAdapt && res.Chains[c].StepSize != s.StepSize {
					t.Errorf("chain %d: got step %g with NoStepAdapt, want %g", c, res.Chains[c].StepSize, s.StepSize)
				}
				if l := res.Chains[c].Leapfrog[0]; l != s.Resolved().Leapfrog {
					t.Errorf("chain %d: got %d leapfrog steps, want %d", c, l, s.Resolved().Leapfrog)
				}
			}
			checkMoments(t, res, g.mu, g.cov)
		})
	}
}

// newChainAt returns a chain of f at x with its gradient computed.
func newChainAt(t testing.TB, f LogDensity, x []float64, s *Settings) *chain {
	cfg, err := s.config()
	if err != nil {
		t.Fatal(err)
	}
	ch := newChain(0, f, x, &cfg)
	copy(ch.z.q, x)
	ch.potential(&ch.z)
	return ch
}

func TestLeapfrogReversible(t *testing.T) {
	t.Parallel()
	for _, metric := range []Metric{Unit, Dense} {
		g := newConditionedGaussian(t, 6, 10, 7)
		ch := newChainAt(t, g.density()(), make([]float64, 6), &Settings{Metric: metric})
		if metric == Dense {
			// A metric that is not the identity: the target's covariance.
			ch.m.set(drawGaussian(g, 500), 500)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range ch.z.q {
			ch.z.q[i] = g.mu[i] + rng.NormFloat64()
			ch.z.p[i] = rng.NormFloat64()
		}
		ch.potential(&ch.z)
		q0, p0, u0 := slices.Clone(ch.z.q), slices.Clone(ch.z.p), ch.z.u
		for range 50 {
			ch.leapfrog(&ch.z, 0.1)
		}
		for range 50 {
			ch.leapfrog(&ch.z, -0.1)
		}
		for i := range q0 {
			if math.Abs(ch.z.q[i]-q0[i]) > 1e-10 || math.Abs(ch.z.p[i]-p0[i]) > 1e-10 {
				t.Errorf("%s metric, coordinate %d: got (q, p) = (%.15g, %.15g) after the round trip, want (%.15g, %.15g)", metric, i, ch.z.q[i], ch.z.p[i], q0[i], p0[i])
			}
		}
		if math.Abs(ch.z.u-u0) > 1e-10*math.Max(1, math.Abs(u0)) {
			t.Errorf("%s metric: got U %.15g after the round trip, want %.15g", metric, ch.z.u, u0)
		}
	}
}

// drawGaussian returns n exact draws of g, row-major.
func drawGaussian(g gaussian, n int) []float64 {
	dim := len(g.mu)
	rng := rand.New(rand.NewPCG(5, 5))
	chol := choleskyLower(g)
	out := make([]float64, 0, n*dim)
	z := make([]float64, dim)
	for range n {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		for i := range dim {
			x := g.mu[i]
			for k := 0; k <= i; k++ {
				x += chol[i*dim+k] * z[k]
			}
			out = append(out, x)
		}
	}
	return out
}

// TestLeapfrogEnergyOrder checks that leapfrog is of second order: over a
// trajectory of fixed length, halving ε divides the largest energy error
// by 4.
func TestLeapfrogEnergyOrder(t *testing.T) {
	t.Parallel()
	f := diagGaussian([]float64{0.5, 1, 2, 1.5, 0.8})
	maxErr := func(eps float64, steps int) float64 {
		ch := newChainAt(t, f, []float64{0.3, -1, 2, 0.5, -0.4}, &Settings{Jitter: -1})
		copy(ch.m.inv, []float64{1, 0.5, 2, 1, 1})
		copy(ch.z.p, []float64{1, 0.5, -0.7, 1.2, -1})
		h0 := ch.hamiltonian(&ch.z)
		var worst float64
		for range steps {
			ch.leapfrog(&ch.z, eps)
			worst = math.Max(worst, math.Abs(ch.hamiltonian(&ch.z)-h0))
		}
		return worst
	}
	const length = 4.0
	for _, eps := range []float64{0.1, 0.05, 0.025} {
		steps := int(math.Round(length / eps))
		big, small := maxErr(eps, steps), maxErr(eps/2, 2*steps)
		if r := big / small; r < 3.6 || r > 4.4 {
			t.Errorf("eps %g: got max energy error ratio %.3f (%.3g / %.3g) on halving eps, want 4 ± 0.4", eps, r, big, small)
		}
	}
}

// TestTransitionNoAlloc checks that an iteration of either sampler, with
// either metric, allocates nothing when the density does not.
func TestTransitionNoAlloc(t *testing.T) {
	sigma := make([]float64, 19)
	for i := range sigma {
		sigma[i] = 1 + float64(i)/10
	}
	for _, s := range []Settings{{Sampler: NUTS}, {Sampler: NUTS, Metric: Dense}, {Sampler: HMC}, {Sampler: HMC, Metric: Dense}} {
		ch := newChainAt(t, diagGaussian(sigma), make([]float64, 19), &s)
		ch.eps = 0.3
		if n := testing.AllocsPerRun(100, func() { ch.transition() }); n != 0 {
			t.Errorf("%s, %s metric: got %v allocations per iteration, want 0", s.Sampler, s.Metric, n)
		}
	}
}

func TestMetricWindows(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		warmup, start int
		ends          []int
	}{
		{1000, 75, []int{100, 150, 250, 450, 950}}, // Stan's default
		{500, 75, []int{100, 150, 250, 450}},
		{150, 75, []int{100}},
		{100, 15, []int{90}},
		{19, 19, nil},
	} {
		start, ends := metricWindows(test.warmup)
		if start != test.start || !slices.Equal(ends, test.ends) {
			t.Errorf("warm-up %d: got windows from %d ending at %v, want from %d ending at %v", test.warmup, start, ends, test.start, test.ends)
		}
	}
}

// TestDualAveraging checks that warm-up brings the mean acceptance
// statistic of the kept draws to the target. With the identity metric
// dual averaging runs the whole warm-up and lands on the target; with a
// metric it restarts after each window and has only the terminal 50
// iterations, and the draws accept more than asked (as in Stan, whose
// accept_stat__ commonly exceeds adapt_delta): there the test asks for
// at least the target and a step that falls as the target rises.
func TestDualAveraging(t *testing.T) {
	t.Parallel()
	g := newConditionedGaussian(t, 7, 30, 11)
	for _, sampler := range []Sampler{NUTS, HMC} {
		for _, metric := range []Metric{Unit, Diag} {
			lastStep := math.Inf(1)
			for _, target := range []float64{0.6, 0.8, 0.95} {
				res := sample(t, g.density(), make([]float64, 7), &Settings{Sampler: sampler, Metric: metric,
					Samples: 1000, Leapfrog: 10, TargetAccept: target, Seed: 5})
				var mean, step float64
				for c := range res.Chains {
					mean += res.Chains[c].MeanAccept() / float64(len(res.Chains))
					step += res.Chains[c].StepSize / float64(len(res.Chains))
				}
				lo, hi := target-0.07, target+0.07
				if metric != Unit {
					hi = target + 0.25
				}
				if mean < lo || mean > hi {
					t.Errorf("%s, %s metric, target %g: got mean acceptance %.3f, want in [%.2f, %.2f]", sampler, metric, target, mean, lo, hi)
				}
				if !(step < lastStep) {
					t.Errorf("%s, %s metric, target %g: got step %.3g, want below %.3g (the step of the lower target)", sampler, metric, target, step, lastStep)
				}
				lastStep = step
			}
		}
	}
}

// bimodal returns ln p for two narrow Gaussians (sd 0.1) at ±(2, 2).
func bimodal() LogDensity {
	const s2 = 0.01
	return func(w, grad []float64) float64 {
		a := ((w[0]-2)*(w[0]-2) + (w[1]-2)*(w[1]-2)) / (2 * s2)
		b := ((w[0]+2)*(w[0]+2) + (w[1]+2)*(w[1]+2)) / (2 * s2)
		lo := math.Min(a, b)
		ea, eb := math.Exp(lo-a), math.Exp(lo-b)
		pa, pb := ea/(ea+eb), eb/(ea+eb)
		grad[0] = -(pa*(w[0]-2) + pb*(w[0]+2)) / s2
		grad[1] = -(pa*(w[1]-2) + pb*(w[1]+2)) / s2
		return -lo + math.Log(ea+eb)
	}
}

func TestRHatBimodal(t *testing.T) {
	t.Parallel()
	var chains [][]float64
	for k, start := range [][]float64{{2, 2}, {-2, -2}} {
		res := sample(t, bimodal, start, &Settings{Samples: 1000, Warmup: 300, Chains: 2, Seed: uint64(k)})
		// Each set of chains alone has mixed within its mode.
		if r := res.Summaries()[0].RHat; !(r < 1.05) {
			t.Errorf("mode %v alone: got R-hat %.3f, want < 1.05", start, r)
		}
		chains = append(chains, res.Trace(nil, 0)...)
	}
	for i, c := range chains {
		if m, _ := meanStd(c); math.Abs(math.Abs(m)-2) > 0.1 {
			t.Errorf("chain %d: got mean %.3f, want ±2 (chains should stay in their modes)", i, m)
		}
	}
	if r := SplitRHat(chains); !(r > 10) {
		t.Errorf("got split R-hat %.3f for chains in separated modes, want > 10", r)
	}
	if r := RankRHat(chains); !(r > 1.5) {
		t.Errorf("got rank R-hat %.3f for chains in separated modes, want > 1.5", r)
	}
}

func TestNaNRegion(t *testing.T) {
	t.Parallel()
	// A standard normal cut at x_0 = 1: ln p is NaN beyond, as a network's
	// loss might be where it overflows.
	newF := func() LogDensity {
		f := diagGaussian([]float64{1, 1, 1})
		return func(x, grad []float64) float64 {
			if x[0] > 1 {
				return math.NaN()
			}
			return f(x, grad)
		}
	}
	for _, s := range []Sampler{NUTS, HMC} {
		res := sample(t, newF, []float64{-0.5, 0, 0}, &Settings{Sampler: s, Samples: 1000, Warmup: 200, Chains: 2, Seed: 4})
		if res.Divergences() == 0 {
			t.Errorf("%s: got no divergences with ln p NaN for x_0 > 1, want some", s)
		}
		for c := range res.Draws {
			for i := range res.Len() {
				if x := res.Sample(c, i); !(x[0] <= 1) {
					t.Fatalf("%s chain %d draw %d: got x_0 = %g in the NaN region", s, c, i, x[0])
				}
				if lp := res.LogDensity[c][i]; math.IsNaN(lp) || math.IsInf(lp, 0) {
					t.Fatalf("%s chain %d draw %d: got ln p %g", s, c, i, lp)
				}
			}
		}
	}
}

func TestSettingsErrors(t *testing.T) {
	t.Parallel()
	newF := func() LogDensity { return diagGaussian([]float64{1}) }
	x0 := []float64{0}
	for _, test := range []struct {
		name  string
		s     Settings
		x0    []float64
		field string
	}{
		{"sampler", Settings{Sampler: "gibbs"}, x0, "Sampler"},
		{"metric", Settings{Metric: "full"}, x0, "Metric"},
		{"samples", Settings{Samples: -1}, x0, "Samples"},
		{"warm-up", Settings{Warmup: -5}, x0, "Warmup"},
		{"chains", Settings{Chains: -2}, x0, "Chains"},
		{"leapfrog", Settings{Leapfrog: -1}, x0, "Leapfrog"},
		{"depth", Settings{MaxDepth: 31}, x0, "MaxDepth"},
		{"thin", Settings{Thin: -1}, x0, "Thin"},
		{"step", Settings{StepSize: -0.1}, x0, "StepSize"},
		{"step NaN", Settings{StepSize: math.NaN()}, x0, "StepSize"},
		{"step Inf", Settings{StepSize: math.Inf(1)}, x0, "StepSize"},
		{"target", Settings{TargetAccept: 1}, x0, "TargetAccept"},
		{"target negative", Settings{TargetAccept: -0.5}, x0, "TargetAccept"},
		{"jitter", Settings{Jitter: math.NaN()}, x0, "Jitter"},
		{"ladder without 1", Settings{Temperatures: []float64{2, 4}}, x0, "Temperatures"},
		{"ladder not increasing", Settings{Temperatures: []float64{1, 3, 2}}, x0, "Temperatures"},
		{"ladder infinite", Settings{Temperatures: []float64{1, math.Inf(1)}}, x0, "Temperatures"},
		{"ladder NaN", Settings{Temperatures: []float64{1, math.NaN()}}, x0, "Temperatures"},
		{"empty x0", Settings{}, nil, "x0"},
	} {
		_, err := Sample(t.Context(), newF, test.x0, &test.s)
		if err == nil || !strings.Contains(err.Error(), test.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got error %v, want a one-line error naming %s", test.name, err, test.field)
		}
	}
	// A start outside the support is an error, not a chain of NaNs.
	nan := func() LogDensity { return func(x, g []float64) float64 { return math.NaN() } }
	if _, err := Sample(t.Context(), nan, x0, &Settings{Samples: 10, Warmup: 10}); err == nil {
		t.Error("ln p NaN at the start: got no error")
	}
	// A flat density has no step size.
	flat := func() LogDensity { return func(x, g []float64) float64 { g[0] = 0; return 0 } }
	if _, err := Sample(t.Context(), flat, x0, &Settings{Samples: 10, Warmup: 10}); err == nil {
		t.Error("flat ln p: got no error from the step-size heuristic")
	}
	// A cancelled context stops the chains.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Sample(ctx, newF, x0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v, want context.Canceled", err)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	g := newConditionedGaussian(t, 5, 10, 5)
	for _, sampler := range []Sampler{NUTS, HMC} {
		run := func(seed uint64) *Result {
			return sample(t, g.density(), make([]float64, 5), &Settings{Sampler: sampler, Samples: 200, Warmup: 100, Chains: 6, Seed: seed})
		}
		a, b, c := run(42), run(42), run(43)
		for k := range a.Draws {
			if !slices.Equal(a.Draws[k], b.Draws[k]) || a.Chains[k].StepSize != b.Chains[k].StepSize {
				t.Errorf("%s chain %d: got different draws for the same seed", sampler, k)
			}
			if slices.Equal(a.Draws[k], c.Draws[k]) {
				t.Errorf("%s chain %d: got equal draws for different seeds", sampler, k)
			}
			if k > 0 && slices.Equal(a.Draws[k], a.Draws[0]) {
				t.Errorf("%s chain %d: got the same draws as chain 0", sampler, k)
			}
		}
	}
}

func TestPredictiveAndProgress(t *testing.T) {
	t.Parallel()
	sigma := []float64{1, 2}
	var mu sync.Mutex
	last := map[int]int{}
	calls := 0
	s := &Settings{
		Samples: 2000, Warmup: 300, Chains: 3, Seed: 8,
		Progress: func(chain, done, total int) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if total != 2300 || done <= last[chain] || done > total {
				t.Errorf("chain %d: got progress %d/%d after %d, want increasing up to 2300", chain, done, total, last[chain])
			}
			last[chain] = done
		},
	}
	res := sample(t, func() LogDensity { return diagGaussian(sigma) }, []float64{0, 0}, s)
	for c := range 3 {
		if last[c] != 2300 {
			t.Errorf("chain %d: got last progress %d, want 2300", c, last[c])
		}
	}
	if calls > 3*101 {
		t.Errorf("got %d progress calls, want at most about 100 per chain", calls)
	}
	// f(x) = (x0 + x1, x0²): mean 0 and 1, sd sqrt(5) and sqrt(2).
	sum := res.Predictive(2, func(x, out []float64) {
		out[0] = x[0] + x[1]
		out[1] = x[0] * x[0]
	})
	for o, want := range []struct{ mean, sd float64 }{{0, math.Sqrt(5)}, {1, math.Sqrt(2)}} {
		if d := math.Abs(sum[o].Mean - want.mean); !(d < 4*sum[o].MCSE) {
			t.Errorf("output %d: got mean %.4g, want %.4g ± %.2g", o, sum[o].Mean, want.mean, 4*sum[o].MCSE)
		}
		if math.Abs(sum[o].SD/want.sd-1) > 0.1 {
			t.Errorf("output %d: got sd %.4g, want %.4g ± 10%%", o, sum[o].SD, want.sd)
		}
		if !(sum[o].BulkESS > 500) || !(sum[o].RHat < 1.02) {
			t.Errorf("output %d: got ESS %.0f and R-hat %.4f, want > 500 and < 1.02", o, sum[o].BulkESS, sum[o].RHat)
		}
	}
}

// BenchmarkNUTSGaussian19 samples a dense 19-dimensional Gaussian, whose
// gradient (a 19x19 matrix-vector product) costs about what the paper's
// 19-weight network costs on its 24 points; one op is one chain of 1000
// draws after 1000 warm-up.
func BenchmarkNUTSGaussian19(b *testing.B) {
	g := newConditionedGaussian(b, 19, 100, 19)
	for _, m := range []Metric{Diag, Dense} {
		b.Run(string(m), func(b *testing.B) {
			s := &Settings{Chains: 1, Metric: m}
			b.ReportAllocs()
			for b.Loop() {
				sample(b, g.density(), make([]float64, 19), s)
			}
		})
	}
}
