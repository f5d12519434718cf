package viz_test

import (
	"bytes"
	"errors"
	"image/png"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// TestHeatMapMask checks that masked cells (a domain's holes) are left
// blank and out of the colour scale, and that a bad mask is an error.
func TestHeatMapMask(t *testing.T) {
	t.Parallel()
	x := []float64{0, 1, 2, 3}
	z := []float64{0, 0.5, 1, 1, 0.5, 99, 99, 0, 1, 99, 99, 0, 0, 1, 0.5, 0} // 99: inside a hole
	mask := make([]bool, len(z))
	for i, v := range z {
		mask[i] = v == 99
	}
	fd := viz.Field{X: x, Y: x, Z: z, Mask: mask}
	fig, err := viz.HeatMap(fd, viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := viz.PNG(fig, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	c, err := viz.HeatMapChart(fd, viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := c.Render(&page); err != nil {
		t.Fatal(err)
	}
	if s := page.String(); strings.Contains(s, "99") || !strings.Contains(s, `"max":1`) {
		t.Errorf("the chart shows a masked cell or scales by it (want max 1, no 99)")
	}
	for name, f := range map[string]viz.Field{
		"short mask": {X: x, Y: x, Z: z, Mask: mask[:3]},
		"all masked": {X: []float64{0, 1}, Y: []float64{0, 1}, Z: []float64{1, 2, 3, 4}, Mask: []bool{true, true, true, true}},
	} {
		want := map[string]error{"short mask": viz.ErrLength, "all masked": viz.ErrEmpty}[name]
		if _, err := viz.HeatMap(f, viz.Labels{}); !errors.Is(err, want) {
			t.Errorf("%s: HeatMap error %v, want %v", name, err, want)
		}
		if _, err := viz.HeatMapChart(f, viz.Labels{}); !errors.Is(err, want) {
			t.Errorf("%s: HeatMapChart error %v, want %v", name, err, want)
		}
	}
}
