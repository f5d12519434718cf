// The browser test: the notebooks as a student meets them, in headless
// Chromium driven by selenium (testdata/browser.py). It starts Jupyter
// Notebook on a free loopback port behind a random token, opens each of
// browserNotebooks through the UI, clicks Cell > Run All, waits for the
// kernel, and fails on an error or stderr output, an echarts chart that did
// not draw, a chart wider than its output area, a console error, or a
// request to any host but the loopback server. Screenshots go to out/browser/ (see
// kernel/README.md, "The browser test").
//
// Chromium, chromedriver and python3's selenium come from Debian
// (scripts/setup.sh installs them as root). When one is missing, or the
// Jupyter found has no Notebook 6, the test skips, except in CI (CI set),
// where it fails.

package notebooks_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/internal/reap"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// browserNotebooks are run in the browser: the tour and one of the studies.
// Each shows at least one echarts chart (a run that shows none fails).
var browserNotebooks = []string{"00-tour.ipynb", "02-heat.ipynb"}

// browserOut keeps the screenshots and the notebooks as the browser held
// them after the run (out/ is git-ignored).
var browserOut = filepath.Join("..", "out", "browser")

// TestBrowser runs browserNotebooks in Chromium through Jupyter's UI.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("running notebooks in a browser takes a minute; skipped under -short")
	}
	b := findBrowser(t)
	k := installKernel(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The notebooks run from copies, so that Jupyter's autosave cannot
	// change the tree; BPINN_ROOT tells their setup cell where the module is.
	dir := t.TempDir()
	for _, name := range browserNotebooks {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startNotebookServer(t, k, dir, "BPINN_ROOT="+root)

	if err := os.RemoveAll(browserOut); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, name := range browserNotebooks {
		urls = append(urls, srv.base+"/notebooks/"+name+"?token="+srv.token)
	}
	start := time.Now()
	reports := b.run(t, "notebook", browserOut, urls...)
	driven := true
	t.Logf("browser: %d notebooks in %v; screenshots in %s", len(reports), time.Since(start).Round(time.Second), browserOut)
	for i, r := range reports {
		name := browserNotebooks[i]
		probs := r.problems(srv.host)
		if r.Notebook != "" {
			probs = append(probs, notebookProblems(r)...)
		}
		if r.Error == "" && len(r.Charts) == 0 {
			probs = append(probs, "no echarts chart in the page")
		}
		driven = driven && r.Error == ""
		t.Logf("%s: ran in %.1f s, %d charts, %d requests, %d screenshots", name, r.Seconds, len(r.Charts), len(r.Requests), len(r.Screenshots))
		for _, e := range r.ScreenshotErrors {
			t.Logf("%s: a screenshot failed: %s", name, e)
		}
		if len(probs) > 0 {
			t.Errorf("%s in the browser:\n%s", name, strings.Join(probs, "\n"))
		}
	}
	if !driven {
		t.Logf("jupyter notebook log (last lines):\n%s", tail(srv.log.String(), 30))
	}
}

// notebookProblems checks the notebook as the browser held it after Run All:
// every code cell ran, no error or stderr output (failures), and every chart
// among its outputs is in the page.
func notebookProblems(r pageReport) []string {
	nb, err := readNotebook(r.Notebook)
	if err != nil {
		return []string{fmt.Sprintf("reading %s: %v", r.Notebook, err)}
	}
	probs := nb.failures()
	if r.Unrun > 0 {
		probs = append(probs, fmt.Sprintf("%d of %d code cells did not run", r.Unrun, r.Cells))
	}
	n := 0
	for _, o := range nb.outputs("text/html") {
		n += strings.Count(o.text, `class="bpinn-chart"`)
	}
	if n != len(r.Charts) {
		probs = append(probs, fmt.Sprintf("the outputs hold %d charts, the page shows %d", n, len(r.Charts)))
	}
	return probs
}

// # The checker

// pageReport is what testdata/browser.py reports on one page.
type pageReport struct {
	URL              string       `json:"url"`
	Seconds          float64      `json:"seconds"`
	Error            string       `json:"error"`
	Charts           []chartFacts `json:"charts"`
	Console          []string     `json:"console"` // the page's console errors
	Requests         []string     `json:"requests"`
	Notebook         string       `json:"notebook"` // path of the notebook's JSON after the run
	Cells            int          `json:"cells"`    // code cells
	Unrun            int          `json:"unrun"`    // code cells without an execution count
	Screenshots      []string     `json:"screenshots"`
	ScreenshotErrors []string     `json:"screenshot_errors"`
}

// chartFacts describes one go-echarts chart div in the page.
type chartFacts struct {
	ID       string `json:"id"`
	Instance bool   `json:"instance"` // echarts was initialised on the div
	Drawn    int    `json:"drawn"`    // canvases or svgs of non-zero size
	Text     string `json:"text"`     // the div's text (pkg/viz writes why echarts is missing)
	Chart    rect   `json:"chart"`    // the div
	Drawing  *rect  `json:"drawing"`  // what echarts drew, nil if nothing
	Area     rect   `json:"area"`     // the output area that holds the chart
	// Declared is the width the chart was made for (its div's style, 0
	// if not in px); GridRight how far right its panels reach, in the
	// chart; EChartsWidth the width echarts draws in (0 if unknown).
	Declared     float64 `json:"declared"`
	GridRight    float64 `json:"grid_right"`
	EChartsWidth float64 `json:"echarts_width"`
}

// rect is a bounding client rectangle in CSS pixels.
type rect struct {
	Left   float64 `json:"left"`
	Right  float64 `json:"right"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// problems lists what is wrong with the page: it could not be driven, a
// chart, or a request to a host other than host (host:port of the server).
func (r pageReport) problems(host string) []string {
	var probs []string
	if r.Error != "" {
		probs = append(probs, "the browser: "+r.Error)
	}
	for _, c := range r.Charts {
		probs = append(probs, c.problems()...)
	}
	for _, m := range r.Console {
		if !slices.ContainsFunc(consoleNoise, func(s string) bool { return strings.Contains(m, s) }) {
			probs = append(probs, "a console error: "+m)
		}
	}
	for _, u := range r.Requests {
		if !localRequest(u, host) {
			probs = append(probs, "a request to another host than "+host+": "+u)
		}
	}
	return probs
}

// consoleNoise are console errors of Jupyter's own page, not of the
// notebooks: MathJax 2 (Notebook 6) declares a blank font at about:blank,
// which Chrome refuses to load.
var consoleNoise = []string{
	"Access to font at 'about:blank'",
	"about:blank - Failed to load resource",
}

// fitSlack is how far (CSS px) a chart may reach past its output area:
// rounding of fractional layouts.
const fitSlack = 1

func (c chartFacts) problems() []string {
	if !c.Instance || c.Drawn == 0 || c.Drawing == nil {
		return []string{fmt.Sprintf("chart %s did not draw (echarts initialised: %v, canvases: %d, text %q)", c.ID, c.Instance, c.Drawn, c.Text)}
	}
	var probs []string
	if c.Declared > c.Area.Width+fitSlack {
		probs = append(probs, fmt.Sprintf("chart %s is made %.0f px wide, its output area is %.0f px", c.ID, c.Declared, c.Area.Width))
	}
	if c.EChartsWidth > 0 && c.GridRight > c.EChartsWidth+fitSlack {
		probs = append(probs, fmt.Sprintf("chart %s: its panels reach x = %.0f px, echarts draws %.0f px: the right ones are cut off", c.ID, c.GridRight, c.EChartsWidth))
	}
	for _, part := range []struct {
		what string
		r    rect
	}{{"chart", c.Chart}, {"drawing", *c.Drawing}} {
		r, a := part.r, c.Area
		if r.Left < a.Left-fitSlack || r.Right > a.Right+fitSlack {
			probs = append(probs, fmt.Sprintf("chart %s: the %s is %.0f px wide (x from %.0f to %.0f), wider than its output area, %.0f px (x from %.0f to %.0f)",
				c.ID, part.what, r.Width, r.Left, r.Right, a.Width, a.Left, a.Right))
		}
	}
	return probs
}

// localRequest reports whether the page may request u: the server at host
// (http or its websockets), or data inside the page.
func localRequest(u, host string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	switch p.Scheme {
	case "data", "blob", "about":
		return true
	case "http", "ws":
		return p.Host == host
	}
	return false
}

// # Chromium and selenium

// browser is how to run testdata/browser.py.
type browser struct {
	python, chromium, chromedriver string
}

// findBrowser finds Chromium, chromedriver and a python3 that imports
// selenium (pythonWith). It skips the test when one is missing, except in
// CI, where it fails.
func findBrowser(t *testing.T) *browser {
	t.Helper()
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	b := &browser{
		chromium:     find("chromium", "/usr/bin/chromium"),
		chromedriver: find("chromedriver", "/usr/bin/chromedriver"),
	}
	b.python = pythonWith("selenium")
	var missing []string
	for _, m := range []struct{ path, what string }{
		{b.chromium, "chromium"}, {b.chromedriver, "chromedriver"}, {b.python, "python3 with selenium"},
	} {
		if m.path == "" {
			missing = append(missing, m.what)
		}
	}
	if len(missing) > 0 {
		skipOutsideCI(t, fmt.Sprintf("the browser test needs %s: run scripts/setup.sh as root (it installs Debian's chromium, chromium-driver and python3-selenium)", strings.Join(missing, ", ")))
	}
	return b
}

// skipOutsideCI skips the test for a missing tool, except in CI (CI set),
// where it fails: there the setup must have installed it.
func skipOutsideCI(t *testing.T, msg string) {
	t.Helper()
	if ci := os.Getenv("CI"); ci != "" && ci != "false" {
		t.Fatal(msg + " (CI is set, so this fails instead of skipping)")
	}
	t.Skip(msg)
}

// run runs testdata/browser.py in mode (notebook or page) on urls, with
// screenshots into out, and returns its report on each URL.
func (b *browser) run(t *testing.T, mode, out string, urls ...string) []pageReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Duration(len(urls))*(cellTimeout+time.Minute))
	defer cancel()
	if dl, ok := t.Deadline(); ok {
		// Stop early enough to report what the browser saw.
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-30*time.Second))
		defer cancel()
	}
	args := []string{filepath.Join("testdata", "browser.py"),
		"--chromium", b.chromium, "--chromedriver", b.chromedriver, "--out", out,
		"--timeout", fmt.Sprint(cellTimeout.Seconds()), mode}
	cmd := exec.CommandContext(ctx, b.python, append(args, urls...)...)
	cmd.Env = append(os.Environ(), reap.Cleanup(t))                       // Chromium and chromedriver end with t
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // selenium then quits Chromium
	cmd.WaitDelay = 20 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("testdata/browser.py: %v\n%s", err, tail(stderr.String(), 40))
	}
	var reports []pageReport
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r pageReport
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("testdata/browser.py printed %q: %v", sc.Text(), err)
		}
		reports = append(reports, r)
	}
	if len(reports) != len(urls) {
		t.Fatalf("testdata/browser.py reported on %d of %d pages; its log:\n%s", len(reports), len(urls), tail(stderr.String(), 40))
	}
	return reports
}

// # The notebook server

type notebookServer struct {
	base  string // http://127.0.0.1:port
	host  string // 127.0.0.1:port
	token string
	log   *syncBuffer
}

// syncBuffer is the server's log, written by exec's copying goroutine while
// the test may read it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startNotebookServer starts Jupyter Notebook on dir, on a free loopback
// port behind a random token (as kernel/lab.sh does), with the kernel's
// environment plus env, and stops it when the test ends.
func startNotebookServer(t *testing.T, k *kernel, dir string, env ...string) *notebookServer {
	t.Helper()
	if out, err := exec.Command(k.jupyter, "notebook", "--version").CombinedOutput(); err != nil || !bytes.HasPrefix(out, []byte("6.")) {
		skipOutsideCI(t, fmt.Sprintf("the browser test drives Jupyter Notebook 6 (Debian's jupyter-notebook; JupyterLab's page is another), but jupyter notebook --version says: %v %s",
			err, bytes.TrimSpace(out)))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	_, port, _ := net.SplitHostPort(host)
	l.Close()
	token := make([]byte, 24)
	rand.Read(token)
	srv := &notebookServer{base: "http://" + host, host: host, token: hex.EncodeToString(token), log: new(syncBuffer)}

	args := []string{"notebook", "--no-browser", "--ip=127.0.0.1", "--port=" + port, "--port-retries=0", "--notebook-dir=" + dir}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-root")
	}
	cmd := exec.Command(k.jupyter, args...)
	cmd.Dir = dir
	cmd.Env = append(append(slices.Clip(k.env), "JUPYTER_TOKEN="+srv.token), env...)
	cmd.Stdout, cmd.Stderr = srv.log, srv.log
	// Its own process group, so that the kernel and what it compiles go
	// with it at the end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting jupyter notebook: %v", err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// SIGTERM: the server shuts its kernels down, then exits.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			t.Logf("jupyter notebook did not stop on SIGTERM within 20 s; killing it")
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})

	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(srv.base + "/api/status?token=" + srv.token)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return srv
			}
		}
		select {
		case <-exited:
			t.Fatalf("jupyter notebook exited: %v\n%s", waitErr, tail(srv.log.String(), 30))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("jupyter notebook did not answer on %s within a minute:\n%s", srv.base, tail(srv.log.String(), 30))
		}
	}
}

// # The checker on a page made to fail

// checkerPage has one chart of each kind the checker must tell apart, laid
// out as Notebook 6 lays out pkg/viz's charts: a flex row centring the chart
// div inside a 500 px output area. "cut" is a real echarts chart made 700 px
// wide with two panels placed in px, as pkg/viz placed them when a 1150 px
// slices chart lost its right panel in Notebook 6; the others fake what
// echarts leaves in the div (its instance attribute, a canvas). %s is the
// echarts library (offline.Library).
const checkerPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>checker</title><link rel="icon" href="data:,">
<style>.output_subarea{width:500px;margin:20px} .bpinn-chart{display:flex;justify-content:center} canvas{display:block}</style>
%s</head><body>
<div class="output_subarea"><div class="bpinn-chart"><div id="cut" style="width:700px;height:150px"></div></div></div>
<script>
echarts.init(document.getElementById("cut")).setOption({
  grid: [{left: "40px", top: "20px", width: "280px", height: "100px"}, {left: "380px", top: "20px", width: "280px", height: "100px"}],
  xAxis: [{gridIndex: 0}, {gridIndex: 1}], yAxis: [{gridIndex: 0}, {gridIndex: 1}],
  series: [{type: "line", data: [[0, 1], [1, 2]]}, {type: "line", xAxisIndex: 1, yAxisIndex: 1, data: [[0, 2], [1, 1]]}],
});
</script>
<div class="output_subarea"><div class="bpinn-chart"><div id="fits" _echarts_instance_="1" style="width:400px;height:100px">
  <canvas style="width:400px;height:100px"></canvas></div></div></div>
<div class="output_subarea"><div class="bpinn-chart"><div id="shrunk" _echarts_instance_="2" style="width:480px;height:100px;min-width:0">
  <canvas style="width:700px;height:100px"></canvas></div></div></div>
<div class="output_subarea"><div class="bpinn-chart"><div id="wide" _echarts_instance_="3" style="width:700px;height:100px;flex:none">
  <canvas style="width:700px;height:100px"></canvas></div></div></div>
<div class="output_subarea"><div class="bpinn-chart"><div id="blank" style="width:400px;height:100px">echarts did not load</div></div></div>
<div class="output_subarea"><div class="bpinn-chart"><div id="zero" _echarts_instance_="4" style="width:400px;height:100px">
  <canvas style="width:0;height:0"></canvas></div></div></div>
<img src="http://elsewhere.invalid/pixel.png" alt="">
<script>window.addEventListener("load", function () { notDefined(); });</script>
</body></html>
`

// TestBrowserChecker shows that the checker of TestBrowser fails a chart
// made wider than its output area (and so cut off), a drawing wider than
// its div, a chart that did not draw, a console error (a failed load, an
// uncaught exception) and a request to another host.
func TestBrowserChecker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium; skipped under -short")
	}
	b := findBrowser(t)
	lib, err := offline.Library()
	if err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf(checkerPage, lib)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/checker.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	defer srv.Close()
	reports := b.run(t, "page", t.TempDir(), srv.URL+"/checker.html")
	host := strings.TrimPrefix(srv.URL, "http://")
	got := reports[0].problems(host)
	want := []string{
		"chart cut is made 700 px wide, its output area is 500 px",
		"chart cut: its panels reach x = 660 px, echarts draws 500 px",
		"chart shrunk: the drawing is 700 px wide",
		"chart wide is made 700 px wide",
		"chart wide: the chart is 700 px wide",
		"chart wide: the drawing is 700 px wide",
		"chart blank did not draw",
		"chart zero did not draw",
		"a console error: http://elsewhere.invalid/pixel.png - Failed to load resource",
		"a console error: http://" + host + "/checker.html",
		"a request to another host than " + host + ": http://elsewhere.invalid/pixel.png",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: got %q, want it to start with %q", i, got[i], want[i])
		}
	}
	t.Logf("the checker on %s:\n%s", srv.URL+"/checker.html", strings.Join(got, "\n"))
}
