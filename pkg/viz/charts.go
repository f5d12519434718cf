package viz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// The interactive twins of the static figures. Each returns a go-echarts
// chart that the caller may still change (SetGlobalOptions, AddSeries) and
// renders with offline.Page, offline.Fragment or nb.Chart. They validate their data
// as the static figures do and use the same colours.
//
// go-echarts lacks a few echarts options these charts need (one title per
// panel, series stackStrategy); a ConfigurationVisitor adds them to the
// option object after go-echarts builds it. A caller's own Accept replaces
// it and loses those options.

// jsNum is a float64 written to JSON with 7 significant digits, which keeps
// pages small without visible loss.
type jsNum float64

func (v jsNum) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(v), 'g', 7, 64), nil
}

func pairs(x, y []float64) [][2]jsNum {
	out := make([][2]jsNum, len(x))
	for i := range x {
		out[i] = [2]jsNum{jsNum(x[i]), jsNum(y[i])}
	}
	return out
}

func okabeHex() opts.Colors {
	cs := make(opts.Colors, len(seriesColors))
	for i, c := range seriesColors {
		cs[i] = hexColor(c)
	}
	return cs
}

var echartsSymbols = []string{"circle", "triangle", "rect", "diamond", "roundRect", "pin", "arrow"}

// patch adds options that go-echarts cannot express.
type patch struct {
	charts.BaseConfigurationVisitor
	top    map[string]any         // set in the option object
	series map[int]map[string]any // merged into series i
}

func newPatch() *patch {
	return &patch{top: map[string]any{}, series: map[int]map[string]any{}}
}

func (p *patch) addSeries(i int, kv map[string]any) {
	if p.series[i] == nil {
		p.series[i] = map[string]any{}
	}
	for k, v := range kv {
		p.series[i][k] = v
	}
}

func (p *patch) Visit(obj map[string]any) {
	for k, v := range p.top {
		obj[k] = v
	}
}

func (p *patch) VisitSeriesOpt(s charts.MultiSeries) any {
	if len(p.series) == 0 {
		return s
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers go back out exactly as they came in
	var out []map[string]any
	if err := dec.Decode(&out); err != nil {
		return s
	}
	for i, kv := range p.series {
		if i < len(out) {
			for k, v := range kv {
				out[i][k] = v
			}
		}
	}
	return out
}

// Chart sizes in CSS pixels: fixed, because a notebook output is not laid
// out yet when its script runs (Notebook 6 runs it in a detached element).
const (
	// MaxChartWidth is the widest chart drawn: it fits the output area of
	// Notebook 6 (about 967 px), JupyterLab's in a 1024 px window and the
	// report's column.
	MaxChartWidth = 900
	chartW        = 760
	chartH        = 520
	chartTop      = 95 // main title, legend, then panel titles
	chartBottom   = 50
	chartLeft     = 70
	chartRight    = 35
	panelGapX     = 60
	panelGapY     = 85
	panelH        = 260
	chartCols     = 3 // panels in a row of a chart (maxCols is for the PNG figures)
)

func px(v int) string { return strconv.Itoa(v) + "px" }

func globalOpts(title string, w, h int) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{Width: px(w), Height: px(h), PageTitle: title}),
		charts.WithTitleOpts(opts.Title{Title: title, Left: "center"}),
		charts.WithColorsOpts(okabeHex()),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "30", Type: "scroll"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "20", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "save as PNG"},
			DataZoom:    &opts.ToolBoxFeatureDataZoom{Show: opts.Bool(true), Title: map[string]string{"zoom": "zoom", "back": "undo zoom"}},
			Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "restore"},
		}}),
	}
}

// layout places n panels in rows of at most chartCols, returning the chart
// size, one grid per panel and the position of each panel's title.
type layout struct {
	w, h   int
	grids  []opts.Grid
	titleX []int
	titleY []int
	cols   int
}

func panelLayout(n int) layout {
	// At most chartCols panels a row, rows as even as they go (4 panels:
	// 2 x 2, not 3 + 1), so the chart stays within MaxChartWidth.
	rows := (n + chartCols - 1) / chartCols
	cols := (n + rows - 1) / rows
	w := chartW
	if cols > 1 {
		w = MaxChartWidth
	}
	pw := (w - chartLeft - chartRight - (cols-1)*panelGapX) / cols
	h := chartTop + rows*panelH + (rows-1)*panelGapY + chartBottom
	l := layout{w: w, h: h, cols: cols}
	for i := range n {
		r, c := i/cols, i%cols
		left := chartLeft + c*(pw+panelGapX)
		top := chartTop + r*(panelH+panelGapY)
		l.grids = append(l.grids, opts.Grid{Left: px(left), Top: px(top), Width: px(pw), Height: px(panelH)})
		l.titleX = append(l.titleX, left)
		l.titleY = append(l.titleY, top-24)
	}
	return l
}

// panelLines returns an empty line chart of n panels (panelLayout), extraH
// pixels taller than the panels need, without axes: each panel adds one x
// and one y axis with its grid index.
func panelLines(title string, n, extraH int) (*charts.Line, layout) {
	lay := panelLayout(n)
	c := charts.NewLine()
	c.SetGlobalOptions(globalOpts(title, lay.w, lay.h+extraH)...)
	c.SetGlobalOptions(charts.WithGridOpts(lay.grids...))
	c.XAxisList, c.YAxisList = nil, nil
	return c, lay
}

// yLabel is the y-axis name of panel i: name in the first column, empty
// elsewhere.
func (l layout) yLabel(i int, name string) string {
	if i%l.cols == 0 {
		return name
	}
	return ""
}

// titles returns the echarts title list: the main title, then one small
// title over each panel.
func (l layout) titles(main string, panels []string) []map[string]any {
	ts := []map[string]any{{"text": main, "left": "center"}}
	for i, t := range panels {
		ts = append(ts, map[string]any{
			"text": t, "left": l.titleX[i], "top": l.titleY[i],
			"textStyle": map[string]any{"fontSize": 13, "fontWeight": "normal"},
		})
	}
	return ts
}

func valueXAxis(name string, grid int, exact bool) opts.XAxis {
	a := opts.XAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 28, GridIndex: grid,
		Scale: opts.Bool(true), SplitLine: &opts.SplitLine{Show: opts.Bool(true)}}
	if exact {
		a.Min, a.Max = "dataMin", "dataMax"
	}
	return a
}

func valueYAxis(name string, grid int, log bool) opts.YAxis {
	a := opts.YAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 50, GridIndex: grid,
		Scale: opts.Bool(true), SplitLine: &opts.SplitLine{Show: opts.Bool(true)}}
	if log {
		a.Type = "log"
	}
	return a
}

func lineSeries(name string, data any, axis int, color string, width float32, dashed bool) charts.SingleSeries {
	s := charts.SingleSeries{Name: name, Type: types.ChartLine, Data: data, XAxisIndex: axis, YAxisIndex: axis,
		ShowSymbol: opts.Bool(false), Symbol: "none"}
	s.LineStyle = &opts.LineStyle{Color: color, Width: width}
	if dashed {
		s.LineStyle.Type = "dashed"
	}
	s.ItemStyle = &opts.ItemStyle{Color: color}
	return s
}

func scatterSeries(name string, data any, axis int, color, symbol string, size int) charts.SingleSeries {
	s := charts.SingleSeries{Name: name, Type: types.ChartScatter, Data: data, XAxisIndex: axis, YAxisIndex: axis,
		Symbol: symbol, SymbolSize: size}
	s.ItemStyle = &opts.ItemStyle{Color: color}
	return s
}

// extent returns the smallest and largest values of the slices.
func extent(vs ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return lo, hi
}

// bandYAxis is a y axis for a panel with a band: echarts puts 0 in the
// extent of stacked series, so the range is set explicitly to the data
// range plus 4%. echarts then puts ticks at round values inside it and
// would label the two odd end points, whose labels are hidden.
func bandYAxis(name string, grid int, vs ...[]float64) opts.YAxis {
	lo, hi := extent(vs...)
	pad := 0.04 * (hi - lo)
	if pad == 0 {
		pad = math.Max(0.05*math.Abs(lo), 0.5)
	}
	a := valueYAxis(name, grid, false)
	a.Min, a.Max = jsNum(lo-pad), jsNum(hi+pad)
	a.AxisLabel = &opts.AxisLabel{ShowMinLabel: opts.Bool(false), ShowMaxLabel: opts.Bool(false)}
	return a
}

// addBand appends the two series of a shaded band between lo and hi: lo
// drawn invisibly, then hi − lo stacked on it with a filled area (the
// stacked-area trick; stackStrategy "all" so that negative values stack
// too). Both carry name, so one legend entry toggles the band.
func addBand(ms *charts.MultiSeries, p *patch, name string, x, lo, hi []float64, axis int, color string, opacity float32) {
	d := make([]float64, len(lo))
	for i := range d {
		d[i] = hi[i] - lo[i]
	}
	stack := "band" + strconv.Itoa(len(*ms))
	base := lineSeries(name, pairs(lo, x), axis, color, 0, false)
	base.Stack = stack
	base.LineStyle.Opacity = opts.Float(0)
	top := lineSeries(name, pairs(d, x), axis, color, 0, false)
	top.Stack = stack
	top.LineStyle.Opacity = opts.Float(0)
	top.AreaStyle = &opts.AreaStyle{Color: color, Opacity: opts.Float(opacity)}
	// With two value axes echarts stacks the first numeric dimension of the
	// data, so the points are given as (value, x) with x and y encoded from
	// the second and first columns: the stack then adds the values, not x.
	extra := map[string]any{
		"stackStrategy": "all",
		"dimensions":    []string{"value", "x"},
		"encode":        map[string]any{"x": 1, "y": 0},
		"tooltip":       map[string]any{"show": false},
		"emphasis":      map[string]any{"disabled": true},
		"silent":        true,
	}
	p.addSeries(len(*ms), extra)
	p.addSeries(len(*ms)+1, extra)
	*ms = append(*ms, base, top)
}

var (
	hexBlack     = hexColor(okBlack)
	hexBlue      = hexColor(okBlue)
	hexVermilion = hexColor(okVermilion)
	hexGrey      = hexColor(bandGrey)
)

// PointsChart is the interactive Points figure.
func PointsChart(sets []PointSet, l Labels) (*charts.Scatter, error) {
	f, err := Points(sets, l) // validates
	if err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: f.Title, X: "x", Y: "t"})
	c := charts.NewScatter()
	c.SetGlobalOptions(globalOpts(l.Title, chartW-60, chartH+40)...)
	c.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(opts.Grid{Top: px(chartTop - 25), Left: px(chartLeft), Right: px(chartRight), Bottom: px(chartBottom + 5)}),
		charts.WithXAxisOpts(valueXAxis(l.X, 0, false)),
		charts.WithYAxisOpts(valueYAxis(l.Y, 0, false)),
	)
	for i, s := range sets {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("set %d", i+1)
		}
		c.MultiSeries = append(c.MultiSeries, scatterSeries(fmt.Sprintf("%s (%d)", name, len(s.X)), pairs(s.X, s.Y), 0,
			hexColor(SeriesColor(i)), echartsSymbols[i%len(echartsSymbols)], 8))
	}
	return c, nil
}

// EvidenceHistogramChart is the interactive EvidenceHistogram figure.
func EvidenceHistogramChart(relLogZ []float64, bins int, l Labels) (*charts.Bar, error) {
	f, err := EvidenceHistogram(relLogZ, bins, l)
	if err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: f.Title, X: "ln Z − max ln Z", Y: "count"})
	hb := histogram(relLogZ, bins)
	cats := make([]string, len(hb))
	data := make([]opts.BarData, len(hb))
	for i, b := range hb {
		cats[i] = strconv.FormatFloat((b.lo+b.hi)/2, 'g', 3, 64)
		data[i] = opts.BarData{Value: b.n, Name: fmt.Sprintf("[%.3g, %.3g%s", b.lo, b.hi, map[bool]string{true: "]", false: ")"}[i == len(hb)-1])}
	}
	c := charts.NewBar()
	c.SetGlobalOptions(globalOpts(l.Title, chartW, chartH-60)...)
	c.SetGlobalOptions(
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithGridOpts(opts.Grid{Top: px(chartTop - 40), Left: px(chartLeft), Right: px(chartRight), Bottom: px(chartBottom + 5)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: l.X + " (bin centre)", NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: l.Y, NameLocation: "middle", NameGap: 40, MinInterval: 1}),
	)
	c.SetXAxis(cats)
	c.AddSeries("ensemble members", data, charts.WithBarChartOpts(opts.BarChart{BarCategoryGap: "0%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: hexBlue, BorderColor: hexBlack, BorderWidth: 0.6}))
	p := newPatch()
	p.top["tooltip"] = map[string]any{"show": true, "trigger": "item", "formatter": "ln Z − max ln Z in {b}: {c} members"}
	c.Accept(p)
	return c, nil
}

// TrainingChart is the interactive Training figure: one panel per quantity,
// log axes where the static figure has them.
func TrainingChart(h History, l Labels) (*charts.Line, error) {
	l = l.or(Labels{Title: "Training history", X: "epoch"})
	panels, err := h.check("TrainingChart")
	if err != nil {
		return nil, err
	}
	c, lay := panelLines(l.Title, len(panels), 0)
	var names []string
	colorIdx := 0
	for i, pan := range panels {
		names = append(names, pan.title)
		ax := valueXAxis(l.X, i, true)
		ax.SplitNumber = 3 // epoch labels ("10,000") are wide for narrow panels
		c.XAxisList = append(c.XAxisList, ax)
		c.YAxisList = append(c.YAxisList, valueYAxis("", i, pan.logY()))
		for _, s := range pan.series {
			x := make([]float64, len(s.Epochs))
			for k, e := range s.Epochs {
				x[k] = float64(e)
			}
			col := hexBlack
			if len(pan.series) > 1 || pan.positive {
				col = hexColor(SeriesColor(colorIdx))
				colorIdx++
			}
			c.MultiSeries = append(c.MultiSeries, lineSeries(s.Name, pairs(x, s.Values), i, col, 1.6, false))
		}
	}
	p := newPatch()
	p.top["title"] = lay.titles(l.Title, names)
	c.Accept(p)
	return c, nil
}

// SlicesChart is the interactive Slices figure.
func SlicesChart(ss []Slice, l Labels) (*charts.Line, error) {
	if _, err := Slices(ss, l); err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: "Exact and predicted solution", X: "x", Y: "u"})
	c, lay := panelLines(l.Title, len(ss), 0)
	p := newPatch()
	var names []string
	for i, s := range ss {
		names = append(names, s.title())
		x, cols := sortByX(s.X, s.Exact, s.Pred, s.Sigma)
		exact, pred, sigma := cols[0], cols[1], cols[2]
		ylab := lay.yLabel(i, l.Y)
		c.XAxisList = append(c.XAxisList, valueXAxis(l.X, i, true))
		c.YAxisList = append(c.YAxisList, valueYAxis(ylab, i, false))
		if sigma != nil {
			lo, hi := bandAround(pred, sigma, 2)
			c.YAxisList[i] = bandYAxis(ylab, i, lo, hi, exact, pred)
			addBand(&c.MultiSeries, p, "u_pred ± 2σ", x, lo, hi, i, hexGrey, 0.7)
		}
		if exact != nil {
			c.MultiSeries = append(c.MultiSeries, lineSeries("u_true", pairs(x, exact), i, hexBlack, 1.6, false))
		}
		c.MultiSeries = append(c.MultiSeries, lineSeries("u_pred", pairs(x, pred), i, hexBlue, 2, true))
	}
	p.top["title"] = lay.titles(l.Title, names)
	c.Accept(p)
	return c, nil
}

// HeatMapChart is the interactive HeatMap figure, with a continuous viridis
// visual map in place of the colour bar. The axes are categories labelled
// with the grid coordinates (echarts draws heat maps on category axes).
func HeatMapChart(fd Field, l Labels) (*charts.HeatMap, error) {
	l = l.or(Labels{Title: "u(x, t)", X: "x", Y: "t", Z: "u"})
	lo, hi, err := fd.check("HeatMapChart")
	if err != nil {
		return nil, err
	}
	label := func(v []float64) []string {
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = strconv.FormatFloat(x, 'g', 3, 64)
		}
		return out
	}
	data := make([][3]any, 0, len(fd.Z))
	for j := range fd.Y {
		for i := range fd.X {
			if k := j*len(fd.X) + i; !fd.masked(k) { // a missing cell is blank
				data = append(data, [3]any{i, j, jsNum(fd.Z[k])})
			}
		}
	}
	anchors := make([]string, len(viridisAnchors))
	for i, a := range viridisAnchors {
		anchors[i] = hexColor(a)
	}
	c := charts.NewHeatMap()
	c.SetGlobalOptions(globalOpts(l.Title, chartW, chartH+40)...)
	c.SetGlobalOptions(
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(opts.Grid{Top: px(chartTop - 40), Left: px(chartLeft), Right: px(chartRight + 85), Bottom: px(chartBottom + 5)}),
	)
	c.AddSeries(l.Z, toHeatData(data))
	p := newPatch()
	// The axes are set here because go-echarts types the label interval as
	// a string, which echarts would add to as text.
	p.top["xAxis"] = []map[string]any{categoryAxis(l.X, 28, label(fd.X))}
	p.top["yAxis"] = []map[string]any{categoryAxis(l.Y, 45, label(fd.Y))}
	// Draw all cells at once: progressive rendering leaves a 100 x 100 map
	// half drawn in screenshots and printouts.
	p.addSeries(0, map[string]any{"progressive": 0})
	// Set here, not with opts.VisualMap, whose float32 min and max are
	// dropped from the JSON when zero.
	p.top["visualMap"] = []map[string]any{{
		"type": "continuous", "min": jsNum(lo), "max": jsNum(hi), "calculable": true,
		"orient": "vertical", "right": 10, "top": "middle", "text": []string{l.Z, ""},
		"inRange": map[string]any{"color": anchors}, "precision": 3,
	}}
	c.Accept(p)
	return c, nil
}

func toHeatData(d [][3]any) []opts.HeatMapData {
	out := make([]opts.HeatMapData, len(d))
	for i, v := range d {
		out[i] = opts.HeatMapData{Value: v}
	}
	return out
}

// ErrorBandChart is the interactive ErrorBand figure.
func ErrorBandChart(ss []Slice, l Labels) (*charts.Line, error) {
	if _, err := ErrorBand(ss, l); err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: "Error and 2σ uncertainty", X: "x", Y: "u_true − u_pred"})
	c, lay := panelLines(l.Title, len(ss), 0)
	p := newPatch()
	var names []string
	for i, s := range ss {
		x, cols := sortByX(s.X, s.Exact, s.Pred, s.Sigma)
		e, sigma := errorOf(cols[0], cols[1]), cols[2]
		lo, hi := bandAround(make([]float64, len(x)), sigma, 2)
		var out [][2]jsNum
		for k := range x {
			if math.Abs(e[k]) > 2*sigma[k] {
				out = append(out, [2]jsNum{jsNum(x[k]), jsNum(e[k])})
			}
		}
		names = append(names, fmt.Sprintf("%s (%.0f%% out)", s.title(), 100*float64(len(out))/float64(len(x))))
		ylab := lay.yLabel(i, l.Y)
		c.XAxisList = append(c.XAxisList, valueXAxis(l.X, i, true))
		c.YAxisList = append(c.YAxisList, bandYAxis(ylab, i, lo, hi, e))
		addBand(&c.MultiSeries, p, "±2σ", x, lo, hi, i, hexGrey, 0.7)
		zero := lineSeries("u_true = u_pred", pairs([]float64{x[0], x[len(x)-1]}, []float64{0, 0}), i, hexBlack, 1, false)
		p.addSeries(len(c.MultiSeries), map[string]any{"tooltip": map[string]any{"show": false}, "silent": true})
		c.MultiSeries = append(c.MultiSeries, zero)
		c.MultiSeries = append(c.MultiSeries, lineSeries("u_true − u_pred", pairs(x, e), i, hexBlue, 1.6, false))
		c.MultiSeries = append(c.MultiSeries, scatterSeries("|u_true − u_pred| > 2σ", out, i, hexVermilion, "circle", 6))
	}
	p.top["title"] = lay.titles(l.Title, names)
	c.Accept(p)
	return c, nil
}

// LaplaceVsHMCChart is the interactive LaplaceVsHMC figure.
func LaplaceVsHMCChart(cmp Comparison, l Labels) (*charts.Line, error) {
	if _, err := LaplaceVsHMC(cmp, l); err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: "Laplace approximation vs HMC", X: "x", Y: "u"})
	cols := [][]float64{cmp.True}
	for _, fit := range cmp.Fits {
		cols = append(cols, fit.Mean, fit.Sigma)
	}
	x, sorted := sortByX(cmp.X, cols...)
	all := [][]float64{sorted[0], cmp.DataY}
	for i := range cmp.Fits {
		lo, hi := bandAround(sorted[1+2*i], sorted[2+2*i], 2)
		all = append(all, lo, hi)
	}
	c, lay := panelLines(l.Title, len(cmp.Fits), 40)
	p := newPatch()
	var names []string
	for i, fit := range cmp.Fits {
		name := fit.Name
		if name == "" {
			name = fmt.Sprintf("fit %d", i+1)
		}
		names = append(names, name)
		mean, sigma := sorted[1+2*i], sorted[2+2*i]
		lo, hi := bandAround(mean, sigma, 2)
		col := hexColor(fitColor(i))
		ylab := lay.yLabel(i, l.Y)
		c.XAxisList = append(c.XAxisList, valueXAxis(l.X, i, true))
		c.YAxisList = append(c.YAxisList, bandYAxis(ylab, i, all...))
		addBand(&c.MultiSeries, p, name+" ± 2σ", x, lo, hi, i, col, 0.25)
		if sorted[0] != nil {
			c.MultiSeries = append(c.MultiSeries, lineSeries("true u(x)", pairs(x, sorted[0]), i, hexBlack, 1.6, false))
		}
		c.MultiSeries = append(c.MultiSeries, lineSeries(name+" mean", pairs(x, mean), i, col, 2, true))
		if len(cmp.DataX) > 0 {
			d := scatterSeries("data", pairs(cmp.DataX, cmp.DataY), i, hexBlack, "emptyCircle", 7)
			c.MultiSeries = append(c.MultiSeries, d)
		}
	}
	p.top["title"] = lay.titles(l.Title, names)
	c.Accept(p)
	return c, nil
}

// EvidenceVsErrorChart is the interactive EvidenceVsError figure.
func EvidenceVsErrorChart(logZ, relErr []float64, rho float64, l Labels) (*charts.Scatter, error) {
	if err := checkEvidenceError("EvidenceVsErrorChart", logZ, relErr, rho); err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: "Evidence vs error", X: "relative L2 error", Y: "ln Z"})
	best := argMax(logZ)
	c := charts.NewScatter()
	c.SetGlobalOptions(globalOpts(rhoTitle(l.Title, rho), chartW, chartH)...)
	c.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(opts.Grid{Top: px(chartTop - 25), Left: px(chartLeft), Right: px(chartRight), Bottom: px(chartBottom + 5)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: l.X, NameLocation: "middle", NameGap: 28, SplitLine: &opts.SplitLine{Show: opts.Bool(true)}}),
		charts.WithYAxisOpts(valueYAxis(l.Y, 0, false)),
	)
	c.MultiSeries = append(c.MultiSeries,
		scatterSeries(fmt.Sprintf("ensemble member (%d)", len(logZ)), pairs(relErr, logZ), 0, hexBlue, "circle", 8),
		scatterSeries("highest evidence", pairs(relErr[best:best+1], logZ[best:best+1]), 0, hexVermilion, "triangle", 16))
	return c, nil
}

// EvidenceVsHiddenChart is the interactive EvidenceVsHidden figure: every
// member, and the mean with a ±1 standard deviation band.
func EvidenceVsHiddenChart(groups []HiddenEvidence, l Labels) (*charts.Scatter, error) {
	gs, err := checkHidden("EvidenceVsHiddenChart", groups)
	if err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: "Evidence vs network size", X: "hidden units", Y: "ln Z"})
	st := newHiddenStats(gs)
	hx, mean := st.hidden, st.mean
	lo, hi := make([]float64, len(hx)), make([]float64, len(hx))
	for i := range hx {
		lo[i], hi[i] = mean[i]-st.sd[i], mean[i]+st.sd[i]
	}
	c := charts.NewScatter()
	c.SetGlobalOptions(globalOpts(l.Title, chartW, chartH)...)
	c.SetGlobalOptions(
		charts.WithGridOpts(opts.Grid{Top: px(chartTop - 25), Left: px(chartLeft), Right: px(chartRight), Bottom: px(chartBottom + 5)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: l.X, NameLocation: "middle", NameGap: 28, MinInterval: 1,
			Min: slices.Min(hx) - 1, Max: slices.Max(hx) + 1}),
		charts.WithYAxisOpts(bandYAxis(l.Y, 0, lo, hi, st.memY)),
	)
	p := newPatch()
	addBand(&c.MultiSeries, p, "mean ± 1 s.d.", hx, lo, hi, 0, hexVermilion, 0.15)
	mline := lineSeries("mean ± 1 s.d.", pairs(hx, mean), 0, hexVermilion, 2, true)
	mline.ShowSymbol, mline.Symbol, mline.SymbolSize = opts.Bool(true), "rect", 9
	c.MultiSeries = append(c.MultiSeries, mline,
		scatterSeries("ensemble member", pairs(st.memX, st.memY), 0, hexBlue, "circle", 7))
	c.Accept(p)
	return c, nil
}

// categoryAxis is a category axis over data showing about ten labels
// (echarts skips "interval" labels between two shown).
func categoryAxis(name string, gap int, data []string) map[string]any {
	return map[string]any{
		"type": "category", "name": name, "nameLocation": "middle", "nameGap": gap, "data": data,
		"axisLabel": map[string]any{"interval": max(0, (len(data)-1)/10)},
	}
}
