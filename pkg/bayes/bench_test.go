package bayes

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// benchDataLoss times one evaluation of the data losses and their weight
// gradient of a paper problem with its default net: the work of one Adam
// epoch (and of one L-BFGS evaluation) apart from the update itself.
func benchDataLoss(b *testing.B, name string) {
	p, err := problems.New(name, problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sch := scheduled(p, Settings{}).Schedule
	sizes := append(append([]int{p.Dim()}, sch.Hidden...), 1)
	net := nn.New(sizes, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	m, err := NewModel(p, net, sch.AlphaMode, sch.BetaMode)
	if err != nil {
		b.Fatal(err)
	}
	beta := make([]float64, len(m.BetaNames))
	for i := range beta {
		beta[i] = 1
	}
	ed := make([]float64, len(beta))
	grad := make([]float64, m.NumWeights())
	b.ReportAllocs()
	for b.Loop() {
		m.DataLoss(beta, ed, grad)
	}
}

func BenchmarkDataLossHeat(b *testing.B)    { benchDataLoss(b, "heat") }
func BenchmarkDataLossWave(b *testing.B)    { benchDataLoss(b, "wave") }
func BenchmarkDataLossBurgers(b *testing.B) { benchDataLoss(b, "burgers") }

// benchRecord times what an ensemble does after each fit: the record
// (NewResult: the 100 x 100 grid errors, the residual check at fresh points
// and the held-out band's coverage), the record of a problem without fresh
// points (neither of the last two), and the held-out and the calibrated
// band alone (the calibrated one rebuilds A only where the fresh residuals
// exceed OverconfidentRatio times the training ones: both fits here do).
func benchRecord(b *testing.B, name, what string) {
	p, err := problems.New(name, problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := Train(context.Background(), p, scheduled(p, Settings{Seed: 1, Epochs: 600, HyperStart: 300}))
	if err != nil {
		b.Fatal(err)
	}
	q, err := p.Fresh()
	if err != nil {
		b.Fatal(err)
	}
	if what == "no-fresh" {
		f.Model.Problem.Fresh = nil
	}
	d, err := NewFreshDraw(q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		switch what {
		case "held-out":
			_, err = f.HeldOut(q)
		case "calibrated":
			var g *Fit
			if g, err = f.Calibrated(d); err == nil && g.Laplace == f.Laplace {
				b.Fatal("the calibrated band is the paper's here: this times nothing")
			}
		default:
			NewResult(f, 100)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewResultHeat(b *testing.B)           { benchRecord(b, "heat", "record") }
func BenchmarkNewResultHeatNoFresh(b *testing.B)    { benchRecord(b, "heat", "no-fresh") }
func BenchmarkHeldOutHeat(b *testing.B)             { benchRecord(b, "heat", "held-out") }
func BenchmarkNewResultBurgers(b *testing.B)        { benchRecord(b, "burgers", "record") }
func BenchmarkNewResultBurgersNoFresh(b *testing.B) { benchRecord(b, "burgers", "no-fresh") }
func BenchmarkHeldOutBurgers(b *testing.B)          { benchRecord(b, "burgers", "held-out") }
func BenchmarkCalibratedHeat(b *testing.B)          { benchRecord(b, "heat", "calibrated") }
func BenchmarkCalibratedBurgers(b *testing.B)       { benchRecord(b, "burgers", "calibrated") }
func BenchmarkDataLossBurgersWide(b *testing.B)     { benchDataLoss(b, "burgers-wide") }

// benchInverse times whole fits (the problem's default schedule) of an
// inverse problem and of the same problem with the coefficients known
// (docs/benchmarks.md: the inverse fit's cost).
func benchInverse(b *testing.B, name string, known bool) {
	p, err := problems.New(name, problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if known { // the forward fit of the same problem
		if p, err = problems.Known(p); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := Train(context.Background(), p, scheduled(p, Settings{})); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFitHeatInverse(b *testing.B)      { benchInverse(b, "heat-inverse", false) }
func BenchmarkFitHeatInverseKnown(b *testing.B) { benchInverse(b, "heat-inverse", true) }
func BenchmarkFitWaveInverse(b *testing.B)      { benchInverse(b, "wave-inverse", false) }
func BenchmarkFitWaveInverseKnown(b *testing.B) { benchInverse(b, "wave-inverse", true) }
func BenchmarkFitBurgersInverse(b *testing.B) {
	benchInverse(b, "burgers-inverse", false)
}
func BenchmarkFitBurgersInverseKnown(b *testing.B) {
	benchInverse(b, "burgers-inverse", true)
}
func BenchmarkFitBurgersWideInverse(b *testing.B) {
	benchInverse(b, "burgers-wide-inverse", false)
}
func BenchmarkFitBurgersWideInverseKnown(b *testing.B) {
	benchInverse(b, "burgers-wide-inverse", true)
}
