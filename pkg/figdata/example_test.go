package figdata_test

import (
	"context"
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// The training points of the heat problem, one set per term group, for
// viz.Points.
func ExamplePoints() {
	for _, s := range figdata.Points(problems.Heat(problems.Options{})) {
		fmt.Printf("%s: %d points\n", s.Name, len(s.X))
	}
	// Output:
	// pde: 50 points
	// boundary: 50 points
}

// A short fit of the heat problem drawn as the paper's figures: training
// history, solution slices with their 2σ band, and the error on the domain.
func Example() {
	heat, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	s := bayes.Settings{Schedule: heat.Schedule(problems.Options{}), Seed: 1, Epochs: 200, Hyper: bayes.HyperSteps{Start: 100}}
	f, err := bayes.Train(context.Background(), heat.New(problems.Options{}), s)
	if err != nil {
		panic(err)
	}
	h := figdata.History(f)
	fmt.Printf("history: E_T at %d epochs, E_hyp at %d\n", len(h.ET.Epochs), len(h.EHyp.Epochs))
	ss := figdata.Slices(f) // the paper's five times
	for _, s := range ss {
		fmt.Printf("t = %.2f: %d points, sigma %t\n", s.T, len(s.X), s.Sigma != nil)
	}
	_, absErr := figdata.Fields(f, 60)
	fmt.Printf("error field: %d x %d\n", len(absErr.X), len(absErr.Y))

	for _, draw := range []func() (*viz.Figure, error){
		func() (*viz.Figure, error) { return viz.Training(h, viz.Labels{}) },
		func() (*viz.Figure, error) { return viz.Slices(ss, viz.Labels{}) },
		func() (*viz.Figure, error) { return viz.HeatMap(absErr, viz.Labels{Z: "|error|"}) },
	} {
		if _, err := draw(); err != nil {
			panic(err)
		}
	}
	// Output:
	// history: E_T at 8 epochs, E_hyp at 5
	// t = 0.00: 101 points, sigma true
	// t = 0.25: 101 points, sigma true
	// t = 0.50: 101 points, sigma true
	// t = 0.75: 101 points, sigma true
	// t = 1.00: 101 points, sigma true
	// error field: 60 x 60
}
