package bayes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// cpuTime is the process's user + system time: on a shared machine the
// benchmarks report it per operation beside the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs body b.N times and reports CPU seconds per operation.
func reportCPU(b *testing.B, body func()) {
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		body()
	}
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

// The widths of a 2-h-h-h-1 net on burgers-wide's points for about 100,
// 1000, 3000 and 10000 weights.
var benchWidths = []int{6, 20, 37, 69}

// widthWeights is P of a 2-h-h-h-1 net.
func widthWeights(h int) int { return (2+1)*h + 2*(h+1)*h + h + 1 }

// wideFit is a burgers-wide fit object of hidden width h after a few Adam
// epochs (weights away from their initialization), for the benchmarks.
func wideFit(b *testing.B, h int, kind string) *Fit {
	p, err := problems.New("burgers-wide", problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := scheduled(p, Settings{Seed: 1, Hidden: []int{h, h, h}, Epochs: 1, Hyper: HyperSteps{Start: 1}, Curvature: curv.Kind(kind), Recipe: RecipePaper}).Resolve(p)
	if err != nil {
		b.Fatal(err)
	}
	net := nn.New(append(append([]int{2}, s.Hidden...), 1), nn.Tanh, rand.New(rand.NewPCG(1, 0x1417)))
	m, err := NewModel(p, net, s.AlphaMode, s.BetaMode)
	if err != nil {
		b.Fatal(err)
	}
	f := &Fit{Model: m, Settings: s, Alpha: fillN(len(m.Alphas), 0.01), Beta: fillN(len(m.BetaNames), 1)}
	f.EW, f.ED = make([]float64, len(f.Alpha)), make([]float64, len(f.Beta))
	return f
}

// BenchmarkHyperStep times one hyperparameter step's evidence (the
// residual Jacobians, A's traces under the structure, E_hyp's gradient)
// against P on burgers-wide's 2840 points. The dense step of the paper's
// code (NewLaplace on H_t) is "dense-hessians"; dense at 10^4 weights is
// not run (its 3 P x P matrices are 2.4 GB).
func BenchmarkHyperStep(b *testing.B) {
	kinds := []string{"dense-hessians", "dense", "diag", "layers", "lowrank", "stochastic"}
	for _, h := range benchWidths {
		for _, kind := range kinds {
			P := widthWeights(h)
			if skipBench(P, kind) {
				continue
			}
			b.Run(fmt.Sprintf("P=%d/%s", P, kind), func(b *testing.B) {
				f := wideFit(b, h, "")
				k := curv.Kind(kind)
				if kind == "dense-hessians" {
					k = curv.Dense
				} else if kind == "dense" {
					k = "dense-curv"
				}
				f.Model.GroupJacobians() // compile the Jacobian programs outside the timing
				reportCPU(b, func() {
					var err error
					if k == "dense-curv" {
						_, err = curv.Compute(f.system(true), curv.Options{})
					} else {
						_, _, err = f.evidence(k, false)
					}
					if err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// skipBench leaves out what would take minutes per operation on a shared
// 2-core machine: the dense steps above 3000 weights (and NewLaplace's
// above 1000: its 2 P^3 products per beta group), the per-layer blocks
// at 10^4 weights (two 4900-weight blocks) and the stochastic step above
// 1000 weights (16 probes x up to 200 CG steps, each 6 Jacobian products).
func skipBench(P int, kind string) bool {
	switch kind {
	case "dense":
		return P > DenseLimit
	case "dense-hessians", "stochastic":
		return P > 1000
	case "layers":
		return P > 3500
	}
	return false
}

// BenchmarkJacobian times the residual Jacobians alone (part of every
// structured step) and one Adam epoch's loss and gradient, against P.
func BenchmarkJacobian(b *testing.B) {
	for _, h := range benchWidths {
		P := widthWeights(h)
		b.Run(fmt.Sprintf("P=%d/jacobian", P), func(b *testing.B) {
			f := wideFit(b, h, "")
			f.Model.GroupJacobians()
			reportCPU(b, func() { f.Model.GroupJacobians() })
		})
		b.Run(fmt.Sprintf("P=%d/epoch", P), func(b *testing.B) {
			f := wideFit(b, h, "")
			grad := make([]float64, P)
			reportCPU(b, func() { f.lossAndGrad(grad) })
		})
	}
}

// BenchmarkFit times a short fit (the paper's recipe, 100 Adam epochs with
// a hyperparameter step every 25 from epoch 25, no polish, then the dense
// Laplace while P <= 3000) per structure against P; at 10^4 weights the fit
// ends without the dense Laplace. The dense fit is run to 1000 weights and
// lowrank's to 3000 (beyond, their steps alone are BenchmarkHyperStep's).
func BenchmarkFit(b *testing.B) {
	p, err := problems.New("burgers-wide", problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range benchWidths {
		for _, kind := range []string{"dense", "diag", "lowrank"} {
			P := widthWeights(h)
			if kind == "dense" && P > 1000 || kind == "lowrank" && P > 3500 {
				continue
			}
			b.Run(fmt.Sprintf("P=%d/%s", P, kind), func(b *testing.B) {
				reportCPU(b, func() {
					f, err := Train(context.Background(), p, scheduled(p, Settings{Seed: 1, Hidden: slices.Repeat([]int{h}, 3), Epochs: 100, Hyper: HyperSteps{Start: 25}, Curvature: curv.Kind(kind), Recipe: RecipePaper,
						Resample: -1, KnownNoise: map[string]float64{}})) // as measured, before burgers-wide's own schedule
					if err != nil || f.Status == StatusDiverged {
						b.Fatal(err, f.Status)
					}
				})
			})
		}
	}
}

// BenchmarkFitBurgersWide times one whole fit of burgers-wide with its
// defaults (seed 1: Adam, the steps, the polishes, the final rounds and
// the dense Laplace; not the record), issue 23's "per fit on one core".
func BenchmarkFitBurgersWide(b *testing.B) {
	p, err := problems.New("burgers-wide", problems.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reportCPU(b, func() {
		f, err := Train(context.Background(), p, scheduled(p, Settings{Seed: 1}))
		if err != nil || f.Status != StatusOK {
			b.Fatal(err, f.Status)
		}
	})
}
