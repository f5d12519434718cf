package docfig

import (
	"errors"
	"os"
	"path/filepath"
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
