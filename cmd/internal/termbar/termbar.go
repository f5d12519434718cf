// Package termbar shows the progress of the bpinn command's long runs on
// stderr: a bar on a terminal, redrawn at most 10 times a second, and
// nothing or plain lines otherwise, so that a log keeps what a person
// reads later and never the bar's control characters.
package termbar

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/evidence-pinn/bpinn/pkg/record"
)

// IsTerminal says whether v (a reader or a writer) is a terminal.
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newBar returns a progress bar of max steps on w when w is a terminal, and
// nil otherwise (a log gets the commands' plain lines instead). The bar
// redraws at most 10 times a second; extra options follow the common ones.
func newBar(w any, max int, desc string, extra ...progressbar.Option) *progressbar.ProgressBar {
	if !IsTerminal(w) || max <= 0 {
		return nil
	}
	opts := append([]progressbar.Option{progressbar.OptionSetWriter(w.(*os.File)), progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100 * time.Millisecond)}, extra...)
	return progressbar.NewOptions(max, opts...)
}

// clearBar erases a bar that did not reach its end (a diverged fit, a
// failed chain), so that what follows starts on a clean line.
func clearBar(bar *progressbar.ProgressBar) {
	if bar != nil && !bar.IsFinished() {
		bar.Clear()
	}
}

// Fit shows a fit's Adam epochs as a bar on a terminal (nothing
// otherwise: a log gets the summary), then each step after them on one
// status line (Settings.Stage): the polish, each final round, the Laplace
// approximation. done erases what the fit left on the line.
func Fit(w io.Writer, name string) (progress func(epoch, epochs int), stage func(string), done func()) {
	if !IsTerminal(w) {
		return nil, nil, func() {}
	}
	var bar *progressbar.ProgressBar
	status := false
	progress = func(epoch, epochs int) {
		if bar == nil {
			bar = newBar(w, epochs, name+" epochs", progressbar.OptionClearOnFinish())
		}
		bar.Set(epoch)
		if epoch == epochs {
			bar.Finish()
		}
	}
	stage = func(what string) {
		fmt.Fprintf(w, "\r\033[K%s: Adam done; %s...", name, what)
		status = true
	}
	return progress, stage, func() {
		clearBar(bar)
		if status {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}

// Chains shows the iterations of all chains as one bar on a terminal
// (nothing otherwise: the log has the start and end lines). done erases a
// bar that a failed chain left unfinished.
func Chains(w io.Writer, chains int) (progress func(chain, done, total int), done func()) {
	if !IsTerminal(w) {
		return nil, func() {}
	}
	var mu sync.Mutex
	var bar *progressbar.ProgressBar
	counts := make([]int, chains)
	progress = func(chain, d, total int) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = newBar(w, chains*total, "hmc iterations", progressbar.OptionClearOnFinish())
		}
		counts[chain] = d
		sum := 0
		for _, x := range counts {
			sum += x
		}
		bar.Set(sum)
	}
	return progress, func() {
		mu.Lock()
		defer mu.Unlock()
		clearBar(bar)
	}
}

// Fits shows the finished fits of an ensemble: a bar on a terminal, plain
// lines otherwise.
type Fits struct {
	w     io.Writer
	total int
	bar   *progressbar.ProgressBar
}

// NewFits shows total fits described by desc on w.
func NewFits(w io.Writer, total int, desc string) *Fits {
	p := &Fits{w: w, total: total}
	p.bar = newBar(w, total, desc, progressbar.OptionClearOnFinish())
	return p
}

// Step shows the done-th fit, r.
func (p *Fits) Step(done int, r *record.Result) {
	if p.bar != nil {
		p.bar.Add(1)
		return
	}
	fmt.Fprintf(p.w, "bpinn ensemble: %d/%d seed %d %s rel L2 %s ln Z %s (%.1f s)\n", done, p.total, r.Seed, r.Status,
		record.Fmt(record.Num(r.RelL2()), "%.4g"), record.Fmt(r.LogEvidence, "%.6g"), r.Seconds)
}

// Finish ends the bar.
func (p *Fits) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// Study shows the steps of a study of a reproduction (report.Progress): a
// bar on a terminal, plain lines otherwise.
type Study struct {
	w           io.Writer
	study       string
	total, done int
	bar         *progressbar.ProgressBar
	start       time.Time
}

// NewStudy shows the total steps of study on w.
func NewStudy(w io.Writer, study string, total int) *Study {
	p := &Study{w: w, study: study, total: total, start: time.Now()}
	p.bar = newBar(w, total, fmt.Sprintf("%-10s", study), progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
	return p
}

// Step shows one step, described by line.
func (p *Study) Step(line string) {
	p.done++
	if p.bar != nil {
		p.bar.Add(1)
		return
	}
	fmt.Fprintf(p.w, "bpinn reproduce: %s %d/%d %s\n", p.study, p.done, p.total, line)
}

// Finish ends the study: its time in a log, a newline after a bar that
// stopped early.
func (p *Study) Finish() {
	if p.bar != nil {
		if p.done < p.total { // a failed study: leave the bar where it stopped
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintf(p.w, "bpinn reproduce: %s done, %d/%d steps in %.1f s\n", p.study, p.done, p.total, time.Since(p.start).Seconds())
}
