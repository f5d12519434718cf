package viz

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// Measured are the measurements drawn on one panel: the points X and the
// values Y measured there.
type Measured struct{ X, Y []float64 }

// checkMeasured checks that data has one entry per slice, each of X and Y
// of one length.
func checkMeasured(fig string, ss []Slice, data []Measured) error {
	if len(data) != len(ss) {
		return fmt.Errorf("viz: %s: %d sets of measurements for %d panels", fig, len(data), len(ss))
	}
	for k, d := range data {
		if len(d.X) != len(d.Y) {
			return fmt.Errorf("viz: %s: measurements %d: %d points, %d values", fig, k, len(d.X), len(d.Y))
		}
	}
	return nil
}

// SlicesMeasured is Slices with the measurements data[k] drawn as rings on
// panel k: a fitted curve beside the data it was fitted to, such as the
// populations of a predator-prey model.
func SlicesMeasured(ss []Slice, data []Measured, l Labels) (*Figure, error) {
	if err := checkMeasured("SlicesMeasured", ss, data); err != nil {
		return nil, err
	}
	f, err := Slices(ss, l)
	if err != nil {
		return nil, err
	}
	k := 0
	var thumb plot.Thumbnailer
	for _, row := range f.Plots {
		for _, p := range row {
			if p == nil || k >= len(data) {
				continue
			}
			if d := data[k]; len(d.X) > 0 {
				s := mustScatter(d.X, d.Y, glyphStyle(okBlack, draw.RingGlyph{}, 2.6))
				p.Add(s)
				thumb = s
			}
			k++
		}
	}
	if thumb != nil {
		f.AddLegend("data", thumb)
	}
	return f, nil
}

// SlicesMeasuredChart is the interactive SlicesMeasured figure.
func SlicesMeasuredChart(ss []Slice, data []Measured, l Labels) (*charts.Line, error) {
	if _, err := SlicesMeasured(ss, data, l); err != nil {
		return nil, err
	}
	c, err := SlicesChart(ss, l)
	if err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: "Exact and predicted solution", X: "x", Y: "u"})
	lay := panelLayout(len(ss))
	for i, s := range ss {
		d := data[i]
		if len(d.X) == 0 {
			continue
		}
		_, cols := sortByX(s.X, s.Exact, s.Pred, s.Sigma)
		vs := [][]float64{cols[0], cols[1], d.Y}
		if cols[2] != nil {
			lo, hi := bandAround(cols[1], cols[2], 2)
			vs = append(vs, lo, hi)
		}
		c.YAxisList[i] = bandYAxis(lay.yLabel(i, l.Y), i, vs...)
		c.MultiSeries = append(c.MultiSeries, scatterSeries("data", pairs(d.X, d.Y), i, hexBlack, "emptyCircle", 7))
	}
	return c, nil
}
