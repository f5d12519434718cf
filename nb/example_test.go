package nb_test

import (
	"context"
	"fmt"
	"log"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"

	"github.com/evidence-pinn/bpinn/nb"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// In a GoNB cell this shows the figure, the chart and a live progress bar;
// anywhere else (here, under go test) it prints and displays nothing.
func Example() {
	s := viz.Slice{T: 0.5, X: []float64{0, 0.5, 1}, Exact: []float64{0, 1, 0}, Pred: []float64{0, 0.97, 0}, Sigma: []float64{0.01, 0.02, 0.01}}
	fig, err := viz.Slices([]viz.Slice{s}, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	if err := nb.Show(fig); err != nil {
		log.Fatal(err)
	}

	chart, err := viz.SlicesChart([]viz.Slice{s}, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	if err := nb.Chart(chart); err != nil {
		log.Fatal(err) // e.g. the echarts library is missing: run scripts/setup.sh
	}

	var bar nb.Progress
	bar.Title = "training"
	bar.Start(100)
	for epoch := range 100 {
		bar.Update(epoch+1, fmt.Sprintf("E_T = %.3g", 1/float64(epoch+1)))
	}
	bar.Done()
	// Output:
}

// A notebook cell that fits a problem and shows what to read from the fit:
// the summary table, the field, the slices with both bands and a flux with
// its band. Under go test it displays nothing.
func ExampleSummary() {
	p := problems.Heat(problems.Options{})
	f := nb.Must(nb.Train(context.Background(), "", p, bayes.Settings{Seed: 1, Hidden: []int{4}, Epochs: 150, Hyper: bayes.HyperSteps{Start: 100}}))
	nb.Summary(f)
	nb.Field(f, 30)
	nb.Slices(f, 0, 0.5, 1)
	x, pts := nb.Must2(figdata.Along(p, "t", 51, map[string]float64{"x": 0}))
	ux := func(v *pde.Vars) *ad.Node { return v.D("x") } // the flux through x = 0
	c := nb.Quantity(f, viz.Labels{Title: "u_x(0, t)", X: "t"}, x, pts, ux, nil)
	fmt.Println(len(c.Mean), "values of the flux, each with its sigma:", len(c.Sigma) == len(c.Mean))
	// Output: 51 values of the flux, each with its sigma: true
}
