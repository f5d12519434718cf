package nb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// fakeNotebook routes the gonbui calls to a recorder and restores the
// hooks when the test ends. Tests using it share package state and do not
// run in parallel.
type recorder struct {
	html, png, svg []string
	updates        map[string][]string
	ids            int
	clock          time.Time
}

func fakeNotebook(t *testing.T, inNotebook bool) *recorder {
	t.Helper()
	r := &recorder{updates: map[string][]string{}, clock: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	saved := []any{isNotebook, displayHTML, displayPNG, displaySVG, updateHTML, uniqueID, now, libSent}
	isNotebook = func() bool { return inNotebook }
	displayHTML = func(s string) { r.html = append(r.html, s) }
	displayPNG = func(b []byte) { r.png = append(r.png, string(b)) }
	displaySVG = func(s string) { r.svg = append(r.svg, s) }
	updateHTML = func(id, s string) { r.updates[id] = append(r.updates[id], s) }
	uniqueID = func() string { r.ids++; return "id" + string(rune('0'+r.ids)) }
	now = func() time.Time { return r.clock }
	libSent = false
	t.Cleanup(func() {
		isNotebook = saved[0].(func() bool)
		displayHTML = saved[1].(func(string))
		displayPNG = saved[2].(func([]byte))
		displaySVG = saved[3].(func(string))
		updateHTML = saved[4].(func(string, string))
		uniqueID = saved[5].(func() string)
		now = saved[6].(func() time.Time)
		libSent = saved[7].(bool)
	})
	return r
}

func fakeECharts(t *testing.T) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(path, []byte("window.echarts = {FAKE_ECHARTS_LIBRARY: true};"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BPINN_ECHARTS_JS", path)
}

func testFigure(t *testing.T) *viz.Figure {
	t.Helper()
	fig, err := viz.Points([]viz.PointSet{{Name: "equation", X: []float64{0.1, 0.5, 0.9}, Y: []float64{0.2, 0.4, 0.8}}}, viz.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	return fig
}

func testChart() *charts.Scatter {
	c := charts.NewScatter()
	c.AddSeries("s", []opts.ScatterData{{Value: []float64{1, 2}}})
	return c
}

func TestOutsideNotebookDoesNothing(t *testing.T) {
	r := fakeNotebook(t, false)
	t.Setenv("BPINN_ECHARTS_JS", filepath.Join(t.TempDir(), "missing.js")) // would fail if used
	if err := Show(testFigure(t)); err != nil {
		t.Errorf("Show: %v", err)
	}
	if err := ShowSVG(testFigure(t)); err != nil {
		t.Errorf("ShowSVG: %v", err)
	}
	if err := Chart(testChart()); err != nil {
		t.Errorf("Chart: %v", err)
	}
	var p Progress
	p.Start(10)
	p.Update(5, "half")
	p.Done()
	if len(r.html)+len(r.png)+len(r.svg)+len(r.updates) != 0 {
		t.Errorf("got output outside a notebook: %+v", r)
	}
}

func TestShow(t *testing.T) {
	r := fakeNotebook(t, true)
	if err := Show(testFigure(t)); err != nil {
		t.Fatal(err)
	}
	if err := ShowSVG(testFigure(t)); err != nil {
		t.Fatal(err)
	}
	if len(r.png) != 1 || !strings.HasPrefix(r.png[0], "\x89PNG") {
		t.Errorf("got %d PNG outputs, want one PNG", len(r.png))
	}
	if len(r.svg) != 1 || !strings.Contains(r.svg[0], "<svg") {
		t.Errorf("got %d SVG outputs, want one SVG document", len(r.svg))
	}
	if err := Show(nil); err == nil {
		t.Error("Show(nil): got no error")
	}
}

func TestChartLibraryOncePerCell(t *testing.T) {
	r := fakeNotebook(t, true)
	fakeECharts(t)
	if err := Chart(testChart(), testChart()); err != nil {
		t.Fatal(err)
	}
	if err := Chart(testChart()); err != nil {
		t.Fatal(err)
	}
	if len(r.html) != 2 {
		t.Fatalf("got %d HTML outputs, want 2", len(r.html))
	}
	if got := strings.Count(r.html[0], "FAKE_ECHARTS_LIBRARY"); got != 1 {
		t.Errorf("first output carries the library %d times, want 1", got)
	}
	if strings.Contains(r.html[1], "FAKE_ECHARTS_LIBRARY") {
		t.Error("second output carries the library again")
	}
	for i, h := range r.html {
		if strings.Contains(h, "src=") {
			t.Errorf("output %d loads a script by URL", i)
		}
	}
}

func TestChartMissingLibrary(t *testing.T) {
	r := fakeNotebook(t, true)
	t.Setenv("BPINN_ECHARTS_JS", filepath.Join(t.TempDir(), "missing.js"))
	err := Chart(testChart())
	if err == nil || !strings.Contains(err.Error(), "scripts/setup.sh") {
		t.Errorf("got error %v, want one naming scripts/setup.sh", err)
	}
	if len(r.html) != 0 {
		t.Error("displayed HTML despite the error")
	}
}

func TestProgress(t *testing.T) {
	r := fakeNotebook(t, true)
	p := Progress{Title: "ensemble <1>"}
	p.Start(4)
	r.clock = r.clock.Add(10 * time.Millisecond)
	p.Update(1, "throttled") // within Interval of Start: not drawn
	r.clock = r.clock.Add(time.Second)
	p.Update(2, "E_T < 0.1")
	p.Update(4, "last") // reaching the total always draws
	r.clock = r.clock.Add(time.Second)
	p.Done()
	if len(r.updates) != 1 {
		t.Fatalf("got %d display ids, want 1", len(r.updates))
	}
	for _, ups := range r.updates {
		if len(ups) != 4 {
			t.Fatalf("got %d updates, want 4 (start, 2, 4, done): %q", len(ups), ups)
		}
		for _, want := range []string{"ensemble &lt;1&gt;", `value="0" max="4"`} {
			if !strings.Contains(ups[0], want) {
				t.Errorf("start %q lacks %q", ups[0], want)
			}
		}
		if !strings.Contains(ups[1], "2/4 (50%)") || !strings.Contains(ups[1], "E_T &lt; 0.1") {
			t.Errorf("update %q lacks 2/4 (50%%) or the escaped text", ups[1])
		}
		// All steps counted but not Done (a fit's polish after its last
		// epoch): an indeterminate bar, never 100 % before Done.
		if !strings.Contains(ups[2], "4/4, finishing") || !strings.Contains(ups[2], "last") ||
			strings.Contains(ups[2], "100%") || strings.Contains(ups[2], "value=") {
			t.Errorf("update at the total %q: want an indeterminate bar saying finishing and the text", ups[2])
		}
		if !strings.Contains(ups[3], "4/4 (100%)") || !strings.Contains(ups[3], "done in 2s") {
			t.Errorf("final %q lacks the elapsed time", ups[3])
		}
	}
}

// heat is the paper's heat problem and its schedule.
func heat() (*pde.Problem, schedule.Schedule) {
	e, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	return e.New(problems.Options{}), e.Schedule(problems.Options{})
}

// Train's bar goes on after the last epoch: "finishing" with each stage,
// then done; its default title names the network the problem chose.
func TestTrainProgress(t *testing.T) {
	r := fakeNotebook(t, true)
	p, sch := heat()
	f, err := Train(context.Background(), "", p, bayes.Settings{Schedule: sch, Seed: 1, Epochs: 200, Hyper: bayes.HyperSteps{Start: 100}})
	if err != nil || f.Status != bayes.StatusOK {
		t.Fatalf("fit %v, error %v", f, err)
	}
	if len(r.updates) != 1 {
		t.Fatalf("got %d bars, want 1", len(r.updates))
	}
	for _, ups := range r.updates {
		if !strings.Contains(ups[0], "heat, 2-6-1 net") {
			t.Errorf("first draw %q lacks the title heat, 2-6-1 net", ups[0])
		}
		var stages []string
		for _, u := range ups[:len(ups)-1] {
			if strings.Contains(u, "100%") {
				t.Errorf("100%% before the fit ended: %q", u)
			}
			if strings.Contains(u, "200/200, finishing") {
				stages = append(stages, u)
			}
		}
		if len(stages) < 4 || !strings.Contains(stages[1], "polish") || !strings.Contains(stages[2], "final round 1 of") ||
			!strings.Contains(stages[len(stages)-1], "Laplace") {
			t.Errorf("stages after the last epoch: %q; want polish, the final rounds, Laplace", stages)
		}
		if last := ups[len(ups)-1]; !strings.Contains(last, "200/200 (100%)") || !strings.Contains(last, "done in") {
			t.Errorf("last draw %q: want 100%% and done", last)
		}
	}
	if _, err := Train(context.Background(), "", p, bayes.Settings{Seed: 1, Epochs: -1}); err == nil {
		t.Error("Train with Epochs -1: no error")
	}
}

// TrainEnsemble's bar reaches its total with the last fit.
func TestTrainEnsembleProgress(t *testing.T) {
	r := fakeNotebook(t, true)
	p, sch := heat()
	run, err := TrainEnsemble(context.Background(), "", p, bayes.Settings{Schedule: sch, Epochs: 100, Hyper: bayes.HyperSteps{Start: 50}}, []uint64{1, 2}, runner.EnsembleOptions{Workers: 2})
	if err != nil || run.Best == nil {
		t.Fatalf("run %v, error %v", run, err)
	}
	for _, ups := range r.updates {
		if !strings.Contains(ups[0], "heat, 2-6-1 net, 2 fits") {
			t.Errorf("first draw %q lacks the title", ups[0])
		}
		if last := ups[len(ups)-1]; !strings.Contains(last, "200/200 (100%)") || !strings.Contains(last, "2 of 2 fits done") {
			t.Errorf("last draw %q: want 200/200 (100%%) and 2 of 2 fits done", last)
		}
	}
}

// TestFitHelpers: in a notebook the fit helpers display the summary and
// the ensemble tables and the figures (the slices with both bands: three
// figures), outside one nothing; Must and Check stop a cell at an error.
func TestFitHelpers(t *testing.T) {
	p := problems.Heat(problems.Options{})
	sch := schedule.Schedule{Hidden: []int{4}, Epochs: 150, HyperStart: 100}
	f, err := bayes.Train(context.Background(), p, bayes.Settings{Seed: 1, Schedule: sch})
	if err != nil {
		t.Fatal(err)
	}
	r := fakeNotebook(t, true)
	Summary(f)
	Ranked([]*bayes.Fit{f})
	Field(f, 10)
	Slices(f, 0, 1)
	x, pts, err := figdata.Along(p, "x", 11, map[string]float64{"t": 0})
	if err != nil {
		t.Fatal(err)
	}
	c := Quantity(f, viz.Labels{Title: "u(x, 0)"}, x, pts, func(v *pde.Vars) *ad.Node { return v.U }, p.Exact)
	if len(r.html) != 2 || !strings.Contains(r.html[0], "<caption>heat</caption>") || !strings.Contains(r.html[1], "1 fits by evidence") {
		t.Errorf("html outputs %d, want the summary and the ensemble table: %q", len(r.html), r.html)
	}
	if len(r.png) != 2+3+1 || len(c.Mean) != 11 || math.IsNaN(c.Errors.RelL2) {
		t.Errorf("%d figures, want 6 (field 2, slices 3, quantity 1); curve %+v", len(r.png), c)
	}

	r = fakeNotebook(t, false)
	Summary(f)
	Slices(f)
	if len(r.html)+len(r.png) != 0 {
		t.Errorf("outside a notebook: %d outputs, want none", len(r.html)+len(r.png))
	}
	if v := Must(1, nil); v != 1 {
		t.Errorf("Must(1, nil) = %d", v)
	}
	defer func() {
		if e := recover(); e == nil || !strings.Contains(fmt.Sprint(e), "boom") {
			t.Errorf("Must with an error: recovered %v, want the error", e)
		}
	}()
	Must(0, errors.New("boom"))
}

// TestEnsembleFile: Ensemble writes every fit to its file, ReadResults
// reads them back and BestFit rebuilds the best one; a chart that cannot
// be made stops the cell.
func TestEnsembleFile(t *testing.T) {
	fakeNotebook(t, false)
	p := problems.Heat(problems.Options{})
	sch := schedule.Schedule{Hidden: []int{4}, Epochs: 150, HyperStart: 100}
	path := filepath.Join(t.TempDir(), "sub", "heat.jsonl")
	best, err := Ensemble(p, bayes.Settings{Schedule: sch}, 2, path)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ReadResults(path)
	if err != nil || len(rs) != 2 {
		t.Fatalf("read %d results (%v), want 2", len(rs), err)
	}
	back, err := BestFit(p, path)
	if err != nil || back.Settings.Seed != best.Settings.Seed || back.Laplace.LogEvidence != best.Laplace.LogEvidence {
		t.Errorf("BestFit: seed %d (%v), want the ensemble's best %d with its ln Z", back.Settings.Seed, err, best.Settings.Seed)
	}
	if s := Seeds(3); len(s) != 3 || s[0] != 1 || s[2] != 3 {
		t.Errorf("Seeds(3) = %v", s)
	}
	defer func() {
		if recover() == nil {
			t.Error("DrawChart with an error: no panic")
		}
	}()
	DrawChart(nil, errors.New("no chart"))
}
