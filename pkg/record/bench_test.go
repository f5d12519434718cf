package record_test

import (
	"context"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

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
	f, err := bayes.Train(context.Background(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1, Epochs: 600, Hyper: bayes.HyperSteps{Start: 300}}))
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
	d, err := band.NewFreshDraw(q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		switch what {
		case "held-out":
			_, err = band.HeldOut(f, d)
		case "calibrated":
			var g *bayes.Fit
			if g, err = band.Calibrated(f, d); err == nil && g.Laplace == f.Laplace {
				b.Fatal("the calibrated band is the paper's here: this times nothing")
			}
		default:
			record.NewResult(f, 100)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewResultHeat(b *testing.B) { benchRecord(b, "heat", "record") }

func BenchmarkNewResultHeatNoFresh(b *testing.B) { benchRecord(b, "heat", "no-fresh") }

func BenchmarkHeldOutHeat(b *testing.B) { benchRecord(b, "heat", "held-out") }

func BenchmarkNewResultBurgers(b *testing.B) { benchRecord(b, "burgers", "record") }

func BenchmarkNewResultBurgersNoFresh(b *testing.B) { benchRecord(b, "burgers", "no-fresh") }

func BenchmarkHeldOutBurgers(b *testing.B) { benchRecord(b, "burgers", "held-out") }

func BenchmarkCalibratedHeat(b *testing.B) { benchRecord(b, "heat", "calibrated") }

func BenchmarkCalibratedBurgers(b *testing.B) { benchRecord(b, "burgers", "calibrated") }
