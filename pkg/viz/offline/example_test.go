package offline_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// Charts places charts in a page that already has the echarts library; it
// needs no library itself.
func ExampleCharts() {
	s := viz.Slice{T: 1, X: []float64{0, 0.5, 1}, Exact: []float64{0, 1, 0}, Pred: []float64{0, 0.98, 0}, Sigma: []float64{0.01, 0.02, 0.01}}
	chart, err := viz.SlicesChart([]viz.Slice{s}, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	b, err := offline.Charts(chart)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Count(string(b), "echarts.init("), "chart, network:", strings.Contains(string(b), "http"))
	// Output: 1 chart, network: false
}

// Page writes a report that opens offline. It needs the echarts
// library installed by scripts/setup.sh (or BPINN_ECHARTS_JS).
func ExamplePage() {
	logZ := []float64{160, 150, 140}
	relErr := []float64{0.01, 0.02, 0.05}
	scatter, err := viz.EvidenceVsErrorChart(logZ, relErr, -1, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	rel, _ := viz.RelativeLogEvidence(logZ)
	hist, err := viz.EvidenceHistogramChart(rel, 0, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	page, err := offline.Page("Heat equation ensemble", scatter, hist)
	if err != nil {
		log.Fatal(err) // offline: echarts library not found at ...: run scripts/setup.sh ...
	}
	if err := os.WriteFile("report.html", page, 0o644); err != nil {
		log.Fatal(err)
	}
}
