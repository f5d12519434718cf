package bayes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// benchDataLoss times one evaluation of the data losses and their weight
// gradient of a paper problem with its default net: the work of one Adam
// epoch (and of one L-BFGS evaluation) apart from the update itself.
func benchDataLoss(b *testing.B, name string) { benchDataLossOn(b, name, 1) }

// benchDataLossOn is benchDataLoss on threads threads.
func benchDataLossOn(b *testing.B, name string, threads int) {
	p, err := problems.New(name, problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sch := scheduled(p, Settings{}).Schedule
	sizes := append(append([]int{p.Dim()}, sch.Hidden...), 1)
	net := nn.New(sizes, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	m, err := NewModel(p, net, nn.AlphaMode(sch.AlphaMode), pde.BetaMode(sch.BetaMode))
	if err != nil {
		b.Fatal(err)
	}
	m.startPool(threads)
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

func BenchmarkDataLossBurgersWide(b *testing.B) { benchDataLoss(b, "burgers-wide") }

// BenchmarkDataLossThreads is burgers-wide's epoch on 1, 2 and 4 threads
// (docs/benchmarks.md: one fit on every core).
func BenchmarkDataLossThreads(b *testing.B) {
	for _, t := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("burgers-wide/threads=%d", t), func(b *testing.B) { benchDataLossOn(b, "burgers-wide", t) })
	}
}

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
		if _, err := Train(context.Background(), p, scheduled(p, Settings{Seed: 1})); err != nil {
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
