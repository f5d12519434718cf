package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/pagecheck"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// fakeECharts points viz at a small stand-in for echarts.min.js, so the
// tests need neither the network nor scripts/setup.sh.
func fakeECharts(t *testing.T) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(p, []byte("window.echarts = {init: function () { return {setOption: function () {}}; }};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BPINN_ECHARTS_JS", p)
}

// wantFigures are the figures of a complete run, by study.
var wantFigures = map[string][]string{
	"hmc":          {"laplace-vs-hmc", "evidence-histogram", "evidence-vs-error"},
	"heat":         {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	"heat-lhs":     {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	"wave":         {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band", "error-band-calibrated", "error-map"},
	"wave-full":    {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band", "error-band-calibrated", "error-map"},
	"burgers":      {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	"burgers-deep": {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	"scan":         {"evidence-vs-hidden", "evidence-vs-error"},
	// The inverse studies (issue 20) have the forward studies' figures.
	"heat-inverse":    {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	"wave-inverse":    {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	"burgers-inverse": {"points", "evidence-histogram", "evidence-vs-error", "training", "slices", "error-band-calibrated", "error-map"},
	// One input and two fields: the populations in time, no slices or maps of u(x, t).
	"lotka-volterra-inverse": {"evidence-histogram", "evidence-vs-error", "populations"},
}

var (
	figureRE = regexp.MustCompile(`(?s)<figure class="figure" id="fig-([^"]+)">(.*?)</figure>`)
	numRE    = regexp.MustCompile(`<td class="num">([^<]*)</td>`)
	tableRE  = regexp.MustCompile(`<section class="table" id="([^"]+)">`)
)

// checkPage checks report.html: one chart per figure of want (and no
// other figure), the five tables, every numeric cell a finite number, no
// NaN or TODO, nothing loaded from the network, the library inlined.
func checkPage(t *testing.T, page []byte, want map[string][]string) {
	t.Helper()
	s := string(page)
	got := map[string]bool{}
	for _, m := range figureRE.FindAllStringSubmatch(s, -1) {
		got[m[1]] = true
		if n := strings.Count(m[2], `class="bpinn-chart"`); n != 1 {
			t.Errorf("figure %s has %d chart divs, want 1", m[1], n)
		}
	}
	n := 0
	for study, ids := range want {
		for _, id := range ids {
			n++
			if !got[study+"-"+id] {
				t.Errorf("figure %s-%s missing from report.html", study, id)
			}
		}
	}
	if len(got) != n {
		t.Errorf("report.html has %d figures, want %d", len(got), n)
	}
	tables := []string{"summary", "table1", "table2", "sampling", "table3", "inverse", "settings"}
	if want["scan"] != nil {
		tables = append(tables, "scan") // only when the scan ran
	}
	for _, id := range tables {
		if !strings.Contains(s, `<section class="table" id="`+id+`">`) {
			t.Errorf("table %s missing", id)
		}
	}
	if k := len(tableRE.FindAllString(s, -1)); k != len(tables) {
		t.Errorf("%d tables, want %d", k, len(tables))
	}
	cells := numRE.FindAllStringSubmatch(s, -1)
	if len(cells) < 40 {
		t.Errorf("only %d numeric cells", len(cells))
	}
	for _, c := range cells {
		if v, err := strconv.ParseFloat(html.UnescapeString(c[1]), 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("numeric cell %q is not a finite number", c[1])
		}
	}
	// Word boundaries: go-echarts' random 12-letter chart ids can spell "NaN".
	for _, loc := range pagecheck.Bad.FindAllStringIndex(s, -1) {
		t.Errorf("report.html holds %q: ...%s...", s[loc[0]:loc[1]], s[max(0, loc[0]-80):min(len(s), loc[1]+80)])
	}
	if !regexp.MustCompile(`(?s)<head>.*window\.echarts.*</head>`).MatchString(s) {
		t.Error("the echarts library is not inlined in <head>")
	}
}

func TestRunTiny(t *testing.T) {
	fakeECharts(t)
	dir := t.TempDir()
	rep, err := Run(context.Background(), Config{Plan: Tiny(), Out: dir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Failed(); len(f) > 0 {
		t.Fatalf("study %s failed: %v", f[0].Name, f[0].Err)
	}
	pg, page := writePage(t, rep, dir)
	if len(pg.Failures) > 0 {
		t.Errorf("failures: %+v", pg.Failures)
	}
	checkPage(t, page, wantFigures)
	checkRowWidths(t, pg.Tables)
	for _, tb := range pg.Tables {
		if tb.ID == "summary" {
			checkWarningLegend(t, tb)
			if len(tb.Legend) > 0 && !bytes.Contains(page, []byte(`<ul class="legend"><li>`+html.EscapeString(tb.Legend[0]))) {
				t.Errorf("report.html does not show the summary's legend %q", tb.Legend[0])
			}
		}
		if tb.ID != "inverse" {
			continue
		}
		var got []string
		for _, row := range tb.Rows {
			got = append(got, row[0].Text+" "+row[1].Text)
		}
		if want := []string{"heat-inverse kappa", "wave-inverse c", "burgers-inverse nu",
			"lotka-volterra-inverse a", "lotka-volterra-inverse b", "lotka-volterra-inverse c", "lotka-volterra-inverse d"}; !slices.Equal(got, want) {
			t.Errorf("inverse table rows %q, want %q", got, want)
		}
	}
	if c := rep.Study("heat").Fits[0].CoverageHeldOut; math.IsNaN(c) {
		t.Error("heat's records carry no held-out coverage")
	}
	if bytes.Contains(page, []byte(`id="failures"`)) {
		t.Error("a run without failures shows a failure section")
	}
	// What the plan runs short of the paper's, under the title of both.
	if about := Tiny().About; !bytes.Contains(page, []byte(html.EscapeString(about))) || !strings.Contains(pg.Markdown(), about) {
		t.Errorf("the report does not say what the plan runs: %q", about)
	}
	// The raw fits: one JSON line per fit, every study.
	for _, st := range rep.Studies {
		rs, torn, err := record.ReadResults(filepath.Join(dir, st.Name+".jsonl"))
		if err != nil || torn {
			t.Fatalf("%s.jsonl: torn %v, %v", st.Name, torn, err)
		}
		if len(rs) != len(st.Seeds) {
			t.Errorf("%s.jsonl has %d fits, want %d", st.Name, len(rs), len(st.Seeds))
		}
	}
	checkSampling(t, dir, pg.Tables, rep)
	// burgers-deep is the net the evidence prefers, with redrawn points.
	if s := rep.Study("burgers-deep").Resolved; !slices.Equal(s.Hidden, []int{6, 6, 6}) || s.Resample != 100 || rep.Study("burgers-deep").Problem != "burgers" {
		t.Errorf("burgers-deep: hidden %v, resample %d, want [6 6 6], 100", s.Hidden, s.Resample)
	}
	if !bytes.Contains(page, []byte(", points redrawn every 100 Adam epochs</td>")) {
		t.Error("the settings table does not say that burgers-deep redraws its points")
	}
	// heat-lhs is heat on Latin hypercube points: its records say so, and
	// its points are not heat's.
	rs, _, err := record.ReadResults(filepath.Join(dir, "heat-lhs.jsonl"))
	if err != nil || len(rs) == 0 || rs[0].Problem != "heat" || rs[0].Sampling != string(pde.LatinHypercube) {
		t.Errorf("heat-lhs.jsonl: %v, first record %+v", err, rs[:min(len(rs), 1)])
	}
	if lhs, uni := rep.Study("heat-lhs").Best, rep.Study("heat").Best; lhs == nil || uni == nil ||
		slices.Equal(lhs.Model.Problem.Terms[0].Points[0], uni.Model.Problem.Terms[0].Points[0]) {
		t.Error("heat-lhs: no best fit, or the same points as heat")
	}
	if !bytes.Contains(page, []byte(", Latin hypercube points</td>")) {
		t.Error("the settings table does not say that heat-lhs draws a Latin hypercube")
	}
	if !bytes.Contains(page, []byte("burgers-deep: exact and predicted u")) {
		t.Error("burgers-deep's figures are titled as the paper's burgers")
	}
	for _, f := range pg.Figures {
		b, err := os.ReadFile(filepath.Join(dir, "figures", f.ID+".png"))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("figures/%s.png: not a PNG (%v)", f.ID, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil || !strings.Contains(string(md), "| heat | Bayesian |") {
		t.Errorf("results.md lacks Table 3's heat row (%v)", err)
	}
}

func TestFailedStudy(t *testing.T) {
	fakeECharts(t)
	dir := t.TempDir()
	rep, err := Run(context.Background(), Config{Plan: Tiny(), Out: dir, Workers: 2, Only: []string{"heat", "wave"}, FailStudy: "wave"})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Failed(); len(f) != 1 || f[0].Name != "wave" || !strings.Contains(f[0].Err.Error(), "injected failure") {
		t.Fatalf("failed studies %v, want wave with the injected panic", f)
	}
	pg, page := writePage(t, rep, dir)
	checkPage(t, page, map[string][]string{"heat": wantFigures["heat"]})
	checkRowWidths(t, pg.Tables)
	sec := regexp.MustCompile(`(?s)<section class="failures" id="failures">.*?</section>`).Find(page)
	if sec == nil || !bytes.Contains(sec, []byte("study wave")) || !bytes.Contains(sec, []byte("injected failure")) {
		t.Errorf("no failure section naming study wave and why:\n%s", sec)
	}
}

// checkSampling checks the sampled studies of a tiny run: the regression
// and heat, each with its row in the sampling table (a grid of 201 and of
// 21 x 21 points, the draws of its plan, a finite R-hat) and its record
// (hmc.json, hmc-heat.json) holding the comparison.
func checkSampling(t *testing.T, dir string, tables []Table, rep *Report) {
	t.Helper()
	var tb Table
	for _, x := range tables {
		if x.ID == "sampling" {
			tb = x
		}
	}
	plan := Tiny()
	want := []struct {
		study, file, points string
		draws               int
	}{{"hmc", "hmc.json", "201", plan.HMC.Samples}, {"heat", "hmc-heat.json", "441", plan.HeatHMC.Samples * plan.HeatHMC.Chains}}
	if len(tb.Rows) != len(want) {
		t.Fatalf("sampling table has %d rows, want %d", len(tb.Rows), len(want))
	}
	col := map[string]int{}
	for i, h := range tb.Head {
		col[h] = i
	}
	for i, w := range want {
		row := tb.Rows[i]
		if row[0].Text != w.study || row[col["grid points"]].Text != w.points || !strings.HasSuffix(row[col["divergent / draws"]].Text, fmt.Sprintf(" / %d", w.draws)) {
			t.Errorf("sampling row %d: %q, %q points, %q; want %s, %s points, %d draws", i, row[0].Text, row[col["grid points"]].Text, row[col["divergent / draws"]].Text, w.study, w.points, w.draws)
		}
		if !row[col["max R-hat"]].Num || !row[col["2σ coverage, sampled"]].Num {
			t.Errorf("sampling row %s: R-hat %q, coverage %q not numbers", w.study, row[col["max R-hat"]].Text, row[col["2σ coverage, sampled"]].Text)
		}
		b, err := os.ReadFile(filepath.Join(dir, w.file))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			FitSeed    uint64                `json:"fit_seed"`
			Comparison *posterior.Comparison `json:"comparison"`
		}
		if err := json.Unmarshal(b, &rec); err != nil || rec.Comparison == nil {
			t.Fatalf("%s: %v", w.file, err)
		}
		st := rep.Study(w.study)
		if c := rec.Comparison; rec.FitSeed != st.Best.Settings.Seed || c.Problem != st.Problem || len(c.Sampled.Mean) != len(st.HMC.Sampled.Mean) ||
			c.Diagnostics.MaxRHat == nil {
			t.Errorf("%s: fit seed %d problem %s, %d points; want the best fit %d of %s, %d points and an R-hat", w.file, rec.FitSeed, c.Problem,
				len(c.Sampled.Mean), st.Best.Settings.Seed, st.Problem, len(st.HMC.Sampled.Mean))
		}
	}
}

// checkRowWidths checks that every row of every table has a cell per
// column (a failed study's row too).
func checkRowWidths(t *testing.T, tables []Table) {
	t.Helper()
	for _, tb := range tables {
		for i, row := range tb.Rows {
			if len(row) != len(tb.Head) {
				t.Errorf("table %s row %d: %d cells for %d columns", tb.ID, i, len(row), len(tb.Head))
			}
		}
	}
}

// TestTable3 checks the selection of Table 3 on made-up fits: the fixed
// baseline's five best by error, the Bayesian five best by evidence.
func TestTable3(t *testing.T) {
	t.Parallel()
	var fixed, bayesFits []FitRecord
	for i := range 8 {
		e := 0.01 * float64(i+1) // errors 0.01 .. 0.08
		fixed = append(fixed, FitRecord{Seed: uint64(i + 1), RelL2: e, MAD: e / 2, LogEvidence: float64(i)})
		// Evidence highest for the largest errors: the five best by
		// evidence are errors 0.04 .. 0.08.
		bayesFits = append(bayesFits, FitRecord{Seed: uint64(i + 1), RelL2: e, MAD: e / 2, LogEvidence: float64(i)})
	}
	bayesFits = append(bayesFits, FitRecord{Seed: 9, RelL2: 0.001, MAD: 0.001, LogEvidence: math.NaN()})
	r := &Report{Studies: []*Study{
		{Name: "heat-fixed", Base: bayes.Settings{Fixed: bayes.FixedWeights{On: true}}, Fits: fixed},
		{Name: "heat", Fits: bayesFits},
	}}
	tb := r.table3()
	cell := func(row, col int) float64 {
		t.Helper()
		v, err := strconv.ParseFloat(tb.Rows[row][col].Text, 64)
		if err != nil {
			t.Fatalf("row %d col %d: %q", row, col, tb.Rows[row][col].Text)
		}
		return v
	}
	for _, c := range []struct {
		row, col int
		want     float64
	}{
		{0, 3, 0.01}, {0, 5, 0.03}, {0, 7, 0.015}, // fixed: errors 0.01..0.05
		{1, 3, 0.08}, {1, 5, 0.06}, {1, 7, 0.03}, // Bayes: evidence 7..3, errors 0.08..0.04
		{0, 4, 0.00538}, {1, 4, 0.00508}, {1, 6, 0.00678}, // the paper's
	} {
		if got := cell(c.row, c.col); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Table 3 row %d (%s) col %s: got %g, want %g", c.row, tb.Rows[c.row][1].Text, tb.Head[c.col], got, c.want)
		}
	}
	if tb.Rows[2][2].Text != "not run" {
		t.Errorf("wave fixed, not run: got %q", tb.Rows[2][2].Text)
	}
}

func TestMarkdownEscapesBars(t *testing.T) {
	t.Parallel()
	md := Table{Caption: "c", Head: []string{"a"}, Rows: [][]Cell{{txt("|x|")}}}.Markdown()
	if !strings.Contains(md, `| \|x\| |`) {
		t.Errorf("got\n%s", md)
	}
}

// The burgers-wide pair: WideFits fits each with the settings of the
// study (evidence on the problem's schedule: structure auto, the data noise
// held, points redrawn; the baseline every weight 1 on mean squares, alpha
// at its least, no known noise, fixed points), left out of a plan without
// them.
func TestWideStudies(t *testing.T) {
	t.Parallel()
	cfg := Config{Plan: Quick()}
	w, f := newStudy("burgers-wide", &cfg), newStudy("burgers-wide-fixed", &cfg)
	if len(w.Seeds) != 2 || len(f.Seeds) != 2 || w.Problem != "burgers-wide" || f.Problem != "burgers-wide" {
		t.Errorf("quick: %d and %d fits of %s, %s; want 2 of burgers-wide each", len(w.Seeds), len(f.Seeds), w.Problem, f.Problem)
	}
	p, err := problems.New("burgers-wide", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Base.Seed, f.Base.Seed = 1, 1 // a study's Base leaves the seed to each fit
	ws, err := w.Base.Resolve(p)
	if err != nil || ws.Curvature != "diag" || ws.KnownNoise["data"] != 0.02 || ws.Resample == 0 || ws.Fixed.On {
		t.Errorf("burgers-wide settings %+v (%v)", ws, err)
	}
	fs, err := f.Base.Resolve(p)
	if err != nil || !fs.Fixed.On || !fs.Fixed.Mean || fs.Fixed.Alpha != bayes.MinHyper || fs.Fixed.Beta != 1 || len(fs.KnownNoise) != 0 || fs.Resample != 0 {
		t.Errorf("burgers-wide-fixed settings %+v (%v)", fs, err)
	}
	rep, err := Run(context.Background(), Config{Plan: Tiny(), Out: t.TempDir(), Only: []string{"burgers-wide", "burgers-wide-fixed"}})
	if err != nil || len(rep.Studies) != 0 {
		t.Errorf("tiny plan ran %d wide studies (%v), want none", len(rep.Studies), err)
	}
}

// The lid-driven pair: LidFits fits each of the problem's unscaled
// schedule, the baseline PINNacle's loss (every weight 1 on mean squares,
// alpha at its least); left out of a plan without them.
func TestLidStudies(t *testing.T) {
	t.Parallel()
	cfg := Config{Plan: Quick()}
	l, f := newStudy("lid-driven", &cfg), newStudy("lid-driven-fixed", &cfg)
	if len(l.Seeds) != 1 || len(f.Seeds) != 1 || l.Problem != "lid-driven" || f.Problem != "lid-driven" {
		t.Errorf("quick: %d and %d fits of %s, %s; want 1 of lid-driven each", len(l.Seeds), len(f.Seeds), l.Problem, f.Problem)
	}
	if l.Base.Fixed.On || !f.Base.Fixed.On || !f.Base.Fixed.Mean || f.Base.Fixed.Alpha != bayes.MinHyper || f.Base.Fixed.Beta != 1 {
		t.Errorf("settings %+v and %+v: want the evidence, and PINNacle's loss", l.Base, f.Base)
	}
	if full := newStudy("lid-driven", &Config{Plan: Full()}); len(full.Seeds) != 3 {
		t.Errorf("full: %d lid-driven fits, want 3", len(full.Seeds))
	}
	rep, err := Run(context.Background(), Config{Plan: Tiny(), Out: t.TempDir(), Only: []string{"lid-driven", "lid-driven-fixed"}})
	if err != nil || len(rep.Studies) != 0 {
		t.Errorf("tiny plan ran %d lid-driven studies (%v), want none", len(rep.Studies), err)
	}
}

// The burgers-identify pair: IdentifyFits fits each of the problem's
// unscaled schedule (the evidence), the baseline Raissi's loss (both mean
// squares with weight 1, alpha at its least); only in the full plan.
func TestIdentifyStudies(t *testing.T) {
	t.Parallel()
	cfg := Config{Plan: Full()}
	cfg.EpochScale = 0.5
	e, f := newStudy("burgers-identify", &cfg), newStudy("burgers-identify-fixed", &cfg)
	if len(e.Seeds) != 3 || len(f.Seeds) != 3 || e.Problem != "burgers-identify" || f.Problem != "burgers-identify" {
		t.Errorf("full: %d and %d fits of %s, %s; want 3 of burgers-identify each", len(e.Seeds), len(f.Seeds), e.Problem, f.Problem)
	}
	if e.Base.Fixed.On || !f.Base.Fixed.On || !f.Base.Fixed.Mean || f.Base.Fixed.Alpha != bayes.MinHyper || f.Base.Fixed.Beta != 1 {
		t.Errorf("settings %+v and %+v: want the evidence, and Raissi's loss", e.Base, f.Base)
	}
	for _, quick := range []Plan{Quick(), Tiny()} {
		rep, err := Run(context.Background(), Config{Plan: quick, Out: t.TempDir(), Only: []string{"burgers-identify", "burgers-identify-fixed"}})
		if err != nil || len(rep.Studies) != 0 {
			t.Errorf("%s plan ran %d burgers-identify studies (%v), want none", quick.Name, len(rep.Studies), err)
		}
	}
	// The unknowns' table: the evidence's fit by evidence, the baseline's
	// by error, each against the truth.
	truth, nu := 1.0, problems.BurgersNu()
	fits := func(l1, l2 float64) []FitRecord {
		return []FitRecord{{Seed: 1, LogEvidence: 1, RelL2: 0.01, Unknowns: []score.Unknown{
			{Name: "l1", Value: l1, SD: 0.001, Lo95: l1 - 0.002, Hi95: l1 + 0.002, Truth: &truth},
			{Name: "l2", Positive: true, Value: l2, SD: 0.01, Lo95: l2 * 0.98, Hi95: l2 * 1.02, Truth: &nu}}}}
	}
	r := &Report{Studies: []*Study{{Name: "burgers-identify", Fits: fits(1.001, nu)}, {Name: "burgers-identify-fixed", Base: bayes.Settings{Fixed: bayes.FixedWeights{On: true}}, Fits: fits(0.99, 2*nu)}}}
	tab := r.inverseTable()
	if len(tab.Rows) != 4 || tab.Rows[0][0].Text != "burgers-identify" || tab.Rows[3][0].Text != "burgers-identify-fixed" || tab.Rows[3][1].Text != "l2" ||
		tab.Rows[1][9].Text != "1 of 1" || tab.Rows[3][9].Text != "n/a" || tab.Rows[3][5].Text != "none" || tab.Rows[3][4].Text != "none" ||
		tab.Rows[3][6].Text == "n/a" {
		t.Errorf("inverse table rows %+v: want l1, l2 of each study, the evidence's l2 interval holding the truth and the baseline's estimate with no interval", tab.Rows)
	}
}

// TestInverseTableBias checks the inverse table's note: a study whose
// intervals hold the truth in none of its three or more fits is named as
// biased, one whose intervals hold it is not.
func TestInverseTableBias(t *testing.T) {
	truth := 1.0
	fits := func(lo, hi float64) []FitRecord {
		var out []FitRecord
		for s := range 3 {
			out = append(out, FitRecord{Seed: uint64(s + 1), LogEvidence: float64(s), Unknowns: []score.Unknown{
				{Name: "c", Positive: true, Value: (lo + hi) / 2, SD: 0.01, Lo95: lo, Hi95: hi, Truth: &truth}}})
		}
		return out
	}
	r := &Report{Studies: []*Study{{Name: "wave-inverse", Fits: fits(0.99, 1.01)}, {Name: "burgers-inverse", Fits: fits(1.5, 1.6)}}}
	tb := r.inverseTable()
	if len(tb.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(tb.Rows))
	}
	if !strings.Contains(tb.Note, "burgers-inverse: at most one fit in ten has an interval that holds the truth") || strings.Contains(tb.Note, "wave-inverse:") {
		t.Errorf("note %q: want burgers-inverse named as biased, wave-inverse not", tb.Note)
	}
	// A fixed-weight baseline shows no interval, so its hidden ones are
	// not counted as the model's bias.
	fixed := &Report{Studies: []*Study{{Name: "burgers-identify-fixed", Base: bayes.Settings{Fixed: bayes.FixedWeights{On: true}}, Fits: fits(1.5, 1.6)}}}
	if note := fixed.inverseTable().Note; strings.Contains(note, "burgers-identify-fixed:") {
		t.Errorf("note %q names the fixed-weight baseline, whose intervals the table does not show", note)
	}
	if r.Studies = r.Studies[:1]; strings.Contains(r.inverseTable().Note, "bias") {
		t.Errorf("a study that covers is called biased: %q", r.inverseTable().Note)
	}
	// One interval of ten holding the truth is still the model's bias (the
	// full run's burgers-inverse: 1 of 33); two of ten are not called so.
	for _, c := range []struct {
		covered int
		biased  bool
	}{{1, true}, {2, false}} {
		fs := fits(1.5, 1.6)
		for len(fs) < 10 {
			fs = append(fs, fs[0])
		}
		for i := range c.covered {
			fs[i].Unknowns = []score.Unknown{{Name: "c", Positive: true, Value: 1, SD: 0.01, Lo95: 0.99, Hi95: 1.01, Truth: &truth}}
		}
		r := &Report{Studies: []*Study{{Name: "burgers-inverse", Fits: fs}}}
		if got := strings.Contains(r.inverseTable().Note, "bias"); got != c.biased {
			t.Errorf("%d of 10 intervals hold the truth: called biased %v, want %v", c.covered, got, c.biased)
		}
	}
}

// TestHeldValues: the summary's beta cell marks a beta held at a known
// noise, names several and leaves one group unnamed.
func TestHeldValues(t *testing.T) {
	for _, c := range []struct {
		names []string
		v     []float64
		held  []bool
		want  string
	}{
		{[]string{"beta_pde", "beta_data"}, []float64{721, 2500}, []bool{false, true}, "beta_pde 721, beta_data 2500 (held)"},
		{[]string{"beta_pde", "beta_data"}, []float64{721, 2500}, nil, "beta_pde 721, beta_data 2500"},
		{[]string{"beta"}, []float64{1e4}, []bool{true}, "1e+04 (held)"},
	} {
		if got := heldValues(c.names, c.v, c.held); got != c.want {
			t.Errorf("heldValues(%v, %v, %v) = %q, want %q", c.names, c.v, c.held, got, c.want)
		}
	}
}

// TestWarningLegend: the summary table shows each best fit's warnings as
// short codes, and the legend below it explains every code a row uses and
// no other. The sentences are bayes's (fit.go, calibrate.go,
// valuecheck.go, status.go); a change of their wording that loses a code fails here.
func TestWarningLegend(t *testing.T) {
	t.Parallel()
	sentences := map[string]string{
		"clamp":          "beta = 1e+08 is at the clamp [1e-08, 1e+08]: the log evidence is computed there, not at a fixed point",
		"unsettled":      "the final rounds did not settle: 20 rounds (the cap) ended moving a hyperparameter by 0.0123 (tolerance 0.001); raise FinalHyper or read the evidence as approximate",
		"overconf-ratio": "the 2-sigma band is likely overconfident: the beta_pde residuals are x37 larger at fresh points than at the training points (above 2); use the calibrated band",
		"overconf-value": "the 2-sigma band is likely overconfident: at fresh points of the conditions on u itself (u - target), 95 % of the errors are within 3.1 sigma (above 3); use the calibrated band",
		"too-wide":       "the 2-sigma band is likely too wide: at fresh points of the conditions on u (u - target), 95 % of the errors are within 0.076 sigma (below 1), and the fresh residuals are within 2 times what beta states; use the calibrated band",
		otherWarning:     "something no code knows",
		"uncalibrated":   "band uncalibrated for u: no check reads enough of its errors (no error estimate on a problem with measurements; 1 fresh points of conditions on its value (the value check reads 20 or more)); its calibrated band may be too narrow or too wide",
		"interval":       "the 95 % interval of nu, [0.004719, 0.005209], is likely unreliable: the beta_data residuals are x6.9 larger at new measurements than at the fit's own (above 2), so the fit follows its measurements more closely than the field, and nu, fitted to them, may carry the network's error beyond an interval that assumes none (at the calibrated betas [0.004403, 0.005583])",
		"cal-overconf":   "the calibrated band of u is likely overconfident: at 40 fresh points of its conditions on its value, 95 % of the errors lie within 4.2 sigma (above 3)",
		"cal-unchecked":  "the calibrated band of u is unchecked beyond its rms: the K-fold check sized it from 2500 measurements, at which its sigma (rms 0.034) is below the noise the fit states for them (1/sqrt(beta), 0.104); beneath the noise it cannot tell how the errors are spread, and whether 95 % of them lie within 2 sigma is unread",
	}
	for want, s := range sentences {
		if got := warningCode(s); got != want {
			t.Errorf("warningCode(%q) = %q, want %q", s, got, want)
		}
	}
	more := map[string]string{ // other sentences of the same codes
		"cal-unchecked":     "the calibrated band of u is unchecked where its equation is violated most: the beta_pde residuals are x8.8 larger at fresh points (above 2) and the pde residuals peak locally at x9.6 their rms (above 2); the band there is widened by the square root of that, and no check reads its errors there (at its conditions 95 % lie within 1 sigma)",
		"uncalibrated":      "band uncalibrated for a: only the value check reads its errors, at 500 fresh points of its conditions; inside the domain the equation fixes it from the measurements of u, whose noise moves it in ways no condition or residual shows",
		"overconf-estimate": "the 2-sigma band is likely overconfident: the error estimated from the residuals at fresh points puts 95 % of the errors within 4.4 sigma (above 3); use the calibrated band",
		"unmet":             `condition "initial" unmet: rms misfit 0.23 against values of rms 0.71 (ratio 0.33, above 0.25); the fit may have settled on ignoring it`,
		"refit":             "the fit from balanced betas left [initial] unmet after its Adam epochs and first polish; refitted with the conditions' betas 100x the equations' at the start (log evidence 1234), kept: it meets every condition (the first fit's remaining final rounds were not run)",
	}
	for _, s := range []string{ // the equations' unmet warnings (pkg/bayes Equation.Warning)
		(bayes.Equation{Term: "pde", Residual: 7, Source: 7, Ratio: 1}).Warning(),
		(bayes.Equation{Term: "pde", Residual: 24, Scale: 63, Ratio: 0.38}).Warning(),
	} {
		if got := warningCode(s); got != "unmet" {
			t.Errorf("warningCode(%q) = %q, want unmet", s, got)
		}
	}
	for want, s := range more {
		if got := warningCode(s); got != want {
			t.Errorf("warningCode(%q) = %q, want %q", s, got, want)
		}
	}
	fit := func(seed uint64, z float64, ws ...string) FitRecord {
		return FitRecord{Seed: seed, RelL2: 0.01, LogEvidence: z, Warnings: ws}
	}
	r := &Report{Studies: []*Study{
		// the best by evidence (seed 2) warns twice about its band; seed 1's clamp is not the best fit's
		{Name: "heat", Fits: []FitRecord{fit(1, 1, sentences["clamp"]), fit(2, 2, sentences["overconf-ratio"], sentences["overconf-value"], sentences["overconf-ratio"])}},
		{Name: "wave", Fits: []FitRecord{fit(1, 1, sentences["unsettled"], sentences[otherWarning])}},
		{Name: "burgers", Fits: []FitRecord{fit(1, 1)}},
	}}
	tb := r.summaryTable()
	col := slices.Index(tb.Head, "warnings (best fit)")
	if col < 0 {
		t.Fatalf("no warnings column in %q", tb.Head)
	}
	var cells []string
	for _, row := range tb.Rows {
		cells = append(cells, row[col].Text)
	}
	if want := []string{"overconf-ratio, overconf-value", "unsettled, other", ""}; !slices.Equal(cells, want) {
		t.Errorf("warnings cells %q, want %q", cells, want)
	}
	checkWarningLegend(t, tb)
	md := tb.Markdown()
	if !strings.Contains(md, "\n- unsettled: ") || strings.Contains(md, "- clamp") {
		t.Errorf("the Markdown legend lacks a used code or shows an unused one:\n%s", md)
	}
}

// checkWarningLegend checks that the summary's legend explains every
// warning code its rows use, and no other, each as "code: meaning".
func checkWarningLegend(t *testing.T, tb Table) {
	t.Helper()
	col := slices.Index(tb.Head, "warnings (best fit)")
	if col < 0 {
		t.Fatalf("no warnings column in %q", tb.Head)
	}
	var used, explained []string
	for _, row := range tb.Rows {
		if col >= len(row) {
			continue
		}
		for c := range strings.SplitSeq(row[col].Text, ", ") {
			if c != "" && !slices.Contains(used, c) {
				used = append(used, c)
			}
		}
	}
	for _, l := range tb.Legend {
		code, meaning, ok := strings.Cut(l, ": ")
		if !ok || len(meaning) < 20 {
			t.Errorf("legend line %q: want \"code: what it means\"", l)
		}
		explained = append(explained, code)
	}
	slices.Sort(used)
	slices.Sort(explained)
	if !slices.Equal(used, explained) {
		t.Errorf("warning codes used %q, the legend explains %q; want the same", used, explained)
	}
}

// writePage builds rep's page, writes it to dir and returns it with the
// report.html it wrote.
func writePage(t *testing.T, rep *Report, dir string) (*Page, []byte) {
	t.Helper()
	pg := Build(rep)
	if err := pg.Write(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	return pg, page
}

// TestScanTable: per size, the best fit by evidence, the mean evidence of
// the fits that have one, and the lowest error of all.
func TestScanTable(t *testing.T) {
	ok := string(bayes.StatusOK)
	st := &Study{Name: "scan", Fits: []FitRecord{
		{Seed: 1, Hidden: []int{2}, Status: ok, LogEvidence: 10, RelL2: 0.1},
		{Seed: 2, Hidden: []int{2}, Status: ok, LogEvidence: 20, RelL2: 0.2},
		{Seed: 3, Hidden: []int{4}, Status: "not-positive-definite", LogEvidence: math.NaN(), RelL2: 0.05},
		{Seed: 4, Hidden: []int{4}, Status: ok, LogEvidence: 30, RelL2: 0.08},
	}}
	want := [][]string{{"2", "2 (2)", "20.0", "0.2", "15.0", "0.1"}, {"4", "2 (1)", "30.0", "0.08", "30.0", "0.05"}}
	tb := scanTable(st)
	var got [][]string
	for _, r := range tb.Rows {
		var row []string
		for _, c := range r {
			row = append(row, c.Text)
		}
		got = append(got, row)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}
