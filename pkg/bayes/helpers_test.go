package bayes

import (
	"context"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/fault"
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
