package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/pagecheck"
	rpt "github.com/evidence-pinn/bpinn/pkg/report"
)

// fakeECharts points pkg/viz at a small stand-in for echarts.min.js.
func fakeECharts(t *testing.T) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(p, []byte("window.echarts = {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BPINN_ECHARTS_JS", p)
}

var chartDiv = regexp.MustCompile(`class="bpinn-chart"`)

// checkReport checks DIR/report.html against DIR/figures: one chart per
// PNG, the tables, nothing loaded from the network (pkg/report's tests check
// the page in detail).
func checkReport(t *testing.T, dir string) []byte {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "figures", "*.png"))
	if n := len(chartDiv.FindAll(page, -1)); n == 0 || n != len(pngs) {
		t.Errorf("report.html has %d charts, figures/ %d PNGs", n, len(pngs))
	}
	for _, p := range pngs {
		id := strings.TrimSuffix(filepath.Base(p), ".png")
		if !bytes.Contains(page, []byte(`id="fig-`+id+`"`)) {
			t.Errorf("figure %s has a PNG but no chart", id)
		}
	}
	for _, id := range []string{"table1", "table2", "sampling", "table3"} {
		if !bytes.Contains(page, []byte(`<section class="table" id="`+id+`">`)) {
			t.Errorf("report.html lacks %s", id)
		}
	}
	if bad := pagecheck.Bad.Find(page); bad != nil {
		t.Errorf("report.html holds %q", bad)
	}
	return page
}

func TestReproduceTiny(t *testing.T) {
	fakeECharts(t)
	dir := filepath.Join(t.TempDir(), "out") // created by the command
	code, out, errOut := cli(t, "reproduce", "--tiny", "--out", dir, "--workers", "2", "--seed-base", "3")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	page := checkReport(t, dir)
	if n := len(chartDiv.FindAll(page, -1)); n != 73 { // 37 + heat-lhs's 6 + a calibrated band per PDE study + the inverse studies' 3 x 7 + lotka-volterra-inverse's 3
		t.Errorf("%d charts, want 73", n)
	}
	if bytes.Contains(page, []byte(`id="failures"`)) {
		t.Error("failure section in a run without failures")
	}
	for _, f := range []string{"hmc.json", "hmc-heat.json", "hmc.jsonl", "heat.jsonl", "heat-lhs.jsonl", "wave.jsonl", "wave-full.jsonl", "burgers.jsonl", "burgers-deep.jsonl",
		"heat-fixed.jsonl", "wave-fixed.jsonl", "scan.jsonl", "heat-inverse.jsonl", "wave-inverse.jsonl", "burgers-inverse.jsonl", "lotka-volterra-inverse.jsonl", "results.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
	if !strings.Contains(out, "**Table 3") || !strings.Contains(out, "| wave | Bayesian | 3 |") {
		t.Errorf("stdout lacks Table 3:\n%s", out)
	}
	// Plain progress lines (stderr is not a terminal), one per fit.
	if n := strings.Count(errOut, "bpinn reproduce: heat "); n != 5 { // 3 fits + NUTS + done
		t.Errorf("%d heat progress lines, want 5:\n%s", n, errOut)
	}
	if !strings.Contains(errOut, "seed 5 ") { // seeds 3, 4, 5
		t.Errorf("--seed-base 3 not applied:\n%s", errOut)
	}
	// results.json: the tables stdout shows, with the command that made them.
	res, err := rpt.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "bpinn reproduce --out " + dir + " --seed-base 3 --tiny --workers 2"; res.Source.Command != want {
		t.Errorf("results.json's command %q, want %q", res.Source.Command, want)
	}
	if res.Source.Plan != "tiny" || res.Source.Date.IsZero() || !strings.Contains(res.Source.Machine, "cores") || !(res.Source.CPUSeconds > 0) {
		t.Errorf("results.json's source %+v lacks the plan, date, machine or CPU time", res.Source)
	}
	if tb := res.Table("table3"); tb == nil || !strings.Contains(out, "**"+tb.Caption+"**") {
		t.Errorf("results.json's table3 %+v is not the one on stdout", tb)
	}
}

func TestReproduceFailedStudy(t *testing.T) {
	fakeECharts(t)
	dir := t.TempDir()
	code, _, errOut := cli(t, "reproduce", "--tiny", "--out", dir, "--only", "heat,wave,burgers", "--fail-study", "wave")
	if code != exitFail {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFail, errOut)
	}
	if !strings.Contains(errOut, "FAILED study wave: panic: injected failure") {
		t.Errorf("stderr does not name the failed study:\n%s", errOut)
	}
	page := checkReport(t, dir)
	sec := regexp.MustCompile(`(?s)<section class="failures" id="failures">.*?</section>`).Find(page)
	if !bytes.Contains(sec, []byte("study wave")) || !bytes.Contains(sec, []byte("injected failure")) {
		t.Errorf("no failure section naming wave:\n%s", sec)
	}
	for _, id := range []string{"fig-heat-slices", "fig-burgers-slices"} {
		if !bytes.Contains(page, []byte(`id="`+id+`"`)) {
			t.Errorf("the studies that ran lost figure %s", id)
		}
	}
	if bytes.Contains(page, []byte(`id="fig-wave-`)) {
		t.Error("the failed study has figures")
	}
}

// TestReproduceNoHeatNUTS: heat's comparison with NUTS runs unless
// --no-heat-nuts leaves it out, and the settings table says which.
func TestReproduceNoHeatNUTS(t *testing.T) {
	fakeECharts(t)
	for _, skip := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"reproduce", "--tiny", "--only", "heat", "--workers", "1", "--out", dir}
		if skip {
			args = append(args, "--no-heat-nuts")
		}
		if code, _, errOut := cli(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
		_, err := os.Stat(filepath.Join(dir, "hmc-heat.json"))
		r, rerr := rpt.ReadResults(filepath.Join(dir, "results.json"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if sampled := err == nil; sampled == skip || strings.Contains(r.Table("settings").Note, "no sampling on heat") != skip {
			t.Errorf("--no-heat-nuts %v: hmc-heat.json written %v, settings note %q", skip, sampled, r.Table("settings").Note)
		}
	}
}

// TestReproduceShards: two shards of a tiny run, each without a report,
// and the report of both from --from; a lost shard fails its studies
// (pkg/report's TestShardsReport checks that the report equals one run's).
func TestReproduceShards(t *testing.T) {
	fakeECharts(t)
	dir := t.TempDir()
	tiny := []string{"reproduce", "--tiny", "--only", "heat,scan", "--workers", "2"}
	var shards []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprint("shard", i))
		code, stdout, errOut := cli(t, with(tiny, "--shard", fmt.Sprintf("%d/2", i), "--out", out)...)
		if code != exitOK || stdout != "" || !strings.Contains(errOut, fmt.Sprintf("shard %d/2 of every study in %s", i, out)) {
			t.Fatalf("shard %d: exit %d, stdout %q, stderr:\n%s", i, code, stdout, errOut)
		}
		if _, err := os.Stat(filepath.Join(out, "report.html")); err == nil {
			t.Errorf("shard %d wrote a report", i)
		}
		shards = append(shards, out)
	}
	all := filepath.Join(dir, "all")
	code, stdout, errOut := cli(t, with(tiny, "--from", strings.Join(shards, ","), "--out", all)...)
	if code != exitOK || !strings.Contains(stdout, "| heat | 3 |") {
		t.Fatalf("--from: exit %d, stderr:\n%s\nstdout:\n%s", code, errOut, stdout)
	}
	checkReport(t, all)
	code, _, errOut = cli(t, with(tiny, "--from", shards[1], "--out", filepath.Join(dir, "lost"))...)
	if code != exitFail || !strings.Contains(errOut, "FAILED study heat: the shards hold 1 of the study's 3 fits; missing seeds: 1, 3") {
		t.Errorf("--from one of two shards: exit %d, stderr:\n%s", code, errOut)
	}
}

func TestReproduceBadInput(t *testing.T) {
	fakeECharts(t) // not parallel: it sets the environment
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"out is a file", []string{"--out", file}, "is not a directory"},
		{"out under a file", []string{"--out", filepath.Join(file, "sub")}, "cannot create it"},
		{"bad workers", []string{"--workers", "-1", "--out", dir}, "--workers -1"},
		{"seed 0", []string{"--seed-base", "0", "--out", dir}, "seeds start at 1"},
		{"unknown flag", []string{"--fits", "3"}, "unknown flag --fits"},
		{"argument", []string{"heat"}, `unexpected argument "heat"`},
		{"unknown study", []string{"--only", "heat,nope", "--out", dir}, `--only: unknown study "nope": use one of hmc, heat,`},
		{"empty study", []string{"--only", "heat,,wave", "--out", dir}, `--only: unknown study ""`},
		{"study not in the plan", []string{"--quick", "--only", "burgers-identify", "--out", dir}, "the quick plan runs no burgers-identify fits"},
		{"unknown recipe", []string{"--recipe", "best", "--out", dir}, `--recipe best: use tuned or paper`},
		{"unknown failing study", []string{"--fail-study", "nope", "--out", dir}, `--fail-study: unknown study "nope"`},
		{"bad shard", []string{"--shard", "2/2", "--out", dir}, "0 <= I < N"},
		{"shard and from", []string{"--shard", "0/2", "--from", dir, "--out", dir}, "use one"},
		{"from no folder", []string{"--from", dir + "," + file, "--out", dir}, "--from " + file + ": not a folder"},
	} {
		code, out, errOut := cli(t, append([]string{"reproduce"}, c.args...)...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d (want 2), stdout %q, stderr %q (want one line with %q)", c.name, code, out, errOut, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("bad input wrote into --out: %d entries", len(ents))
	}
	// Without the echarts library nothing runs and --out is not created.
	t.Setenv("BPINN_ECHARTS_JS", filepath.Join(dir, "none.js"))
	out := filepath.Join(dir, "new")
	code, _, errOut := cli(t, "reproduce", "--tiny", "--out", out)
	if _, err := os.Stat(out); code != exitFail || !strings.Contains(errOut, "echarts library not found") || err == nil {
		t.Errorf("missing echarts: exit %d (want 1), stderr %q, --out created: %v", code, errOut, err == nil)
	}
}

func TestReproduceHelp(t *testing.T) {
	t.Parallel()
	code, out, errOut := cli(t, "reproduce", "--help")
	if code != 0 || errOut != "" || !strings.Contains(out, "usage: bpinn reproduce") || !strings.Contains(out, "--quick") || !strings.Contains(out, "--only STUDIES") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	for _, hidden := range []string{"--tiny", "--fail-study"} {
		if strings.Contains(out, hidden) {
			t.Errorf("--help shows the test-only flag %s", hidden)
		}
	}
}
