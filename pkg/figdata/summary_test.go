package figdata_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

func TestLinspace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 1, 5, []float64{0, 0.25, 0.5, 0.75, 1}},
		{-1, 1, 2, []float64{-1, 1}},
		{2, 3, 1, []float64{2}},
		{2, 3, 0, []float64{}},
		{2, 3, -4, []float64{}},
	} {
		if got := figdata.Linspace(c.lo, c.hi, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Linspace(%g, %g, %d) = %v, want %v", c.lo, c.hi, c.n, got, c.want)
		}
	}
}

// TestAlong: the points of a line through the heat problem's box, and one
// line error for each mistake.
func TestAlong(t *testing.T) {
	t.Parallel()
	f, err := heatFit()
	if err != nil {
		t.Fatal(err)
	}
	p := f.Model.Problem
	s, pts, err := figdata.Along(p, "t", 3, map[string]float64{"x": 1})
	if err != nil || !slices.Equal(s, []float64{0, 0.5, 1}) || len(pts) != 3 || !slices.Equal(pts[1], []float64{1, 0.5}) {
		t.Errorf("Along t at x = 1: %v %v (%v)", s, pts, err)
	}
	for _, c := range []struct {
		input string
		at    map[string]float64
		want  string
	}{
		{"y", map[string]float64{"x": 0}, `no input "y"; the inputs are x, t`},
		{"t", nil, `no value for input "x"`},
		{"t", map[string]float64{"x": 0, "z": 1}, `"z" is not one of the other inputs`},
		{"t", map[string]float64{"x": 0, "t": 1}, `"t" is not one of the other inputs`},
	} {
		if _, _, err := figdata.Along(p, c.input, 3, c.at); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Along(%q, %v): %v, want an error containing %q", c.input, c.at, err, c.want)
		}
	}
}

// TestQuantity: u itself as a quantity is Predict's mean and sigma, its
// errors those of the grid's comparison, and the curve draws.
func TestQuantity(t *testing.T) {
	t.Parallel()
	f, err := heatFit()
	if err != nil {
		t.Fatal(err)
	}
	p := f.Model.Problem
	x, pts, err := figdata.Along(p, "x", 11, map[string]float64{"t": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	c, err := figdata.Quantity(f, x, pts, func(v *pde.Vars) *ad.Node { return v.U }, p.Exact)
	if err != nil {
		t.Fatal(err)
	}
	mean, sigma, _ := f.Predict(pts)
	if !slices.Equal(c.Mean, mean) || !slices.Equal(c.Sigma, sigma) || len(c.Exact) != 11 || c.Errors.RelL2 != score.Compute(mean, sigma, c.Exact).RelL2 {
		t.Errorf("Quantity of u: %+v; want Predict's mean and sigma and their errors", c)
	}
	if cmp := c.Comparison("u"); len(cmp.Fits) != 1 || cmp.Fits[0].Name != "u" || !slices.Equal(cmp.True, c.Exact) {
		t.Errorf("Comparison: %+v", cmp)
	}
	if s := c.Slice("t = 0.5"); s.Label != "t = 0.5" || !slices.Equal(s.Pred, c.Mean) {
		t.Errorf("Slice: %+v", s)
	}
	if c, err := figdata.Quantity(f, x, pts, func(v *pde.Vars) *ad.Node { return v.D("x") }, nil); err != nil || c.Exact != nil {
		t.Errorf("no exact quantity: %v, exact %v", err, c.Exact)
	}
	if _, err := figdata.Quantity(f, x[:3], pts, func(v *pde.Vars) *ad.Node { return v.U }, nil); err == nil {
		t.Error("3 values of x for 11 points: no error")
	}
	if x, y, err := figdata.TermValues(p, "boundary", "t"); err != nil || len(x) != len(p.Terms[1].Points) || !slices.Equal(y, p.Terms[1].Target) {
		t.Errorf("TermValues: %v %v %v", x, y, err)
	}
	if _, _, err := figdata.TermValues(p, "data", "x"); err == nil || !strings.Contains(err.Error(), `no term "data"`) {
		t.Errorf("TermValues of a missing term: %v", err)
	}
}

// TestSummaryHTML: the table holds the record's numbers, one beta per
// group with the held one marked, and the warnings; the ensemble table
// ranks by evidence.
func TestSummaryHTML(t *testing.T) {
	t.Parallel()
	f, err := waveFullFit()
	if err != nil {
		t.Fatal(err)
	}
	s := figdata.SummaryHTML(f, 20)
	e, err := record.ErrorsOf(f, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<caption>wave-full</caption>", "<tr><th>status</th><td>" + string(f.Status) + " after ",
		"<th>rel_l2</th><td>" + fmt.Sprintf("%.3g", e.RelL2) + "</td>", "<th>coverage</th>", "<th>q95</th>", "<th>log_evidence</th>",
		"<th>beta_pde</th>", "<th>beta_boundary</th>", "<th>warnings</th>"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "(held)") {
		t.Errorf("no beta is held, the summary marks one:\n%s", s)
	}

	g := *f
	g.Settings.Seed = 99
	g.Laplace = nil // no evidence: last
	h := *f
	h.Settings.Seed = 7
	l := *f.Laplace
	l.LogEvidence = math.Inf(1) // ranks first
	h.Laplace = &l
	tab := figdata.EnsembleHTML([]*bayes.Fit{&g, f, nil, &h}, 20)
	i7, i3, i99 := strings.Index(tab, "<td>7</td>"), strings.Index(tab, "<td>3</td>"), strings.Index(tab, "<td>99</td>")
	if !strings.Contains(tab, "3 fits by evidence") || i7 < 0 || !(i7 < i3 && i3 < i99) {
		t.Errorf("ensemble table: want seeds 7, 3, 99 in that order:\n%s", tab)
	}
}

// TestSummaryHeld: a beta held by KnownNoise is marked.
func TestSummaryHeld(t *testing.T) {
	t.Parallel()
	p, err := problems.New("burgers", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(context.Background(), p, scheduled("burgers", bayes.Settings{Seed: 1, Epochs: 60, Hyper: bayes.HyperSteps{Start: 50, Every: 5}, KnownNoise: map[string]float64{"data": 0.02}}))
	if err != nil {
		t.Fatal(err)
	}
	if s := figdata.SummaryHTML(f, 10); !strings.Contains(s, "<th>beta_data</th><td>2500 (held)</td>") || strings.Count(s, "(held)") != 1 {
		t.Errorf("summary: want beta_data 2500 marked held, and no other:\n%s", s)
	}
}

// A fit of several fields shows the joint rel L2 and each field's.
func TestSummaryHTMLOutputs(t *testing.T) {
	t.Parallel()
	f := testfit.TrainOscillator(t)
	e, err := record.ErrorsOf(f, 20)
	if err != nil {
		t.Fatal(err)
	}
	s := figdata.SummaryHTML(f, 20)
	for _, want := range []string{"<th>rel_l2</th><td>" + fmt.Sprintf("%.3g", e.RelL2) + "</td>",
		"<th>rel_l2 u</th><td>" + fmt.Sprintf("%.3g", e.Outputs["u"].RelL2) + "</td>",
		"<th>rel_l2 v</th><td>" + fmt.Sprintf("%.3g", e.Outputs["v"].RelL2) + "</td>", "<th>coverage</th>"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
