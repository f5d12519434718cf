// Package offline renders interactive charts (go-echarts) as HTML that
// loads nothing from the network: a standalone page (Page), a fragment for
// a notebook output or another page (Fragment), or the charts alone for a
// page that already carries the library (Library in its head, then
// Charts).
//
// go-echarts loads echarts.min.js from a CDN; this package never does. The
// library is read from disk by EChartsJS (see EChartsPath: installed by
// scripts/setup.sh into $BPINN_CACHE, $XDG_CACHE_HOME/bpinn or
// ~/.cache/bpinn, overridden by $BPINN_ECHARTS_JS) and inlined once per
// page. Chart scripts wait for window.echarts, so fragments that omit the
// library work below one that carries it. A missing library is a one-line
// error that names scripts/setup.sh. pkg/viz builds the charts of the
// paper's figures; any go-echarts chart can share a page with them.
package offline

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-echarts/go-echarts/v2/render"
)

// Chart is an interactive chart. Every go-echarts chart (*charts.Line,
// *charts.Scatter, *charts.Bar, *charts.HeatMap, ...) satisfies it, so
// charts built directly with go-echarts share a page with pkg/viz's.
type Chart interface {
	RenderSnippet() render.ChartSnippet
}

// ErrNoCharts is the error of a page, fragment or set of charts asked for
// with no chart.
var ErrNoCharts = errors.New("no charts")

// EChartsVersion is the echarts release that scripts/setup.sh installs and
// that the charts are written for.
const EChartsVersion = "5.6.0"

// EChartsPath returns where EChartsJS reads the echarts library:
// $BPINN_ECHARTS_JS if set, else echarts.min.js in $BPINN_CACHE, else in
// $XDG_CACHE_HOME/bpinn, else in $HOME/.cache/bpinn (the place
// scripts/setup.sh writes it). The file need not exist.
func EChartsPath() (string, error) {
	if p := os.Getenv("BPINN_ECHARTS_JS"); p != "" {
		return p, nil
	}
	dir := os.Getenv("BPINN_CACHE")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("offline: locating echarts.min.js: %w (set BPINN_ECHARTS_JS)", err)
			}
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "bpinn")
	}
	return filepath.Join(dir, "echarts.min.js"), nil
}

// EChartsJS returns the echarts library (echarts.min.js) from EChartsPath,
// for pages that must work offline. A missing or empty file is a one-line
// error that says to run scripts/setup.sh.
func EChartsJS() ([]byte, error) {
	path, err := EChartsPath()
	if err != nil {
		return nil, err
	}
	js, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("offline: echarts library not found at %s: run scripts/setup.sh (or set BPINN_ECHARTS_JS to echarts.min.js %s)", path, EChartsVersion)
		}
		return nil, fmt.Errorf("offline: reading the echarts library: %w (run scripts/setup.sh)", err)
	}
	if len(bytes.TrimSpace(js)) == 0 {
		return nil, fmt.Errorf("offline: echarts library %s is empty: run scripts/setup.sh again", path)
	}
	return js, nil
}

var (
	scriptClose = regexp.MustCompile(`(?i)</(script)`)
	commentOpen = regexp.MustCompile(`<!--`)
)

// libraryScript returns a <script> element that defines window.echarts.
// The library runs inside a function whose define, module and exports are
// undefined, so that its UMD header sets the global even where RequireJS is
// loaded (the classic Jupyter notebook). If guarded, it runs only when
// echarts is not defined yet, so notebook outputs can each carry it.
func libraryScript(js []byte, guarded bool) string {
	src := scriptClose.ReplaceAllString(string(js), `<\/$1`)
	src = commentOpen.ReplaceAllString(src, `<\!--`)
	var b strings.Builder
	b.WriteString("<script type=\"text/javascript\">\n")
	fmt.Fprintf(&b, "/* echarts %s, Apache License 2.0, inlined by bpinn/pkg/viz so the page works offline */\n", EChartsVersion)
	if guarded {
		b.WriteString("if (typeof window.echarts === \"undefined\") {\n")
	}
	b.WriteString("(function (define, module, exports) {\n")
	b.WriteString(src)
	b.WriteString("\n}).call(window);\n")
	if guarded {
		b.WriteString("}\n")
	}
	b.WriteString("</script>\n")
	return b.String()
}

var (
	snippetID     = regexp.MustCompile(`\bid="([^"]+)"`)
	snippetStyle  = regexp.MustCompile(`\bstyle="([^"]*)"`)
	snippetScript = regexp.MustCompile(`(?s)^\s*<script[^>]*>(.*)</script>\s*$`)
)

// chartHTML renders one chart as a <div> and a <script> that draws it once
// window.echarts exists (at once if it does; else it polls for 10 s, then
// writes why the chart is missing into the div).
func chartHTML(c Chart) (out string, err error) {
	if c == nil {
		return "", errors.New("offline: nil chart")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("offline: rendering chart: %v", r)
		}
	}()
	s := c.RenderSnippet()
	id := snippetID.FindStringSubmatch(s.Element)
	style := snippetStyle.FindStringSubmatch(s.Element)
	body := snippetScript.FindStringSubmatch(s.Script)
	if id == nil || style == nil || body == nil {
		return "", fmt.Errorf("offline: unexpected go-echarts snippet for chart %q", s.Element)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<div class=\"bpinn-chart\" style=\"display:flex;justify-content:center;margin:12px 0;\"><div id=\"%s\" style=\"%s\"></div></div>\n", id[1], style[1])
	b.WriteString("<script type=\"text/javascript\">\n(function () {\n  function draw() {\n")
	b.WriteString(scriptClose.ReplaceAllString(body[1], `<\/$1`))
	fmt.Fprintf(&b, `
  }
  if (typeof window.echarts !== "undefined") { draw(); return; }
  var tries = 0, timer = setInterval(function () {
    if (typeof window.echarts !== "undefined") { clearInterval(timer); draw(); }
    else if (++tries > 200) {
      clearInterval(timer);
      var el = document.getElementById(%q);
      if (el) { el.textContent = "echarts did not load: run scripts/setup.sh, then re-render this chart"; }
    }
  }, 50);
})();
</script>
`, id[1])
	return b.String(), nil
}

func chartsHTML(fn string, charts []Chart) (string, error) {
	if len(charts) == 0 {
		return "", fmt.Errorf("offline: %s: %w", fn, ErrNoCharts)
	}
	var b strings.Builder
	for i, c := range charts {
		h, err := chartHTML(c)
		if err != nil {
			return "", fmt.Errorf("offline: %s: chart %d: %w", fn, i, err)
		}
		b.WriteString(h)
	}
	return b.String(), nil
}

// Page returns a standalone HTML page holding the charts, with the
// echarts library (EChartsJS) inlined once: it loads nothing from the
// network. title is the page title and heading (no heading if empty).
func Page(title string, charts ...Chart) ([]byte, error) {
	body, err := chartsHTML("Page", charts)
	if err != nil {
		return nil, err
	}
	lib, err := Library()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(title))
	b.WriteString("<style>body{font-family:sans-serif;margin:16px;} h1{font-size:1.4em;text-align:center;font-weight:normal;}</style>\n")
	b.Write(lib)
	b.WriteString("</head>\n<body>\n")
	if title != "" {
		fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(title))
	}
	b.WriteString(body)
	b.WriteString("</body>\n</html>\n")
	return b.Bytes(), nil
}

// Library returns a <script> element that inlines the echarts library
// (EChartsJS) and defines window.echarts, for the <head> of a page that
// places its charts with Charts; the page then loads nothing from the
// network. Page is such a page.
func Library() ([]byte, error) {
	js, err := EChartsJS()
	if err != nil {
		return nil, err
	}
	return []byte(libraryScript(js, false)), nil
}

// Fragment returns the charts as an HTML fragment (divs and scripts) to
// embed in another page, such as a notebook output. It carries the echarts
// library inline, guarded so that the library is evaluated only once per
// page however many fragments carry it.
func Fragment(charts ...Chart) ([]byte, error) {
	body, err := chartsHTML("Fragment", charts)
	if err != nil {
		return nil, err
	}
	js, err := EChartsJS()
	if err != nil {
		return nil, err
	}
	return []byte(libraryScript(js, true) + body), nil
}

// Charts returns the charts as an HTML fragment without the library,
// for a page that loads echarts itself (or a notebook cell whose earlier
// output carried an Fragment): each chart waits up to 10 s for
// window.echarts.
func Charts(charts ...Chart) ([]byte, error) {
	body, err := chartsHTML("Charts", charts)
	if err != nil {
		return nil, err
	}
	return []byte(body), nil
}
