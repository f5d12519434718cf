package viz_test

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evidence-pinn/bpinn/pkg/viz"
)

func itoa(n int) string { return strconv.Itoa(n) }

var nan, inf = math.NaN(), math.Inf(1)

// TestValidation checks that every figure and chart rejects bad data with
// the right error, and that a static figure and its chart agree.
func TestValidation(t *testing.T) {
	t.Parallel()
	okSlice := viz.Slice{T: 0.5, X: []float64{0, 0.5, 1}, Exact: []float64{0, 1, 0}, Pred: []float64{0, 0.9, 0}, Sigma: []float64{0.1, 0.1, 0.1}}
	slice := func(edit func(*viz.Slice)) []viz.Slice {
		s := okSlice
		edit(&s)
		return []viz.Slice{s}
	}
	field := func(edit func(*viz.Field)) viz.Field {
		f := viz.Field{X: []float64{0, 1}, Y: []float64{0, 1, 2}, Z: []float64{1, 2, 3, 4, 5, 6}}
		edit(&f)
		return f
	}
	cmp := func(edit func(*viz.Comparison)) viz.Comparison {
		c := viz.Comparison{DataX: []float64{0.2}, DataY: []float64{0.1}, X: []float64{0, 1}, True: []float64{0, 1},
			Fits: []viz.Band{{Name: "L", Mean: []float64{0, 1}, Sigma: []float64{0.1, 0.1}}}}
		edit(&c)
		return c
	}
	hist := func(edit func(*viz.History)) viz.History {
		h := viz.History{ET: viz.Series{Epochs: []int{0, 1}, Values: []float64{2, 1}},
			Alpha: []viz.Series{{Epochs: []int{0, 1}, Values: []float64{0.1, 0.2}}}}
		edit(&h)
		return h
	}
	type both func() (fig, chart error)
	wrap := func(f func() (*viz.Figure, error), c func() (any, error)) both {
		return func() (error, error) {
			_, e1 := f()
			_, e2 := c()
			return e1, e2
		}
	}
	points := func(sets []viz.PointSet) both {
		return wrap(func() (*viz.Figure, error) { return viz.Points(sets, viz.Labels{}) },
			func() (any, error) { return viz.PointsChart(sets, viz.Labels{}) })
	}
	histo := func(v []float64) both {
		return wrap(func() (*viz.Figure, error) { return viz.EvidenceHistogram(v, 0, viz.Labels{}) },
			func() (any, error) { return viz.EvidenceHistogramChart(v, 0, viz.Labels{}) })
	}
	training := func(h viz.History) both {
		return wrap(func() (*viz.Figure, error) { return viz.Training(h, viz.Labels{}) },
			func() (any, error) { return viz.TrainingChart(h, viz.Labels{}) })
	}
	slices := func(ss []viz.Slice) both {
		return wrap(func() (*viz.Figure, error) { return viz.Slices(ss, viz.Labels{}) },
			func() (any, error) { return viz.SlicesChart(ss, viz.Labels{}) })
	}
	errband := func(ss []viz.Slice) both {
		return wrap(func() (*viz.Figure, error) { return viz.ErrorBand(ss, viz.Labels{}) },
			func() (any, error) { return viz.ErrorBandChart(ss, viz.Labels{}) })
	}
	heat := func(f viz.Field) both {
		return wrap(func() (*viz.Figure, error) { return viz.HeatMap(f, viz.Labels{}) },
			func() (any, error) { return viz.HeatMapChart(f, viz.Labels{}) })
	}
	laplace := func(c viz.Comparison) both {
		return wrap(func() (*viz.Figure, error) { return viz.LaplaceVsHMC(c, viz.Labels{}) },
			func() (any, error) { return viz.LaplaceVsHMCChart(c, viz.Labels{}) })
	}
	evErr := func(z, e []float64, rho float64) both {
		return wrap(func() (*viz.Figure, error) { return viz.EvidenceVsError(z, e, rho, viz.Labels{}) },
			func() (any, error) { return viz.EvidenceVsErrorChart(z, e, rho, viz.Labels{}) })
	}
	hidden := func(g []viz.HiddenEvidence) both {
		return wrap(func() (*viz.Figure, error) { return viz.EvidenceVsHidden(g, viz.Labels{}) },
			func() (any, error) { return viz.EvidenceVsHiddenChart(g, viz.Labels{}) })
	}

	for _, tc := range []struct {
		name string
		call both
		want error // nil: valid input
	}{
		{"points ok", points([]viz.PointSet{{X: []float64{0}, Y: []float64{1}}}), nil},
		{"points none", points(nil), viz.ErrEmpty},
		{"points empty set", points([]viz.PointSet{{Name: "eq"}}), viz.ErrEmpty},
		{"points length", points([]viz.PointSet{{X: []float64{0, 1}, Y: []float64{1}}}), viz.ErrLength},
		{"points NaN", points([]viz.PointSet{{X: []float64{nan}, Y: []float64{1}}}), viz.ErrNaN},
		{"points Inf", points([]viz.PointSet{{X: []float64{0}, Y: []float64{-inf}}}), viz.ErrInf},

		{"histogram ok", histo([]float64{-3, -1, 0}), nil},
		{"histogram one value", histo([]float64{0}), nil},
		{"histogram empty", histo(nil), viz.ErrEmpty},
		{"histogram NaN", histo([]float64{0, nan}), viz.ErrNaN},

		{"training ok", training(hist(func(*viz.History) {})), nil},
		{"training empty", training(viz.History{}), viz.ErrEmpty},
		{"training length", training(hist(func(h *viz.History) { h.ET.Epochs = []int{0} })), viz.ErrLength},
		{"training NaN", training(hist(func(h *viz.History) { h.ET.Values = []float64{nan, 1} })), viz.ErrNaN},
		{"training epochs order", training(hist(func(h *viz.History) { h.ET.Epochs = []int{1, 1} })), viz.ErrDomain},
		{"training alpha <= 0", training(hist(func(h *viz.History) { h.Alpha[0].Values = []float64{0.1, 0} })), viz.ErrDomain},
		{"training negative E_hyp ok", training(hist(func(h *viz.History) {
			h.EHyp = viz.Series{Epochs: []int{5}, Values: []float64{-158}}
		})), nil},

		{"slices ok", slices(slice(func(*viz.Slice) {})), nil},
		{"slices no exact or sigma", slices(slice(func(s *viz.Slice) { s.Exact, s.Sigma = nil, nil })), nil},
		{"slices none", slices(nil), viz.ErrEmpty},
		{"slices empty X", slices(slice(func(s *viz.Slice) { s.X = nil })), viz.ErrEmpty},
		{"slices pred length", slices(slice(func(s *viz.Slice) { s.Pred = s.Pred[:2] })), viz.ErrLength},
		{"slices exact NaN", slices(slice(func(s *viz.Slice) { s.Exact = []float64{0, nan, 0} })), viz.ErrNaN},
		{"slices sigma < 0", slices(slice(func(s *viz.Slice) { s.Sigma = []float64{0.1, -0.1, 0.1} })), viz.ErrDomain},
		{"slices T NaN", slices(slice(func(s *viz.Slice) { s.T = nan })), viz.ErrDomain},

		{"error band ok", errband(slice(func(*viz.Slice) {})), nil},
		{"error band needs exact", errband(slice(func(s *viz.Slice) { s.Exact = nil })), viz.ErrEmpty},
		{"error band needs sigma", errband(slice(func(s *viz.Slice) { s.Sigma = nil })), viz.ErrEmpty},
		{"error band Inf", errband(slice(func(s *viz.Slice) { s.Pred = []float64{0, inf, 0} })), viz.ErrInf},

		{"heat ok", heat(field(func(*viz.Field) {})), nil},
		{"heat constant ok", heat(field(func(f *viz.Field) { f.Z = []float64{1, 1, 1, 1, 1, 1} })), nil},
		{"heat uneven grid ok", heat(field(func(f *viz.Field) { f.Y = []float64{0, 1, 5} })), nil},
		{"heat 1 column", heat(field(func(f *viz.Field) { f.X, f.Z = []float64{0}, f.Z[:3] })), viz.ErrEmpty},
		{"heat Z length", heat(field(func(f *viz.Field) { f.Z = f.Z[:5] })), viz.ErrLength},
		{"heat Z NaN", heat(field(func(f *viz.Field) { f.Z[3] = nan })), viz.ErrNaN},
		{"heat X order", heat(field(func(f *viz.Field) { f.X = []float64{1, 0} })), viz.ErrDomain},

		{"laplace ok", laplace(cmp(func(*viz.Comparison) {})), nil},
		{"laplace no data ok", laplace(cmp(func(c *viz.Comparison) { c.DataX, c.DataY, c.True = nil, nil, nil })), nil},
		{"laplace no fits", laplace(cmp(func(c *viz.Comparison) { c.Fits = nil })), viz.ErrEmpty},
		{"laplace data length", laplace(cmp(func(c *viz.Comparison) { c.DataY = nil })), viz.ErrEmpty},
		{"laplace mean length", laplace(cmp(func(c *viz.Comparison) { c.Fits[0].Mean = []float64{0} })), viz.ErrLength},
		{"laplace sigma NaN", laplace(cmp(func(c *viz.Comparison) { c.Fits[0].Sigma = []float64{nan, 0} })), viz.ErrNaN},

		{"evidence-error ok", evErr([]float64{1, 2}, []float64{0.1, 0.01}, -1), nil},
		{"evidence-error no rho", evErr([]float64{1, 2}, []float64{0.1, 0.01}, nan), nil},
		{"evidence-error empty", evErr(nil, nil, 0), viz.ErrEmpty},
		{"evidence-error length", evErr([]float64{1, 2}, []float64{0.1}, 0), viz.ErrLength},
		{"evidence-error error <= 0", evErr([]float64{1, 2}, []float64{0.1, 0}, 0), viz.ErrDomain},
		{"evidence-error rho", evErr([]float64{1, 2}, []float64{0.1, 0.2}, 1.5), viz.ErrDomain},
		{"evidence-error NaN", evErr([]float64{nan, 2}, []float64{0.1, 0.2}, 0), viz.ErrNaN},

		{"hidden ok", hidden([]viz.HiddenEvidence{{Hidden: 8, LogZ: []float64{1, 2}}, {Hidden: 4, LogZ: []float64{3}}}), nil},
		{"hidden one group ok", hidden([]viz.HiddenEvidence{{Hidden: 8, LogZ: []float64{1}}}), nil},
		{"hidden none", hidden(nil), viz.ErrEmpty},
		{"hidden empty group", hidden([]viz.HiddenEvidence{{Hidden: 4}}), viz.ErrEmpty},
		{"hidden twice", hidden([]viz.HiddenEvidence{{Hidden: 4, LogZ: []float64{1}}, {Hidden: 4, LogZ: []float64{2}}}), viz.ErrDomain},
		{"hidden zero", hidden([]viz.HiddenEvidence{{Hidden: 0, LogZ: []float64{1}}}), viz.ErrDomain},
		{"hidden NaN", hidden([]viz.HiddenEvidence{{Hidden: 4, LogZ: []float64{nan}}}), viz.ErrNaN},
	} {
		figErr, chartErr := tc.call()
		for kind, err := range map[string]error{"figure": figErr, "chart": chartErr} {
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("%s (%s): got error %v, want none", tc.name, kind, err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("%s (%s): got error %v, want %v", tc.name, kind, err, tc.want)
			case err != nil && !strings.HasPrefix(err.Error(), "viz: "):
				t.Errorf("%s (%s): error %q lacks the viz: prefix", tc.name, kind, err)
			}
		}
	}
}

// TestFiguresNeverDrawNaN draws every valid edge case of TestValidation's
// kind to PNG: constant data and single points must not make NaN ranges.
func TestFiguresDrawEdgeCases(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func() (*viz.Figure, error){
		"histogram one value": func() (*viz.Figure, error) { return viz.EvidenceHistogram([]float64{0}, 0, viz.Labels{}) },
		"histogram equal":     func() (*viz.Figure, error) { return viz.EvidenceHistogram([]float64{-2, -2, -2}, 3, viz.Labels{}) },
		"heat constant": func() (*viz.Figure, error) {
			return viz.HeatMap(viz.Field{X: []float64{0, 1}, Y: []float64{0, 1}, Z: []float64{0, 0, 0, 0}}, viz.Labels{})
		},
		"heat uneven": func() (*viz.Figure, error) {
			return viz.HeatMap(viz.Field{X: []float64{0, 1, 3}, Y: []float64{0, 1}, Z: []float64{0, 1, 2, 3, 4, 5}}, viz.Labels{})
		},
		"hidden single": func() (*viz.Figure, error) {
			return viz.EvidenceVsHidden([]viz.HiddenEvidence{{Hidden: 6, LogZ: []float64{150}}}, viz.Labels{})
		},
		"evidence-error single": func() (*viz.Figure, error) {
			return viz.EvidenceVsError([]float64{150}, []float64{0.01}, math.NaN(), viz.Labels{})
		},
		"slice single point": func() (*viz.Figure, error) {
			return viz.Slices([]viz.Slice{{X: []float64{0.5}, Pred: []float64{1}, Sigma: []float64{0}}}, viz.Labels{})
		},
		"training constant alpha": func() (*viz.Figure, error) {
			return viz.Training(viz.History{Alpha: []viz.Series{{Epochs: []int{0, 1, 2}, Values: []float64{0.3, 0.3, 0.3}}}}, viz.Labels{})
		},
		"eleven slices": func() (*viz.Figure, error) {
			ss := make([]viz.Slice, 11)
			for i := range ss {
				ss[i] = viz.Slice{T: float64(i), X: []float64{0, 1}, Pred: []float64{0, 1}}
			}
			return viz.Slices(ss, viz.Labels{})
		},
	} {
		fig, err := f()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, err := viz.PNG(fig, 0, 0)
		if err != nil {
			t.Errorf("%s: PNG: %v", name, err)
			continue
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: not a PNG: %v", name, err)
		}
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	fig, err := viz.Slices(heatSlices(), viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		prefix string
	}{{"png", "\x89PNG"}, {"svg", "<?xml"}, {"pdf", "%PDF"}, {"eps", "%%!PS"}} {
		b, err := viz.Encode(fig, 0, 0, tc.format)
		if err != nil {
			t.Errorf("%s: %v", tc.format, err)
			continue
		}
		if !bytes.HasPrefix(b, []byte(tc.prefix)) {
			t.Errorf("%s: got %q..., want prefix %q", tc.format, b[:min(len(b), 8)], tc.prefix)
		}
	}
	if _, err := viz.Encode(fig, 0, 0, "bmp"); err == nil {
		t.Error("unknown format: got no error")
	}
	if _, err := viz.PNG(nil, 0, 0); err == nil {
		t.Error("nil figure: got no error")
	}

	// Size: explicit, the figure's own, and the default for a bare plot.
	b, err := viz.PNG(fig, 10*vg.Centimeter, 5*vg.Centimeter)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if want := int(math.Round(float64(10*vg.Centimeter) / vg.Inch.Points() * 96)); cfg.Width != want {
		t.Errorf("got width %d, want %d", cfg.Width, want)
	}
	p := plot.New()
	b, err = viz.PNG(p, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ = png.DecodeConfig(bytes.NewReader(b))
	if want := int(math.Round(float64(viz.DefaultWidth) / vg.Inch.Points() * 96)); cfg.Width != want {
		t.Errorf("bare plot: got width %d, want %d", cfg.Width, want)
	}
}

// A figure a caller broke after construction is an error, not a panic.
func TestEncodeRecoversPanic(t *testing.T) {
	t.Parallel()
	p := plot.New()
	s, err := plotter.NewScatter(plotter.XYs{{X: -1, Y: -1}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(s)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	if _, err := viz.PNG(&viz.Figure{Plots: [][]*plot.Plot{{p}}}, 0, 0); err == nil {
		t.Error("log scale over negative data: got no error")
	}
}

func TestRelativeLogEvidence(t *testing.T) {
	t.Parallel()
	got, err := viz.RelativeLogEvidence([]float64{158, 169, 160.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-11, 0, -8.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("got %v, want %v", got, want)
			break
		}
	}
	if _, err := viz.RelativeLogEvidence(nil); !errors.Is(err, viz.ErrEmpty) {
		t.Errorf("empty: got %v, want ErrEmpty", err)
	}
}

func TestViridis(t *testing.T) {
	t.Parallel()
	v := viz.NewViridis(-1, 1)
	lo, err := v.At(-1)
	if err != nil {
		t.Fatal(err)
	}
	hi, _ := v.At(1)
	if r, g, b, _ := lo.RGBA(); r>>8 != 0x44 || g>>8 != 0x01 || b>>8 != 0x54 {
		t.Errorf("At(min) = %v, want #440154", lo)
	}
	if r, g, b, _ := hi.RGBA(); r>>8 != 0xfd || g>>8 != 0xe7 || b>>8 != 0x25 {
		t.Errorf("At(max) = %v, want #fde725", hi)
	}
	if _, err := v.At(2); err == nil {
		t.Error("At outside the range: got no error")
	}
	if _, err := v.At(math.NaN()); err == nil {
		t.Error("At(NaN): got no error")
	}
	if n := len(v.Palette(7).Colors()); n != 7 {
		t.Errorf("Palette(7) has %d colours", n)
	}
	var zero viz.Viridis
	if zero.Min() != 0 || zero.Max() != 1 || zero.Alpha() != 1 {
		t.Errorf("zero Viridis: [%g, %g] alpha %g, want [0, 1] alpha 1", zero.Min(), zero.Max(), zero.Alpha())
	}
}

// Figures do not modify the plots they were given while drawing.
func TestFigureDrawKeepsPlots(t *testing.T) {
	t.Parallel()
	fig, err := viz.Slices(heatSlices(), viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viz.PNG(fig, 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := fig.Plots[0][1].Title.Text; got != "t = 0.25" {
		t.Errorf("panel title after drawing: %q, want %q", got, "t = 0.25")
	}
}
