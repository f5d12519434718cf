package docfig

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/report"
)

// TestDocsMatchRuns fails when a figure a doc quotes differs from the
// run it names: rerun the run, or regenerate the doc (make docs-figures).
func TestDocsMatchRuns(t *testing.T) {
	stale, err := Update("../..", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Errorf("%s: %d quoted figures differ from their runs; make docs-figures rewrites them", s.Page, s.Blocks)
	}
}

func run() *report.Results {
	cell := func(s string) report.Cell { return report.Cell{Text: s} }
	return &report.Results{
		Source: report.Source{Commit: "0123456789abcdef", Date: time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC), Seconds: 529, Machine: "2 cores, linux/amd64",
			Command: "bpinn reproduce --quick", Plan: "quick"},
		Tables: []report.Table{{ID: "summary", Head: []string{"study", "rel L2", "q95"},
			Rows: [][]report.Cell{{cell("heat"), cell("0.00331"), cell("1.96")}, {cell("wave"), cell("0.00193"), cell("a|b")}}}},
	}
}

func read(path string) (*report.Results, error) {
	if path != "docs/runs/quick.json" {
		return nil, errors.New("no such run")
	}
	return run(), nil
}

func TestRenderTable(t *testing.T) {
	page := "Intro.\n\n<!-- bpinn:table docs/runs/quick.json summary columns=\"study|q95\" rows=\"wave|heat\" -->\nold\n<!-- /bpinn:table -->\n\nEnd.\n"
	out, n, err := Render(page, "docs/results", read)
	if err != nil {
		t.Fatal(err)
	}
	want := "Intro.\n\n<!-- bpinn:table docs/runs/quick.json summary columns=\"study|q95\" rows=\"wave|heat\" -->\n" +
		"| study | q95 |\n|---|---|\n| wave | a\\|b |\n| heat | 1.96 |\n\n" +
		"<sub>From [quick.json](../runs/quick.json): `bpinn reproduce --quick` at commit 0123456, 2026-12-06, 2 cores, linux/amd64, 8m49s.</sub>\n" +
		"<!-- /bpinn:table -->\n\nEnd.\n"
	if out != want || n != 1 {
		t.Errorf("%d changed, got\n%s\nwant\n%s", n, out, want)
	}
	// Generated once, the page is up to date.
	if again, n, err := Render(out, "docs/results", read); err != nil || n != 0 || again != out {
		t.Errorf("second render changed %d blocks (%v)", n, err)
	}
}

func TestRenderValue(t *testing.T) {
	page := `heat reaches <!-- bpinn:value docs/runs/quick.json summary row="heat" column="rel L2" -->0.5<!-- /bpinn:value --> on the grid`
	out, n, err := Render(page, ".", read)
	if err != nil || n != 1 || !strings.Contains(out, "-->0.00331<!--") {
		t.Errorf("got %q, %d changed, %v", out, n, err)
	}
}

func TestRenderErrors(t *testing.T) {
	for _, c := range []struct{ page, want string }{
		{"<!-- bpinn:table docs/runs/quick.json summary columns=\"study|ln Z\" -->\n<!-- /bpinn:table -->", `no column "ln Z"`},
		{"<!-- bpinn:table docs/runs/quick.json summary rows=\"burgers\" -->\n<!-- /bpinn:table -->", `no row "burgers"`},
		{"<!-- bpinn:table docs/runs/quick.json table9 -->\n<!-- /bpinn:table -->", `no table "table9" (it has summary)`},
		{"<!-- bpinn:table docs/runs/full.json summary -->\n<!-- /bpinn:table -->", "no such run"},
		{`<!-- bpinn:value docs/runs/quick.json summary row="heat" -->1<!-- /bpinn:value -->`, `needs row="..." and column="..."`},
		{"<!-- bpinn:table docs/runs/quick.json -->\n<!-- /bpinn:table -->", "a table ID"},
	} {
		if _, _, err := Render(c.page, ".", read); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.page, err, c.want)
		}
	}
}

// TestUpdateWrites rewrites a stale page of a repository and leaves it
// current.
func TestUpdateWrites(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs", "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := run()
	b, _ := os.ReadFile(writeRun(t, r))
	if err := os.WriteFile(filepath.Join(root, "docs", "runs", "quick.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	readme := "<!-- bpinn:value docs/runs/quick.json summary row=\"wave\" column=\"rel L2\" -->0.1<!-- /bpinn:value -->\n"
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "CONTRIBUTING.md"), []byte("No figures.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err := Update(root, true)
	if err != nil || len(stale) != 1 || stale[0].Page != "README.md" {
		t.Fatalf("stale %v, %v; want README.md", stale, err)
	}
	if stale, err := Update(root, false); err != nil || len(stale) != 0 {
		t.Errorf("after writing: stale %v, %v", stale, err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if !strings.Contains(string(got), "-->0.00193<!--") {
		t.Errorf("README.md not rewritten: %s", got)
	}
}

// writeRun writes r as bpinn reproduce does and returns its path.
func writeRun(t *testing.T, r *report.Results) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "results.json")
	if err := report.WriteResults(p, *r); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRenderWholeTable: without columns and rows, the table as results.md
// shows it, caption and note included.
func TestRenderWholeTable(t *testing.T) {
	r := run()
	r.Tables[0].Caption, r.Tables[0].Note = "Every study", "rel L2 on the grid"
	page := "<!-- bpinn:table docs/runs/quick.json summary -->\n<!-- /bpinn:table -->"
	out, _, err := Render(page, "docs", func(string) (*report.Results, error) { return r, nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := r.Tables[0].Markdown(); !strings.Contains(out, "-->\n"+want+"\n<sub>From [quick.json](runs/quick.json)") {
		t.Errorf("got\n%s\nwant the table's Markdown\n%s", out, want)
	}
}

// unsourcedRows is, for each page that quotes runs, how many of its table
// rows with figures are still outside bpinn:table blocks: 0 for a page
// whose tables all come from runs. TestDocsUnsourced fails when a page has
// more (a hand-made table on a converted page) or fewer (lower the entry,
// so that the page cannot grow back).
var unsourcedRows = map[string]int{
	"README.md":                        0,
	"docs/reproduction.md":             15,
	"docs/results.md":                  22,
	"docs/calibration.md":              39,
	"docs/benchmarks.md":               39,
	"docs/hmc.md":                      49,
	"docs/inverse.md":                  55,
	"docs/results/burgers-identify.md": 31,
	"docs/results/burgers-wide.md":     30,
	"docs/results/burgers.md":          35,
	"docs/results/coverage.md":         128,
	"docs/results/defaults.md":         25,
	"docs/results/fixed-weights.md":    0,
	"docs/results/heat.md":             26,
	"docs/results/lid-driven.md":       103,
	"docs/results/lotka-volterra.md":   20,
	"docs/results/pinnacle.md":         20,
	"docs/results/poisson-holes.md":    11,
	"docs/results/recipe.md":           26,
	"docs/results/regression.md":       6,
	"docs/results/scale.md":            8,
	"docs/results/scan.md":             26,
	"docs/results/timing.md":           10,
	"docs/results/wave.md":             4,
}

// TestDocsUnsourced counts, on each page that quotes runs, the table rows
// and prose figures without a source; `go test -v -run TestDocsUnsourced`
// prints them.
func TestDocsUnsourced(t *testing.T) {
	pages, err := Pages("../..")
	if err != nil {
		t.Fatal(err)
	}
	rows, prose := 0, 0
	for _, page := range pages {
		limit, ok := unsourcedRows[page]
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		u := FindUnsourced(string(b))
		rows, prose = rows+len(u.Rows), prose+u.Prose
		t.Logf("%-34s %3d table rows, %4d prose figures without a source", page, len(u.Rows), u.Prose)
		switch {
		case len(u.Rows) > limit:
			t.Errorf("%s: %d table rows with figures outside bpinn:table blocks (lines %v), at most %d: quote the run's table (scripts/docfig)", page, len(u.Rows), u.Rows, limit)
		case len(u.Rows) < limit:
			t.Errorf("%s: %d table rows without a source, fewer than its entry in unsourcedRows (%d): lower it so they cannot come back", page, len(u.Rows), limit)
		}
	}
	if len(unsourcedRows) != countPages(pages) {
		t.Errorf("unsourcedRows names a page that is not one of the docs")
	}
	t.Logf("in all: %d table rows, %d prose figures without a source", rows, prose)
}

func countPages(pages []string) int {
	n := 0
	for _, p := range pages {
		if _, ok := unsourcedRows[p]; ok {
			n++
		}
	}
	return n
}

func TestFindUnsourced(t *testing.T) {
	page := "Heat reaches 0.00331 (`--lr 1e-3`, 100 fits) and <!-- bpinn:value r.json s row=\"heat\" column=\"q95\" -->1.96<!-- /bpinn:value -->.\n" +
		"\n| study | rel L2 |\n|---|---|\n| heat | 0.00331 |\n| wave | n/a |\n\n" +
		"<!-- bpinn:table r.json s -->\n| study | rel L2 |\n|---|---|\n| heat | 0.00331 |\n<!-- /bpinn:table -->\n" +
		"```\n| a | b |\n|---|---|\n| 1 | 2.5 |\n```\n" +
		"| D=1 | 2 |\n|---|---|\n| 0.1 | 2.0e5 |\n"
	u := FindUnsourced(page)
	if want := []int{5, 20}; !slices.Equal(u.Rows, want) || u.Prose != 1 {
		t.Errorf("rows %v, prose figures %d; want rows %v (the hand-made tables' rows with digits) and 1 prose figure (0.00331)", u.Rows, u.Prose, want)
	}
}
