package viz_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// SlicesMeasured draws each panel's measurements beside its curves, widens
// the chart's axis to hold them, and refuses measurements that do not
// match the panels.
func TestSlicesMeasured(t *testing.T) {
	t.Parallel()
	ss := []viz.Slice{
		{Label: "u", X: []float64{0, 0.5, 1}, Exact: []float64{1, 2, 1}, Pred: []float64{1, 2.1, 1}, Sigma: []float64{0.1, 0.1, 0.1}},
		{Label: "v", X: []float64{0, 0.5, 1}, Pred: []float64{3, 2, 3}},
	}
	data := []viz.Measured{{X: []float64{0.25, 0.75}, Y: []float64{1.5, 9}}, {}}
	f, err := viz.SlicesMeasured(ss, data, viz.Labels{Title: "populations"})
	if err != nil {
		t.Fatal(err)
	}
	if png, err := viz.PNG(f, 0, 0); err != nil || len(png) == 0 {
		t.Fatalf("PNG: %d bytes, %v", len(png), err)
	}
	if y := f.Plots[0][0].Y.Max; y < 9 {
		t.Errorf("panel u reaches %g, below the measurement 9", y)
	}
	c, err := viz.SlicesMeasuredChart(ss, data, viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := offline.Charts(c)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page, []byte(`"name":"data"`)); n != 1 {
		t.Errorf("%d data series in the chart, want 1 (panel v has no measurements)", n)
	}
	for _, bad := range [][]viz.Measured{data[:1], {{X: []float64{0}, Y: nil}, {}}} {
		if _, err := viz.SlicesMeasured(ss, bad, viz.Labels{}); err == nil || !strings.Contains(err.Error(), "SlicesMeasured") {
			t.Errorf("measurements %v: error %v, want one naming SlicesMeasured", bad, err)
		}
	}
}
