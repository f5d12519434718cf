package bayes

import (
	"context"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// resultTestFit trains the paper's problem name briefly (300 epochs,
// hyperparameter steps from 100, when s sets no Epochs).
func resultTestFit(t *testing.T, name string, s Settings) *Fit {
	t.Helper()
	return nanTestFit(t, name, s, 0)
}

// nanTestFit is resultTestFit with a NaN injected into the loss at epoch
// nanAt (fault.WithNaNAt; 0 means none).
func nanTestFit(t *testing.T, name string, s Settings, nanAt int) *Fit {
	t.Helper()
	p, err := problems.New(name, problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Epochs == 0 {
		s.Epochs, s.Hyper.Start = 300, 100
	}
	f, err := Train(fault.WithNaNAt(context.Background(), nanAt), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// resolvedConfig is the Config of p with the settings s, resolved already
// and then changed by a test (past what NewConfig would accept): their
// beta groups worked out, nothing checked again.
func resolvedConfig(t testing.TB, p *pde.Problem, s Settings) Config {
	t.Helper()
	names, termGroup, err := p.BetaGroups(s.BetaMode)
	if err != nil {
		t.Fatal(err)
	}
	return Config{settings: s, problem: p, betaNames: names, termGroup: termGroup}
}
