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

// TestUnmetConditionUncalibrated: a fit that cannot meet a condition on
// values the user states (u_x = 0 on [0, 1] with u(0) = 0 and u(1) = 1:
// the equation and the boundary values conflict) has a band no check
// holds, and the record says so naming the condition.
func TestUnmetConditionUncalibrated(t *testing.T) {
	t.Parallel()
	p := &pde.Problem{
		Name: "conflict", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Terms: []pde.Term{
			pde.PDE("u_x = 0", 100),
			pde.Dirichlet(pde.Boundary(), 20, func(x []float64) float64 { return x[0] }),
		},
	}
	warnings := assessedWarnings(t, p, bayes.Settings{Seed: 1, Hidden: []int{6}, Epochs: 400, Hyper: bayes.HyperSteps{Start: 200}})
	want := `band uncalibrated for u: its condition "dirichlet_boundary" is unmet`
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("warnings %q: want one opening %q", warnings, want)
	}
}

// TestCalibratedQ95Bar: a band sized by the checks (no estimate) whose
// errors at the fresh points of the conditions lie within 2.8 sigma for 95
// % of them warns (above CalibratedQ95Max), one within 2.4 does not.
func TestCalibratedQ95Bar(t *testing.T) {
	t.Parallel()
	f, m2, res := trainedFresh(t, "wave", bayes.Settings{Seed: 1, Epochs: 300})
	q0 := score.Quantile(valueZ(f, m2, res)[0], 0.95)
	for _, c := range []struct {
		q     float64
		warns bool
	}{{2.8, true}, {2.4, false}} {
		g, err := (&Band{Method: "test", Scale: []float64{q0 / c.q}}).On(f)
		if err != nil {
			t.Fatal(err)
		}
		if ws := disagreementWarnings(valueZ(g, m2, res), f.Model.Problem.OutputNames(), false); (len(ws) > 0) != c.warns {
			t.Errorf("q95 %.2g at the conditions: %q, want a warning %v", c.q, ws, c.warns)
		}
	}
}

// TestInteriorWarnings: where the residual ratio says the equation is
// violated between the points and the value check, the band's only
// direct check, finds the conditions' errors well inside the band, the
// checks disagree and the record warns; not when the value check reads
// errors of the band's size, nor where the error estimate or a
// measurement check sized the band.
func TestInteriorWarnings(t *testing.T) {
	t.Parallel()
	f, m2, res := trainedFresh(t, "wave", bayes.Settings{Seed: 1, Epochs: 300})
	z := valueZ(f, m2, res)[0]
	q0 := score.Quantile(z, 0.95)
	value := checked{value: []int{len(z)}, measured: []bool{false}, kfold: []kfold{{}}, scale: []float64{1}}
	for _, c := range []struct {
		q     float64
		ratio float64
		peak  float64 // the equation's residuals' local peak (equationPeak)
		c     checked
		warns bool
	}{
		{0.5, 3, 0, value, true},
		{1.5, 3, 0, value, false},
		{0.5, 1.5, 0, value, false},
		{0.5, 3, 0, checked{estimated: true, value: value.value, measured: value.measured, kfold: value.kfold, scale: value.scale}, false},
		{0.5, 3, 0, checked{value: value.value, measured: []bool{true}, kfold: value.kfold, scale: value.scale}, false},
		// the conditions' errors of the band's size, but the equation's
		// residuals peak where no check reads the errors
		{1.5, 3, 3, value, true},
		{1.5, 3, 1.5, value, false},
		{1.5, 1.5, 3, value, false},
		{1.5, 3, 3, checked{value: value.value, measured: []bool{true}, kfold: value.kfold, scale: value.scale}, false},
	} {
		g, err := (&Band{Method: "test", Scale: []float64{q0 / c.q}}).On(f)
		if err != nil {
			t.Fatal(err)
		}
		ws := interiorWarnings(valueZ(g, m2, res), f.Model.Problem.OutputNames(), c.c, c.ratio, "beta_pde", c.peak, "pde")
		if (len(ws) > 0) != c.warns {
			t.Errorf("q95 %.2g at the conditions, ratio %g, peak %g, estimated %v, measured %v: %q, want a warning %v", c.q, c.ratio, c.peak, c.c.estimated, c.c.measured[0], ws, c.warns)
		}
	}
}

// TestEquationPeak: the paper's Burgers fit (300 epochs) violates its
// equation most at the shock, where the fresh pde residuals' local rms
// exceeds LocalRatio times the term's; wave's terms of 50 fresh points
// cannot peak (newLocalInflation), and a Local of residuals spread evenly
// does not, while one with a cluster of large ones does.
func TestEquationPeak(t *testing.T) {
	t.Parallel()
	f, m2, res := trainedFresh(t, "burgers", bayes.Settings{Seed: 1})
	if peak, term := equationPeak(f, m2, res); !(peak > LocalRatio) || term != "pde" {
		t.Errorf("burgers: the equation's residuals peak at x%.3g in term %q, want above %g in pde", peak, term, LocalRatio)
	}
	f, m2, res = trainedFresh(t, "wave", bayes.Settings{Seed: 1, Epochs: 300})
	if peak, term := equationPeak(f, m2, res); peak != 0 {
		t.Errorf("wave: a peak of x%.3g in term %q, want none (50 fresh points per term)", peak, term)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	local := func(spike float64) *Local {
		tm := LocalTerm{}
		for i := range 400 {
			x := []float64{rng.Float64(), rng.Float64()}
			r := rng.NormFloat64()
			if i < 30 { // a cluster near (0.1, 0.1)
				x = []float64{0.1 + 0.02*rng.Float64(), 0.1 + 0.02*rng.Float64()}
				r *= spike
			}
			tm.Points, tm.Sq = append(tm.Points, x), append(tm.Sq, r*r)
			tm.MS += r * r / 400
		}
		return &Local{Span: []float64{1, 1}, Terms: []LocalTerm{tm}}
	}
	if p := local(1).peak(); !(p < LocalRatio) {
		t.Errorf("residuals spread evenly: peak x%.3g, want below %g", p, LocalRatio)
	}
	if p := local(10).peak(); !(p > LocalRatio) {
		t.Errorf("a cluster of residuals ten times larger: peak x%.3g, want above %g", p, LocalRatio)
	}
	if p := (*Local)(nil).peak(); p != 0 {
		t.Errorf("no Local: peak %v, want 0", p)
	}
}

// TestKFoldTailWarnings: a band the K-fold check pins where its sigma at
// the measurements is a fraction of the noise the fit states says that
// it is unchecked beyond its rms; one whose sigma there exceeds the noise (the
// errors show through it) does not, nor one the check could not pin (the
// record says "band uncalibrated" instead), nor one the measurement check
// sized.
func TestKFoldTailWarnings(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	// components of band variance v_j (refit) with noise 1, drawn with c
	check := func(c float64, vs ...[2]float64) kfold {
		var k kfold
		for _, vm := range vs {
			for range int(vm[1]) {
				v := vm[0]
				k.components[0] = append(k.components[0], math.Sqrt(c*c*v+1)*rng.NormFloat64())
				k.components[1] = append(k.components[1], v)
				k.noise = append(k.noise, 1)
			}
		}
		k.n = len(k.noise)
		k.c, k.lo, k.hi = scaleInterval(k.components[0], k.components[1], k.noise)
		return k
	}
	names := []string{"u"}
	for _, c := range []struct {
		name     string
		k        kfold
		measured bool
		warns    bool
	}{
		// poisson-inv's u: a hundred directions the band pins, the rest
		// far below the noise; c 3 leaves sigma a fifth of it
		{"under the noise", check(3, [2]float64{10, 100}, [2]float64{0.01, 2400}), false, true},
		{"above the noise", check(10, [2]float64{1, 400}), false, false},
		{"not pinned", check(1, [2]float64{0.01, 20}), false, false},
		{"measurement check", check(3, [2]float64{10, 100}, [2]float64{0.01, 2400}), true, false},
	} {
		ch := checked{value: []int{0}, measured: []bool{c.measured}, kfold: []kfold{c.k}, scale: []float64{1}}
		ws := kfoldTailWarnings(names, ch)
		sigma, noise := c.k.sigmaNoise(c.k.settled(1))
		if (len(ws) > 0) != c.warns || c.warns && !strings.Contains(ws[0], "unchecked beyond its rms") {
			t.Errorf("%s: c %.3g in [%.3g, %.3g], sigma %.3g, noise %.3g: %q, want a warning %v", c.name, c.k.c, c.k.lo, c.k.hi, sigma, noise, ws, c.warns)
		}
	}
	// sigmaNoise reads the band's variance lambda back from v = lambda / (1 - lambda/n)
	k := kfold{n: 2, components: [2][]float64{{0, 0}, {0.25 / 0.75, 1}}, noise: []float64{1, 1}}
	if sigma, noise := k.sigmaNoise(2); math.Abs(sigma-2*math.Sqrt((0.25+0.5)/2)) > 1e-12 || noise != 1 {
		t.Errorf("sigmaNoise %v %v, want %v 1", sigma, noise, 2*math.Sqrt((0.25+0.5)/2))
	}
}

// TestConditionsOnlyUncalibrated: on a problem of two fields, u measured
// with noise and a coefficient a fixed inside by the equation from u and
// given on the sides, the value check reads a's errors only at its sides:
// the record says a's band is uncalibrated inside (and not so of u, whose
// own measurements the K-fold check reads).
func TestConditionsOnlyUncalibrated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	var pts [][]float64
	var y []float64
	for range 150 {
		x := []float64{rng.Float64(), rng.Float64()}
		pts, y = append(pts, x), append(y, math.Sin(math.Pi*x[0])*math.Sin(math.Pi*x[1])+0.05*rng.NormFloat64())
	}
	p := &pde.Problem{
		Name: "coefficient", Inputs: []string{"x", "y"}, Outputs: []string{"u", "a"},
		Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms: []pde.Term{
			pde.PDE("a*(u_xx + u_yy) + 2*pi^2*sin(pi*x)*sin(pi*y) = 0", 200),
			{Name: "data", Group: "data", Output: "u", Points: pts, Target: y, Residual: pde.DataResidual, Measured: true},
			pde.Dirichlet(pde.Boundary(), 60, 1).For("a").Named("boundary_a").InGroup("boundary_a"),
		},
	}
	warnings := assessedWarnings(t, p, bayes.Settings{Seed: 1, Hidden: []int{10}, Epochs: 600, Hyper: bayes.HyperSteps{Start: 300}})
	want := "band uncalibrated for a: only the value check reads its errors, at 60 fresh points of its conditions; inside the domain the equation fixes it from the measurements of u"
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, want) }) ||
		slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, Uncalibrated+" for u: only the value check") }) {
		t.Errorf("warnings %q: want one opening %q, and none of u, which is measured", warnings, want)
	}
}

// assessedWarnings draws p (data seed 1), fits it with s and returns the
// warnings of its bands assessed on a fresh draw; an error ends the test.
func assessedWarnings(t *testing.T, p *pde.Problem, s bayes.Settings) []string {
	t.Helper()
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(context.Background(), q, s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := FreshDrawOf(f.Model.Problem)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Assess(f, d)
	if err != nil {
		t.Fatal(err)
	}
	return a.Warnings
}

// trainedFresh trains the paper's problem name with s (testfit.Train) and
// returns the fit, its model on the problem's fresh draw and each term's
// residuals there; an error ends the test.
func trainedFresh(t *testing.T, name string, s bayes.Settings) (*bayes.Fit, *bayes.Model, [][]float64) {
	t.Helper()
	f := testfit.Train(t, name, s)
	d, err := FreshDrawOf(f.Model.Problem)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := d.model(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, m2, m2.Residuals()
}
