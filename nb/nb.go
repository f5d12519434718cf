// Package nb shows viz figures and charts in a GoNB (Jupyter) notebook. It
// is the only package of the project that imports gonbui, so that the core
// packages, and viz itself, never depend on the notebook.
//
// Outside a notebook (gonbui.IsNotebook false, as under go test or in the
// CLI) every function here returns at once and does nothing, so library
// and example code can call them unconditionally.
//
//	fig, err := viz.Slices(slices, viz.Labels{})
//	if err != nil { ... }
//	nb.Show(fig)
//
//	chart, err := viz.SlicesChart(slices, viz.Labels{})
//	nb.Chart(chart)
//
//	var bar nb.Progress
//	bar.Start(epochs)
//	for e := range epochs { ...; bar.Update(e+1, "E_T = 0.12") }
//	bar.Done()
//
// Train and TrainEnsemble are bayes.Train and runner.TrainEnsemble with a bar
// over the whole fit: the epochs, then each step after them by name.
//
//	f, err := nb.Train(ctx, "", p, bayes.Settings{Seed: 1})
//
// What a notebook shows of a fit, so that it needs no helpers of its own:
// Summary (a table: status, errors, both bands' coverage and q95, ln Z,
// betas, warnings), Ranked (an ensemble's fits by evidence), Field,
// Slices (with the paper's and the calibrated band), Quantity and Curve
// (a flux with its band); Must, Must2 and Check stop a cell at an error.
// The data and tables come from pkg/figdata (Along, Linspace, Quantity,
// SummaryHTML, EnsembleHTML), usable without a notebook.
package nb

import (
	"fmt"
	"html"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot/vg"

	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// The notebook hooks, replaced in tests. Every display waits for GoNB to
// take it (gonbui.Sync): GoNB closes its pipe when a cell's program exits,
// and without the wait the last output of a cell is sometimes lost.
var (
	isNotebook  = func() bool { return gonbui.IsNotebook }
	displayHTML = func(s string) { gonbui.DisplayHTML(s); gonbui.Sync() }
	displayPNG  = func(b []byte) { gonbui.DisplayPng(b); gonbui.Sync() }
	displaySVG  = func(s string) { gonbui.DisplaySvg(s); gonbui.Sync() }
	updateHTML  = func(id, s string) { gonbui.UpdateHTML(id, s); gonbui.Sync() }
	uniqueID    = gonbui.UniqueId
	now         = time.Now
)

// Show displays a static figure (a *viz.Figure or a *plot.Plot) as a PNG
// of its preferred size.
func Show(fig viz.Drawer) error { return ShowSize(fig, 0, 0) }

// ShowSize displays fig as a PNG of w x h (its preferred size if either is
// not positive).
func ShowSize(fig viz.Drawer, w, h vg.Length) error {
	if !isNotebook() {
		return nil
	}
	b, err := viz.PNG(fig, w, h)
	if err != nil {
		return err
	}
	displayPNG(b)
	return nil
}

// ShowSVG displays fig as SVG (sharp at any zoom, heavier for big plots).
func ShowSVG(fig viz.Drawer) error {
	if !isNotebook() {
		return nil
	}
	b, err := viz.SVG(fig, 0, 0)
	if err != nil {
		return err
	}
	displaySVG(string(b))
	return nil
}

var (
	libMu   sync.Mutex
	libSent bool // this cell's program has displayed the echarts library
)

// Chart displays interactive charts (from viz or go-echarts). They work
// offline: the first call in a cell carries the echarts library inline
// (offline.Fragment, evaluated once per notebook page however many outputs
// carry it); later calls in the same cell send only the charts, which wait
// for the library. A missing library is an error naming scripts/setup.sh.
func Chart(charts ...offline.Chart) error {
	if !isNotebook() {
		return nil
	}
	libMu.Lock()
	defer libMu.Unlock()
	var (
		b   []byte
		err error
	)
	if libSent {
		b, err = offline.Charts(charts...)
	} else {
		b, err = offline.Fragment(charts...)
	}
	if err != nil {
		return err
	}
	displayHTML(string(b))
	libSent = true
	return nil
}

// Progress is a live progress bar in the cell's output, updated in place.
// The zero value is ready to use; its methods are safe for concurrent use
// (ensemble members on several goroutines) and do nothing outside a
// notebook.
type Progress struct {
	// Title is shown before the bar; empty: none.
	Title string
	// Interval is the least time between two redraws; zero: 100 ms.
	// Start, Done and reaching the total always redraw.
	Interval time.Duration

	mu          sync.Mutex
	id          string
	total, done int
	text        string
	start, last time.Time
}

// Start shows the bar at 0 of total steps (total <= 0: unknown total).
func (p *Progress) Start(total int) {
	if !isNotebook() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.id = "bpinn_progress_" + uniqueID()
	p.total, p.done, p.text = total, 0, ""
	p.start = now()
	p.draw(false)
}

// Update sets the number of steps done and a status text (escaped).
func (p *Progress) Update(done int, text string) {
	if !isNotebook() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.id == "" { // Update without Start
		p.id, p.start = "bpinn_progress_"+uniqueID(), now()
	}
	p.done, p.text = done, text
	interval := p.Interval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	if now().Sub(p.last) < interval && !(p.total > 0 && done >= p.total) {
		return
	}
	p.draw(false)
}

// Done draws the bar complete, with the elapsed time.
func (p *Progress) Done() {
	if !isNotebook() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.id == "" {
		return
	}
	if p.total > 0 {
		p.done = p.total
	}
	p.draw(true)
}

// draw renders the bar; p.mu is held.
func (p *Progress) draw(final bool) {
	t := now()
	p.last = t
	elapsed := t.Sub(p.start)
	var b strings.Builder
	b.WriteString(`<div style="font-family:monospace;display:flex;align-items:center;gap:0.8em;">`)
	if p.Title != "" {
		fmt.Fprintf(&b, "<b>%s</b>", html.EscapeString(p.Title))
	}
	if p.total > 0 && !final && p.done >= p.total {
		// The counted steps are done but Done was not called: the work
		// after them runs (a fit's polish and final rounds), with no
		// measure of its own; an indeterminate bar says so.
		fmt.Fprintf(&b, `<progress style="width:40%%;"></progress><span>%d/%d, finishing</span><span>%s elapsed</span>`,
			p.done, p.total, round(elapsed))
	} else if p.total > 0 {
		frac := float64(p.done) / float64(p.total)
		frac = max(0, min(1, frac))
		if !final { // 100 % only when Done says so
			frac = min(frac, 0.99)
		}
		fmt.Fprintf(&b, `<progress value="%d" max="%d" style="width:40%%;"></progress><span>%d/%d (%.0f%%)</span>`,
			min(max(p.done, 0), p.total), p.total, p.done, p.total, math.Floor(100*frac))
		switch {
		case final:
			fmt.Fprintf(&b, "<span>done in %s</span>", round(elapsed))
		case p.done > 0:
			eta := time.Duration(float64(elapsed) * (1 - frac) / frac)
			fmt.Fprintf(&b, "<span>%s elapsed, ~%s left</span>", round(elapsed), round(eta))
		}
	} else if final {
		fmt.Fprintf(&b, "<span>%d done in %s</span>", p.done, round(elapsed))
	} else {
		fmt.Fprintf(&b, "<progress></progress><span>%d</span><span>%s elapsed</span>", p.done, round(elapsed))
	}
	if p.text != "" {
		fmt.Fprintf(&b, "<span>%s</span>", html.EscapeString(p.text))
	}
	b.WriteString("</div>")
	updateHTML(p.id, b.String())
}

func round(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
