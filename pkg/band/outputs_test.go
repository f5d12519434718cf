package band_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestValueCheckPerOutput: with two fields, the value check's factor is
// taken per field from the value terms that measure it (Term.Output), and
// the pooled factor is that of all value terms together.
func TestValueCheckPerOutput(t *testing.T) {
	t.Parallel()
	f := testfit.TrainOscillator(t)
	q, err := f.Model.Problem.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := f.ModelOn(q)
	if err != nil {
		t.Fatal(err)
	}
	res := m2.Residuals()
	factor, per := band.ValueCheck(f, m2, res, false) // widening only: the narrowing has its own test
	if len(per) != 2 {
		t.Fatalf("%d factors, want one per output", len(per))
	}
	var all []float64
	for k, name := range []string{"u", "v"} {
		tm := q.Terms[2+k] // u0, v0: the value terms, one point each
		_, s, err := f.PredictOutput(name, tm.Points)
		if err != nil {
			t.Fatal(err)
		}
		z := math.Abs(res[2+k][0]) / s[0]
		all = append(all, z)
		if want := math.Sqrt(math.Max(1, z/2)); per[k] != want {
			t.Errorf("%s: factor %v, want %v (z = %.3g)", name, per[k], want, z)
		}
	}
	zs := slices.Clone(all) // per output, in order
	slices.Sort(all)
	pooled := score.Quantile(all, 0.95)
	if want := math.Sqrt(math.Max(1, pooled/2)); factor != want {
		t.Errorf("pooled factor %v, want %v", factor, want)
	}
	// Allowed to narrow, an output narrows by its own q95 / ValueNarrow only
	// when the pooled q95 is below ValueNarrow too.
	factorN, perN := band.ValueCheck(f, m2, res, true)
	narrows := pooled > 0 && pooled < band.ValueNarrow
	for k, z := range zs {
		want := per[k]
		if narrows && z > 0 && z < band.ValueNarrow {
			want = z / band.ValueNarrow
		}
		if perN[k] != want {
			t.Errorf("output %d allowed to narrow (pooled q95 %.3g): factor %v, want %v", k, pooled, perN[k], want)
		}
	}
	wantN := factor
	if narrows {
		wantN = pooled / band.ValueNarrow
	}
	if factorN != wantN {
		t.Errorf("pooled factor allowed to narrow: %v, want %v", factorN, wantN)
	}
	d, err := band.NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	a, err := band.Assess(f, band.WithoutEstimate(d)) // the value check's band
	if err != nil {
		t.Fatal(err)
	}
	cal, err := a.Predictor("calibrated")
	if err != nil {
		t.Fatalf("no calibrated band: %v", err)
	}
	pts := [][]float64{{0.4}, {2.2}}
	for _, name := range []string{"u", "v"} {
		_, s, _ := f.PredictOutput(name, pts)
		_, c, _ := cal.PredictOutput(name, pts)
		for i := range pts {
			if !(c[i] >= s[i]) {
				t.Errorf("%s at %v: calibrated sigma %v below the paper's %v", name, pts[i], c[i], s[i])
			}
		}
	}
	t.Logf("factors u %.4g, v %.4g, pooled %.4g", per[0], per[1], factor)
}

// TestWideningPerOutput: the calibrated band widens (or narrows) each
// output by its own factor; the pooled one reaches no output.
func TestWideningPerOutput(t *testing.T) {
	for _, c := range []struct {
		scale  float64
		scales []float64
	}{{1.5, []float64{1, 3}}, {0.5, []float64{1, 0.25}}} { // widening, narrowing
		w := band.NewWidening(c.scale, c.scales)
		for k, want := range c.scales {
			sigma := []float64{1, 2}
			w(k, [][]float64{{0}, {1}}, sigma)
			if sigma[0] != want || sigma[1] != 2*want {
				t.Errorf("factors %v, %v, output %d: sigma %v, want %v", c.scale, c.scales, k, sigma, []float64{want, 2 * want})
			}
		}
	}
}

// TestValueCheckTransformed: a field whose condition a transform meets
// (pde.Transform; the condition left out) has no value terms and keeps its
// band (factor 1), whatever the other field's value terms say; the other
// field's factor is its own.
func TestValueCheckTransformed(t *testing.T) {
	t.Parallel()
	osc := testfit.Oscillator(t)
	p := *osc
	p.Transforms = []pde.Transform{{Output: "u", G: "0", D: "x", Meets: []string{"u0"}}}
	p.Terms = slices.Clone(osc.Terms)
	for i := range p.Terms {
		p.Terms[i].Points, p.Terms[i].Target = nil, nil // Sample draws them anew, u0 met and left out
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Schedule: testfit.OscillatorSchedule.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := q.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := f.ModelOn(fresh)
	if err != nil {
		t.Fatal(err)
	}
	res := m2.Residuals()
	for _, narrow := range []bool{false, true} {
		factor, per := band.ValueCheck(f, m2, res, narrow)
		if len(per) != 2 || per[0] != 1 || !(per[1] > 0) || per[1] != factor {
			t.Errorf("narrow %v: factors %v, pooled %v; want 1 for u and v's own, the pooled one", narrow, per, factor)
		}
	}
}

// TestFieldNothingMeasures: the oscillator with u given at 30 points of
// the interior (its values, noise-free) and no condition on v, trained
// 150 epochs: u's errors at its conditions' fresh points lie within 0.56
// sigma, and the value check, allowed to narrow, narrows u's band. v's
// band is not scaled by u's evidence (factor 1; its calibrated sigma that
// of the Laplace at the calibrated betas), and the record says no check
// reads v, not u.
func TestFieldNothingMeasures(t *testing.T) {
	t.Parallel()
	interior := &pde.Draw{Region: pde.Interior(), N: 24}
	p := &pde.Problem{Name: "oscillator-u", Inputs: []string{"x"}, Outputs: []string{"u", "v"},
		Lo: []float64{0}, Hi: []float64{math.Pi},
		Terms: []pde.Term{
			{Name: "u_eq", Group: "pde", Draw: interior, Residual: pde.Eq("u_x = v")},
			{Name: "v_eq", Group: "pde", Draw: interior, Residual: pde.Eq("v_x = -u")},
			{Name: "u_values", Group: "boundary", Output: "u", Residual: pde.DataResidual,
				Draw: &pde.Draw{Region: pde.Interior(), N: 30, Value: func(x []float64) float64 { return math.Sin(x[0]) }}},
		},
		ExactOutputs: func(x []float64) []float64 { return []float64{math.Sin(x[0]), math.Cos(x[0])} },
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	s := testfit.OscillatorSchedule.Clone()
	s.Epochs, s.HyperStart, s.BetaMode = 150, 50, ""
	f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Schedule: s})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := q.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := f.ModelOn(fresh)
	if err != nil {
		t.Fatal(err)
	}
	_, per := band.ValueCheck(f, m2, m2.Residuals(), true)
	if !(per[0] > 0 && per[0] < 1) || per[1] != 1 {
		t.Fatalf("value factors allowed to narrow: %v, want u's below 1 (its errors at 30 fresh points within 0.56 sigma) and v's 1", per)
	}
	d, err := band.NewFreshDraw(fresh)
	if err != nil {
		t.Fatal(err)
	}
	a, err := band.Assess(f, band.WithoutEstimate(d))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := a.Predictor("calibrated")
	if err != nil {
		t.Fatalf("no calibrated band: %v", err)
	}
	pts := [][]float64{{0.4}, {2.2}}
	l, err := f.LaplaceAt(cal.Beta)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := f.WithBand(cal.Beta, l, nil).PredictOutput("v", pts)
	_, got, _ := cal.PredictOutput("v", pts)
	for i := range pts {
		if math.Abs(got[i]-want[i]) > 1e-12*want[i] {
			t.Errorf("v at %v: calibrated sigma %v, want %v (the Laplace at the calibrated betas, not widened by u's check)", pts[i], got[i], want[i])
		}
	}
	ws := containing(a.Warnings, band.Uncalibrated)
	if len(ws) != 1 || !strings.HasPrefix(ws[0], band.Uncalibrated+" for v:") {
		t.Errorf("warnings %q, want v uncalibrated and u not", a.Warnings)
	}
}
