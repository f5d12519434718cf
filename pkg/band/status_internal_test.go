package band

import (
	"context"
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
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Hidden: []int{6}, Epochs: 400, Hyper: bayes.HyperSteps{Start: 200}})
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
	want := `band uncalibrated for u: its condition "dirichlet_boundary" is unmet`
	if !slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("warnings %q: want one opening %q", a.Warnings, want)
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
		c     checked
		warns bool
	}{
		{0.5, 3, value, true},
		{1.5, 3, value, false},
		{0.5, 1.5, value, false},
		{0.5, 3, checked{estimated: true, value: value.value, measured: value.measured, kfold: value.kfold, scale: value.scale}, false},
		{0.5, 3, checked{value: value.value, measured: []bool{true}, kfold: value.kfold, scale: value.scale}, false},
	} {
		g, err := (&Band{Method: "test", Scale: []float64{q0 / c.q}}).On(f)
		if err != nil {
			t.Fatal(err)
		}
		ws := interiorWarnings(valueZ(g, m2, res), f.Model.Problem.OutputNames(), c.c, c.ratio, "beta_pde")
		if (len(ws) > 0) != c.warns {
			t.Errorf("q95 %.2g at the conditions, ratio %g, estimated %v, measured %v: %q, want a warning %v", c.q, c.ratio, c.c.estimated, c.c.measured[0], ws, c.warns)
		}
	}
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
