package curvstudy_test

import (
	"context"
	"fmt"

	"github.com/evidence-pinn/bpinn/lab/curvstudy"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// The dual structure (Woodbury on the N x N side) is exact: at a short heat
// fit its ln|A| and band agree with the dense A's to rounding, while the
// diagonal structure misses the weights' couplings.
func ExampleCompare() {
	heat, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	p := heat.New(problems.Options{})
	s := bayes.Settings{Schedule: heat.Schedule(problems.Options{}), Seed: 1, Epochs: 300, Hyper: bayes.HyperSteps{Start: 100}}
	f, err := bayes.Train(context.Background(), p, s)
	if err != nil {
		panic(err)
	}
	pts, _ := p.Grid(5)
	rows, err := curvstudy.Compare(f, []curv.Options{{Kind: curv.Dual}, {Kind: curv.Diag}}, pts)
	if err != nil {
		panic(err)
	}
	for _, r := range rows {
		fmt.Printf("%s: ln|A| within 1e-6: %v, band within 1e-6: %v\n", r.Options.Kind, r.LogDetA < 1e-6, r.Sigma < 1e-6)
	}
	// Output:
	// dual: ln|A| within 1e-6: true, band within 1e-6: true
	// diag: ln|A| within 1e-6: false, band within 1e-6: false
}
