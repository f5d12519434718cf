package band_test

import (
	"slices"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// AssessAndScore is AssessFresh and GridErrors in one call: the same
// warnings and bands, each band scored on the grid by its method, and no
// errors below a grid of one point.
func TestAssessAndScore(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	a, e := band.AssessAndScore(f, 20)
	want, err := band.AssessFresh(f)
	if err != nil {
		t.Fatal(err)
	}
	if a == nil || !slices.Equal(a.Warnings, want.Warnings) || len(a.Bands) != len(want.Bands) {
		t.Fatalf("assessment %+v, want AssessFresh's %+v", a, want)
	}
	we, err := band.GridErrors(f, want, 20)
	if err != nil {
		t.Fatal(err)
	}
	if e == nil || e.RelL2 != we.RelL2 || e.Q95 != we.Q95 || len(e.Bands) != len(want.Bands) {
		t.Fatalf("errors %+v, want GridErrors' %+v", e, we)
	}
	for _, b := range want.Bands {
		if got, ok := e.Bands[b.Method]; !ok || got != we.Bands[b.Method] {
			t.Errorf("band %s scored %+v, want %+v", b.Method, got, we.Bands[b.Method])
		}
	}
	if a, e := band.AssessAndScore(f, 0); a == nil || e != nil {
		t.Errorf("gridN 0: assessment %v, errors %+v; want the assessment and no errors", a != nil, e)
	}
}

// Each band's score on the grid is that of its own sigma there
// (Band.Sigma): bands of one A share its sigmas, bands of another A do
// not.
func TestGridBandsOwnSigma(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	a, err := band.AssessFresh(f)
	if err != nil {
		t.Fatal(err)
	}
	e, err := band.GridErrors(f, a, 20)
	if err != nil {
		t.Fatal(err)
	}
	pts, exact, err := f.Model.Problem.GridOutputs(20)
	if err != nil {
		t.Fatal(err)
	}
	mean, sigma, err := f.Predict(pts)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for _, b := range a.Bands {
		s, err := b.Sigma(f, pts)
		if err != nil {
			t.Fatal(err)
		}
		if b.Beta == nil || slices.Equal(b.Beta, f.Beta) {
			shared++
		}
		if got, want := e.Bands[b.Method], score.BandOf(mean, s[0], sigma, exact[0]); got != want {
			t.Errorf("band %s scored %+v on the grid, its own sigma gives %+v", b.Method, got, want)
		}
	}
	if len(a.Bands) < 2 || shared == len(a.Bands) {
		t.Fatalf("%d bands, %d of the fit's own A: the test wants one of another A", len(a.Bands), shared)
	}
}
