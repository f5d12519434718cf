package figdata_test

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// short is a fit of a few hundred epochs: enough for a history with
// hyperparameter steps and a Laplace approximation, in well under a second.
var short = bayes.Settings{Seed: 3, Epochs: 200, Hyper: bayes.HyperSteps{Start: 100}, Recipe: bayes.RecipePaper}

// heatFit is one short fit of the heat problem (one alpha, one beta).
var heatFit = sync.OnceValues(func() (*bayes.Fit, error) {
	return bayes.Train(context.Background(), problems.Heat(problems.Options{}), scheduled("heat", short))
})

// waveFullFit is one short fit of the wave problem with 4 alphas and 2 betas.
var waveFullFit = sync.OnceValues(func() (*bayes.Fit, error) {
	p, err := problems.New("wave-full", problems.Options{})
	if err != nil {
		return nil, err
	}
	return bayes.Train(context.Background(), p, scheduled("wave-full", short))
})

// scheduled is s with the schedule of the named problem of the paper.
func scheduled(name string, s bayes.Settings) bayes.Settings {
	e, err := problems.Lookup(name)
	if err != nil {
		panic(err)
	}
	s.Schedule = e.Schedule(problems.Options{})
	return s
}

func fit(t *testing.T, get func() (*bayes.Fit, error)) *bayes.Fit {
	t.Helper()
	f, err := get()
	if err != nil {
		t.Fatal(err)
	}
	if f.Laplace == nil {
		t.Fatalf("the test fit has no Laplace approximation: %s %s", f.Status, f.Reason)
	}
	return f
}

func TestHistory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                  string
		get                   func() (*bayes.Fit, error)
		alphaNames, betaNames []string
	}{
		{"heat", heatFit, []string{""}, []string{""}}, // one of each: viz's default names
		{"wave-full", waveFullFit, nil, []string{"beta_pde", "beta_boundary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fit(t, tc.get)
			h := figdata.History(f)
			if _, err := viz.Training(h, viz.Labels{}); err != nil {
				t.Errorf("viz.Training: %v", err)
			}
			n := len(f.History)
			if len(h.ET.Values) != n || len(h.ET.Epochs) != n {
				t.Errorf("E_T: got %d values, want %d (one per recorded epoch)", len(h.ET.Values), n)
			}
			hyper := 0
			for _, p := range f.History {
				if p.EHyp != 0 {
					hyper++
				}
			}
			if hyper == 0 || hyper == n {
				t.Fatalf("the test fit has E_hyp at %d of %d epochs, want some but not all", hyper, n)
			}
			if len(h.EHyp.Values) != hyper {
				t.Errorf("E_hyp: got %d values, want %d (the epochs after the first hyperparameter step)", len(h.EHyp.Values), hyper)
			}
			if len(h.Alpha) != len(f.Alpha) || len(h.Beta) != len(f.Beta) {
				t.Fatalf("got %d alpha and %d beta series, want %d and %d", len(h.Alpha), len(h.Beta), len(f.Alpha), len(f.Beta))
			}
			var names []string
			for _, s := range h.Beta {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tc.betaNames) {
				t.Errorf("beta series names: got %q, want %q", names, tc.betaNames)
			}
			if tc.alphaNames == nil {
				for _, g := range f.Model.Alphas {
					tc.alphaNames = append(tc.alphaNames, g.Name)
				}
			}
			names = nil
			for _, s := range h.Alpha {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tc.alphaNames) {
				t.Errorf("alpha series names: got %q, want %q", names, tc.alphaNames)
			}
			last := f.History[n-1]
			if got, want := h.Beta[0].Values[n-1], last.Beta[0]; got != want {
				t.Errorf("last beta: got %g, want %g", got, want)
			}
		})
	}
}

func TestHistoryLeavesOutNonFinite(t *testing.T) {
	t.Parallel()
	f := &bayes.Fit{Model: &bayes.Model{}, Alpha: []float64{1}, Beta: []float64{1}, History: []bayes.HistoryPoint{
		{Epoch: 1, ET: math.NaN(), Alpha: []float64{1}, Beta: []float64{math.Inf(1)}},
		{Epoch: 2, ET: 3, EHyp: -5, Alpha: []float64{2}, Beta: []float64{4}},
	}}
	h := figdata.History(f)
	for _, tc := range []struct {
		name   string
		s      viz.Series
		epochs []int
	}{
		{"E_T", h.ET, []int{2}}, {"E_hyp", h.EHyp, []int{2}}, {"alpha", h.Alpha[0], []int{1, 2}}, {"beta", h.Beta[0], []int{2}},
	} {
		if !slices.Equal(tc.s.Epochs, tc.epochs) {
			t.Errorf("%s: got epochs %v, want %v", tc.name, tc.s.Epochs, tc.epochs)
		}
	}
}

func TestSlices(t *testing.T) {
	t.Parallel()
	f := fit(t, heatFit)
	p := f.Model.Problem
	for _, tc := range []struct {
		fracs []float64
		times []float64
	}{
		{nil, []float64{0, 0.25, 0.5, 0.75, 1}}, // SliceTimes on heat's [0, 1]
		{[]float64{0.1, 1}, []float64{0.1, 1}},
	} {
		ss := figdata.Slices(f, tc.fracs...)
		if len(ss) != len(tc.times) {
			t.Fatalf("Slices(%v): got %d slices, want %d", tc.fracs, len(ss), len(tc.times))
		}
		for k, s := range ss {
			if math.Abs(s.T-tc.times[k]) > 1e-12 {
				t.Errorf("slice %d: got t = %g, want %g", k, s.T, tc.times[k])
			}
			if len(s.X) != 101 || s.X[0] != p.Lo[0] || s.X[100] != p.Hi[0] {
				t.Errorf("slice %d: got %d points from %g to %g, want 101 over [%g, %g]", k, len(s.X), s.X[0], s.X[len(s.X)-1], p.Lo[0], p.Hi[0])
			}
			i := 37
			x := []float64{s.X[i], s.T}
			mean, sigma := mustPredict(t, f, [][]float64{x})
			if !close(s.Pred[i], mean[0]) || !close(s.Sigma[i], sigma[0]) || s.Exact[i] != p.Exact(x) {
				t.Errorf("slice %d at x = %g: got (%g, %g, %g), want (%g, %g, %g) as exact, Predict", k, x[0],
					s.Exact[i], s.Pred[i], s.Sigma[i], p.Exact(x), mean[0], sigma[0])
			}
		}
		if _, err := viz.Slices(ss, viz.Labels{}); err != nil {
			t.Errorf("viz.Slices: %v", err)
		}
	}
}

// close is equality within the rounding of a batched evaluation.
func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestFields(t *testing.T) {
	t.Parallel()
	f := fit(t, heatFit)
	p := f.Model.Problem
	const n = 7
	u, e := figdata.Fields(f, n)
	if len(u.X) != n || len(u.Y) != n || len(u.Z) != n*n || len(e.Z) != n*n {
		t.Fatalf("got %d x %d grid with %d and %d values, want %d x %d", len(u.X), len(u.Y), len(u.Z), len(e.Z), n, n)
	}
	if u.X[0] != p.Lo[0] || u.X[n-1] != p.Hi[0] || u.Y[0] != p.Lo[1] || u.Y[n-1] != p.Hi[1] {
		t.Errorf("grid does not span the domain: x %v, y %v", u.X, u.Y)
	}
	i, j := 2, 5 // Z is row-major over Y
	x := []float64{u.X[i], u.Y[j]}
	mean, _ := mustPredict(t, f, [][]float64{x})
	if got := u.Z[j*n+i]; !close(got, mean[0]) {
		t.Errorf("u at %v: got %g, want %g", x, got, mean[0])
	}
	if got, want := e.Z[j*n+i], math.Abs(u.Z[j*n+i]-p.Exact(x)); got != want {
		t.Errorf("|error| at %v: got %g, want %g", x, got, want)
	}
	for _, fd := range []viz.Field{u, e} {
		if _, err := viz.HeatMap(fd, viz.Labels{}); err != nil {
			t.Errorf("viz.HeatMap: %v", err)
		}
	}
}

func TestPoints(t *testing.T) {
	t.Parallel()
	p := problems.Burgers(problems.Options{})
	sets := figdata.Points(p)
	want := map[string]int{}
	var order []string
	for _, term := range p.Terms {
		if _, ok := want[term.Group]; !ok {
			order = append(order, term.Group)
		}
		want[term.Group] += len(term.Points)
	}
	var got []string
	for _, s := range sets {
		got = append(got, s.Name)
		if len(s.X) != want[s.Name] || len(s.Y) != want[s.Name] {
			t.Errorf("group %s: got %d x and %d y, want %d points", s.Name, len(s.X), len(s.Y), want[s.Name])
		}
	}
	if !slices.Equal(got, order) {
		t.Errorf("got groups %q, want %q", got, order)
	}
	if first := p.Terms[0].Points[0]; sets[0].X[0] != first[0] || sets[0].Y[0] != first[1] {
		t.Errorf("first point: got (%g, %g), want %v", sets[0].X[0], sets[0].Y[0], first)
	}
}

func TestEvidenceAndError(t *testing.T) {
	t.Parallel()
	num := func(x float64) *float64 { return &x }
	withErr := func(z *float64, e *float64) record.Result {
		return record.Result{LogEvidence: z, Errors: &record.GridErrors{RelL2: e}}
	}
	rs := []record.Result{
		withErr(num(10), num(0.1)),
		withErr(nil, num(0.2)),   // no evidence
		withErr(num(12), nil),    // no error
		{LogEvidence: num(13)},   // no exact solution
		withErr(num(14), num(0)), // zero error: not on a log axis
		withErr(num(9), num(0.05)),
	}
	logZ, relErr := figdata.EvidenceAndError(rs)
	if !slices.Equal(logZ, []float64{10, 9}) || !slices.Equal(relErr, []float64{0.1, 0.05}) {
		t.Errorf("got %v, %v; want [10 9], [0.1 0.05]", logZ, relErr)
	}
}

func TestComparison(t *testing.T) {
	t.Parallel()
	p := problems.Regression(problems.Options{})
	c := &posterior.Comparison{X: []float64{-1, 0, 1}, Truth: []float64{1, 0, 1},
		Laplace: posterior.Band{Mean: []float64{1, 0.1, 0.9}, Sigma: []float64{0.1, 0.2, 0.1}},
		Sampled: posterior.PointSummary{Mean: []float64{1.1, 0, 1}, Std: []float64{0.2, 0.3, 0.2}}}
	v := figdata.Comparison(p, c)
	n := 0
	for _, term := range p.Terms {
		n += len(term.Points)
	}
	if len(v.DataX) != n || len(v.DataY) != n {
		t.Errorf("got %d data points, want %d", len(v.DataX), n)
	}
	if len(v.Fits) != 2 || !slices.Equal(v.Fits[0].Sigma, c.Laplace.Sigma) || !slices.Equal(v.Fits[1].Sigma, c.Sampled.Std) {
		t.Errorf("got bands %+v, want Laplace then HMC", v.Fits)
	}
	if _, err := viz.LaplaceVsHMC(v, viz.Labels{}); err != nil {
		t.Errorf("viz.LaplaceVsHMC: %v", err)
	}
}

func TestPanics(t *testing.T) {
	t.Parallel()
	oneD := &bayes.Fit{Model: &bayes.Model{Problem: problems.Regression(problems.Options{})}}
	noExact := problems.Heat(problems.Options{})
	noExact.Exact = nil
	for name, call := range map[string]func(){
		"Slices of a 1-D problem":       func() { figdata.Slices(oneD) },
		"Fields of a 1-D problem":       func() { figdata.Fields(oneD, 5) },
		"Points of a 1-D problem":       func() { figdata.Points(oneD.Model.Problem) },
		"Slices without exact solution": func() { figdata.Slices(&bayes.Fit{Model: &bayes.Model{Problem: noExact}}) },
		"Fields on a grid of one point": func() { figdata.Fields(&bayes.Fit{Model: &bayes.Model{Problem: problems.Heat(problems.Options{})}}, 1) },
		"Curves of a 2-D problem":       func() { figdata.Curves(&bayes.Fit{Model: &bayes.Model{Problem: noExact}}, 5) },
		"Curves of one point":           func() { figdata.Curves(oneD, 1) },
		"SlicesOf an unknown output": func() {
			figdata.SlicesOf(&bayes.Fit{Model: &bayes.Model{Problem: problems.Heat(problems.Options{})}}, "v")
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			call()
		}()
	}
}

// mustPredict is f.Predict, failing the test on an error.
func mustPredict(t testing.TB, f *bayes.Fit, pts [][]float64) (mean, sigma []float64) {
	t.Helper()
	mean, sigma, err := f.Predict(pts)
	if err != nil {
		t.Fatal(err)
	}
	return mean, sigma
}

// TestCurves: a problem of two fields gives one panel per field, each
// with its own exact solution and its own band, drawn by viz.Slices.
func TestCurves(t *testing.T) {
	t.Parallel()
	f := testfit.TrainOscillator(t)
	cs := figdata.Curves(f, 41)
	if len(cs) != 2 || cs[0].Label != "u" || cs[1].Label != "v" {
		t.Fatalf("%d curves %v: want u and v", len(cs), cs)
	}
	for k, c := range cs {
		mean, sigma, err := f.PredictOutput(c.Label, [][]float64{{c.X[7]}})
		if err != nil || c.Pred[7] != mean[0] || c.Sigma[7] != sigma[0] {
			t.Errorf("%s at %g: %v ± %v, want %v ± %v (%v)", c.Label, c.X[7], c.Pred[7], c.Sigma[7], mean, sigma, err)
		}
		want := []func(float64) float64{math.Sin, math.Cos}[k]
		for i, x := range c.X {
			if c.Exact[i] != want(x) || math.Abs(c.Pred[i]-want(x)) > 0.02 {
				t.Fatalf("%s at %g: exact %v, predicted %v; want %v", c.Label, x, c.Exact[i], c.Pred[i], want(x))
			}
		}
	}
	if _, err := viz.Slices(cs, viz.Labels{Title: "oscillator", Y: "field"}); err != nil {
		t.Error(err)
	}
}
