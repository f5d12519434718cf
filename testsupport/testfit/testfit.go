// Package testfit trains the small fits the tests of the packages built on
// pkg/bayes (records, bands, runners) and the studies of lab/ share, so
// that each does not carry its own copy. It serves this repository's tests and is no part of the
// toolkit's API; it stands above pkg/bayes and pkg/problems, which it
// imports, so no library package imports it outside a test.
package testfit

import (
	"context"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// Train trains the paper's problem name with s (300 epochs, hyperparameter
// steps from 100, when s sets no Epochs); a failure ends the test.
func Train(t testing.TB, name string, s bayes.Settings) *bayes.Fit {
	t.Helper()
	return TrainNaN(t, name, s, 0)
}

// TrainNaN is Train with a NaN injected into the loss at epoch nanAt
// (fault.WithNaNAt; 0 means none).
func TrainNaN(t testing.TB, name string, s bayes.Settings, nanAt int) *bayes.Fit {
	t.Helper()
	p, err := problems.New(name, problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Epochs == 0 {
		s.Epochs, s.Hyper.Start = 300, 100
	}
	f, err := bayes.Train(fault.WithNaNAt(context.Background(), nanAt), p, Scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Scheduled returns s with the registered schedule of the paper's problem
// p (problems.Lookup by name), what the CLI and the report train with,
// when s names no schedule of its own; s unchanged for another problem.
func Scheduled(p *pde.Problem, s bayes.Settings) bayes.Settings {
	if s.Schedule.Epochs != 0 || s.Schedule.Hidden != nil {
		return s
	}
	if e, err := problems.Lookup(p.Name); err == nil {
		s.Schedule = e.ScheduleFor(problems.Options{})
	}
	return s
}

// Predict is f.Predict at pts; an error ends the test.
func Predict(t testing.TB, f *bayes.Fit, pts [][]float64) (mean, sigma []float64) {
	t.Helper()
	mean, sigma, err := f.Predict(pts)
	if err != nil {
		t.Fatal(err)
	}
	return mean, sigma
}
