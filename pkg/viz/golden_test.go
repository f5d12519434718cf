package viz_test

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// regen rewrites the golden images: go test ./pkg/viz -run Golden -regen
var regen = flag.Bool("regen", false, "regenerate golden images in testdata")

// goldenDelta is the per-pixel tolerance of the golden comparison, in the
// normalised YIQ distance of gonum.org/v1/plot/cmpimg (0: exact, 1: any).
// 0.1 absorbs anti-aliasing noise of font rasterization across platforms,
// while a moved line, label or marker, or the grey band, still differs.
const goldenDelta = 0.1

func goldenFigures() []struct {
	name string
	fig  func() (*viz.Figure, error)
} {
	logZ, relErr := ensembleLogZ(60)
	rel, _ := viz.RelativeLogEvidence(logZ)
	return []struct {
		name string
		fig  func() (*viz.Figure, error)
	}{
		{"points", func() (*viz.Figure, error) { return viz.Points(heatPoints(), viz.Labels{}) }},
		{"evidence_histogram", func() (*viz.Figure, error) { return viz.EvidenceHistogram(rel, 0, viz.Labels{}) }},
		{"training", func() (*viz.Figure, error) { return viz.Training(trainingHistory(), viz.Labels{}) }},
		{"training_heat", func() (*viz.Figure, error) {
			return viz.Training(heatHistory(), viz.Labels{Title: "Heat equation: training history"})
		}},
		{"slices", func() (*viz.Figure, error) {
			return viz.Slices(heatSlices(), viz.Labels{Title: "Heat equation: exact and PINN solution"})
		}},
		{"heatmap", func() (*viz.Figure, error) { return viz.HeatMap(heatField(), viz.Labels{}) }},
		{"error_band", func() (*viz.Figure, error) { return viz.ErrorBand(waveSlices(), viz.Labels{}) }},
		{"laplace_vs_hmc", func() (*viz.Figure, error) { return viz.LaplaceVsHMC(regression(), viz.Labels{}) }},
		{"evidence_vs_error", func() (*viz.Figure, error) { return viz.EvidenceVsError(logZ, relErr, -0.71, viz.Labels{}) }},
		{"evidence_vs_hidden", func() (*viz.Figure, error) { return viz.EvidenceVsHidden(hiddenSweep(), viz.Labels{}) }},
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenFigures() {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := tc.fig()
			if err != nil {
				t.Fatal(err)
			}
			got, err := viz.PNG(fig, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".png")
			if *regen {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/viz -run Golden -regen to create it)", err)
			}
			ok, why := equalPNG(got, want, goldenDelta)
			if !ok {
				out := filepath.Join(t.ArtifactDir(), tc.name+".png")
				_ = os.WriteFile(out, got, 0o644)
				t.Errorf("%s differs from the golden image: %s; new image at %s (kept with go test -artifacts -outputdir DIR); run with -regen if the change is intended", path, why, out)
			}
		})
	}
}

// equalPNG compares two PNGs pixel by pixel in YIQ space, as
// gonum.org/v1/plot/cmpimg.EqualApprox does (cmpimg itself needs rsc.io/pdf,
// which this module does not carry).
func equalPNG(a, b []byte, delta float64) (bool, string) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return false, "decoding got: " + err.Error()
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return false, "decoding golden: " + err.Error()
	}
	if ia.Bounds() != ib.Bounds() {
		return false, "size " + ia.Bounds().String() + " vs " + ib.Bounds().String()
	}
	ra, rb := toRGBA(ia), toRGBA(ib)
	const maxDiff = 35215.0 // YIQ distance between black and white
	bad := 0
	var first image.Point
	for y := ra.Bounds().Min.Y; y < ra.Bounds().Max.Y; y++ {
		for x := ra.Bounds().Min.X; x < ra.Bounds().Max.X; x++ {
			if yiq(ra.RGBAAt(x, y), rb.RGBAAt(x, y)) > maxDiff*delta*delta {
				if bad == 0 {
					first = image.Pt(x, y)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		return false, "first differing pixel at " + first.String() + ", " + strconv.Itoa(bad) + " pixels differ"
	}
	return true, ""
}

func toRGBA(m image.Image) *image.RGBA {
	if r, ok := m.(*image.RGBA); ok {
		return r
	}
	r := image.NewRGBA(m.Bounds())
	draw.Draw(r, r.Bounds(), m, m.Bounds().Min, draw.Src)
	return r
}

// yiq is the perceptual colour distance of Kotsarenko & Ramos, "Measuring
// perceived color difference using YIQ NTSC transmission color space in
// mobile applications" (2010), as used by cmpimg.
func yiq(c1, c2 color.RGBA) float64 {
	r1, g1, b1 := float64(c1.R), float64(c1.G), float64(c1.B)
	r2, g2, b2 := float64(c2.R), float64(c2.G), float64(c2.B)
	y := (r1-r2)*0.29889531 + (g1-g2)*0.58662247 + (b1-b2)*0.11448223
	i := (r1-r2)*0.59597799 - (g1-g2)*0.27417610 - (b1-b2)*0.32180189
	q := (r1-r2)*0.21147017 - (g1-g2)*0.52261711 + (b1-b2)*0.31114694
	return 0.5053*y*y + 0.299*i*i + 0.1957*q*q
}
