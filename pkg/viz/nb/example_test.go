package nb_test

import (
	"fmt"
	"log"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/nb"
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
