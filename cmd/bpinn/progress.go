package main

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal says whether v (a reader or a writer) is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newBar returns a progress bar of max steps on w when w is a terminal, and
// nil otherwise (a log gets the commands' plain lines instead). The bar
// redraws at most 10 times a second; extra options follow the common ones.
func newBar(w any, max int, desc string, extra ...progressbar.Option) *progressbar.ProgressBar {
	if !isTerminal(w) || max <= 0 {
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
