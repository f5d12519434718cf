package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evidence-pinn/bpinn/internal/atomicfile"
	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// Failure is a study, or one of its figures, that failed.
type Failure struct {
	What string
	Why  string
}

// Page is what report.html shows.
type Page struct {
	Report   *Report
	Figures  []Figure
	Tables   []Table
	Failures []Failure
}

// Build draws the figures and the tables of a run. A figure that cannot be
// drawn is a Failure of the page, like a failed study.
func Build(r *Report) *Page {
	pg := &Page{Report: r, Tables: r.Tables()}
	for _, st := range r.Studies {
		if st.Err != nil {
			pg.Failures = append(pg.Failures, Failure{What: "study " + st.Name, Why: st.Err.Error()})
		}
		figs, errs := figures(st)
		pg.Figures = append(pg.Figures, figs...)
		for _, e := range errs {
			pg.Failures = append(pg.Failures, Failure{What: "figure " + e.ID, Why: e.Err.Error()})
		}
	}
	return pg
}

// Write writes DIR/report.html (every chart inline with the echarts
// library: the page loads nothing from the network), DIR/results.md (the
// tables in Markdown), DIR/results.json (the tables with their Source,
// which docs quote) and DIR/figures/<ID>.png, after removing the PNGs of
// an earlier run. A PNG that cannot be drawn is added to the page's
// failures before the page is written.
func (pg *Page) Write(dir string) error {
	figDir := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(figDir, "*.png")) // from an earlier run
	for _, p := range old {
		os.Remove(p)
	}
	for _, f := range pg.Figures {
		b, err := viz.PNG(f.Static, 0, 0)
		if err == nil {
			err = atomicfile.Write(filepath.Join(figDir, f.ID+".png"), b)
		}
		if err != nil {
			pg.Failures = append(pg.Failures, Failure{What: "PNG of figure " + f.ID, Why: err.Error()})
		}
	}
	page, err := pg.HTML()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "report.html"), page); err != nil {
		return err
	}
	if err := WriteResults(filepath.Join(dir, "results.json"), pg.Results()); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "results.md"), []byte(pg.Markdown()))
}

// Markdown returns the tables (and failures) as Markdown.
func (pg *Page) Markdown() string {
	var b strings.Builder
	r := pg.Report
	fmt.Fprintf(&b, "# bpinn reproduce (%s plan), %s, %.0f s\n\n", r.Config.Name, r.Started.Format(time.DateTime), r.Seconds)
	fmt.Fprintf(&b, "Source: %s.\n\n", r.Source())
	if r.Config.About != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Config.About)
	}
	for _, t := range pg.Tables {
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	if len(pg.Failures) > 0 {
		b.WriteString("**Failures**\n\n")
		for _, f := range pg.Failures {
			fmt.Fprintf(&b, "- %s: %s\n", f.What, firstLine(f.Why))
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// HTML returns report.html.
func (pg *Page) HTML() ([]byte, error) {
	lib, err := offline.Library()
	if err != nil {
		return nil, err
	}
	type figView struct {
		Figure
		HTML template.HTML
	}
	type studyView struct {
		*Study
		Figures []figView
	}
	var studies []studyView
	for _, st := range pg.Report.Studies {
		sv := studyView{Study: st}
		for _, f := range pg.Figures {
			if f.Study != st.Name {
				continue
			}
			h, err := offline.Charts(f.Chart)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", f.ID, err)
			}
			sv.Figures = append(sv.Figures, figView{f, template.HTML(h)})
		}
		studies = append(studies, sv)
	}
	var b bytes.Buffer
	err = pageTemplate.Execute(&b, map[string]any{
		"R": pg.Report, "Tables": pg.Tables, "Failures": pg.Failures, "Studies": studies,
		"Library": template.HTML(lib), "Started": pg.Report.Started.Format(time.DateTime),
	})
	return b.Bytes(), err
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"first": firstLine,
	"secs":  func(s float64) string { return fmt.Sprintf("%.1f", s) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bpinn: the paper's studies reproduced</title>
<style>
body{font-family:sans-serif;margin:16px auto;max-width:1200px;line-height:1.4}
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}
th,td{border:1px solid #bbb;padding:3px 6px;vertical-align:top}
th{background:#eee} td.num{text-align:right;font-variant-numeric:tabular-nums}
td.na{color:#888} .note{font-size:0.85em;color:#444;max-width:1100px} .legend{font-size:0.85em;max-width:1100px}
.failures{border:2px solid #c00;padding:8px 16px;background:#fff4f4}
.failures pre{white-space:pre-wrap;font-size:0.8em;max-height:12em;overflow:auto}
figure{margin:8px 0} figcaption{font-size:0.9em;color:#333;text-align:center}
</style>
{{.Library}}</head>
<body>
<h1>Evidence-driven Bayesian PINNs: the paper's studies reproduced</h1>
<p>Plan <b>{{.R.Config.Name}}</b>, started {{.Started}}, {{secs .R.Seconds}} s in all; {{.R.Version.Module}} {{.R.Version.Version}}, {{.R.Version.Go}}.
{{with .R.Config.About}}{{.}} {{end}}Raw fits: <code>&lt;study&gt;.jsonl</code> (one JSON line per fit, docs/results-schema.md) and <code>hmc.json</code> (<code>hmc-heat.json</code>: the sampled heat comparison) beside this page; static figures in <code>figures/</code>.</p>
{{if .Failures}}<section class="failures" id="failures">
<h2>Failures</h2>
<p>The report holds what succeeded; these failed:</p>
<ul>{{range .Failures}}<li><b>{{.What}}</b>: {{first .Why}}<pre>{{.Why}}</pre></li>{{end}}</ul>
</section>{{end}}
<h2>Tables</h2>
{{range .Tables}}<section class="table" id="{{.ID}}">
<h3>{{.Caption}}</h3>
<table>
<tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td class="{{if .Num}}num{{else if eq .Text "n/a"}}na{{else}}text{{end}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>
{{if .Legend}}<ul class="legend">{{range .Legend}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
</section>
{{end}}
<h2>Figures</h2>
{{range .Studies}}<section class="study" id="study-{{.Name}}">
<h3>{{.Title}}</h3>
<p>{{len .Fits}} fits, {{secs .Seconds}} s.{{if .Err}} <b>This study failed:</b> {{first .Err.Error}}{{end}}</p>
{{range .Figures}}<figure class="figure" id="fig-{{.ID}}">
{{.HTML}}<figcaption>{{.Caption}} (<code>figures/{{.ID}}.png</code>)</figcaption>
</figure>
{{end}}</section>
{{end}}
</body>
</html>
`))
