package posterior

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// compareEpochs is the training of the tests' regression fit: short, so the
// tests are fast, and long enough for a positive definite A. Its beta (about
// 50) makes a wider posterior than the paper's 15000 epochs (about 420),
// which 2 chains of 1500 samples mix well.
const compareEpochs = 3000

// regressionFit trains the regression fit of the tests once. Tests only read
// it (CompareHMC and NewPotential do not write the fit).
var regressionFit = sync.OnceValues(func() (*bayes.Fit, error) {
	p, err := problems.New("regression", problems.Options{})
	if err != nil {
		return nil, err
	}
	return bayes.Train(context.Background(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1, Epochs: compareEpochs, Recipe: bayes.RecipePaper}))
})

func mustRegressionFit(t testing.TB) *bayes.Fit {
	t.Helper()
	f, err := regressionFit()
	if err != nil {
		t.Fatal(err)
	}
	if f.Laplace == nil {
		t.Fatalf("regression fit: status %s (%s), want a Laplace approximation", f.Status, f.Reason)
	}
	return f
}

// TestCompareHMCRegression checks the paper's claim on its own problem: on
// the data, HMC and the Laplace approximation give the same curve within the
// HMC band, and the chains agree on the predictive.
func TestCompareHMCRegression(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	w0 := slices.Clone(f.Model.Net.W)

	// The data points first, then a coarse grid over the domain.
	data := f.Model.Problem.Terms[0].Points
	var grid [][]float64
	grid = append(grid, data...)
	for i := range 41 {
		grid = append(grid, []float64{-1 + 2*float64(i)/40})
	}
	const chains, samples, warmup = 2, 500, 500
	// Stan's target and a short depth: this short fit's posterior is wider
	// and easier than the full fit's, and the test stays small.
	s := mcmc.Settings{Chains: chains, Samples: samples, Warmup: warmup, TargetAccept: 0.8, MaxDepth: 8, Seed: 1}
	c, err := CompareHMC(t.Context(), f, &s, &CompareOptions{Grid: grid})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Model.Net.W, w0) {
		t.Error("CompareHMC changed the fit's weights")
	}

	for i, x := range data {
		mL, mH, sH := c.Laplace.Mean[i], c.Sampled.Mean[i], c.Sampled.Std[i]
		if !(math.Abs(mL-mH) <= 2*sH) {
			t.Errorf("x = %.3f: Laplace mean %.4g, HMC mean %.4g ± %.3g: got a gap of %.3g sigma, want <= 2",
				x[0], mL, mH, sH, math.Abs(mL-mH)/sH)
		}
	}
	d := c.Diagnostics
	if d.MaxRHat == nil || !(*d.MaxRHat < 1.1) {
		t.Errorf("max R-hat of the predictive: got %s, want < 1.1", fmtPtr(d.MaxRHat))
	}
	if d.MinESS == nil || !(*d.MinESS > 20) {
		t.Errorf("min ESS of the predictive: got %s, want > 20", fmtPtr(d.MinESS))
	}
	for ch, a := range d.Accept {
		if !(a > 0.5 && a < 1) {
			t.Errorf("chain %d: acceptance %.3f, want in (0.5, 1) (target 0.8)", ch, a)
		}
	}
	if want := chains * (warmup + samples); d.Gradients < want {
		t.Errorf("gradients: got %d, want at least %d", d.Gradients, want)
	}
	for i := range grid {
		if !(c.Laplace.Sigma[i] > 0 && c.Sampled.Std[i] > 0) {
			t.Errorf("x = %.3f: Laplace sigma %g, sampled sd %g, want both > 0", grid[i][0], c.Laplace.Sigma[i], c.Sampled.Std[i])
		}
	}
	// Every grid point of the data is inside, and the coarse grid has
	// points outside: each regional number is defined.
	for name, r := range map[string]Regions{"width ratio": c.WidthRatio,
		"coverage Laplace": c.CoverageLaplace, "coverage HMC": c.CoverageHMC} {
		if r.Inside == nil || r.Outside == nil || r.All == nil {
			t.Errorf("%s: got %+v, want inside, outside and all", name, r)
		}
	}
	// Inside the data the two bands are of one size (the paper's
	// "comparable uncertainties").
	if r := c.WidthRatio.Inside; r != nil && !(*r > 0.5 && *r < 2) {
		t.Errorf("width ratio Laplace/HMC inside the data: got %.3g, want within [0.5, 2]", *r)
	}

	checkComparisonJSON(t, c)
}

// checkComparisonJSON checks that c encodes to JSON with the documented
// fields (docs/hmc.md) and without NaN or infinities.
func checkComparisonJSON(t *testing.T, c *Comparison) {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("JSON contains %s", bad)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"problem", "alpha", "beta", "data_intervals", "x", "truth",
		"hmc_settings.sampler", "hmc_settings.metric", "hmc_settings.samples", "hmc_settings.burn_in", "hmc_settings.chains",
		"hmc_settings.max_depth", "hmc_settings.target_accept", "hmc_settings.seed",
		"laplace.mean", "laplace.sigma",
		"hmc.mean", "hmc.std", "hmc.mcse", "hmc.ess", "hmc.tail_ess", "hmc.rhat",
		"max_gap_sigma", "mean_gap_sigma",
		"width_ratio.inside", "width_ratio.outside", "width_ratio.all",
		"coverage_laplace.inside", "coverage_laplace.outside", "coverage_laplace.all",
		"coverage_hmc.inside", "coverage_hmc.outside", "coverage_hmc.all",
		"diagnostics.accept", "diagnostics.step_size", "diagnostics.divergent", "diagnostics.burn_in_divergent",
		"diagnostics.tree_depth", "diagnostics.at_max_depth", "diagnostics.leapfrog", "diagnostics.ebfmi",
		"diagnostics.min_ess", "diagnostics.min_tail_ess", "diagnostics.max_rhat", "diagnostics.ess_per_1000_gradients", "diagnostics.seconds", "diagnostics.gradients",
		"diagnostics.samples_per_second", "diagnostics.ess_per_second", "diagnostics.predictive_seconds",
	} {
		var v any = m
		for _, k := range strings.Split(path, ".") {
			obj, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = obj[k]
		}
		if v == nil {
			t.Errorf("JSON: field %s missing", path)
		}
	}
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.4g", *v)
}

func TestCompareHMCErrors(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	noLaplace := *f
	noLaplace.Laplace, noLaplace.Status, noLaplace.Reason = nil, bayes.StatusNotPD, "test"

	heat, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hm, err := bayes.NewModel(heat, nn.New([]int{2, 6, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 1))), "single", "single")
	if err != nil {
		t.Fatal(err)
	}
	threeD := &bayes.Fit{Model: hm, Alpha: []float64{1}, Beta: []float64{1}, Laplace: f.Laplace}
	threeD.Model.Problem = &pde.Problem{Name: "cube", Inputs: []string{"x", "y", "z"}}

	for _, tc := range []struct {
		name string
		f    *bayes.Fit
		s    *mcmc.Settings
		grid [][]float64
		want string
	}{
		{"nil fit", nil, nil, nil, "no Model"},
		{"no Laplace", &noLaplace, nil, nil, "no Laplace approximation"},
		{"3-D problem", threeD, nil, nil, "pass a grid"},
		{"negative samples", f, &mcmc.Settings{Samples: -1}, nil, "Samples"},
		{"empty grid", f, &mcmc.Settings{Samples: 1, NoWarmup: true, Chains: 1}, [][]float64{}, "grid is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareHMC(t.Context(), tc.f, tc.s, &CompareOptions{Grid: tc.grid})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got (%v, %v), want an error containing %q", c != nil, err, tc.want)
			}
		})
	}
}

// TestNewLogDensity checks -ln p = E_T and its gradient against a
// hand-written E_T of the 1-6-1 network and against central finite
// differences.
func TestNewLogDensity(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	lp := NewLogDensity(f)
	u := func(w, g []float64) float64 {
		l := lp(w, g)
		for k := range g {
			g[k] = -g[k]
		}
		return -l
	}
	hand := handPotential(f)
	rng := rand.New(rand.NewPCG(3, 3))
	P := len(f.Model.Net.W)
	for trial := range 3 {
		w := slices.Clone(f.Model.Net.W)
		for k := range w {
			w[k] += 0.3 * float64(trial) * rng.NormFloat64()
		}
		g, gh := make([]float64, P), make([]float64, P)
		got, want := u(w, g), hand(w, gh)
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-10, 1e-10) {
			t.Errorf("trial %d: U = %.12g, hand-written E_T = %.12g", trial, got, want)
		}
		num := fd.Gradient(nil, func(x []float64) float64 { return u(x, make([]float64, P)) }, w,
			&fd.Settings{Formula: fd.Central, Step: 1e-6})
		for k := range g {
			if !scalar.EqualWithinAbsOrRel(g[k], gh[k], 1e-9, 1e-9) {
				t.Errorf("trial %d: dU/dw[%d] = %.10g, hand-written %.10g", trial, k, g[k], gh[k])
			}
			if !scalar.EqualWithinAbsOrRel(g[k], num[k], 1e-5, 1e-5) {
				t.Errorf("trial %d: dU/dw[%d] = %.10g, finite differences %.10g", trial, k, g[k], num[k])
			}
		}
	}
}

// handPotential is E_T of a one-hidden-layer network on a data-only problem
// with one alpha and one beta, written out by hand: the reference of
// TestNewLogDensity and, in BenchmarkHMCRegressionChainHandGrad, a density
// that costs almost nothing, so that the benchmark measures the sampler.
// The layout of w is nn.MLP's: W1 (H x 1), b1 (H), W2 (1 x H), b2.
func handPotential(f *bayes.Fit) func(w, grad []float64) float64 {
	term := f.Model.Problem.Terms[0]
	xs := make([]float64, len(term.Points))
	for i, x := range term.Points {
		xs[i] = x[0]
	}
	ys := term.Target
	alpha, beta := f.Alpha[0], f.Beta[0]
	H := f.Model.Net.Sizes[1]
	z := make([]float64, H)
	return func(w, grad []float64) float64 {
		w1, b1, w2, b2 := w[:H], w[H:2*H], w[2*H:3*H], w[3*H]
		clear(grad)
		g1, gb1, g2 := grad[:H], grad[H:2*H], grad[2*H:3*H]
		var ed float64
		for i, x := range xs {
			out := b2
			for j := range z {
				z[j] = math.Tanh(w1[j]*x + b1[j])
				out += w2[j] * z[j]
			}
			r := out - ys[i]
			ed += r * r / 2
			br := beta * r
			grad[3*H] += br
			for j, zj := range z {
				g2[j] += br * zj
				d := br * w2[j] * (1 - zj*zj)
				g1[j] += d * x
				gb1[j] += d
			}
		}
		u := beta * ed
		for k, wk := range w {
			u += alpha * wk * wk / 2
			grad[k] += alpha * wk
		}
		return u
	}
}

func TestRegionMeans(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	p := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name   string
		x      []float64
		inside []bool
		want   Regions
	}{
		{"both", []float64{1, 2, 3, 5}, []bool{true, true, false, false}, Regions{p(1.5), p(4), p(2.75)}},
		{"only inside", []float64{1, 3}, []bool{true, true}, Regions{p(2), nil, p(2)}},
		{"NaN skipped", []float64{1, nan, 3, math.Inf(1)}, []bool{true, true, false, false}, Regions{p(1), p(3), p(2)}},
		{"all NaN", []float64{nan}, []bool{false}, Regions{}},
	} {
		got := regionMeans(tc.x, tc.inside)
		for _, f := range []struct {
			name      string
			got, want *float64
		}{{"inside", got.Inside, tc.want.Inside}, {"outside", got.Outside, tc.want.Outside}, {"all", got.All, tc.want.All}} {
			if (f.got == nil) != (f.want == nil) || (f.got != nil && !scalar.EqualWithinAbs(*f.got, *f.want, 1e-15)) {
				t.Errorf("%s: %s: got %s, want %s", tc.name, f.name, fmtPtr(f.got), fmtPtr(f.want))
			}
		}
	}
}

// TestJointLogDensity checks the density of (w, ln alpha, ln beta)
// against -E_T + (W/2) ln alpha + (N/2) ln beta and its gradient against
// central finite differences.
func TestJointLogDensity(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	joint := NewJointLogDensity(f)
	P := len(f.Model.Net.W)
	W, N := float64(P), float64(len(f.Model.Problem.Terms[0].Points))
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 3 {
		x := slices.Clone(f.Model.Net.W)
		for k := range x {
			x[k] += 0.2 * float64(trial) * rng.NormFloat64()
		}
		la, lb := math.Log(f.Alpha[0])+0.3*float64(trial), math.Log(f.Beta[0])-0.2*float64(trial)
		x = append(x, la, lb)
		g := make([]float64, len(x))
		got := joint(x, g)
		at := *f
		at.Alpha, at.Beta = []float64{math.Exp(la)}, []float64{math.Exp(lb)}
		want := NewLogDensity(&at)(x[:P], make([]float64, P)) + W/2*la + N/2*lb
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-12) {
			t.Errorf("trial %d: ln p = %.12g, want -E_T + W/2 ln alpha + N/2 ln beta = %.12g", trial, got, want)
		}
		checkGradientFD(t, trial, "x", joint, x, g)
	}
}

// checkGradientFD checks the gradient g of lp at x against central finite
// differences.
func checkGradientFD(t *testing.T, trial int, coord string, lp mcmc.LogDensity, x, g []float64) {
	t.Helper()
	num := fd.Gradient(nil, func(y []float64) float64 { return lp(y, make([]float64, len(y))) }, x,
		&fd.Settings{Formula: fd.Central, Step: 1e-6})
	for k := range g {
		if !scalar.EqualWithinAbsOrRel(g[k], num[k], 1e-5, 1e-5) {
			t.Errorf("trial %d: d ln p/d%s[%d] = %.10g, finite differences %.10g", trial, coord, k, g[k], num[k])
		}
	}
}

// TestCompareSampleHyper samples (w, ln alpha, ln beta) of the tests'
// regression fit briefly and checks that the hyperparameters' marginals
// are reported against the fit's values and Occam widths: the sampled
// spreads are of the Occam widths' order, and ln alpha lies within 4
// widths of the fit's. The short fit's beta (3000 epochs) is still
// climbing to the evidence's optimum, so only its width is checked here;
// docs/hmc.md has the full fit's numbers.
func TestCompareSampleHyper(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	s := mcmc.Settings{Chains: 2, Samples: 150, Warmup: 150, TargetAccept: 0.8, MaxDepth: 7, Seed: 2}
	c, err := CompareHMC(t.Context(), f, &s, &CompareOptions{SampleHyper: true, Grid: [][]float64{{-0.5}, {0}, {0.5}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Hyper == nil || len(c.Hyper.Alpha) != 1 || len(c.Hyper.Beta) != 1 {
		t.Fatalf("got hyper %+v, want one alpha and one beta", c.Hyper)
	}
	for i, m := range []HyperMarginal{c.Hyper.Alpha[0], c.Hyper.Beta[0]} {
		if m.Occam == nil || m.Z == nil || !(m.SD > 0) {
			t.Errorf("%s: got Occam %s, gap %s, sd %g; want all defined", m.Name, fmtPtr(m.Occam), fmtPtr(m.Z), m.SD)
			continue
		}
		if r := m.SD / *m.Occam; r < 0.3 || r > 3 {
			t.Errorf("%s: sampled sd of ln h %.3f, Occam width %.3f: want the same order (ratio in [0.3, 3])", m.Name, m.SD, *m.Occam)
		}
		if i == 0 && math.Abs(*m.Z) > 4 {
			t.Errorf("%s: sampled ln h %.3f, fit's %.3f: %.1f Occam widths apart, want within 4", m.Name, m.Mean, m.Evidence, *m.Z)
		}
	}
	checkComparisonJSON(t, c)
}

func BenchmarkHMCRegressionChain(b *testing.B) {
	benchHMCChain(b, func(f *bayes.Fit) func() mcmc.LogDensity { return func() mcmc.LogDensity { return NewLogDensity(f) } })
}

func BenchmarkHMCRegressionChainHandGrad(b *testing.B) {
	benchHMCChain(b, func(f *bayes.Fit) func() mcmc.LogDensity {
		return func() mcmc.LogDensity {
			u := handPotential(f)
			return func(w, g []float64) float64 {
				l := -u(w, g)
				for k := range g {
					g[k] = -g[k]
				}
				return l
			}
		}
	})
}

// BenchmarkRegressionPotential is one evaluation of E_T and its gradient
// through pkg/ad: 20 of them make an HMC iteration.
func BenchmarkRegressionPotential(b *testing.B) {
	f := mustRegressionFit(b)
	u := NewLogDensity(f)
	w := slices.Clone(f.Model.Net.W)
	g := make([]float64, len(w))
	b.ReportAllocs()
	for b.Loop() {
		u(w, g)
	}
}

func benchHMCChain(b *testing.B, density func(*bayes.Fit) func() mcmc.LogDensity) {
	f := mustRegressionFit(b)
	b.ReportAllocs()
	b.ResetTimer()
	_, err := mcmc.Sample(b.Context(), density(f), f.Model.Net.W, &mcmc.Settings{
		Sampler: mcmc.HMC, Samples: b.N, NoWarmup: true, Chains: 1,
		// About the adapted step of this fit, so the trajectories (and
		// their early stops on divergence) are those of a real run.
		StepSize: 0.01, NoStepAdapt: true, Seed: 1,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*16000, "s/chain16k")
}

// TestWhitenedDensity checks the Laplace-whitened coordinates of the joint
// density: ln p at z is the density's at x = toX(z) (the weights mode +
// L^-T z, the logs unchanged), z = 0 is the mode, and the gradient in z is
// the finite differences'.
func TestWhitenedDensity(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	newZ, toX := whitened(f, func() mcmc.LogDensity { return NewJointLogDensity(f) })
	lpz, lpx := newZ(), NewJointLogDensity(f)
	P := len(f.Model.Theta)
	n := P + 2
	x0 := slices.Concat(f.Model.Theta, []float64{math.Log(f.Alpha[0]), math.Log(f.Beta[0])})
	z := make([]float64, n)
	z[P], z[P+1] = x0[P], x0[P+1]
	x := slices.Clone(z)
	toX(x)
	if !slices.Equal(x, x0) {
		t.Errorf("toX(0) = %v, want the mode %v", x, x0)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 3 {
		for i := range z {
			z[i] = x0[i]*float64(min(1, i/P)) + 0.5*rng.NormFloat64()
		}
		x = slices.Clone(z)
		toX(x)
		g := make([]float64, n)
		got, want := lpz(z, g), lpx(x, make([]float64, n))
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-10, 1e-10) {
			t.Errorf("trial %d: ln p in z %.12g, at x %.12g", trial, got, want)
		}
		checkGradientFD(t, trial, "z", lpz, z, g)
	}
}

// TestCompareWhiten samples the regression in whitened coordinates: the
// draws come back as weights (the sampled means on the data sit at the
// Laplace ones, within 2 sampled sd, as unwhitened) and the run says it
// was whitened.
func TestCompareWhiten(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	data := f.Model.Problem.Terms[0].Points
	s := mcmc.Settings{Chains: 2, Samples: 150, Warmup: 150, TargetAccept: 0.8, MaxDepth: 7, Seed: 3}
	c, err := CompareHMC(t.Context(), f, &s, &CompareOptions{Whiten: true, Grid: data})
	if err != nil {
		t.Fatal(err)
	}
	if !c.HMC.Whiten {
		t.Error("the comparison does not say it was whitened")
	}
	checkDraws(t, f, c, data)
	for i, x := range data {
		mL, mH, sH := c.Laplace.Mean[i], c.Sampled.Mean[i], c.Sampled.Std[i]
		if !(math.Abs(mL-mH) <= 2*sH) || !(sH < 1) {
			t.Errorf("x = %.3f: Laplace mean %.4g, sampled %.4g ± %.3g: want within 2 sd and sd < 1", x[0], mL, mH, sH)
		}
	}
}

// checkDraws: c.Draws holds every kept draw of every chain in the
// weights' coordinates, the draws c.Sampled summarizes: the net's mean
// over them at points[0] is c.Sampled.Mean[0].
func checkDraws(t *testing.T, f *bayes.Fit, c *Comparison, points [][]float64) {
	t.Helper()
	d := c.Draws
	if d == nil || len(d.Chains) != c.HMC.Chains || d.Len() != c.HMC.Samples {
		t.Fatalf("draws %+v, want %d chains of %d", d, c.HMC.Chains, c.HMC.Samples)
	}
	eval, out, sum := newGridEval(f, points[:1]), make([]float64, 1), 0.0
	for ch := range d.Chains {
		for i := range d.Len() {
			eval(d.Sample(ch, i)[:len(f.Model.Net.W)], out)
			sum += out[0]
		}
	}
	if mean := sum / float64(len(d.Chains)*d.Len()); !scalar.EqualWithinAbsOrRel(mean, c.Sampled.Mean[0], 1e-12, 1e-12) {
		t.Errorf("the net's mean over Draws at %v is %.15g, the comparison's sampled mean %.15g", points[0], mean, c.Sampled.Mean[0])
	}
}

// TestCompareCalibrated sets the record's calibrated band beside the
// Laplace one: the same sigma as band.Calibrated at the problem's fresh
// draw, its width ratio and coverage computed as the Laplace band's; a
// run without the option has none (the reproduction's records). The
// sampler never reads the exact solution: with Exact returning NaN the
// sampled predictive is the same, bit for bit.
func TestCompareCalibrated(t *testing.T) {
	t.Parallel()
	f := mustRegressionFit(t)
	grid := [][]float64{{-0.9}, {-0.5}, {0}, {0.5}, {0.9}}
	s := mcmc.Settings{Chains: 1, Samples: 40, Warmup: 40, TargetAccept: 0.8, MaxDepth: 5, Seed: 2}
	c, err := CompareHMC(t.Context(), f, &s, &CompareOptions{Grid: grid, Calibrated: true})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := band.FreshDrawOf(f.Model.Problem)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := band.Calibrated(f, fresh)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := cf.Predict(grid)
	if err != nil {
		t.Fatal(err)
	}
	if c.Calibrated == nil || !slices.Equal(c.Calibrated.Sigma, want) || !slices.Equal(c.Calibrated.Mean, c.Laplace.Mean) {
		t.Fatalf("calibrated band %+v, want sigma %v around the Laplace mean %v", c.Calibrated, want, c.Laplace.Mean)
	}
	var ratio, cover float64
	for i, u := range c.Truth {
		ratio += want[i] / c.Sampled.Std[i] / float64(len(grid))
		cover += within(u, c.Laplace.Mean[i], 2*want[i]) / float64(len(grid))
	}
	if c.WidthRatioCalibrated == nil || c.CoverageCalibrated == nil ||
		!scalar.EqualWithinAbsOrRel(*c.WidthRatioCalibrated.All, ratio, 1e-12, 1e-12) || *c.CoverageCalibrated.All != cover {
		t.Errorf("calibrated: width ratio %+v, coverage %+v; want all = %.6g and %.6g", c.WidthRatioCalibrated, c.CoverageCalibrated, ratio, cover)
	}
	var b strings.Builder
	if err := NewReport(f, c).WriteText(&b); err != nil || !strings.Contains(b.String(), "2-sigma coverage calibrated") {
		t.Errorf("text report (err %v) lacks the calibrated band:\n%s", err, b.String())
	}

	plain, err := CompareHMC(t.Context(), f, &s, &CompareOptions{Grid: grid})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Calibrated != nil || plain.WidthRatioCalibrated != nil || plain.CoverageCalibrated != nil {
		t.Error("a comparison without CompareOptions.Calibrated has a calibrated band")
	}

	blind := *f
	model := *f.Model
	p := *f.Model.Problem
	p.Exact = func([]float64) float64 { return math.NaN() }
	model.Problem, blind.Model = &p, &model
	nb, err := CompareHMC(t.Context(), &blind, &s, &CompareOptions{Grid: grid})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nb.Sampled.Mean, plain.Sampled.Mean) || !slices.Equal(nb.Sampled.Std, plain.Sampled.Std) {
		t.Errorf("the sampled predictive depends on the exact solution: %v ± %v, with NaN truth %v ± %v",
			plain.Sampled.Mean, plain.Sampled.Std, nb.Sampled.Mean, nb.Sampled.Std)
	}

	noFresh := *f
	m2 := *f.Model
	p2 := *f.Model.Problem
	p2.Fresh = nil
	m2.Problem, noFresh.Model = &p2, &m2
	if _, err := CompareHMC(t.Context(), &noFresh, &s, &CompareOptions{Grid: grid, Calibrated: true}); err == nil || !strings.Contains(err.Error(), "no fresh points") {
		t.Errorf("no fresh draw: got %v, want an error saying the problem has no fresh points", err)
	}
}
