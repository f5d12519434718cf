package bayes

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussian is the target N(mu, cov) with the precision prec = cov⁻¹.
type gaussian struct {
	mu   []float64
	cov  *mat.SymDense
	prec *mat.SymDense
}

// newCorrelatedGaussian returns a seeded Gaussian of dimension dim with
// correlations and scales spread evenly over the given number of decades,
// centred on 1.
func newCorrelatedGaussian(t testing.TB, dim int, decades float64, seed uint64) gaussian {
	rng := rand.New(rand.NewPCG(seed, 0))
	a := mat.NewDense(dim, dim, nil)
	for i := range dim {
		for j := range dim {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	cov := mat.NewSymDense(dim, nil)
	cov.SymOuterK(1/float64(dim), a)
	scale := make([]float64, dim)
	for i := range dim {
		cov.SetSym(i, i, cov.At(i, i)+0.2)
		scale[i] = math.Pow(10, decades*(float64(i)/float64(dim-1)-0.5))
	}
	for i := range dim {
		for j := i; j < dim; j++ {
			cov.SetSym(i, j, cov.At(i, j)*scale[i]*scale[j])
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		t.Fatal("test covariance is not positive definite")
	}
	// The precision is the target's own parameter here, so the explicit
	// inverse is the thing we want, not a step of a solve.
	prec := mat.NewSymDense(dim, nil)
	if err := chol.InverseTo(prec); err != nil {
		t.Fatal(err)
	}
	mu := make([]float64, dim)
	for i := range mu {
		mu[i] = scale[i] * rng.NormFloat64()
	}
	return gaussian{mu: mu, cov: cov, prec: prec}
}

// potential returns a constructor of U(w) = (w-mu)^T P (w-mu)/2.
func (g gaussian) potential() func() Potential {
	dim := len(g.mu)
	p := make([]float64, dim*dim)
	for i := range dim {
		for j := range dim {
			p[i*dim+j] = g.prec.At(i, j)
		}
	}
	return func() Potential {
		d := make([]float64, dim)
		return func(w, grad []float64) float64 {
			for i := range d {
				d[i] = w[i] - g.mu[i]
			}
			var u float64
			for i := range dim {
				var s float64
				for j, dj := range d {
					s += p[i*dim+j] * dj
				}
				grad[i] = s
				u += d[i] * s
			}
			return u / 2
		}
	}
}

// diagGaussian returns U(w) = sum w_i²/(2 sigma_i²).
func diagGaussian(sigma []float64) Potential {
	return func(w, grad []float64) float64 {
		var u float64
		for i, s := range sigma {
			grad[i] = w[i] / (s * s)
			u += w[i] * w[i] / (2 * s * s)
		}
		return u
	}
}

func TestHMCGaussian(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name     string
		dim      int
		decades  float64 // spread of the scales
		settings HMCSettings
	}{
		{"dim6/mass", 6, 2, HMCSettings{Samples: 2000, BurnIn: 500, Seed: 1}},
		{"dim8/mass/thin2", 8, 2, HMCSettings{Samples: 1500, BurnIn: 400, Thin: 2, Leapfrog: 15, Seed: 2}},
		{"dim10/mass/fixed step", 10, 1, HMCSettings{Samples: 2000, BurnIn: 500, StepSize: 0.3, NoStepAdapt: true, Seed: 3}},
		{"dim5/identity", 5, 0.5, HMCSettings{Samples: 3000, BurnIn: 300, NoMassAdapt: true, Seed: 4}},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			g := newCorrelatedGaussian(t, test.dim, test.decades, uint64(test.dim))
			w0 := make([]float64, test.dim)
			s := test.settings
			res, err := HMC(g.potential(), w0, &s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Dim() != test.dim || res.Len() != s.Samples || len(res.Draws) != 4 {
				t.Fatalf("got Dim %d Len %d chains %d, want %d %d 4", res.Dim(), res.Len(), len(res.Draws), test.dim, s.Samples)
			}
			for c, d := range res.Divergent {
				if d != 0 {
					t.Errorf("chain %d: got %d divergences on a Gaussian, want 0", c, d)
				}
				if s.NoStepAdapt && res.StepSize[c] != s.StepSize {
					t.Errorf("chain %d: got step %g with NoStepAdapt, want %g", c, res.StepSize[c], s.StepSize)
				}
			}
			checkMoments(t, res, g.mu, g.cov)
			for j, r := range res.RHat() {
				if !(r < 1.02) {
					t.Errorf("weight %d: got rank R-hat %.4f, want < 1.02", j, r)
				}
			}
			var tr [][]float64
			for j := range test.dim {
				tr = res.trace(tr, j)
				if r := SplitRHat(tr); !(r < 1.02) {
					t.Errorf("weight %d: got split R-hat %.4f, want < 1.02", j, r)
				}
			}
		})
	}
}

// checkMoments checks the sample mean and covariance of res against mu and
// cov, each entry within 4.5 Monte Carlo standard errors sd/sqrt(ESS) of
// the series it is the mean of: w_j for the mean, (w_j - m_j)(w_k - m_k)
// for the covariance.
func checkMoments(t *testing.T, res *HMCResult, mu []float64, cov mat.Symmetric) {
	t.Helper()
	const z = 4.5
	dim, nc, n := res.Dim(), len(res.Draws), res.Len()
	mean := res.Mean()
	got := res.Cov()
	series := make([][]float64, nc)
	for c := range series {
		series[c] = make([]float64, n)
	}
	var tr [][]float64
	for j := range dim {
		tr = res.trace(tr, j)
		_, sd := meanStd(slices.Concat(tr...))
		se := sd / math.Sqrt(ESS(tr))
		if d := math.Abs(mean[j] - mu[j]); !(d < z*se) {
			t.Errorf("mean[%d]: got %.4g, want %.4g ± %.2g (%.1f standard errors off)", j, mean[j], mu[j], z*se, d/se)
		}
		for k := j; k < dim; k++ {
			for c := range nc {
				for i := range n {
					w := res.Sample(c, i)
					series[c][i] = (w[j] - mean[j]) * (w[k] - mean[k])
				}
			}
			_, sd := meanStd(slices.Concat(series...))
			se := sd / math.Sqrt(ESS(series))
			want := cov.At(j, k)
			if d := math.Abs(got.At(j, k) - want); !(d < z*se) {
				t.Errorf("cov[%d,%d]: got %.4g, want %.4g ± %.2g (%.1f standard errors off)", j, k, got.At(j, k), want, z*se, d/se)
			}
		}
	}
}

func TestLeapfrogReversible(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name  string
		eps   float64
		steps int
		minv  []float64
	}{
		{"unit mass", 0.1, 50, []float64{1, 1, 1, 1, 1, 1}},
		{"diag mass", 0.05, 100, []float64{0.5, 2, 1, 3, 0.25, 1}},
		{"one step", 0.3, 1, []float64{1, 1, 1, 1, 1, 1}},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			g := newCorrelatedGaussian(t, len(test.minv), 1, 7)
			u := g.potential()()
			rng := rand.New(rand.NewPCG(1, 2))
			dim := len(test.minv)
			w, p, grad := make([]float64, dim), make([]float64, dim), make([]float64, dim)
			for i := range w {
				w[i] = g.mu[i] + rng.NormFloat64()
				p[i] = rng.NormFloat64()
			}
			w0, p0 := slices.Clone(w), slices.Clone(p)
			u0 := u(w, grad)
			leapfrog(u, w, p, grad, test.minv, test.eps, test.steps)
			for i := range p {
				p[i] = -p[i]
			}
			u1 := leapfrog(u, w, p, grad, test.minv, test.eps, test.steps)
			for i := range w {
				if math.Abs(w[i]-w0[i]) > 1e-10 || math.Abs(-p[i]-p0[i]) > 1e-10 {
					t.Errorf("coordinate %d: got (w, -p) = (%.15g, %.15g) after the round trip, want (%.15g, %.15g)", i, w[i], -p[i], w0[i], p0[i])
				}
			}
			if math.Abs(u1-u0) > 1e-10*math.Max(1, math.Abs(u0)) {
				t.Errorf("got U %.15g after the round trip, want %.15g", u1, u0)
			}
		})
	}
}

// TestLeapfrogEnergyOrder checks that leapfrog is of second order: over a
// trajectory of fixed length, halving ε divides the largest energy error
// by 4.
func TestLeapfrogEnergyOrder(t *testing.T) {
	t.Parallel()
	sigma := []float64{0.5, 1, 2, 1.5, 0.8}
	minv := []float64{1, 0.5, 2, 1, 1}
	u := diagGaussian(sigma)
	maxErr := func(eps float64, steps int) float64 {
		w := []float64{0.3, -1, 2, 0.5, -0.4}
		p := []float64{1, 0.5, -0.7, 1.2, -1}
		grad := make([]float64, len(w))
		h0 := u(w, grad) + kinetic(p, minv)
		var worst float64
		for range steps {
			uw := leapfrog(u, w, p, grad, minv, eps, 1)
			worst = math.Max(worst, math.Abs(uw+kinetic(p, minv)-h0))
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

// TestLeapfrogNoAlloc checks that an HMC iteration allocates nothing when
// the potential does not.
func TestLeapfrogNoAlloc(t *testing.T) {
	sigma := make([]float64, 19)
	for i := range sigma {
		sigma[i] = 1 + float64(i)/10
	}
	cfg, err := (&HMCSettings{}).config()
	if err != nil {
		t.Fatal(err)
	}
	res := &HMCResult{}
	ch := newChain(0, diagGaussian(sigma), make([]float64, 19), &cfg, res)
	ch.uw = ch.u(ch.w, ch.g)
	ch.eps = 0.3
	if n := testing.AllocsPerRun(100, func() { ch.transition(ch.jitteredStep(), 20) }); n != 0 {
		t.Errorf("got %v allocations per HMC iteration, want 0", n)
	}
}

func TestHMCMassWindows(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		burnIn, start int
		ends          []int
	}{
		{1000, 75, []int{100, 150, 250, 450, 950}}, // Stan's default
		{500, 75, []int{100, 150, 250, 450}},
		{150, 75, []int{100}},
		{100, 15, []int{90}},
		{19, 19, nil},
	} {
		start, ends := massWindows(test.burnIn)
		if start != test.start || !slices.Equal(ends, test.ends) {
			t.Errorf("burn-in %d: got windows from %d ending at %v, want from %d ending at %v", test.burnIn, start, ends, test.start, test.ends)
		}
	}
}

func TestHMCDualAveraging(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		dim, leapfrog int
		target        float64
	}{
		{7, 20, 0.7}, {7, 20, 0}, {7, 20, 0.9},
		{19, 10, 0.7}, {19, 10, 0.8}, {19, 10, 0.9},
	} {
		g := newCorrelatedGaussian(t, test.dim, 2, 11)
		res, err := HMC(g.potential(), make([]float64, test.dim), &HMCSettings{
			Samples: 1000, Leapfrog: test.leapfrog, TargetAccept: test.target, Seed: 5,
		})
		if err != nil {
			t.Fatal(err)
		}
		target := test.target
		if target == 0 {
			target = 0.8
		}
		var mean float64
		for c, a := range res.Accept {
			mean += a / float64(len(res.Accept))
			if math.Abs(a-target) > 0.12 {
				t.Errorf("dim %d, target %g, chain %d: got acceptance %.3f, want %g ± 0.12", test.dim, target, c, a, target)
			}
		}
		if math.Abs(mean-target) > 0.06 {
			t.Errorf("dim %d, target %g: got mean acceptance %.3f over chains, want %g ± 0.06", test.dim, target, mean, target)
		}
	}
}

// bimodal returns U for two narrow Gaussians (sd 0.1) at ±(2, 2).
func bimodal() Potential {
	const s2 = 0.01
	return func(w, grad []float64) float64 {
		// U = -ln(e^-a + e^-b), a and b the squared distances / (2 s²).
		a := ((w[0]-2)*(w[0]-2) + (w[1]-2)*(w[1]-2)) / (2 * s2)
		b := ((w[0]+2)*(w[0]+2) + (w[1]+2)*(w[1]+2)) / (2 * s2)
		lo := math.Min(a, b)
		ea, eb := math.Exp(lo-a), math.Exp(lo-b)
		pa, pb := ea/(ea+eb), eb/(ea+eb)
		grad[0] = (pa*(w[0]-2) + pb*(w[0]+2)) / s2
		grad[1] = (pa*(w[1]-2) + pb*(w[1]+2)) / s2
		return lo - math.Log(ea+eb)
	}
}

func TestHMCRHatBimodal(t *testing.T) {
	t.Parallel()
	settings := HMCSettings{Samples: 1000, BurnIn: 300, Chains: 2}
	var chains [][]float64
	for k, start := range [][]float64{{2, 2}, {-2, -2}} {
		s := settings
		s.Seed = uint64(k)
		res, err := HMC(bimodal, start, &s)
		if err != nil {
			t.Fatal(err)
		}
		// Each set of chains alone has mixed within its mode.
		if r := res.RHat(); !(r[0] < 1.05) {
			t.Errorf("mode %v alone: got R-hat %.3f, want < 1.05", start, r[0])
		}
		chains = append(chains, res.trace(nil, 0)...)
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

// ar1 returns m chains of n values of x_t = rho x_{t-1} + e_t started from
// the stationary distribution.
func ar1(rng *rand.Rand, m, n int, rho float64) [][]float64 {
	chains := make([][]float64, m)
	for c := range chains {
		x := make([]float64, n)
		x[0] = rng.NormFloat64() / math.Sqrt(1-rho*rho)
		for i := 1; i < n; i++ {
			x[i] = rho*x[i-1] + rng.NormFloat64()
		}
		chains[c] = x
	}
	return chains
}

func TestESSKnown(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		m, n int
		rho  float64
	}{
		{"iid/1 chain", 1, 4000, 0},
		{"iid/4 chains", 4, 1000, 0},
		{"ar1 0.5", 4, 5000, 0.5},
		{"ar1 0.9", 4, 20000, 0.9},
		{"ar1 0.9/1 chain", 1, 80000, 0.9},
		{"ar1 -0.5 antithetic", 2, 5000, -0.5},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(3, uint64(test.n)))
			chains := ar1(rng, test.m, test.n, test.rho)
			want := float64(test.m*test.n) * (1 - test.rho) / (1 + test.rho)
			for _, f := range []struct {
				name string
				ess  func([][]float64) float64
			}{{"ESS", ESS}, {"BulkESS", BulkESS}} {
				if got := f.ess(chains); math.Abs(got/want-1) > 0.2 {
					t.Errorf("%s: got %.0f, want %.0f ± 20%%", f.name, got, want)
				}
			}
			if r := SplitRHat(chains); !(r < 1.01) {
				t.Errorf("got split R-hat %.4f for stationary chains, want < 1.01", r)
			}
			if r := RankRHat(chains); !(r < 1.01) {
				t.Errorf("got rank R-hat %.4f for stationary chains, want < 1.01", r)
			}
		})
	}
}

func TestESSRHatEdgeCases(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	shifted := ar1(rng, 4, 500, 0.3)
	for i := range shifted[0] {
		shifted[0][i] += 3
	}
	if r := SplitRHat(shifted); !(r > 1.5) {
		t.Errorf("one chain shifted by 3 sd: got split R-hat %.3f, want > 1.5", r)
	}
	// A chain that drifts: its halves disagree, which only split R-hat sees.
	drift := make([]float64, 2000)
	for i := range drift {
		drift[i] = float64(i)/200 + rng.NormFloat64()
	}
	if r := SplitRHat([][]float64{drift}); !(r > 1.5) {
		t.Errorf("drifting single chain: got split R-hat %.3f, want > 1.5", r)
	}
	// Same mean, different scales: only the folded (tail) R-hat sees it.
	scaled := ar1(rng, 2, 2000, 0)
	for i := range scaled[1] {
		scaled[1][i] *= 4
	}
	if r := RankRHat(scaled); !(r > 1.1) {
		t.Errorf("chains differing in scale: got rank R-hat %.3f, want > 1.1", r)
	}
	for _, test := range []struct {
		name   string
		chains [][]float64
	}{
		{"short", [][]float64{{1, 2, 3}}},
		{"constant", [][]float64{{1, 1, 1, 1, 1, 1}}},
		{"NaN", [][]float64{{1, 2, math.NaN(), 4, 5, 6}}},
		{"Inf", [][]float64{{1, 2, 3, math.Inf(1), 5, 6}}},
	} {
		for _, f := range []struct {
			name string
			f    func([][]float64) float64
		}{{"ESS", ESS}, {"BulkESS", BulkESS}, {"SplitRHat", SplitRHat}, {"RankRHat", RankRHat}} {
			if got := f.f(test.chains); !math.IsNaN(got) {
				t.Errorf("%s of %s chains: got %v, want NaN", f.name, test.name, got)
			}
		}
	}
	for _, f := range []func([][]float64) float64{ESS, SplitRHat} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("got no panic for chains of different lengths")
				}
			}()
			f([][]float64{{1, 2, 3, 4}, {1, 2, 3}})
		}()
	}
}

func TestHMCNaNRegion(t *testing.T) {
	t.Parallel()
	// A standard normal cut at w_0 = 1: U is NaN beyond, as a network's loss
	// might be where it overflows.
	newU := func() Potential {
		u := diagGaussian([]float64{1, 1, 1})
		return func(w, grad []float64) float64 {
			if w[0] > 1 {
				return math.NaN()
			}
			return u(w, grad)
		}
	}
	res, err := HMC(newU, []float64{-0.5, 0, 0}, &HMCSettings{Samples: 1000, BurnIn: 200, Chains: 2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var div int
	for _, d := range res.Divergent {
		div += d
	}
	if div == 0 {
		t.Errorf("got no divergences with U NaN for w_0 > 1, want some")
	}
	for c, d := range res.Draws {
		for i, v := range d {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("chain %d: got non-finite value %v at %d", c, v, i)
			}
		}
		for i := range res.Len() {
			if w := res.Sample(c, i); w[0] > 1 {
				t.Fatalf("chain %d sample %d: got w_0 = %g in the NaN region", c, i, w[0])
			}
		}
		for i, u := range res.U[c] {
			if math.IsNaN(u) {
				t.Fatalf("chain %d sample %d: got U NaN", c, i)
			}
		}
	}
}

func TestHMCSettingsErrors(t *testing.T) {
	t.Parallel()
	newU := func() Potential { return diagGaussian([]float64{1}) }
	w0 := []float64{0}
	for _, test := range []struct {
		name  string
		s     HMCSettings
		w0    []float64
		field string
	}{
		{"samples", HMCSettings{Samples: -1}, w0, "Samples"},
		{"burn-in", HMCSettings{BurnIn: -5}, w0, "BurnIn"},
		{"chains", HMCSettings{Chains: -2}, w0, "Chains"},
		{"leapfrog", HMCSettings{Leapfrog: -1}, w0, "Leapfrog"},
		{"thin", HMCSettings{Thin: -1}, w0, "Thin"},
		{"step", HMCSettings{StepSize: -0.1}, w0, "StepSize"},
		{"step NaN", HMCSettings{StepSize: math.NaN()}, w0, "StepSize"},
		{"step Inf", HMCSettings{StepSize: math.Inf(1)}, w0, "StepSize"},
		{"target", HMCSettings{TargetAccept: 1}, w0, "TargetAccept"},
		{"target negative", HMCSettings{TargetAccept: -0.5}, w0, "TargetAccept"},
		{"jitter", HMCSettings{Jitter: math.NaN()}, w0, "Jitter"},
		{"empty w0", HMCSettings{}, nil, "w0"},
	} {
		_, err := HMC(newU, test.w0, &test.s)
		if err == nil || !strings.Contains(err.Error(), test.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got error %v, want a one-line error naming %s", test.name, err, test.field)
		}
	}
	// Negative zero is zero: the default.
	if _, err := HMC(newU, w0, &HMCSettings{StepSize: math.Copysign(0, -1), Samples: 10, BurnIn: 10, Chains: 1}); err != nil {
		t.Errorf("StepSize -0: got error %v, want the default", err)
	}
	// A start outside the support is an error, not a chain of NaNs.
	nan := func() Potential { return func(w, g []float64) float64 { return math.NaN() } }
	if _, err := HMC(nan, w0, &HMCSettings{Samples: 10, BurnIn: 10}); err == nil {
		t.Error("U NaN at the start: got no error")
	}
	// A flat U has no step size.
	flat := func() Potential { return func(w, g []float64) float64 { g[0] = 0; return 0 } }
	if _, err := HMC(flat, w0, &HMCSettings{Samples: 10, BurnIn: 10}); err == nil {
		t.Error("flat U: got no error from the step-size heuristic")
	}
}

func TestHMCDeterministic(t *testing.T) {
	t.Parallel()
	g := newCorrelatedGaussian(t, 5, 1, 5)
	run := func(seed uint64) *HMCResult {
		res, err := HMC(g.potential(), make([]float64, 5), &HMCSettings{Samples: 200, BurnIn: 100, Chains: 6, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(42), run(42), run(43)
	for k := range a.Draws {
		if !slices.Equal(a.Draws[k], b.Draws[k]) || a.StepSize[k] != b.StepSize[k] {
			t.Errorf("chain %d: got different draws for the same seed", k)
		}
		if slices.Equal(a.Draws[k], c.Draws[k]) {
			t.Errorf("chain %d: got equal draws for different seeds", k)
		}
		if k > 0 && slices.Equal(a.Draws[k], a.Draws[0]) {
			t.Errorf("chain %d: got the same draws as chain 0", k)
		}
	}
}

func TestHMCPredictiveAndProgress(t *testing.T) {
	t.Parallel()
	sigma := []float64{1, 2}
	var mu sync.Mutex
	last := map[int]int{}
	calls := 0
	s := &HMCSettings{
		Samples: 2000, BurnIn: 300, Chains: 3, Seed: 8,
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
	res, err := HMC(func() Potential { return diagGaussian(sigma) }, []float64{0, 0}, s)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		if last[c] != 2300 {
			t.Errorf("chain %d: got last progress %d, want 2300", c, last[c])
		}
	}
	if calls > 3*101 {
		t.Errorf("got %d progress calls, want at most about 100 per chain", calls)
	}
	// f(w) = (w0 + w1, w0²): mean 0 and 1, sd sqrt(5) and sqrt(2).
	sum := res.Predictive(2, func(w, out []float64) {
		out[0] = w[0] + w[1]
		out[1] = w[0] * w[0]
	})
	for o, want := range []struct{ mean, sd float64 }{{0, math.Sqrt(5)}, {1, math.Sqrt(2)}} {
		if d := math.Abs(sum.Mean[o] - want.mean); !(d < 4.5*sum.MCSE[o]) {
			t.Errorf("output %d: got mean %.4g, want %.4g ± %.2g", o, sum.Mean[o], want.mean, 4.5*sum.MCSE[o])
		}
		if math.Abs(sum.Std[o]/want.sd-1) > 0.1 {
			t.Errorf("output %d: got sd %.4g, want %.4g ± 10%%", o, sum.Std[o], want.sd)
		}
		if !(sum.ESS[o] > 500) || !(sum.RHat[o] < 1.02) {
			t.Errorf("output %d: got ESS %.0f and R-hat %.4f, want > 500 and < 1.02", o, sum.ESS[o], sum.RHat[o])
		}
	}
}

// BenchmarkHMCGaussian19 samples a dense 19-dimensional Gaussian, whose
// gradient (a 19x19 matrix-vector product) costs about what the paper's
// 19-weight network costs on its 24 points.
func BenchmarkHMCGaussian19(b *testing.B) {
	benchHMC(b, newCorrelatedGaussian(b, 19, 1, 19).potential(), 19, 1000)
}

// BenchmarkHMCDiag19 samples a diagonal Gaussian, whose gradient is nearly
// free: it measures the sampler's own cost.
func BenchmarkHMCDiag19(b *testing.B) {
	benchHMC(b, func() Potential { return diagGaussian(slices.Repeat([]float64{1}, 19)) }, 19, 1000)
}

// benchHMC times one chain of n kept samples after n/10 burn-in with the
// default 20 leapfrog steps, and reports the time per kept sample (burn-in
// included).
func benchHMC(b *testing.B, newU func() Potential, dim, n int) {
	w0 := make([]float64, dim)
	s := &HMCSettings{Samples: n, BurnIn: n / 10, Chains: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HMC(newU, w0, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
}
