package viz

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxCols is the number of panels in a row before a figure wraps.
const maxCols = 5

func xys(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i].X, pts[i].Y = x[i], y[i]
	}
	return pts
}

func mustLine(x, y []float64, sty draw.LineStyle) *plotter.Line {
	l, err := plotter.NewLine(xys(x, y))
	if err != nil { // unreachable: inputs are validated
		panic(err)
	}
	l.LineStyle = sty
	return l
}

func mustScatter(x, y []float64, sty draw.GlyphStyle) *plotter.Scatter {
	s, err := plotter.NewScatter(xys(x, y))
	if err != nil { // unreachable: inputs are validated
		panic(err)
	}
	s.GlyphStyle = sty
	return s
}

// band returns the filled polygon between lo and hi over sorted x.
func band(x, lo, hi []float64, c color.Color) *plotter.Polygon {
	ring := make(plotter.XYs, 0, 2*len(x))
	for i := range x {
		ring = append(ring, plotter.XY{X: x[i], Y: hi[i]})
	}
	for i := len(x) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: x[i], Y: lo[i]})
	}
	p, err := plotter.NewPolygon(ring)
	if err != nil { // unreachable: inputs are validated
		panic(err)
	}
	p.Color = c
	p.LineStyle.Width = 0
	return p
}

func bandAround(mean, sigma []float64, k float64) (lo, hi []float64) {
	lo, hi = make([]float64, len(mean)), make([]float64, len(mean))
	for i := range mean {
		lo[i], hi[i] = mean[i]-k*sigma[i], mean[i]+k*sigma[i]
	}
	return lo, hi
}

// grid lays n plots out in rows of at most maxCols.
func grid(ps []*plot.Plot) [][]*plot.Plot {
	cols := min(len(ps), maxCols)
	var rows [][]*plot.Plot
	for i := 0; i < len(ps); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, ps[i:min(i+cols, len(ps))])
		rows = append(rows, row)
	}
	return rows
}

func single(title string, p *plot.Plot) *Figure {
	return &Figure{Title: title, Plots: [][]*plot.Plot{{p}}, Width: 14 * vg.Centimeter, Height: 10.5 * vg.Centimeter}
}

func panelSize(f *Figure, panelW, panelH vg.Length) {
	rows, cols := f.dims()
	f.Width = vg.Length(cols)*panelW + 1*vg.Centimeter
	f.Height = vg.Length(rows)*panelH + 1.8*vg.Centimeter
}

// Points draws training points in a 2-D domain, one colour and marker per
// set (the paper's blue equation and red boundary points).
// Default labels: "Training points", x "x", y "t".
func Points(sets []PointSet, l Labels) (*Figure, error) {
	const fig = "Points"
	l = l.or(Labels{Title: "Training points", X: "x", Y: "t"})
	if len(sets) == 0 {
		return nil, fmt.Errorf("viz: %s: no point sets: %w", fig, ErrEmpty)
	}
	for i, s := range sets {
		if err := checkVec(fig, fmt.Sprintf("set %d (%s) X", i, s.Name), s.X, -1); err != nil {
			return nil, err
		}
		if err := checkVec(fig, fmt.Sprintf("set %d (%s) Y", i, s.Name), s.Y, len(s.X)); err != nil {
			return nil, err
		}
	}
	p := newPlot("", l.X, l.Y)
	f := single(l.Title, p)
	f.Width, f.Height = 12*vg.Centimeter, 11*vg.Centimeter
	for i, s := range sets {
		sc := mustScatter(s.X, s.Y, glyphStyle(SeriesColor(i), seriesGlyph(i), 2.6))
		p.Add(sc)
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("set %d", i+1)
		}
		f.AddLegend(fmt.Sprintf("%s (%d)", name, len(s.X)), sc)
	}
	return f, nil
}

// EvidenceHistogram draws the histogram of the relative log evidence
// ln Z_i - max_j ln Z_j of an ensemble (see RelativeLogEvidence) in bins
// equal bins; bins <= 0 picks ceil(sqrt(n)), at most 50.
// Default labels: "Relative log evidence (N = n)", x "ln Z − max ln Z",
// y "count".
func EvidenceHistogram(relLogZ []float64, bins int, l Labels) (*Figure, error) {
	const fig = "EvidenceHistogram"
	if err := checkVec(fig, "relLogZ", relLogZ, -1); err != nil {
		return nil, err
	}
	l = l.or(Labels{Title: fmt.Sprintf("Relative log evidence (N = %d)", len(relLogZ)), X: "ln Z − max ln Z", Y: "count"})
	hb := histogram(relLogZ, bins)
	h := &plotter.Histogram{
		Bins:      make([]plotter.HistogramBin, len(hb)),
		Width:     hb[0].hi - hb[0].lo,
		FillColor: withAlpha(okBlue, 0.85),
		LineStyle: lineStyle(okBlack, 0.6, nil),
	}
	for i, b := range hb {
		h.Bins[i] = plotter.HistogramBin{Min: b.lo, Max: b.hi, Weight: float64(b.n)}
	}
	p := newPlot("", l.X, l.Y)
	p.Add(plotter.NewGrid(), h)
	p.Y.Min = 0
	f := single(l.Title, p)
	f.Width, f.Height = 12*vg.Centimeter, 9*vg.Centimeter
	return f, nil
}

// Training draws the evolution of E_T, β, α, E_hyp and ln Z during
// training, one panel per quantity (left to right, as in the paper),
// leaving out quantities without values. A panel uses a log y axis when
// its values are positive and span at least a factor of 10.
// Default labels: "Training history", x "epoch".
func Training(h History, l Labels) (*Figure, error) {
	const fig = "Training"
	l = l.or(Labels{Title: "Training history", X: "epoch"})
	panels, err := h.check(fig)
	if err != nil {
		return nil, err
	}
	f := &Figure{Title: l.Title}
	var ps []*plot.Plot
	colorIdx := 0
	for _, pan := range panels {
		p := newPlot(pan.title, l.X, l.Y)
		p.Add(plotter.NewGrid())
		if pan.logY() {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{}
		}
		for _, s := range pan.series {
			x := make([]float64, len(s.Epochs))
			for i, e := range s.Epochs {
				x[i] = float64(e)
			}
			c, dashes := color.RGBA(okBlack), []vg.Length(nil)
			if len(pan.series) > 1 || pan.positive {
				c, dashes = SeriesColor(colorIdx), seriesDashes(colorIdx)
				colorIdx++
			}
			ln := mustLine(x, s.Values, lineStyle(c, 1.4, dashes))
			p.Add(ln)
			if len(pan.series) > 1 {
				f.AddLegend(s.Name, ln)
			}
		}
		ps = append(ps, p)
	}
	f.Plots = grid(ps)
	panelSize(f, 6.2*vg.Centimeter, 6.5*vg.Centimeter)
	return f, nil
}

// Slices draws the exact and predicted solution u(x) at several times, one
// panel per slice, with the grey 2σ band of the prediction.
// Default labels: "Exact and predicted solution", x "x", y "u".
func Slices(ss []Slice, l Labels) (*Figure, error) {
	const fig = "Slices"
	l = l.or(Labels{Title: "Exact and predicted solution", X: "x", Y: "u"})
	if len(ss) == 0 {
		return nil, fmt.Errorf("viz: %s: no slices: %w", fig, ErrEmpty)
	}
	for k, s := range ss {
		if err := checkSlice(fig, k, s, false, false); err != nil {
			return nil, err
		}
	}
	f := &Figure{Title: l.Title}
	var ps []*plot.Plot
	exactSty := lineStyle(okBlack, 1.5, nil)
	predSty := lineStyle(okBlue, 1.8, predDashes)
	var bandThumb, exactThumb, predThumb plot.Thumbnailer
	for k, s := range ss {
		x, cols := sortByX(s.X, s.Exact, s.Pred, s.Sigma)
		exact, pred, sigma := cols[0], cols[1], cols[2]
		ylab := ""
		if k%maxCols == 0 {
			ylab = l.Y
		}
		p := newPlot(s.title(), l.X, ylab)
		p.Add(plotter.NewGrid())
		if sigma != nil {
			lo, hi := bandAround(pred, sigma, 2)
			b := band(x, lo, hi, bandGrey)
			p.Add(b)
			bandThumb = b
		}
		if exact != nil {
			e := mustLine(x, exact, exactSty)
			p.Add(e)
			exactThumb = e
		}
		pl := mustLine(x, pred, predSty)
		p.Add(pl)
		predThumb = pl
		ps = append(ps, p)
	}
	if exactThumb != nil {
		f.AddLegend("u_true", exactThumb)
	}
	f.AddLegend("u_pred", predThumb)
	if bandThumb != nil {
		f.AddLegend("u_pred ± 2σ", bandThumb)
	}
	f.Plots = grid(ps)
	panelSize(f, 5.6*vg.Centimeter, 6*vg.Centimeter)
	return f, nil
}

// HeatMap draws a field on a grid (u, or |u − u_exact|) with the viridis
// colour map and a colour bar. An evenly spaced grid is drawn as an image,
// another one cell by cell.
// Default labels: "u(x, t)", x "x", y "t", colour bar "u".
func HeatMap(fd Field, l Labels) (*Figure, error) {
	const fig = "HeatMap"
	l = l.or(Labels{Title: "u(x, t)", X: "x", Y: "t", Z: "u"})
	lo, hi, err := fd.check(fig)
	if err != nil {
		return nil, err
	}
	cm := NewViridis(lo, hi)
	hm := plotter.NewHeatMap(gridXYZ{fd}, cm.Palette(256))
	hm.Min, hm.Max = lo, hi
	// Cell by cell leaves anti-aliasing seams between cells; an image has
	// none but needs an evenly spaced grid.
	hm.Rasterized = evenlySpaced(fd.X) && evenlySpaced(fd.Y)
	p := newPlot("", l.X, l.Y)
	p.Add(hm)
	p.X.Padding, p.Y.Padding = 0, 0

	cb := plot.New()
	cb.BackgroundColor = white
	cb.HideX()
	cb.X.Padding, cb.Y.Padding = 0, 0
	cb.Y.Label.Text = l.Z
	cb.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})

	f := single(l.Title, p)
	f.ColorBar = cb
	f.Width, f.Height = 15*vg.Centimeter, 11*vg.Centimeter
	return f, nil
}

func evenlySpaced(v []float64) bool {
	d := (v[len(v)-1] - v[0]) / float64(len(v)-1)
	for i := 1; i < len(v); i++ {
		if math.Abs(v[i]-v[i-1]-d) > 1e-6*d {
			return false
		}
	}
	return true
}

type gridXYZ struct{ f Field }

func (g gridXYZ) Dims() (c, r int) { return len(g.f.X), len(g.f.Y) }
func (g gridXYZ) Z(c, r int) float64 {
	i := r*len(g.f.X) + c
	if g.f.masked(i) {
		return math.NaN() // the heat map leaves NaN cells blank
	}
	return g.f.Z[i]
}
func (g gridXYZ) X(c int) float64 { return g.f.X[c] }
func (g gridXYZ) Y(r int) float64 { return g.f.Y[r] }

// ErrorBand draws the error u_true − u_pred with its ±2σ band around zero
// at several times (the paper's wave-equation error figure); points where
// |u_true − u_pred| > 2σ are drawn in red (Okabe-Ito vermilion). Each slice
// needs Exact and Sigma; the panel title gives the share of such points.
// Default labels: "Error and 2σ uncertainty", x "x", y "u_true − u_pred".
func ErrorBand(ss []Slice, l Labels) (*Figure, error) {
	const fig = "ErrorBand"
	l = l.or(Labels{Title: "Error and 2σ uncertainty", X: "x", Y: "u_true − u_pred"})
	if len(ss) == 0 {
		return nil, fmt.Errorf("viz: %s: no slices: %w", fig, ErrEmpty)
	}
	for k, s := range ss {
		if err := checkSlice(fig, k, s, true, true); err != nil {
			return nil, err
		}
	}
	f := &Figure{Title: l.Title}
	var ps []*plot.Plot
	var thumbs [3]plot.Thumbnailer
	for k, s := range ss {
		x, cols := sortByX(s.X, s.Exact, s.Pred, s.Sigma)
		e := errorOf(cols[0], cols[1])
		sigma := cols[2]
		zero := make([]float64, len(x))
		lo, hi := bandAround(zero, sigma, 2)
		var ox, oy []float64
		for i := range x {
			if math.Abs(e[i]) > 2*sigma[i] {
				ox, oy = append(ox, x[i]), append(oy, e[i])
			}
		}
		ylab := ""
		if k%maxCols == 0 {
			ylab = l.Y
		}
		p := newPlot(fmt.Sprintf("%s (%.0f%% out)", s.title(), 100*float64(len(ox))/float64(len(x))), l.X, ylab)
		p.Add(plotter.NewGrid())
		b := band(x, lo, hi, bandGrey)
		z := mustLine([]float64{x[0], x[len(x)-1]}, []float64{0, 0}, lineStyle(okBlack, 0.8, nil))
		el := mustLine(x, e, lineStyle(okBlue, 1.4, nil))
		p.Add(b, z, el)
		thumbs[0], thumbs[1] = el, b
		if len(ox) > 0 {
			sc := mustScatter(ox, oy, glyphStyle(okVermilion, draw.CircleGlyph{}, 2.2))
			p.Add(sc)
			thumbs[2] = sc
		}
		ps = append(ps, p)
	}
	f.AddLegend("u_true − u_pred", thumbs[0])
	f.AddLegend("±2σ", thumbs[1])
	if thumbs[2] == nil {
		thumbs[2] = mustScatter([]float64{0}, []float64{0}, glyphStyle(okVermilion, draw.CircleGlyph{}, 2.2))
	}
	f.AddLegend("|u_true − u_pred| > 2σ", thumbs[2])
	f.Plots = grid(ps)
	panelSize(f, 5.6*vg.Centimeter, 6*vg.Centimeter)
	return f, nil
}

func errorOf(exact, pred []float64) []float64 {
	e := make([]float64, len(exact))
	for i := range e {
		e[i] = exact[i] - pred[i]
	}
	return e
}

// fitColor is the colour of fit i in LaplaceVsHMC: the paper's red for
// this work's Laplace fit, blue for HMC, then the rest of the palette.
func fitColor(i int) color.RGBA {
	order := []color.RGBA{okVermilion, okBlue, okGreen, okOrange, okPurple, okSkyBlue}
	return order[i%len(order)]
}

// LaplaceVsHMC draws one panel per fit (Laplace then HMC in the paper's
// regression figure): the data, the true curve, the fit's mean and its 2σ
// band, all panels on the same axes.
// Default labels: "Laplace approximation vs HMC", x "x", y "u".
func LaplaceVsHMC(c Comparison, l Labels) (*Figure, error) {
	const fig = "LaplaceVsHMC"
	l = l.or(Labels{Title: "Laplace approximation vs HMC", X: "x", Y: "u"})
	if err := c.check(fig); err != nil {
		return nil, err
	}
	cols := [][]float64{c.True}
	for _, fit := range c.Fits {
		cols = append(cols, fit.Mean, fit.Sigma)
	}
	x, sorted := sortByX(c.X, cols...)
	truth := sorted[0]
	ymin, ymax := math.Inf(1), math.Inf(-1)
	grow := func(v ...[]float64) {
		for _, s := range v {
			if len(s) > 0 {
				ymin, ymax = math.Min(ymin, slices.Min(s)), math.Max(ymax, slices.Max(s))
			}
		}
	}
	grow(c.DataY, truth)
	f := &Figure{Title: l.Title}
	var ps []*plot.Plot
	var dataThumb, trueThumb plot.Thumbnailer
	for i, fit := range c.Fits {
		mean, sigma := sorted[1+2*i], sorted[2+2*i]
		lo, hi := bandAround(mean, sigma, 2)
		grow(lo, hi)
		ylab := ""
		if i%maxCols == 0 {
			ylab = l.Y
		}
		p := newPlot(fit.Name, l.X, ylab)
		p.Add(plotter.NewGrid())
		col := fitColor(i)
		b := band(x, lo, hi, withAlpha(col, 0.28))
		m := mustLine(x, mean, lineStyle(col, 1.8, predDashes))
		p.Add(b)
		if truth != nil {
			t := mustLine(x, truth, lineStyle(okBlack, 1.4, nil))
			p.Add(t)
			trueThumb = t
		}
		p.Add(m)
		if len(c.DataX) > 0 {
			d := mustScatter(c.DataX, c.DataY, glyphStyle(okBlack, draw.RingGlyph{}, 2.6))
			p.Add(d)
			dataThumb = d
		}
		ps = append(ps, p)
		name := fit.Name
		if name == "" {
			name = fmt.Sprintf("fit %d", i+1)
		}
		f.AddLegend(name+" mean ± 2σ", b, m)
	}
	if dataThumb != nil {
		f.AddLegend("data", dataThumb)
	}
	if trueThumb != nil {
		f.AddLegend("true u(x)", trueThumb)
	}
	pad := 0.04 * (ymax - ymin)
	for _, p := range ps {
		p.Y.Min, p.Y.Max = ymin-pad, ymax+pad
	}
	f.Plots = grid(ps)
	panelSize(f, 8*vg.Centimeter, 7*vg.Centimeter)
	return f, nil
}

func rhoTitle(title string, rho float64) string {
	if math.IsNaN(rho) {
		return title
	}
	return fmt.Sprintf("%s (Spearman ρ = %.2f)", title, rho)
}

// EvidenceVsError draws the log evidence of each ensemble member against its
// true relative L2 error (log x axis) and marks the member of highest
// evidence; rho, the rank correlation computed by the caller, is appended
// to the title unless it is NaN.
// Default labels: "Evidence vs error", x "relative L2 error", y "ln Z".
func EvidenceVsError(logZ, relErr []float64, rho float64, l Labels) (*Figure, error) {
	const fig = "EvidenceVsError"
	l = l.or(Labels{Title: "Evidence vs error", X: "relative L2 error", Y: "ln Z"})
	if err := checkEvidenceError(fig, logZ, relErr, rho); err != nil {
		return nil, err
	}
	best := argMax(logZ)
	p := newPlot("", l.X, l.Y)
	p.Add(plotter.NewGrid())
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	all := mustScatter(relErr, logZ, glyphStyle(withAlpha(okBlue, 0.75), draw.CircleGlyph{}, 2.6))
	top := mustScatter(relErr[best:best+1], logZ[best:best+1], glyphStyle(okVermilion, draw.PyramidGlyph{}, 5))
	p.Add(all, top)
	lo, hi := slices.Min(logZ), slices.Max(logZ)
	pad := 0.06 * (hi - lo)
	if pad == 0 {
		pad = math.Max(0.05*math.Abs(lo), 0.5)
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	// gonum widens an empty range by ±1, which is negative on a log axis.
	elo, ehi := slices.Min(relErr), slices.Max(relErr)
	widen := math.Max(math.Pow(ehi/elo, 0.04), 1.25)
	p.X.Min, p.X.Max = elo/widen, ehi*widen
	f := single(rhoTitle(l.Title, rho), p)
	f.AddLegend(fmt.Sprintf("ensemble member (%d)", len(logZ)), all)
	f.AddLegend("highest evidence", top)
	return f, nil
}

func checkEvidenceError(fig string, logZ, relErr []float64, rho float64) error {
	if err := checkVec(fig, "logZ", logZ, -1); err != nil {
		return err
	}
	if err := checkVec(fig, "relErr", relErr, len(logZ)); err != nil {
		return err
	}
	if err := checkPositive(fig, "relErr", relErr, false); err != nil {
		return err
	}
	if !math.IsNaN(rho) && !(rho >= -1 && rho <= 1) {
		return fmt.Errorf("viz: %s: rho = %v, want in [-1, 1] or NaN: %w", fig, rho, ErrDomain)
	}
	return nil
}

func argMax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// EvidenceVsHidden draws, for each number of hidden units, the log evidence
// of every ensemble member and their mean ± 1 standard deviation, for
// architecture selection.
// Default labels: "Evidence vs network size", x "hidden units", y "ln Z".
func EvidenceVsHidden(groups []HiddenEvidence, l Labels) (*Figure, error) {
	const fig = "EvidenceVsHidden"
	l = l.or(Labels{Title: "Evidence vs network size", X: "hidden units", Y: "ln Z"})
	gs, err := checkHidden(fig, groups)
	if err != nil {
		return nil, err
	}
	st := newHiddenStats(gs)
	hx := st.hidden
	pts := struct {
		plotter.XYs
		plotter.YErrors
	}{}
	for i, h := range hx {
		pts.XYs = append(pts.XYs, plotter.XY{X: h, Y: st.mean[i]})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{st.sd[i], st.sd[i]})
	}
	p := newPlot("", l.X, l.Y)
	p.Add(plotter.NewGrid())
	members := mustScatter(st.memX, st.memY, glyphStyle(withAlpha(okBlue, 0.55), draw.CircleGlyph{}, 2.4))
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, fmt.Errorf("viz: %s: %w", fig, err)
	}
	eb.LineStyle = lineStyle(okVermilion, 1.4, nil)
	eb.CapWidth = vg.Points(8)
	ml := mustLine(hx, st.mean, lineStyle(okVermilion, 1.4, predDashes))
	ms := mustScatter(hx, st.mean, glyphStyle(okVermilion, draw.BoxGlyph{}, 3.2))
	p.Add(members, eb, ml, ms)
	p.X.Tick.Marker = constTicks(hx)
	span := hx[len(hx)-1] - hx[0]
	if span == 0 {
		span = 2
	}
	p.X.Min, p.X.Max = hx[0]-0.08*span, hx[len(hx)-1]+0.08*span
	f := single(l.Title, p)
	f.AddLegend("ensemble member", members)
	f.AddLegend("mean ± 1 s.d.", ml, ms)
	return f, nil
}
