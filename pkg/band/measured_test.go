package band

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestMeasurementCheck: an undertrained Burgers fit (300 epochs), whose
// band is far too narrow, is widened by the measurement check at the new
// measurements of the fresh draw and its seven redraws until the weighted
// q95 there is 2, which brings the grid's coverage up; without the
// redraws (60 new measurements, under MeasuredMin) the check does not
// apply, and the K-fold check of the training data widens the band less;
// and it never reads the exact solution.
func TestMeasurementCheck(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "burgers", bayes.Settings{Seed: 1})
	p := f.Model.Problem
	q, d := freshOf(t, p)
	if len(d.extra) != 2*EstimateDraws-1 {
		t.Fatalf("%d redraws for a problem with measurements, want %d", len(d.extra), 2*EstimateDraws-1)
	}
	m2, err := d.model(f)
	if err != nil {
		t.Fatal(err)
	}
	res, train, held := m2.Residuals(), f.Model.GroupRMS(f.Beta), m2.GroupRMS(f.Beta)
	meas := newMeasurements(f, m2, res, d.extra)
	beta, l, w, err := calibration(f, nil, m2, meas, res, train, held)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.measured) != 1 || !(w.measured[0] > 1.5) {
		t.Fatalf("measurement factors %v, want one above 1.5 (the band misses the measurements)", w.measured)
	}
	// the widened band meets the check's own target: 2 at the weighted q95
	c := w.measured[0]
	w.measured = nil
	g := f.WithOutputBand(beta, l, w.applyOutput)
	var pts [][]float64
	var r, s []float64
	for _, dq := range append([]*pde.Problem{d.p}, d.extra...) {
		tm := dq.Terms[2] // data
		m, err := g.ModelOn(dq)
		if err != nil {
			t.Fatal(err)
		}
		_, sg, err := g.Predict(tm.Points)
		if err != nil {
			t.Fatal(err)
		}
		pts, r, s = append(pts, tm.Points...), append(r, m.Residuals()[2]...), append(s, sg...)
	}
	n := neighbourNoise(pts, r, p.Lo, p.Hi)
	wt := densityWeights(pts, p.Lo, p.Hi)
	z := make([]float64, len(r))
	for i := range r {
		z[i] = math.Abs(r[i]) / math.Hypot(c*s[i], n)
	}
	if got := weightedQuantile(z, wt, 0.95); math.Abs(got-2) > 1e-6 {
		t.Errorf("weighted q95 at the widened band %v, want 2", got)
	}
	// the grid: closer to the target than without the check
	grid, exact := p.Grid(40)
	coverage := func(g *bayes.Fit) float64 {
		mean, sigma, _ := g.Predict(grid)
		in := 0
		for i := range grid {
			if math.Abs(mean[i]-exact[i]) <= 2*sigma[i] {
				in++
			}
		}
		return float64(in) / float64(len(grid))
	}
	cov := func(d FreshDraw) float64 {
		g, err := Calibrated(f, d)
		if err != nil {
			t.Fatal(err)
		}
		return coverage(g)
	}
	// without the redraws the K-fold check of the training data widens
	// the band too, less far
	with, without, paper := cov(d), cov(WithoutEstimate(d)), coverage(f)
	t.Logf("grid coverage: paper %.3f, K-fold check %.3f, measurement check %.3f", paper, without, with)
	if !(with > paper+0.1) || !(with >= without) {
		t.Errorf("grid coverage %.3f with the check, %.3f with the K-fold check instead, %.3f the paper's: want it well up", with, without, paper)
	}
	// the paper's band, far narrower, is what the record's warning reads
	if w := measurementWarning(f, meas); len(w) != 1 || !strings.Contains(w[0], "likely overconfident") || !strings.Contains(w[0], "measurements of u") {
		t.Errorf("measurement warning %q, want one saying the band of u is likely overconfident", w)
	}
	if w := measurementWarning(f, newMeasurements(f, m2, res, nil)); w != nil {
		t.Errorf("60 new measurements: warned %q, want none (under MeasuredMin)", w)
	}
	_, want := testfit.Predict(t, mustCalibrated(t, f, d), grid)
	checkBlind(t, f, p, q, grid, want, "the measurement check")
}

func mustCalibrated(t *testing.T, f *bayes.Fit, d FreshDraw) *bayes.Fit {
	t.Helper()
	g, err := Calibrated(f, d)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNeighbourNoise: the noise of residuals that carry a smooth error,
// or one with a jump across a line, is read within a few per cent from
// nearest-neighbour differences; the error's change between neighbours
// can only add to it.
func TestNeighbourNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lo, hi := []float64{-1, 0}, []float64{1, 1}
	for _, c := range []struct {
		name string
		err  func(x []float64) float64
	}{
		{"smooth", func(x []float64) float64 { return 0.05 * math.Sin(math.Pi*x[0]) * x[1] }},
		{"jump", func(x []float64) float64 { return 0.3 * math.Tanh(x[0]/0.01) * x[1] }},
	} {
		const noise = 0.02
		pts := make([][]float64, 480)
		r := make([]float64, len(pts))
		for i := range pts {
			pts[i] = []float64{-1 + 2*rng.Float64(), rng.Float64()}
			r[i] = c.err(pts[i]) + noise*rng.NormFloat64()
		}
		if got := neighbourNoise(pts, r, lo, hi); !(got > 0.9*noise && got < 1.15*noise) {
			t.Errorf("%s: noise %.4g, want within [0.9, 1.15] of %g", c.name, got, noise)
		}
	}
	if got := neighbourNoise([][]float64{{0}}, []float64{1}, nil, nil); !math.IsInf(got, 1) {
		t.Errorf("one point: %v, want +Inf", got)
	}
}

// TestDensityWeights: on points crowded in a fifth of the interval (half
// of them there), the weights give that fifth about a fifth of the total,
// as a uniform sample would (within 0.1: the kernel blurs the crowd's edge
// and thins the density at the interval's end).
func TestDensityWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pts := make([][]float64, 600)
	for i := range pts {
		x := rng.Float64()
		if i%2 == 0 {
			x *= 0.2
		}
		pts[i] = []float64{x}
	}
	w := densityWeights(pts, []float64{0}, []float64{1})
	var in, total float64
	for i, x := range pts {
		total += w[i]
		if x[0] < 0.2 {
			in += w[i]
		}
	}
	if share := in / total; math.Abs(share-0.2) > 0.1 {
		t.Errorf("weighted share of [0, 0.2): %.3f, want 0.2 (unweighted 0.6)", share)
	}
}

// TestWeightedQuantile: with equal weights it is Quantile's 95 % point;
// a weight moves it.
func TestWeightedQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	z := make([]float64, 400)
	ones := make([]float64, len(z))
	for i := range z {
		z[i], ones[i] = rng.ExpFloat64(), 1
	}
	if got, want := weightedQuantile(z, ones, 0.95), score.Quantile(z, 0.95); got != want {
		t.Errorf("equal weights: %v, Quantile %v", got, want)
	}
	if got := weightedQuantile([]float64{3, 1, 2}, []float64{1, 1, 8}, 0.5); got != 2 {
		t.Errorf("weighted median of 1, 2 (weight 8), 3: %v, want 2", got)
	}
}

// TestQuantileSE: the standard error of the 95 % quantile of |z| over 400
// standard normal draws is what 2000 such samples show, within 10 %.
func TestQuantileSE(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, reps = 400, 2000
	ones := slices.Repeat([]float64{1}, n)
	qs := make([]float64, reps)
	z := make([]float64, n)
	var mean float64
	for k := range qs {
		for i := range z {
			z[i] = math.Abs(rng.NormFloat64())
		}
		qs[k] = weightedQuantile(z, ones, 0.95)
		mean += qs[k] / reps
	}
	var v float64
	for _, q := range qs {
		v += (q - mean) * (q - mean) / (reps - 1)
	}
	if got, want := quantileSE(ones), math.Sqrt(v); math.Abs(got/want-1) > 0.1 {
		t.Errorf("quantileSE %.4g, sampled %.4g", got, want)
	}
}

// TestMeasurementCheckUserProblem: a problem of a user's (Problem.Sample)
// draws new measurements only at its fresh draw; its redraws repeat
// them, and the check reads them once (the same factor from the fresh
// draw alone). Under MeasuredMin new measurements it does not apply.
func TestMeasurementCheckUserProblem(t *testing.T) {
	t.Parallel()
	exact := func(x []float64) float64 { return math.Sin(math.Pi * x[0]) }
	for _, c := range []struct {
		n       int
		applies bool
	}{{250, true}, {150, false}} {
		p := &pde.Problem{
			Name: "user", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
			Terms: []pde.Term{
				pde.PDE("u_xx + pi^2*sin(pi*x) = 0", 40),
				pde.Dirichlet(pde.Boundary(), 2, 0),
				{Name: "data", Group: "data", Residual: pde.DataResidual,
					Draw: &pde.Draw{Region: pde.Interior(), N: c.n, Noise: 0.05, Value: exact}},
			},
			Exact: exact,
		}
		q, err := p.Sample(1)
		if err != nil {
			t.Fatal(err)
		}
		f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Epochs: 200, Hidden: []int{4}, Hyper: bayes.HyperSteps{Start: 100}})
		if err != nil {
			t.Fatal(err)
		}
		_, d := freshOf(t, q)
		m2, err := d.model(f)
		if err != nil {
			t.Fatal(err)
		}
		res := m2.Residuals()
		all := measurementFactors(f, newMeasurements(f, m2, res, d.extra))
		alone := measurementFactors(f, newMeasurements(f, m2, res, nil))
		if len(all) != 1 || all[0] != alone[0] {
			t.Errorf("%d measurements: factors %v with the redraws, %v from the fresh draw alone: want the same", c.n, all, alone)
		}
		if applies := all[0] >= 1; applies != c.applies {
			t.Errorf("%d new measurements: factor %v, want the check to apply: %v", c.n, all[0], c.applies)
		}
	}
}
