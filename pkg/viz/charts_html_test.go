package viz_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// allCharts builds every chart of the package from the fixtures.
func allCharts(t *testing.T) []offline.Chart {
	t.Helper()
	logZ, relErr := ensembleLogZ(60)
	rel, err := viz.RelativeLogEvidence(logZ)
	if err != nil {
		t.Fatal(err)
	}
	var cs []offline.Chart
	add := func(c offline.Chart, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	add(viz.PointsChart(heatPoints(), viz.Labels{}))
	add(viz.EvidenceHistogramChart(rel, 0, viz.Labels{}))
	add(viz.TrainingChart(trainingHistory(), viz.Labels{}))
	add(viz.SlicesChart(heatSlices(), viz.Labels{}))
	add(viz.HeatMapChart(heatField(), viz.Labels{}))
	add(viz.ErrorBandChart(waveSlices(), viz.Labels{}))
	add(viz.LaplaceVsHMCChart(regression(), viz.Labels{}))
	add(viz.EvidenceVsErrorChart(logZ, relErr, -0.71, viz.Labels{}))
	add(viz.EvidenceVsHiddenChart(hiddenSweep(), viz.Labels{}))
	return cs
}

// nodeHarness runs the chart scripts of an offline.Charts fragment with the
// real echarts in Node (server-side SVG rendering) and reports failures.
const nodeHarness = `
const fs = require('fs');
const lib = require(process.argv[2]);
const html = fs.readFileSync(process.argv[3], 'utf8');
const scripts = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map(m => m[1]);
const charts = [];
global.window = global;
global.echarts = { init: function () {
  const c = lib.init(null, null, { renderer: 'svg', ssr: true, width: 1200, height: 700 });
  charts.push(c); return c; } };
const fakeDocument = { getElementById: id => ({ id: id, textContent: '' }) };
let failed = 0;
for (const s of scripts) {
  try { (function (document) { eval(s); })(fakeDocument); }
  catch (e) { failed++; console.log('FAIL ' + (e && e.stack)); }
}
for (const c of charts) {
  const svg = c.renderToSVGString();
  if (svg.length < 2000) { failed++; console.log('FAIL tiny svg ' + svg.length); }
}
console.log('rendered ' + charts.length + ' failed ' + failed);
process.exit(0);
`

func TestChartsRenderInECharts(t *testing.T) {
	if testing.Short() {
		t.Skip("needs node; skipped with -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	t.Setenv("BPINN_ECHARTS_JS", "")
	if _, err := offline.EChartsJS(); err != nil {
		t.Skipf("no echarts library: %v", err)
	}
	lib, _ := offline.EChartsPath()
	cs := allCharts(t)
	frag, err := offline.Charts(cs...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	harness, page := filepath.Join(dir, "harness.js"), filepath.Join(dir, "charts.html")
	if err := os.WriteFile(harness, []byte(nodeHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, frag, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, harness, lib, page).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	want := "rendered " + itoa(len(cs)) + " failed 0"
	if !strings.Contains(string(out), want) {
		t.Errorf("echarts could not render every chart, want %q:\n%s", want, out)
	}
}

// The shaded bands are stacked areas: with two value axes echarts stacks the
// first numeric column of the data, so each band series must give its points
// as (value, x) and encode x from the second column, or the band is drawn
// at doubled x (as it once was).
func TestBandStacksValues(t *testing.T) {
	c, err := viz.SlicesChart(heatSlices(), viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	js := string(c.RenderSnippet().Option)
	stacked := strings.Count(js, `"stack":"band`)
	if stacked == 0 {
		t.Fatal("no stacked band series in the slices chart")
	}
	for _, want := range []string{`"dimensions":["value","x"]`, `"encode":{"x":1,"y":0}`} {
		if got := strings.Count(js, want); got != stacked {
			t.Errorf("%d band series carry %s, want all %d", got, want, stacked)
		}
	}
}

// TestChartsFitOutputArea: every chart, and every panel layout up to ten
// panels, is at most viz.MaxChartWidth wide (Notebook 6's output area is
// about 967 px; a wider chart is cut off there), and its panels lie inside it.
func TestChartsFitOutputArea(t *testing.T) {
	width := regexp.MustCompile(`style="width:(\d+)px`)
	for i, c := range allCharts(t) {
		frag, err := offline.Charts(c)
		if err != nil {
			t.Fatal(err)
		}
		m := width.FindSubmatch(frag)
		if m == nil {
			t.Fatalf("chart %d: no fixed width in its HTML", i)
		}
		if w, _ := strconv.Atoi(string(m[1])); w > viz.MaxChartWidth {
			t.Errorf("chart %d is %d px wide, more than %d", i, w, viz.MaxChartWidth)
		}
	}
}
