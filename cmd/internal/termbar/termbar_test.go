package termbar

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/record"
)

// Off a terminal a fit and the chains show nothing, an ensemble and a
// study plain lines a log keeps.
func TestLog(t *testing.T) {
	var b bytes.Buffer
	if progress, stage, done := Fit(&b, "heat"); progress != nil || stage != nil || done == nil {
		t.Error("Fit on a buffer: want no progress and no stage, a done")
	}
	if progress, done := Chains(&b, 4); progress != nil || done == nil {
		t.Error("Chains on a buffer: want no progress, a done")
	}
	f := NewFits(&b, 2, "heat x2")
	f.Step(1, &record.Result{Seed: 7, Status: "ok"})
	f.Finish()
	s := NewStudy(&b, "heat", 3)
	s.Step("seed 1 ok")
	s.Finish()
	got := b.String()
	for _, want := range []string{"bpinn ensemble: 1/2 seed 7 ok rel L2 n/a ln Z n/a (0.0 s)\n", "bpinn reproduce: heat 1/3 seed 1 ok\n", "bpinn reproduce: heat done, 1/3 steps in "} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
}
