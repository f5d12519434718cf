package band_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// warningsOf is the assessment's warnings of f at its fresh draw, the
// error estimate left out when noEstimate.
func warningsOf(t *testing.T, f *bayes.Fit, noEstimate bool) []string {
	t.Helper()
	d, err := band.FreshDrawOf(f.Model.Problem)
	if err != nil {
		t.Fatal(err)
	}
	if noEstimate {
		d = band.WithoutEstimate(d)
	}
	a, err := band.Assess(f, d)
	if err != nil {
		t.Fatal(err)
	}
	return a.Warnings
}

// containing is the warnings that contain phrase.
func containing(ws []string, phrase string) []string {
	return slices.DeleteFunc(slices.Clone(ws), func(w string) bool { return !strings.Contains(w, phrase) })
}

// TestUncalibratedWarns: without the error estimate, the oscillator's two
// fields have one fresh condition point each and no measurements: no
// check reads their errors, and the record says so for each, with the
// reason. Heat's boundary gives the value check far more than ValueMin
// fresh points: no such warning, with or without the estimate.
func TestUncalibratedWarns(t *testing.T) {
	t.Parallel()
	osc := containing(warningsOf(t, testfit.TrainOscillator(t), true), band.Uncalibrated)
	if len(osc) != 2 || !strings.Contains(osc[0], "for u:") || !strings.Contains(osc[1], "for v:") ||
		!strings.Contains(osc[0], "1 fresh points of conditions on its value") {
		t.Errorf("oscillator without the estimate: %q, want u and v uncalibrated, each with one condition point", osc)
	}
	heat := testfit.Train(t, "heat", bayes.Settings{Seed: 1})
	for _, noEstimate := range []bool{false, true} {
		if ws := containing(warningsOf(t, heat, noEstimate), band.Uncalibrated); len(ws) > 0 {
			t.Errorf("heat (without the estimate: %v): %q, want no uncalibrated band", noEstimate, ws)
		}
	}
}

// TestCalibratedDisagreement: wave trained 300 epochs: without the error
// estimate its band misses the conditions' errors by far (q95 7.9 sigma),
// the value check widens it only by the geometric mean of 1 and what they
// ask, and those errors stay beyond ValueOverconfident sigma (4.0): the
// record says the calibrated band is likely overconfident. Trained 2000
// epochs (wave's fits of docs/calibration.md, which meet both targets)
// the calibrated band holds them (1.4) and nothing is said of it.
func TestCalibratedDisagreement(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		epochs int
		warns  bool
	}{{300, true}, {2000, false}} {
		f := testfit.Train(t, "wave", bayes.Settings{Seed: 1, Epochs: c.epochs})
		ws := containing(warningsOf(t, f, true), "the calibrated band of u is likely overconfident")
		if (len(ws) > 0) != c.warns {
			t.Errorf("wave, %d epochs: %q, want a warning %v", c.epochs, ws, c.warns)
		}
	}
}

// TestKFoldUncalibrated: notebook 07's reaction with 20 measurements of
// noise 0.05 given once (WithData): no new measurements, one fresh
// condition point; the K-fold prediction of the 20 allows sigma from
// 6.5 times the band's (0.45-6.5), so no check calibrates u, and the record says
// so with the K-fold check's reason.
func TestKFoldUncalibrated(t *testing.T) {
	t.Parallel()
	p, _ := reactionWithData(20, 1)
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	s := notebook07Schedule.Clone()
	s.Epochs = 3000
	f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Schedule: s})
	if err != nil {
		t.Fatal(err)
	}
	ws := containing(warningsOf(t, f, false), band.Uncalibrated+" for u")
	if len(ws) != 1 || !strings.Contains(ws[0], "the K-fold prediction of its 20 measurements allows sigma x") {
		t.Errorf("warnings %q, want u uncalibrated for the K-fold check's reason", ws)
	}
}

// TestUnknownIntervalWarns: burgers-inverse fits its measurements far
// more closely than new ones (its data residuals several times larger at
// the fresh draw's): the record says nu's interval is likely unreliable.
// wave-inverse's data residuals are as large at new measurements as at its
// own: its interval (which holds the truth) is left without a word.
func TestUnknownIntervalWarns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		warns bool
	}{{"burgers-inverse", true}, {"wave-inverse", false}} {
		f := testfit.Train(t, c.name, bayes.Settings{Seed: 1})
		ws := containing(warningsOf(t, f, false), "% interval of")
		if (len(ws) > 0) != c.warns || c.warns && !strings.Contains(ws[0], "beta_data residuals are x") {
			t.Errorf("%s: %q, want a warning %v", c.name, ws, c.warns)
		}
		t.Logf("%s: %q", c.name, ws)
	}
}
