package testfit

import (
	"context"
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// Oscillator is docs/problems.md's oscillator (TestProblemsDoc holds the
// two the same): a problem of two outputs, the system u' = v, v' = -u on
// [0, pi] with u(0) = 0, v(0) = 1 (u = sin x, v = cos x), its points drawn
// by Problem.Sample (so it has Fresh points and a calibrated band).
func Oscillator(t testing.TB) *pde.Problem {
	t.Helper()
	interior := func(n int) *pde.Draw { return &pde.Draw{Region: pde.Interior(), N: n} }
	at0 := func(v float64) *pde.Draw {
		return &pde.Draw{Region: pde.Initial("x"), N: 1, Value: func([]float64) float64 { return v }}
	}
	p := &pde.Problem{Name: "oscillator", Inputs: []string{"x"}, Outputs: []string{"u", "v"},
		Lo: []float64{0}, Hi: []float64{math.Pi},
		Terms: []pde.Term{
			{Name: "u_eq", Group: "pde", Draw: interior(24), Residual: pde.Eq("u_x = v")},
			{Name: "v_eq", Group: "pde", Draw: interior(24), Residual: pde.Eq("v_x = -u")},
			{Name: "u0", Group: "boundary", Output: "u", Draw: at0(0), Residual: pde.DataResidual},
			{Name: "v0", Group: "boundary", Output: "v", Draw: at0(1), Residual: pde.DataResidual},
		},
		ExactOutputs: func(x []float64) []float64 { return []float64{math.Sin(x[0]), math.Cos(x[0])} },
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// OscillatorSchedule is a brief schedule for Oscillator (one beta: the
// conditions are a point each).
var OscillatorSchedule = schedule.Schedule{Hidden: []int{8}, Epochs: 2000, HyperStart: 800, BetaMode: "single"}

// TrainOscillator trains Oscillator with OscillatorSchedule and seed 1.
func TrainOscillator(t testing.TB) *bayes.Fit {
	t.Helper()
	p := Oscillator(t)
	f, err := bayes.Train(context.Background(), p, bayes.Settings{Seed: 1, Schedule: OscillatorSchedule.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
