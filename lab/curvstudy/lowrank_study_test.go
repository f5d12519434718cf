package curvstudy

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestLowRankStudy compares the LowRank final Laplace
// (curv.NewLowRankLaplace) at the ranks in BPINN_LOWRANK_RANKS (default
// 64,128,256,512) with the dense one at a fit's final weights and
// hyperparameters: ln Z, ln|A| and the bound LogDetGap on what it misses,
// gamma, the hyperparameters MacKay's rounds settle on at those weights
// (settle), the band's sigma and 2-sigma coverage on the 100 x 100 grid,
// and CPU seconds. BPINN_LOWRANK_STUDY names problem:h,h,...[:file.json]
// items separated by spaces (the net, and a recorded fit of it to start
// from instead of training the default fit with seed 1):
//
//	BPINN_LOWRANK_STUDY="heat:20,20 burgers-wide::wide.json" go test -count=1 -timeout 60m -run TestLowRankStudy -v ./lab/curvstudy
func TestLowRankStudy(t *testing.T) {
	items := os.Getenv("BPINN_LOWRANK_STUDY")
	if items == "" {
		t.Skip("BPINN_LOWRANK_STUDY not set")
	}
	ranks := []int{64, 128, 256, 512}
	if r := os.Getenv("BPINN_LOWRANK_RANKS"); r != "" {
		ranks = nil
		for _, v := range strings.Split(r, ",") {
			k, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			ranks = append(ranks, k)
		}
	}
	fmt.Println("| problem, net | P | N | structure | ln Z | ln Z rel. diff. | ln\\|A\\| − dense (gap bound) | γ | hyperparameters rel. diff. | σ rel. diff. (median, max) | coverage | CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, item := range strings.Fields(items) {
		f, p := studyFit(t, item)
		N := 0
		for _, n := range f.Model.N {
			N += n
		}
		pts, exact, err := p.GridOutputs(100)
		if err != nil {
			t.Fatal(err)
		}
		mean, J, err := f.Jacobian(pts)
		if err != nil {
			t.Fatal(err)
		}
		var dense *curv.Laplace
		cpu := cpuOf(func() { dense, err = curv.NewLaplace(f.Hessians(), f.Alpha, f.Beta) })
		if err != nil {
			t.Fatal(err)
		}
		sd := dense.Sigmas(J, len(pts))
		hd := settle(t, f, curv.Dense)
		head := fmt.Sprintf("| %s %v | %d | %d |", p.Name, f.Model.Net.Hidden(), f.Model.NumWeights(), N)
		fmt.Printf("%s dense | %.3f | | | %.2f | | | %.4f | %.1f |\n", head, dense.LogEvidence, dense.Gamma, score.Compute(mean, sd, exact[0]).Coverage2S, cpu)
		for _, k := range ranks {
			o := curv.Options{Rank: k}
			var l *curv.Laplace
			cpu := cpuOf(func() { l, err = curv.NewLowRankLaplace(system(f), lossOf(f), o, nil) })
			if err != nil {
				fmt.Printf("%s lowrank k=%d | %v |\n", head, k, err)
				continue
			}
			sv := l.Sigmas(J, len(pts))
			diffs := make([]float64, len(sd))
			for i := range sd {
				diffs[i] = math.Abs(sv[i]/sd[i] - 1)
			}
			slices.Sort(diffs)
			hv := settleWith(t, f, func(f *bayes.Fit) (*curv.Hyper, curv.Loss, error) {
				loss := lossOf(f)
				l, err := curv.NewLowRankLaplace(system(f), loss, o, nil)
				if err != nil {
					return nil, loss, err
				}
				return &l.Hyper, loss, nil
			})
			hyper := 0.0
			for i := range hd {
				hyper = math.Max(hyper, math.Abs(hv[i]/hd[i]-1))
			}
			t.Logf("%s k=%d: alphas, betas settled dense %.4g, lowrank %.4g", p.Name, k, hd, hv)
			lnZ := "Occam invalid"
			if l.OccamOK {
				lnZ = fmt.Sprintf("%.3f | %.2g", l.LogEvidence, rel(l.LogEvidence, dense.LogEvidence))
			}
			fmt.Printf("%s lowrank k=%d | %s | %.3g (%.3g) | %.2f | %.2g | %.2g, %.2g | %.4f | %.1f |\n", head, k, lnZ,
				l.LogDetA-dense.LogDetA, l.LogDetGap, l.Gamma, hyper, diffs[len(diffs)/2], diffs[len(diffs)-1],
				score.Compute(mean, sv, exact[0]).Coverage2S, cpu)
		}
	}
}

// studyFit is the fit an item of TestLowRankStudy names
// (problem:h,h,...[:file.json]): restored from the file, else trained with
// the problem's default schedule and seed 1.
func studyFit(t *testing.T, item string) (*bayes.Fit, *pde.Problem) {
	parts := strings.Split(item, ":")
	p, err := problems.New(parts[0], problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) > 2 && parts[2] != "" {
		rs, _, err := record.ReadResults(parts[2])
		if err != nil || len(rs) == 0 {
			t.Fatalf("%s: %v", parts[2], err)
		}
		f, err := record.Restore(p, &rs[0])
		if err != nil {
			t.Fatal(err)
		}
		return f, p
	}
	s := bayes.Settings{Seed: 1}
	if len(parts) > 1 && parts[1] != "" {
		for _, v := range strings.Split(parts[1], ",") {
			h, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			s.Hidden = append(s.Hidden, h)
		}
	}
	f, err := bayes.Train(context.Background(), p, testfit.Scheduled(p, s))
	if err != nil || f.Laplace == nil {
		t.Fatalf("%s: %v, status %s (%s)", item, err, f.Status, f.Reason)
	}
	return f, p
}
