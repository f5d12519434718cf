package viz

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Labels are the texts of a figure. An empty field takes the figure's
// default, written in the doc comment of each figure function.
type Labels struct {
	Title string // figure title
	X, Y  string // axis labels
	Z     string // colour-bar label (HeatMap only)
}

func (l Labels) or(def Labels) Labels {
	if l.Title == "" {
		l.Title = def.Title
	}
	if l.X == "" {
		l.X = def.X
	}
	if l.Y == "" {
		l.Y = def.Y
	}
	if l.Z == "" {
		l.Z = def.Z
	}
	return l
}

// Errors returned (wrapped, with the figure and field they concern) by the
// figure and chart constructors; test them with errors.Is.
var (
	ErrEmpty  = errors.New("no data")
	ErrLength = errors.New("mismatched lengths")
	ErrNaN    = errors.New("NaN value")
	ErrInf    = errors.New("infinite value")
	ErrDomain = errors.New("value out of domain")
)

// checkVec checks that v holds n finite values (any non-zero number if n < 0).
func checkVec(fig, name string, v []float64, n int) error {
	if len(v) == 0 {
		return fmt.Errorf("viz: %s: %s: %w", fig, name, ErrEmpty)
	}
	if n >= 0 && len(v) != n {
		return fmt.Errorf("viz: %s: %s has %d values, want %d: %w", fig, name, len(v), n, ErrLength)
	}
	for i, x := range v {
		if math.IsNaN(x) {
			return fmt.Errorf("viz: %s: %s[%d]: %w", fig, name, i, ErrNaN)
		}
		if math.IsInf(x, 0) {
			return fmt.Errorf("viz: %s: %s[%d] = %v: %w", fig, name, i, x, ErrInf)
		}
	}
	return nil
}

// checkPositive checks that every value of v is > 0 (or >= 0 if orZero).
func checkPositive(fig, name string, v []float64, orZero bool) error {
	for i, x := range v {
		if x < 0 || (x == 0 && !orZero) {
			want := "> 0"
			if orZero {
				want = ">= 0"
			}
			return fmt.Errorf("viz: %s: %s[%d] = %g, want %s: %w", fig, name, i, x, want, ErrDomain)
		}
	}
	return nil
}

// The Okabe-Ito palette (Okabe & Ito 2008, "Color Universal Design"),
// distinguishable by readers with any common colour-vision deficiency and
// in greyscale print by marker and dash. Series take colours in the order
// of seriesColors; black is kept for exact/true solutions.
var (
	okBlack     = color.RGBA{0x00, 0x00, 0x00, 0xff}
	okOrange    = color.RGBA{0xe6, 0x9f, 0x00, 0xff}
	okSkyBlue   = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	okGreen     = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	okYellow    = color.RGBA{0xf0, 0xe4, 0x42, 0xff}
	okBlue      = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	okVermilion = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	okPurple    = color.RGBA{0xcc, 0x79, 0xa7, 0xff}

	// Blue and vermilion first: the paper draws equation points blue and
	// boundary points red. Yellow, weak on white paper, comes last.
	seriesColors = []color.RGBA{okBlue, okVermilion, okGreen, okOrange, okPurple, okSkyBlue, okBlack, okYellow}

	bandGrey = color.RGBA{0xb4, 0xb4, 0xb4, 0xff} // the paper's grey 2-sigma area
	white    = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// SeriesColor returns the colour of the i-th data series (i >= 0), cycling
// through the Okabe-Ito palette. The interactive charts use the same order.
func SeriesColor(i int) color.RGBA {
	return seriesColors[i%len(seriesColors)]
}

func hexColor(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// withAlpha returns c with opacity a in [0, 1], premultiplied as
// image/color requires.
func withAlpha(c color.RGBA, a float64) color.RGBA {
	m := func(v uint8) uint8 { return uint8(math.Round(float64(v) * a)) }
	return color.RGBA{m(c.R), m(c.G), m(c.B), uint8(math.Round(255 * a))}
}

// seriesGlyph returns a marker shape for series i, so that series stay
// apart in greyscale.
func seriesGlyph(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	}
	return shapes[i%len(shapes)]
}

// seriesDashes returns the dash pattern of line series i: solid for the
// first len(seriesColors) series, dashed after the colours repeat.
func seriesDashes(i int) []vg.Length {
	switch (i / len(seriesColors)) % 3 {
	case 1:
		return []vg.Length{vg.Points(5), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	return nil
}

var predDashes = []vg.Length{vg.Points(6), vg.Points(3)}

func lineStyle(c color.Color, width float64, dashes []vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(width), Dashes: dashes}
}

func glyphStyle(c color.Color, shape draw.GlyphDrawer, radius float64) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(radius)}
}

// newPlot returns a plot with the package's defaults: white background, a
// light grid is left to the caller, title and axis labels set.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.BackgroundColor = white
	return p
}

func textStyle(size float64) (sty draw.TextStyle) {
	sty.Color = okBlack
	sty.Font = font.From(plot.DefaultFont, vg.Points(size))
	sty.Handler = plot.DefaultTextHandler
	return sty
}

// logTicks is a plot.Ticker for logarithmic axes. Unlike plot.LogTicks it
// labels a range within one decade (it falls back to labels at 1, 2 and 5
// times powers of ten, then at every integer multiple) and handles ranges
// below 1 correctly.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	const eps = 1e-9
	in := func(v float64) bool { return v >= min*(1-eps) && v <= max*(1+eps) }
	labelSets := [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}
	var ticks []plot.Tick
	for _, set := range labelSets {
		ticks = ticks[:0]
		labelled := 0
		for e := lo; e <= hi; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow10(e)
				if !in(v) {
					continue
				}
				t := plot.Tick{Value: v}
				for _, s := range set {
					if s == m {
						t.Label = logLabel(v)
						labelled++
					}
				}
				ticks = append(ticks, t)
			}
		}
		if labelled >= 2 {
			break
		}
	}
	// A range narrower than the gap between two integer multiples gets
	// its end points labelled.
	if len(ticks) < 2 {
		ticks = append(ticks[:0],
			plot.Tick{Value: min, Label: logLabel(min)},
			plot.Tick{Value: max, Label: logLabel(max)})
	}
	return ticks
}

// logLabel writes a log-axis tick value with 3 significant digits, in
// exponent form only outside [1e-4, 1e6): "1000", not "1e+03".
func logLabel(v float64) string {
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if a := math.Abs(v); a >= 1e-4 && a < 1e6 {
		r, _ := strconv.ParseFloat(s, 64) // v rounded to 3 digits, written plainly
		s = strconv.FormatFloat(r, 'f', -1, 64)
	}
	return s
}

// linearTicks is plot.DefaultTicks without the zeros that end every
// label: DefaultTicks writes two decimals whenever its step is 2.5 times a
// power of ten ("2500.00", "5000.00" on an E_hyp axis), where "2500",
// "5000" say the same. Zeros are dropped only while every label ends in
// one after its decimal point, so the labels keep a common number of
// decimals ("0.5", "1.0", "1.5"); labels in exponent or %g form are kept.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for {
		labelled := 0
		for _, t := range ts {
			if t.Label == "" {
				continue
			}
			if !strings.Contains(t.Label, ".") || !strings.HasSuffix(t.Label, "0") || strings.ContainsAny(t.Label, "eE") {
				return ts
			}
			labelled++
		}
		if labelled == 0 {
			return ts
		}
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = strings.TrimSuffix(strings.TrimSuffix(ts[i].Label, "0"), ".")
			}
		}
	}
}

// constTicks labels exactly the given values.
func constTicks(vs []float64) plot.ConstantTicks {
	ts := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		ts[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 4, 64)}
	}
	return ts
}

// viridisAnchors are matplotlib's viridis at 0, 1/8, ..., 1; Viridis
// interpolates linearly between them (in sRGB), which stays within a few
// units of the full 256-entry table and keeps its perceptual uniformity.
var viridisAnchors = []color.RGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x47, 0x2d, 0x7b, 0xff}, {0x3b, 0x52, 0x8b, 0xff},
	{0x2c, 0x72, 0x8e, 0xff}, {0x21, 0x90, 0x8c, 0xff}, {0x27, 0xad, 0x81, 0xff},
	{0x5d, 0xc8, 0x63, 0xff}, {0xaa, 0xdc, 0x32, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

// Viridis is a palette.ColorMap with the viridis colours: sequential,
// perceptually uniform, readable in greyscale print and by colour-blind
// readers. Its zero value maps [0, 1] with alpha 1.
type Viridis struct {
	min, max float64
	set      bool
	alpha    float64
	alphaSet bool
}

var _ palette.ColorMap = (*Viridis)(nil)

// NewViridis returns a viridis colour map over [min, max].
func NewViridis(min, max float64) *Viridis {
	return &Viridis{min: min, max: max, set: true}
}

func (v *Viridis) bounds() (float64, float64) {
	if !v.set {
		return 0, 1
	}
	return v.min, v.max
}

// At returns the colour of value x; it is an error if x is outside
// [Min, Max] or the range is empty.
func (v *Viridis) At(x float64) (color.Color, error) {
	lo, hi := v.bounds()
	if !(hi > lo) {
		return nil, fmt.Errorf("viz: Viridis: empty range [%g, %g]", lo, hi)
	}
	if !(x >= lo && x <= hi) {
		return nil, fmt.Errorf("viz: Viridis: %g outside [%g, %g]", x, lo, hi)
	}
	return withAlpha(viridisAt((x-lo)/(hi-lo)), v.Alpha()), nil
}

// viridisAt returns the opaque colour at s in [0, 1].
func viridisAt(s float64) color.RGBA {
	s = math.Max(0, math.Min(1, s))
	f := s * float64(len(viridisAnchors)-1)
	i := int(math.Floor(f))
	if i >= len(viridisAnchors)-1 {
		return viridisAnchors[len(viridisAnchors)-1]
	}
	t := f - float64(i)
	a, b := viridisAnchors[i], viridisAnchors[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// Max returns the upper end of the mapped range.
func (v *Viridis) Max() float64 { _, hi := v.bounds(); return hi }

// Min returns the lower end of the mapped range.
func (v *Viridis) Min() float64 { lo, _ := v.bounds(); return lo }

// SetMax sets the upper end of the mapped range.
func (v *Viridis) SetMax(x float64) { v.min, v.max = v.Min(), x; v.set = true }

// SetMin sets the lower end of the mapped range.
func (v *Viridis) SetMin(x float64) { v.min, v.max = x, v.Max(); v.set = true }

// Alpha returns the opacity, 1 unless set.
func (v *Viridis) Alpha() float64 {
	if !v.alphaSet {
		return 1
	}
	return v.alpha
}

// SetAlpha sets the opacity; it panics if a is outside [0, 1].
func (v *Viridis) SetAlpha(a float64) {
	if !(a >= 0 && a <= 1) {
		panic(fmt.Sprintf("viz: Viridis: alpha %g outside [0, 1]", a))
	}
	v.alpha, v.alphaSet = a, true
}

// Palette returns n colours evenly spread over the map (n >= 2).
func (v *Viridis) Palette(n int) palette.Palette {
	if n < 2 {
		n = 2
	}
	cs := make([]color.Color, n)
	for i := range cs {
		cs[i] = withAlpha(viridisAt(float64(i)/float64(n-1)), v.Alpha())
	}
	return colorList(cs)
}

type colorList []color.Color

func (c colorList) Colors() []color.Color { return c }
