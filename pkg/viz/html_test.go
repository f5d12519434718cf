package viz_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/viz"
)

const fakeMarker = "FAKE_ECHARTS_LIBRARY_MARKER"

// fakeECharts points BPINN_ECHARTS_JS at a small stand-in library holding
// fakeMarker (and a "</script>" that must be escaped).
func fakeECharts(t *testing.T) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echarts.min.js")
	lib := `/* ` + fakeMarker + ` */ window.echarts = {init: function () {}, s: "</script>"};`
	if err := os.WriteFile(path, []byte(lib), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BPINN_ECHARTS_JS", path)
}

// allCharts builds every chart of the package from the fixtures.
func allCharts(t *testing.T) []viz.Chart {
	t.Helper()
	logZ, relErr := ensembleLogZ(60)
	rel, err := viz.RelativeLogEvidence(logZ)
	if err != nil {
		t.Fatal(err)
	}
	var cs []viz.Chart
	add := func(c viz.Chart, err error) {
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

var (
	urlAttr   = regexp.MustCompile(`(?i)\b(src|href)\s*=\s*["']?\s*(https?:)?//`)
	scriptSrc = regexp.MustCompile(`(?i)<script[^>]*\bsrc\s*=`)
	scriptTag = regexp.MustCompile(`(?i)<script\b`)
)

// checkOffline fails if page could load anything from the network.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	if m := urlAttr.FindString(page); m != "" {
		t.Errorf("page refers to a URL: %q", m)
	}
	if m := scriptSrc.FindString(page); m != "" {
		t.Errorf("page loads a script by src: %q", m)
	}
	if strings.Contains(page, "go-echarts.github.io") || strings.Contains(page, "cdn") {
		t.Error("page mentions a CDN")
	}
	// The "</script>" inside the library must be escaped: every closing
	// tag then belongs to one opening tag.
	if open, closed := len(scriptTag.FindAllString(page, -1)), strings.Count(strings.ToLower(page), "</script>"); open != closed {
		t.Errorf("%d <script> tags but %d </script>: the library was not escaped", open, closed)
	}
}

func TestHTMLPage(t *testing.T) {
	fakeECharts(t)
	cs := allCharts(t)
	b, err := viz.HTMLPage("Heat <equation> & friends", cs...)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	checkOffline(t, page)
	if got := strings.Count(page, fakeMarker); got != 1 {
		t.Errorf("library inlined %d times, want 1", got)
	}
	if got := strings.Count(page, `class="bpinn-chart"`); got != len(cs) {
		t.Errorf("got %d chart divs, want %d", got, len(cs))
	}
	if got := strings.Count(page, "echarts.init("); got != len(cs) {
		t.Errorf("got %d echarts.init calls, want %d", got, len(cs))
	}
	for _, want := range []string{"<!DOCTYPE html>", "<title>Heat &lt;equation&gt; &amp; friends</title>", `<meta charset="utf-8">`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if lib, body := strings.Index(page, fakeMarker), strings.Index(page, "echarts.init("); lib > body {
		t.Error("library comes after the first chart")
	}
}

func TestHTMLLibrary(t *testing.T) {
	fakeECharts(t)
	b, err := viz.HTMLLibrary()
	if err != nil {
		t.Fatal(err)
	}
	lib := string(b)
	checkOffline(t, lib)
	if got := strings.Count(lib, fakeMarker); got != 1 {
		t.Errorf("library inlined %d times, want 1", got)
	}
	if !strings.HasPrefix(lib, "<script") || !strings.HasSuffix(lib, "</script>\n") {
		t.Errorf("not one <script> element: %.80q", lib)
	}
	if !strings.Contains(lib, "(function (define, module, exports) {") {
		t.Error("the library's UMD header is not hidden from RequireJS")
	}
	if strings.Contains(lib, "typeof window.echarts") {
		t.Error("a page's library is guarded; only fragments need the guard")
	}
}

func TestHTMLFragment(t *testing.T) {
	fakeECharts(t)
	cs := allCharts(t)[:3]
	b, err := viz.HTMLFragment(cs...)
	if err != nil {
		t.Fatal(err)
	}
	frag := string(b)
	checkOffline(t, frag)
	if got := strings.Count(frag, fakeMarker); got != 1 {
		t.Errorf("library inlined %d times, want 1", got)
	}
	if !strings.Contains(frag, `if (typeof window.echarts === "undefined")`) {
		t.Error("library is not guarded")
	}
	if strings.Contains(frag, "<html") || strings.Contains(frag, "<head") {
		t.Error("fragment is a full page")
	}
	if got := strings.Count(frag, `class="bpinn-chart"`); got != len(cs) {
		t.Errorf("got %d chart divs, want %d", got, len(cs))
	}

	b, err = viz.HTMLCharts(cs...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), fakeMarker) {
		t.Error("HTMLCharts carries the library")
	}
	checkOffline(t, string(b))
}

func TestHTMLNoCharts(t *testing.T) {
	fakeECharts(t)
	for name, f := range map[string]func(...viz.Chart) ([]byte, error){
		"HTMLFragment": viz.HTMLFragment,
		"HTMLCharts":   viz.HTMLCharts,
		"HTMLPage":     func(cs ...viz.Chart) ([]byte, error) { return viz.HTMLPage("t", cs...) },
	} {
		if _, err := f(); !errors.Is(err, viz.ErrEmpty) {
			t.Errorf("%s(): got %v, want ErrEmpty", name, err)
		}
		if _, err := f(nil); err == nil {
			t.Errorf("%s(nil): got no error", name)
		}
	}
}

func TestEChartsMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope", "echarts.min.js")
	t.Setenv("BPINN_ECHARTS_JS", missing)
	chart, err := viz.SlicesChart(heatSlices(), viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"EChartsJS":    func() error { _, err := viz.EChartsJS(); return err },
		"HTMLPage":     func() error { _, err := viz.HTMLPage("t", chart); return err },
		"HTMLFragment": func() error { _, err := viz.HTMLFragment(chart); return err },
	} {
		err := f()
		if err == nil {
			t.Fatalf("%s: got no error for a missing library", name)
		}
		msg := err.Error()
		if !strings.Contains(msg, "scripts/setup.sh") || !strings.Contains(msg, missing) || strings.Contains(msg, "\n") {
			t.Errorf("%s: got %q, want one line naming %s and scripts/setup.sh", name, msg, missing)
		}
	}
	// HTMLCharts needs no library.
	if _, err := viz.HTMLCharts(chart); err != nil {
		t.Errorf("HTMLCharts: %v", err)
	}

	empty := filepath.Join(t.TempDir(), "empty.js")
	if err := os.WriteFile(empty, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BPINN_ECHARTS_JS", empty)
	if _, err := viz.EChartsJS(); err == nil || !strings.Contains(err.Error(), "scripts/setup.sh") {
		t.Errorf("empty library: got %v, want an error naming scripts/setup.sh", err)
	}
}

func TestEChartsPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, tc := range []struct {
		override, cache, xdg string
		want                 string
	}{
		{want: filepath.Join(home, ".cache", "bpinn", "echarts.min.js")},
		{xdg: "/x", want: "/x/bpinn/echarts.min.js"},
		{cache: "/c", xdg: "/x", want: "/c/echarts.min.js"},
		{override: "/o/e.js", cache: "/c", xdg: "/x", want: "/o/e.js"},
	} {
		t.Setenv("BPINN_ECHARTS_JS", tc.override)
		t.Setenv("BPINN_CACHE", tc.cache)
		t.Setenv("XDG_CACHE_HOME", tc.xdg)
		got, err := viz.EChartsPath()
		if err != nil || got != tc.want {
			t.Errorf("override %q cache %q xdg %q: got %q, %v, want %q", tc.override, tc.cache, tc.xdg, got, err, tc.want)
		}
	}
}

// realECharts skips the test unless the echarts library installed by
// scripts/setup.sh is present.
func realECharts(t *testing.T) {
	t.Helper()
	t.Setenv("BPINN_ECHARTS_JS", "")
	if _, err := viz.EChartsJS(); err != nil {
		t.Skipf("no echarts library: %v", err)
	}
}

func TestHTMLPageRealLibrary(t *testing.T) {
	realECharts(t)
	b, err := viz.HTMLPage("all figures", allCharts(t)...)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	checkOffline(t, page)
	if got := strings.Count(page, `.version="`+viz.EChartsVersion+`"`); got != 1 {
		t.Errorf("echarts %s library code found %d times, want 1", viz.EChartsVersion, got)
	}
}

// nodeHarness runs the chart scripts of an HTMLCharts fragment with the
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
	realECharts(t)
	lib, _ := viz.EChartsPath()
	cs := allCharts(t)
	frag, err := viz.HTMLCharts(cs...)
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
		frag, err := viz.HTMLCharts(c)
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
