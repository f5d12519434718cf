package offline_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
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

// someCharts builds three charts of pkg/viz (a line, a scatter and a bar
// chart) from small data.
func someCharts(t *testing.T) []offline.Chart {
	t.Helper()
	s := viz.Slice{T: 1, X: []float64{0, 0.5, 1}, Exact: []float64{0, 1, 0}, Pred: []float64{0, 0.98, 0}, Sigma: []float64{0.01, 0.02, 0.01}}
	logZ, relErr := []float64{160, 150, 140}, []float64{0.01, 0.02, 0.05}
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
	add(viz.SlicesChart([]viz.Slice{s}, viz.Labels{}))
	add(viz.EvidenceVsErrorChart(logZ, relErr, -1, viz.Labels{}))
	add(viz.EvidenceHistogramChart(rel, 0, viz.Labels{}))
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
	cs := someCharts(t)
	b, err := offline.Page("Heat <equation> & friends", cs...)
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
	b, err := offline.Library()
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
	cs := someCharts(t)
	b, err := offline.Fragment(cs...)
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

	b, err = offline.Charts(cs...)
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
	for name, f := range map[string]func(...offline.Chart) ([]byte, error){
		"HTMLFragment": offline.Fragment,
		"HTMLCharts":   offline.Charts,
		"HTMLPage":     func(cs ...offline.Chart) ([]byte, error) { return offline.Page("t", cs...) },
	} {
		if _, err := f(); !errors.Is(err, offline.ErrNoCharts) {
			t.Errorf("%s(): got %v, want ErrNoCharts", name, err)
		}
		if _, err := f(nil); err == nil {
			t.Errorf("%s(nil): got no error", name)
		}
	}
}

func TestEChartsMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope", "echarts.min.js")
	t.Setenv("BPINN_ECHARTS_JS", missing)
	chart := someCharts(t)[0]
	for name, f := range map[string]func() error{
		"EChartsJS":    func() error { _, err := offline.EChartsJS(); return err },
		"HTMLPage":     func() error { _, err := offline.Page("t", chart); return err },
		"HTMLFragment": func() error { _, err := offline.Fragment(chart); return err },
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
	if _, err := offline.Charts(chart); err != nil {
		t.Errorf("HTMLCharts: %v", err)
	}

	empty := filepath.Join(t.TempDir(), "empty.js")
	if err := os.WriteFile(empty, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BPINN_ECHARTS_JS", empty)
	if _, err := offline.EChartsJS(); err == nil || !strings.Contains(err.Error(), "scripts/setup.sh") {
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
		got, err := offline.EChartsPath()
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
	if _, err := offline.EChartsJS(); err != nil {
		t.Skipf("no echarts library: %v", err)
	}
}

func TestHTMLPageRealLibrary(t *testing.T) {
	realECharts(t)
	b, err := offline.Page("all figures", someCharts(t)...)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	checkOffline(t, page)
	if got := strings.Count(page, `.version="`+offline.EChartsVersion+`"`); got != 1 {
		t.Errorf("echarts %s library code found %d times, want 1", offline.EChartsVersion, got)
	}
}
