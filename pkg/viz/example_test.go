package viz_test

import (
	"bytes"
	"fmt"
	"image/png"
	"log"
	"math"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// pngSize prints the pixel size of a PNG.
func pngSize(b []byte) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%dx%d PNG\n", cfg.Width, cfg.Height)
}

func ExamplePoints() {
	sets := []viz.PointSet{
		{Name: "equation", X: []float64{0.2, 0.5, 0.7}, Y: []float64{0.3, 0.8, 0.1}},
		{Name: "boundary", X: []float64{0, 1, 0.4}, Y: []float64{0.5, 0.5, 0}},
	}
	fig, err := viz.Points(sets, viz.Labels{Title: "Heat equation: training points"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := viz.PNG(fig, 0, 0) // 0, 0: the figure's preferred size
	if err != nil {
		log.Fatal(err)
	}
	pngSize(b)
	// Output: 454x416 PNG
}

func ExampleRelativeLogEvidence() {
	rel, err := viz.RelativeLogEvidence([]float64{158.2, 169.0, 160.5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4g\n", rel)
	// Output: [-10.8 0 -8.5]
}

func ExampleEvidenceHistogram() {
	logZ := []float64{150, 158, 161, 163, 164, 166, 167, 168, 169}
	rel, err := viz.RelativeLogEvidence(logZ)
	if err != nil {
		log.Fatal(err)
	}
	fig, err := viz.EvidenceHistogram(rel, 0, viz.Labels{}) // 0 bins: ceil(sqrt(n))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.Title)
	// Output: Relative log evidence (N = 9)
}

func ExampleTraining() {
	h := viz.History{
		ET:    viz.Series{Epochs: []int{0, 1000, 2000, 3000}, Values: []float64{12, 3, 0.9, 0.5}},
		EHyp:  viz.Series{Epochs: []int{2000, 3000}, Values: []float64{-150, -158}},
		Alpha: []viz.Series{{Epochs: []int{2000, 3000}, Values: []float64{0.01, 0.2}}},
		Beta:  []viz.Series{{Epochs: []int{2000, 3000}, Values: []float64{400, 596}}},
	}
	fig, err := viz.Training(h, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range fig.Plots[0] {
		fmt.Print(p.Title.Text, " ")
	}
	fmt.Println()
	// Output: E_T β α E_hyp
}

func ExampleSlices() {
	var ss []viz.Slice
	for _, t := range []float64{0, 0.5, 1} {
		s := viz.Slice{T: t}
		for i := range 21 {
			x := float64(i) / 20
			u := math.Sin(math.Pi*x) * math.Exp(-math.Pi*math.Pi*t/10)
			s.X = append(s.X, x)
			s.Exact = append(s.Exact, u)
			s.Pred = append(s.Pred, u+0.01*x)
			s.Sigma = append(s.Sigma, 0.02)
		}
		ss = append(ss, s)
	}
	fig, err := viz.Slices(ss, viz.Labels{Title: "Heat equation"})
	if err != nil {
		log.Fatal(err)
	}
	svg, err := viz.SVG(fig, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(fig.Plots[0]), "panels,", strings.Contains(string(svg), "<svg"))
	// Output: 3 panels, true
}

func ExampleHeatMap() {
	f := viz.Field{X: []float64{0, 0.5, 1}, Y: []float64{0, 1}}
	for _, t := range f.Y { // rows over Y, columns over X
		for _, x := range f.X {
			f.Z = append(f.Z, math.Abs(math.Sin(math.Pi*x)*math.Exp(-t)))
		}
	}
	fig, err := viz.HeatMap(f, viz.Labels{Title: "|u|", Z: "|u|"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.ColorBar.Y.Label.Text)
	// Output: |u|
}

func ExampleErrorBand() {
	s := viz.Slice{T: 0.5,
		X:     []float64{0, 0.25, 0.5, 0.75, 1},
		Exact: []float64{0, 0.7, 1, 0.7, 0},
		Pred:  []float64{0, 0.69, 0.95, 0.71, 0},
		Sigma: []float64{0.01, 0.01, 0.01, 0.01, 0.01},
	}
	fig, err := viz.ErrorBand([]viz.Slice{s}, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.Plots[0][0].Title.Text) // one point of five is outside 2σ
	// Output: t = 0.5 (20% out)
}

func ExampleLaplaceVsHMC() {
	c := viz.Comparison{
		DataX: []float64{-0.6, 0.5}, DataY: []float64{0.25, 0.06},
		X:    []float64{-1, 0, 1},
		True: []float64{0.43, 0, 0.43},
		Fits: []viz.Band{
			{Name: "Laplace (evidence)", Mean: []float64{0.4, 0.02, 0.41}, Sigma: []float64{0.1, 0.05, 0.1}},
			{Name: "HMC", Mean: []float64{0.42, 0.01, 0.4}, Sigma: []float64{0.12, 0.06, 0.12}},
		},
	}
	fig, err := viz.LaplaceVsHMC(c, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.Plots[0][0].Title.Text, "|", fig.Plots[0][1].Title.Text)
	// Output: Laplace (evidence) | HMC
}

func ExampleEvidenceVsError() {
	logZ := []float64{160, 150, 140}
	relErr := []float64{0.01, 0.02, 0.05}
	fig, err := viz.EvidenceVsError(logZ, relErr, -1, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.Title)
	// Output: Evidence vs error (Spearman ρ = -1.00)
}

func ExampleEvidenceVsHidden() {
	groups := []viz.HiddenEvidence{
		{Hidden: 4, LogZ: []float64{140, 145}},
		{Hidden: 8, LogZ: []float64{158, 160, 155}},
	}
	fig, err := viz.EvidenceVsHidden(groups, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.Title)
	// Output: Evidence vs network size
}

func ExampleSlicesChart() {
	s := viz.Slice{T: 1, X: []float64{0, 0.5, 1}, Exact: []float64{0, 1, 0}, Pred: []float64{0, 0.98, 0}, Sigma: []float64{0.01, 0.02, 0.01}}
	chart, err := viz.SlicesChart([]viz.Slice{s}, viz.Labels{})
	if err != nil {
		log.Fatal(err)
	}
	// offline.Charts leaves the library out; offline.Page and
	// offline.Fragment inline it.
	b, err := offline.Charts(chart)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Count(string(b), "echarts.init("), "chart,", strings.Contains(string(b), "http"))
	// Output: 1 chart, false
}
