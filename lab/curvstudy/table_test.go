package curvstudy_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/lab/curvstudy"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestCurvatureTable prints docs/curvature.md's table: every structure
// against the dense A at the end of a default fit (seed 1) of each problem
// in BPINN_CURV_TABLE (e.g. heat,burgers), or at the fit recorded in the
// JSON file BPINN_CURV_FIT_<problem> (dashes as underscores).
func TestCurvatureTable(t *testing.T) {
	which := os.Getenv("BPINN_CURV_TABLE")
	if which == "" {
		t.Skip("set BPINN_CURV_TABLE=heat,burgers to print the structures' errors")
	}
	opts := []curv.Options{{Kind: curv.Dual}, {Kind: curv.Diag}, {Kind: curv.LastLayer}, {Kind: curv.Layers},
		{Kind: curv.LowRank, Rank: 16}, {Kind: curv.LowRank, Rank: 64},
		{Kind: curv.Stochastic, Probes: 16, Steps: 100}, {Kind: curv.Stochastic, Probes: 64, Steps: 300}}
	for _, name := range strings.Split(which, ",") {
		opts := opts
		if name == "burgers-wide" { // 64 probes x 300 steps: minutes per row at 921 weights
			opts = opts[:len(opts)-1]
		}
		p, err := problems.New(name, problems.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var f *bayes.Fit
		if path := os.Getenv("BPINN_CURV_FIT_" + strings.ReplaceAll(name, "-", "_")); path != "" {
			// A recorded fit (bpinn fit --json), rebuilt: for nets whose
			// fit takes long.
			rs, _, err := record.ReadResults(path)
			if err != nil || len(rs) == 0 {
				t.Fatalf("%s: %v", path, err)
			}
			if f, err = record.Restore(p, &rs[0]); err != nil {
				t.Fatal(err)
			}
		} else if f, err = bayes.Train(context.Background(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1})); err != nil {
			t.Fatal(err)
		}
		pts, _ := p.Grid(10)
		rows, err := curvstudy.Compare(f, opts, pts)
		if err != nil {
			t.Fatal(err)
		}
		N := 0
		for _, n := range f.Model.N {
			N += n
		}
		fmt.Printf("\n%s (P = %d, N = %d, status %s, ln Z = %.3f)\n\n", name, f.Model.NumWeights(), N, f.Status, f.Laplace.LogEvidence)
		fmt.Println("| structure | ln\\|A\\| | gamma (worst group) | grad E_hyp | ln Z | ln Z - dense | band sigma (median) | J products | ms |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|")
		for _, r := range rows {
			label := string(r.Options.Kind)
			switch r.Options.Kind {
			case curv.LowRank:
				label += fmt.Sprintf(" k=%d", r.Options.Rank)
			case curv.Stochastic:
				label += fmt.Sprintf(" %d probes, <= %d steps", r.Options.Probes, r.Options.Steps)
			}
			if r.Err != "" {
				fmt.Printf("| %s | %s |\n", label, r.Err)
				continue
			}
			fmt.Printf("| %s | %.2g | %.2g | %.2g | %.2g | %.3g | %.2g | %d | %.1f |\n", label, r.LogDetA, r.Gamma, r.Grad, r.LogEv, r.LogEvAbs, r.Sigma, r.Products, 1000*r.Seconds)
		}
	}
}
