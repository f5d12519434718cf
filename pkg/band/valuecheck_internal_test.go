package band

import (
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// The too-wide warning speaks for the whole band only when every output
// has errors at conditions on its value: with one output read alone, it
// says nothing.
func TestTooWideNeedsEveryOutput(t *testing.T) {
	t.Parallel()
	f := &bayes.Fit{Beta: []float64{1}}
	held := []float64{0.5} // within OverconfidentRatio of what beta states
	narrow := []float64{0.1, 0.2, 0.3}
	if w := tooWideWarning(f, [][]float64{narrow}, held); len(w) != 1 || !strings.Contains(w[0], "likely too wide") {
		t.Errorf("one output, errors within 0.3 sigma: %q, want the too-wide warning", w)
	}
	if w := tooWideWarning(f, [][]float64{narrow, narrow}, held); len(w) != 1 {
		t.Errorf("two outputs both read: %q, want the too-wide warning", w)
	}
	if w := tooWideWarning(f, [][]float64{nil, narrow}, held); w != nil {
		t.Errorf("u without a condition on its value: %q, want no warning", w)
	}
}
