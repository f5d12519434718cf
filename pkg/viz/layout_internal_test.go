package viz

import (
	"strconv"
	"strings"
	"testing"
)

func TestPanelLayoutFits(t *testing.T) {
	pxv := func(s string) int {
		v, err := strconv.Atoi(strings.TrimSuffix(s, "px"))
		if err != nil {
			t.Fatalf("%q is not a pixel size", s)
		}
		return v
	}
	for n := 1; n <= 10; n++ {
		l := panelLayout(n)
		if l.w > MaxChartWidth {
			t.Errorf("%d panels: %d px wide, more than %d", n, l.w, MaxChartWidth)
		}
		if len(l.grids) != n {
			t.Fatalf("%d panels: %d grids", n, len(l.grids))
		}
		for i, g := range l.grids {
			if right := pxv(g.Left) + pxv(g.Width); right > l.w || pxv(g.Width) < 150 {
				t.Errorf("%d panels: panel %d spans to %d px (width %s) of %d", n, i, right, g.Width, l.w)
			}
			if bottom := pxv(g.Top) + pxv(g.Height); bottom > l.h {
				t.Errorf("%d panels: panel %d ends at %d px of %d", n, i, bottom, l.h)
			}
		}
	}
	if l := panelLayout(4); l.cols != 2 {
		t.Errorf("4 panels in rows of %d, want 2 x 2", l.cols)
	}
}
