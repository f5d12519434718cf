// Package docfig keeps the figures the docs copy from runs equal to the
// runs: a doc marks each table or value it quotes with the results.json
// it comes from (bpinn reproduce writes one), and Update regenerates the
// marked text from that file, with a line naming the run's commit, date,
// machine and command.
//
// A table block (columns and rows by their header and first-column text,
// separated by "|"; rows optional, every row when absent):
//
//	<!-- bpinn:table docs/runs/quick.json summary columns="study|rel L2" rows="heat|wave" -->
//	...generated...
//	<!-- /bpinn:table -->
//
// A value inside a sentence:
//
//	<!-- bpinn:value docs/runs/quick.json inverse row="heat-inverse" column="estimate" -->0.10008<!-- /bpinn:value -->
//
// Paths are relative to the repository's root.
package docfig

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/report"
)

var (
	tableBlock = regexp.MustCompile(`(?s)(<!-- bpinn:table ([^>]*?) -->\n)(.*?)(<!-- /bpinn:table -->)`)
	valueSpan  = regexp.MustCompile(`(<!-- bpinn:value ([^>]*?) -->)(.*?)(<!-- /bpinn:value -->)`)
	attr       = regexp.MustCompile(`(\w+)="([^"]*)"`)
)

// Pages are the project's docs, relative to the root: README.md,
// CONTRIBUTING.md and the pages of docs/ and its folders.
func Pages(root string) ([]string, error) {
	pages := []string{"README.md", "CONTRIBUTING.md"}
	for _, g := range []string{"docs/*.md", "docs/*/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return nil, err
		}
		for _, p := range m {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
	}
	return pages, nil
}

// Stale is a page whose quoted figures differ from its runs.
type Stale struct {
	Page   string
	Blocks int // blocks and values that differ
}

// Update regenerates the marked figures of every page under root; with
// write it rewrites the pages that differ. It returns the pages that
// differed (before writing), or the first block it cannot generate.
func Update(root string, write bool) ([]Stale, error) {
	pages, err := Pages(root)
	if err != nil {
		return nil, err
	}
	type run struct {
		r   *report.Results
		err error
	}
	runs := map[string]run{}
	var stale []Stale
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		out, n, err := Render(string(b), filepath.Dir(page), func(path string) (*report.Results, error) {
			if r, ok := runs[path]; ok {
				return r.r, r.err
			}
			r, err := report.ReadResults(filepath.Join(root, path))
			runs[path] = run{r, err}
			return r, err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", page, err)
		}
		if n == 0 {
			continue
		}
		stale = append(stale, Stale{Page: page, Blocks: n})
		if write {
			if err := os.WriteFile(filepath.Join(root, page), []byte(out), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}

// Render returns page with its marked figures generated from the runs
// read returns, and how many differed. dir is the page's folder (for the
// links to the runs), relative to the root as the runs' paths are.
func Render(page, dir string, read func(path string) (*report.Results, error)) (string, int, error) {
	var firstErr error
	changed := 0
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	page = tableBlock.ReplaceAllStringFunc(page, func(m string) string {
		g := tableBlock.FindStringSubmatch(m)
		body, err := renderTable(g[2], dir, read)
		if err != nil {
			fail(fmt.Errorf("bpinn:table %s: %v", g[2], err))
			return m
		}
		if body != g[3] {
			changed++
		}
		return g[1] + body + g[4]
	})
	page = valueSpan.ReplaceAllStringFunc(page, func(m string) string {
		g := valueSpan.FindStringSubmatch(m)
		v, err := renderValue(g[2], read)
		if err != nil {
			fail(fmt.Errorf("bpinn:value %s: %v", g[2], err))
			return m
		}
		if v != g[3] {
			changed++
		}
		return g[1] + v + g[4]
	})
	return page, changed, firstErr
}

// spec is a block's header: the run, the table and its attributes.
type spec struct {
	run, table string
	attrs      map[string]string
}

func parseSpec(s string) (spec, error) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return spec{}, fmt.Errorf("want the run's results.json and a table ID first")
	}
	sp := spec{run: f[0], table: f[1], attrs: map[string]string{}}
	for _, m := range attr.FindAllStringSubmatch(s, -1) {
		sp.attrs[m[1]] = m[2]
	}
	return sp, nil
}

func (sp spec) list(key string) []string {
	if v, ok := sp.attrs[key]; ok {
		return strings.Split(v, "|")
	}
	return nil
}

// lookup returns the run and its table.
func (sp spec) lookup(read func(string) (*report.Results, error)) (*report.Results, *report.Table, error) {
	r, err := read(sp.run)
	if err != nil {
		return nil, nil, err
	}
	t := r.Table(sp.table)
	if t == nil {
		ids := make([]string, len(r.Tables))
		for i, t := range r.Tables {
			ids[i] = t.ID
		}
		return nil, nil, fmt.Errorf("%s has no table %q (it has %s)", sp.run, sp.table, strings.Join(ids, ", "))
	}
	return r, t, nil
}

func columns(t *report.Table, names []string) ([]int, error) {
	if names == nil {
		cols := make([]int, len(t.Head))
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	cols := make([]int, len(names))
	for i, n := range names {
		if cols[i] = slices.Index(t.Head, n); cols[i] < 0 {
			return nil, fmt.Errorf("table %s has no column %q (it has %s)", t.ID, n, strings.Join(t.Head, " | "))
		}
	}
	return cols, nil
}

// rows returns the table's rows whose first cell is one of names, in the
// order of names (every row when names is nil).
func rows(t *report.Table, names []string) ([][]report.Cell, error) {
	if names == nil {
		return t.Rows, nil
	}
	var out [][]report.Cell
	for _, n := range names {
		i := slices.IndexFunc(t.Rows, func(r []report.Cell) bool { return len(r) > 0 && r[0].Text == n })
		if i < 0 {
			return nil, fmt.Errorf("table %s has no row %q", t.ID, n)
		}
		out = append(out, t.Rows[i])
	}
	return out, nil
}

func renderTable(header, dir string, read func(string) (*report.Results, error)) (string, error) {
	sp, err := parseSpec(header)
	if err != nil {
		return "", err
	}
	r, t, err := sp.lookup(read)
	if err != nil {
		return "", err
	}
	cols, err := columns(t, sp.list("columns"))
	if err != nil {
		return "", err
	}
	rs, err := rows(t, sp.list("rows"))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if sp.attrs["columns"] == "" && sp.attrs["rows"] == "" {
		b.WriteString(t.Markdown()) // the whole table, as results.md shows it
	} else {
		sub := report.Table{Head: make([]string, len(cols))}
		for i, c := range cols {
			sub.Head[i] = t.Head[c]
		}
		for _, row := range rs {
			cells := make([]report.Cell, len(cols))
			for i, c := range cols {
				if c < len(row) {
					cells[i] = row[c]
				}
			}
			sub.Rows = append(sub.Rows, cells)
		}
		b.WriteString(sub.Grid())
	}
	link, err := filepath.Rel(dir, sp.run)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\n<sub>From [%s](%s): %s.</sub>\n", filepath.Base(sp.run), filepath.ToSlash(link), r.Source)
	return b.String(), nil
}

func renderValue(header string, read func(string) (*report.Results, error)) (string, error) {
	sp, err := parseSpec(header)
	if err != nil {
		return "", err
	}
	_, t, err := sp.lookup(read)
	if err != nil {
		return "", err
	}
	row, col := sp.attrs["row"], sp.attrs["column"]
	if row == "" || col == "" {
		return "", fmt.Errorf(`a value needs row="..." and column="..."`)
	}
	cols, err := columns(t, []string{col})
	if err != nil {
		return "", err
	}
	rs, err := rows(t, []string{row})
	if err != nil {
		return "", err
	}
	if cols[0] >= len(rs[0]) {
		return "", fmt.Errorf("row %q has no cell in column %q", row, col)
	}
	return rs[0][cols[0]].Text, nil
}

var (
	tableSep = regexp.MustCompile(`^\|?[\s:|-]+\|?$`)
	// figure is a number as runs print them: a decimal or an exponent
	// (0.00331, 1.4e5), not a count or a version.
	figure     = regexp.MustCompile(`\b\d+(\.\d+(e[-+]?\d+)?|e[-+]?\d+)\b`)
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// Unsourced is what a page quotes without a source: the lines (from 1) of
// the table rows with a digit outside bpinn:table blocks (headers and code
// aside), and the number of decimal figures in its prose outside
// bpinn:value spans and code. Both are upper bounds, read by form: a row
// of settings or a target (1.8e-2) counts as a figure of a run would.
type Unsourced struct {
	Rows  []int
	Prose int
}

// FindUnsourced returns what page quotes without a source.
func FindUnsourced(page string) Unsourced {
	var u Unsourced
	fence, block, body := false, false, false
	prev := ""
	for i, line := range strings.Split(page, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = !fence
		case fence:
		case strings.Contains(t, "<!-- bpinn:table "):
			block = true
		case strings.Contains(t, "<!-- /bpinn:table -->"):
			block = false
		case block:
		case strings.HasPrefix(t, "|"):
			if tableSep.MatchString(t) && strings.HasPrefix(prev, "|") {
				body = true // the rows below the header
			} else if body && strings.ContainsAny(t, "0123456789") {
				u.Rows = append(u.Rows, i+1)
			}
		default:
			body = false
			t = inlineCode.ReplaceAllString(valueSpan.ReplaceAllString(t, ""), "")
			u.Prose += len(figure.FindAllString(t, -1))
		}
		prev = t
	}
	return u
}
