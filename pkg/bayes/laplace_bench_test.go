package bayes

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// finalWidths are 2-h-h-h-1 nets of 921, 3441, 9937, 30009 and 99901
// weights on burgers-wide's 2840 residuals (921: the dense structure,
// AutoLaplace's choice there; the others dual).
// The benchmarks time each structure as named (Fit.laplaceOf), not
// the choice between dual and low rank that a fit makes.
var finalWidths = []int{20, 40, 69, 121, 222}

// BenchmarkFinalLaplace times a fit's final Laplace approximation in the
// structure AutoLaplace chooses (the residual Jacobians, their LQ factorization, every
// quantity of the evidence) and its band at 1000 points, against P on
// burgers-wide's 2840 residuals, with the heap in use after it. Run one
// size per process under /usr/bin/time -v for the peak memory
// (docs/curvature.md):
//
//	go test -run '^$' -bench 'FinalLaplace/P=9937$' -benchtime 1x ./pkg/bayes
func BenchmarkFinalLaplace(b *testing.B) {
	benchFinalLaplace(b, func(P int) curv.Kind { return curv.AutoLaplace(P, 2840, DenseLimit) })
}

// BenchmarkFinalLowRankLaplace is BenchmarkFinalLaplace in the LowRank
// structure at every size (curv.LaplaceRank Lanczos steps):
//
//	go test -run '^$' -bench 'FinalLowRankLaplace/P=9937$' -benchtime 1x ./pkg/bayes
func BenchmarkFinalLowRankLaplace(b *testing.B) {
	benchFinalLaplace(b, func(int) curv.Kind { return curv.LowRank })
}

// BenchmarkDualRound times the evidence of a final round in the dual
// structure (curv.Compute's Woodbury traces, the residual Jacobians
// included) at BenchmarkFinalLaplace's sizes above the dense limit: the
// cost curv.LowRankCheaper weighs the low rank against in a round.
//
//	go test -run '^$' -bench 'DualRound/P=9937$' -benchtime 1x ./pkg/bayes
func BenchmarkDualRound(b *testing.B) {
	for _, h := range finalWidths[1:] {
		b.Run(fmt.Sprintf("P=%d", widthWeights(h)), func(b *testing.B) {
			f := wideFit(b, h, "")
			reportCPU(b, func() {
				if _, _, err := f.evidence(curv.Dual, false); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// benchFinalLaplace is BenchmarkFinalLaplace with the structure kindOf(P).
func benchFinalLaplace(b *testing.B, kindOf func(P int) curv.Kind) {
	for _, h := range finalWidths {
		P := widthWeights(h)
		b.Run(fmt.Sprintf("P=%d", P), func(b *testing.B) {
			f := wideFit(b, h, "")
			kind := kindOf(P)
			var l *curv.Laplace
			reportCPU(b, func() {
				var err error
				if kind == curv.Dense {
					l, _, err = f.laplace(kind, f.Beta)
				} else {
					l, err = f.laplaceOf(f.system(false), f.loss(), kind)
				}
				if err != nil {
					b.Fatal(err)
				}
			})
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<30), "heap-GB")
			const n = 1000
			rng := rand.New(rand.NewPCG(1, 2))
			J := make([]float64, n*P)
			for i := range J {
				J[i] = rng.NormFloat64()
			}
			start := cpuTime()
			l.Sigmas(J, n)
			b.ReportMetric((cpuTime() - start).Seconds(), "band-1000-cpu-s")
		})
	}
}
