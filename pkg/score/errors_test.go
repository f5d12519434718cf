package score_test

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// Compute on hand-made vectors: d = mean - exact = (0.5, 0, 0, -1).
// The first point sits exactly on the band's edge (|d| = 2 sigma = 0.5, all
// dyadic): covered, as the doc says (|u - u*| <= 2 sigma). A NaN mean makes
// rel L2, MSE and max |d| NaN and counts as not covered.
func TestComputeByHand(t *testing.T) {
	t.Parallel()
	exact := []float64{3, 0, 4, 1}
	mean := []float64{3.5, 0, 4, 0}
	sigma := []float64{0.25, 1, 0.1, 0.4}
	e := score.Compute(mean, sigma, exact)
	want := score.Errors{RelL2: math.Sqrt(1.25 / 26), MSE: 1.25 / 4, MaxAbs: 1, Coverage2S: 0.75, GridN: 4}
	if math.Abs(e.RelL2-want.RelL2) > 1e-15 || e.MSE != want.MSE || e.MaxAbs != want.MaxAbs || e.Coverage2S != want.Coverage2S || e.GridN != 4 {
		t.Errorf("got %+v, want %+v", e, want)
	}
	if e := score.Compute(mean, nil, exact); e.Coverage2S != 0 || e.MSE != want.MSE || e.GridN != 4 {
		t.Errorf("without sigma: %+v, want coverage 0 and the same MSE", e)
	}
	mean[1] = math.NaN()
	e = score.Compute(mean, sigma, exact)
	if !math.IsNaN(e.RelL2) || !math.IsNaN(e.MSE) || !math.IsNaN(e.MaxAbs) || e.Coverage2S != 0.5 {
		t.Errorf("NaN mean: %+v, want NaN rel L2, MSE and max abs, coverage 0.5", e)
	}
}

// A point where sigma is 0 (a hard constraint fixes the output there) is
// left out of the coverage, whatever its error (the reference's own): of
// the three others, two are covered. Without the rule the point counted as
// a miss (1/2 here).
func TestComputeLeavesFixedPointsOut(t *testing.T) {
	t.Parallel()
	exact := []float64{1 + 1e-12, 0, 2.5, 6}
	mean := []float64{1, 0, 2, 3}
	sigma := []float64{0, 1, 1, 1}
	if e := score.Compute(mean, sigma, exact); math.Abs(e.Coverage2S-2.0/3) > 1e-15 || e.GridN != 4 || e.MaxAbs != 3 {
		t.Errorf("got %+v, want coverage 2/3 of the banded points, 4 points and max |d| 3 over all", e)
	}
	if e := score.Compute(mean[:1], sigma[:1], exact[:1]); !math.IsNaN(e.Coverage2S) {
		t.Errorf("no banded point: coverage %g, want NaN", e.Coverage2S)
	}
}

// TestOnGridBadInput: a grid below one point a side and an exact solution
// of fewer values than outputs (it panicked in GridOutputs) are one-line
// errors.
func TestOnGridBadInput(t *testing.T) {
	predict := func(output string, pts [][]float64) (mean, sigma []float64, err error) {
		return make([]float64, len(pts)), nil, nil
	}
	line := &pde.Problem{Name: "line", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Exact: func(x []float64) float64 { return x[0] }}
	two := &pde.Problem{Name: "two", Inputs: []string{"x"}, Outputs: []string{"u", "v"}, Lo: []float64{0}, Hi: []float64{1},
		ExactOutputs: func(x []float64) []float64 { return x }}
	for _, c := range []struct {
		p    *pde.Problem
		n    int
		want string
	}{
		{line, 0, `problem "line": a grid of 0 points a side; give at least 1`},
		{two, 5, `problem "two": ExactOutputs gives 1 values at [0] for 2 outputs (u, v); give one per output, in Outputs order`},
	} {
		if _, err := score.OnGrid(c.p, c.n, predict); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

// TestComputeLengths: slices of different lengths are a programmer's
// mistake that Compute names, not an index panic or a silent score.
func TestComputeLengths(t *testing.T) {
	for _, c := range []struct {
		mean, sigma, exact []float64
		want               score.LengthError
	}{
		{[]float64{1, 2}, nil, []float64{1}, score.LengthError{Mean: 2, Exact: 1}},
		{[]float64{1}, nil, []float64{1, 2}, score.LengthError{Mean: 1, Exact: 2}},
		{[]float64{1, 2}, []float64{1}, []float64{1, 2}, score.LengthError{Mean: 2, Sigma: 1, Exact: 2}},
	} {
		func() {
			defer func() {
				if got, ok := recover().(score.LengthError); !ok || got != c.want {
					t.Errorf("score.Compute(%v, %v, %v) panicked with %v, want %v", c.mean, c.sigma, c.exact, got, c.want)
				}
			}()
			score.Compute(c.mean, c.sigma, c.exact)
		}()
	}
	if e := score.Compute([]float64{1, 2}, []float64{1, 1}, []float64{1, 2.5}); e.GridN != 2 || e.Coverage2S != 1 {
		t.Errorf("equal lengths: %+v", e)
	}
}
