package viz

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	// Registers the svg, eps and pdf formats of draw.NewFormattedCanvas.
	_ "gonum.org/v1/plot/vg/vgeps"
	_ "gonum.org/v1/plot/vg/vgpdf"
	_ "gonum.org/v1/plot/vg/vgsvg"
)

// Drawer is anything that draws itself on a vg canvas: a *Figure of this
// package or a *plot.Plot of gonum/plot.
type Drawer interface {
	Draw(c draw.Canvas)
}

// Sizer is a Drawer with a preferred size, used by PNG, SVG and Encode when
// they are given no size.
type Sizer interface {
	Size() (w, h vg.Length)
}

var (
	_ Drawer = (*Figure)(nil)
	_ Drawer = (*plot.Plot)(nil)
	_ Sizer  = (*Figure)(nil)
)

// DefaultWidth and DefaultHeight are the size of a Drawer that is not a
// Sizer when PNG, SVG or Encode get no size.
const (
	DefaultWidth  = 14 * vg.Centimeter
	DefaultHeight = 10 * vg.Centimeter
)

// Figure is a static figure: a grid of gonum plots (the panels) under an
// optional title and a shared legend, with an optional colour bar on the
// right. The plots' data areas are aligned with plot.Align.
//
// All figure functions of this package return a *Figure; its fields may be
// changed before it is drawn (for instance Plots[0][0].Y.Min).
type Figure struct {
	// Title is drawn centred above everything; empty: none.
	Title string

	// Plots holds the panels, row by row; every row has the same length
	// and a nil entry leaves its cell empty.
	Plots [][]*plot.Plot

	// ColorBar, if not nil, is drawn in a narrow column to the right of
	// the panels, vertically aligned with the data area of the first row.
	ColorBar *plot.Plot

	// Width and Height are the preferred size (see Size). Zero: 6.5 cm per
	// column plus 2.5 cm for a colour bar, and 6 cm per row plus the title
	// and legend.
	Width, Height vg.Length

	legend []legendEntry
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// AddLegend adds an entry to the figure's shared legend, drawn in rows
// under the title, outside the panels so that it never hides data.
func (f *Figure) AddLegend(name string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{name: name, thumbs: thumbs})
}

func (f *Figure) dims() (rows, cols int) {
	rows = len(f.Plots)
	if rows > 0 {
		cols = len(f.Plots[0])
	}
	return rows, cols
}

// Size returns Width and Height, or the defaults for zero values.
func (f *Figure) Size() (w, h vg.Length) {
	rows, cols := f.dims()
	w, h = f.Width, f.Height
	if w <= 0 {
		w = vg.Length(max(cols, 1)) * 6.5 * vg.Centimeter
		if f.ColorBar != nil {
			w += 2.5 * vg.Centimeter
		}
	}
	if h <= 0 {
		h = vg.Length(max(rows, 1))*6*vg.Centimeter + 1.5*vg.Centimeter
	}
	return w, h
}

const (
	figPad      = vg.Length(6)  // points around the figure
	titleSize   = 14            // points
	legendSize  = 11            // points
	thumbWidth  = vg.Length(22) // points
	legendGapX  = vg.Length(14) // between legend entries
	colorBarW   = vg.Length(62) // column of the colour bar, labels included
	panelGap    = vg.Length(10)
	legendRowsY = vg.Length(3)
)

// Draw draws the figure on c. It panics, as gonum/plot does, if a plot is
// in an impossible state (for instance a log axis over non-positive data);
// PNG, SVG and Encode turn such panics into errors.
func (f *Figure) Draw(c draw.Canvas) {
	rows, cols := f.dims()
	for i, row := range f.Plots {
		if len(row) != cols {
			panic(fmt.Sprintf("viz: Figure: row %d has %d plots, row 0 has %d", i, len(row), cols))
		}
	}
	c.SetColor(white)
	c.Fill(c.Rectangle.Path())

	top := c.Max.Y - figPad
	if f.Title != "" {
		sty := textStyle(titleSize)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, f.Title)
		top -= sty.Height(f.Title) + figPad
	}
	if len(f.legend) > 0 {
		top = f.drawLegend(c, top) - figPad
	}
	if rows == 0 || cols == 0 {
		return
	}
	area := c
	area.Min.X += figPad
	area.Min.Y += figPad
	area.Max.Y = top
	area.Max.X -= figPad
	if f.ColorBar != nil {
		area.Max.X -= colorBarW
	}
	plots, titleH := f.untitled(rows, cols)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: panelGap, PadY: panelGap + titleH, PadTop: titleH}
	dataTop, dataBottom := f.drawPanels(c, plots, plot.Align(plots, tiles, area), area)
	if f.ColorBar != nil {
		f.drawColorBar(c, area.Max.X+panelGap, dataTop, dataBottom)
	}
}

// untitled returns shallow copies of the plots without their titles and
// the height the tallest title needs. Panel titles are drawn by the
// figure, not by the plots: plot.Align aligns the data areas, so a plot's
// own title would float at a height set by its tick labels. The copies
// leave the caller's plots untouched.
func (f *Figure) untitled(rows, cols int) (plots [][]*plot.Plot, titleH vg.Length) {
	plots = make([][]*plot.Plot, rows)
	for j, row := range f.Plots {
		plots[j] = make([]*plot.Plot, cols)
		for i, p := range row {
			if p == nil {
				continue
			}
			if p.Title.Text != "" {
				titleH = max(titleH, p.Title.TextStyle.Height(p.Title.Text)+p.Title.Padding)
			}
			cp := *p
			cp.Title.Text = ""
			plots[j][i] = &cp
		}
	}
	return plots, titleH
}

// drawPanels draws the plots on their canvases with the titles above each
// row's tallest panel and returns the top and bottom of the first panel's
// data area (area's when there is none).
func (f *Figure) drawPanels(c draw.Canvas, plots [][]*plot.Plot, canvases [][]draw.Canvas, area draw.Canvas) (dataTop, dataBottom vg.Length) {
	dataTop, dataBottom = area.Max.Y, area.Min.Y
	found := false
	for j, row := range plots {
		var rowTop vg.Length
		for i, p := range row {
			if p != nil {
				rowTop = max(rowTop, canvases[j][i].Max.Y)
			}
		}
		for i, p := range row {
			if p == nil {
				continue
			}
			p.Draw(canvases[j][i])
			dc := p.DataCanvas(canvases[j][i])
			if !found {
				dataTop, dataBottom, found = dc.Max.Y, dc.Min.Y, true
			}
			if t := f.Plots[j][i].Title; t.Text != "" {
				sty := t.TextStyle
				sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
				c.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: rowTop + t.Padding/2}, t.Text)
			}
		}
	}
	return dataTop, dataBottom
}

// drawColorBar draws the colour bar from x = left to the figure's right
// edge, its data area spanning dataBottom to dataTop.
func (f *Figure) drawColorBar(c draw.Canvas, left, dataTop, dataBottom vg.Length) {
	bar := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: left, Y: dataBottom},
		Max: vg.Point{X: c.Max.X - figPad, Y: dataTop},
	}}
	// Grow the canvas by the colour bar's own margins so that its data
	// area spans exactly the panels' data area.
	dc := f.ColorBar.DataCanvas(bar)
	bar.Min.Y -= dc.Min.Y - bar.Min.Y
	bar.Max.Y += bar.Max.Y - dc.Max.Y
	f.ColorBar.Draw(bar)
}

// drawLegend draws the legend entries in centred rows from y = top down and
// returns the y below the last row.
func (f *Figure) drawLegend(c draw.Canvas, top vg.Length) vg.Length {
	sty := textStyle(legendSize)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	em := sty.Width("M")
	rowH := sty.Height("Mg") + legendRowsY
	avail := c.Max.X - c.Min.X - 2*figPad
	widths := make([]vg.Length, len(f.legend))
	for i, e := range f.legend {
		widths[i] = thumbWidth + em/2 + sty.Width(e.name)
	}
	// Greedy rows.
	var rowsIdx [][]int
	var cur []int
	var curW vg.Length
	for i, w := range widths {
		need := w
		if len(cur) > 0 {
			need += legendGapX
		}
		if len(cur) > 0 && curW+need > avail {
			rowsIdx = append(rowsIdx, cur)
			cur, curW, need = nil, 0, w
		}
		cur = append(cur, i)
		curW += need
	}
	rowsIdx = append(rowsIdx, cur)
	y := top
	for _, row := range rowsIdx {
		var total vg.Length
		for k, i := range row {
			total += widths[i]
			if k > 0 {
				total += legendGapX
			}
		}
		x := (c.Min.X+c.Max.X)/2 - total/2
		mid := y - rowH/2
		for _, i := range row {
			e := f.legend[i]
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: mid - rowH/2 + legendRowsY/2},
				Max: vg.Point{X: x + thumbWidth, Y: mid + rowH/2 - legendRowsY/2},
			}}
			for _, t := range e.thumbs {
				t.Thumbnail(&thumb)
			}
			c.FillText(sty, vg.Point{X: x + thumbWidth + em/2, Y: mid}, e.name)
			x += widths[i] + legendGapX
		}
		y -= rowH
	}
	return y
}

// PNG renders d as a PNG image of w x h at 96 dpi. If w or h is not
// positive, the size is d's Size if d is a Sizer, else DefaultWidth x
// DefaultHeight.
func PNG(d Drawer, w, h vg.Length) ([]byte, error) { return Encode(d, w, h, "png") }

// SVG renders d as an SVG document; the size rules are those of PNG.
func SVG(d Drawer, w, h vg.Length) ([]byte, error) { return Encode(d, w, h, "svg") }

// Encode renders d in the given format: "png", "svg", "pdf", "eps", "jpg"
// or "tiff" (see gonum.org/v1/plot/vg/draw.NewFormattedCanvas). The size
// rules are those of PNG. A panic while drawing is returned as an error.
func Encode(d Drawer, w, h vg.Length, format string) (out []byte, err error) {
	if d == nil {
		return nil, errors.New("viz: Encode: nil figure")
	}
	if w <= 0 || h <= 0 {
		w, h = DefaultWidth, DefaultHeight
		if s, ok := d.(Sizer); ok {
			w, h = s.Size()
		}
	}
	if math.IsNaN(float64(w)) || math.IsNaN(float64(h)) || math.IsInf(float64(w), 0) || math.IsInf(float64(h), 0) {
		return nil, fmt.Errorf("viz: Encode: size %v x %v: %w", w, h, ErrDomain)
	}
	var c vg.CanvasWriterTo
	if format == "png" {
		// Explicit white background: the default is transparent-safe too,
		// but an explicit one keeps goldens independent of that default.
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseBackgroundColor(white))}
	} else {
		c, err = draw.NewFormattedCanvas(w, h, format)
		if err != nil {
			return nil, fmt.Errorf("viz: Encode: %w", err)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("viz: drawing the figure: %v", r)
		}
	}()
	d.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: Encode %s: %w", format, err)
	}
	return buf.Bytes(), nil
}
