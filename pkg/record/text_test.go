package record

import (
	"bytes"
	"strings"
	"testing"
)

// WriteText prints what a record holds and "n/a" for what it leaves
// undefined, the known-noise betas marked as held.
func TestWriteText(t *testing.T) {
	z, sd := 12.5, 0.01
	r := &Result{Seed: 3, Status: "ok", Epochs: 10, Reason: "why",
		AlphaNames: []string{"alpha"}, Alpha: map[string]*float64{"alpha": &z},
		BetaNames: []string{"beta"}, Beta: map[string]*float64{"beta": nil},
		Unknowns: map[string]UnknownJSON{"kappa": {Value: &z, SD: &sd, Scale: "log"}}}
	r.Problem, r.EpochsPlan = "heat", 10
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"heat seed 3: status ok after 10 of 10 epochs", "  reason: why\n", "  alpha: alpha = 12.5\n", "  beta:  beta = n/a\n",
		"unknown kappa = 12.5  (sd 0.01 on ln kappa; 95% interval [n/a, n/a])", "log evidence = n/a"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "structure") {
		t.Errorf("a record without a Laplace structure names one:\n%s", b.String())
	}
	b.Reset()
	r.LaplaceStructure = "dual"
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "  Laplace approximation: A in the dual structure") {
		t.Errorf("a dual Laplace's record does not say so (%v):\n%s", err, b.String())
	}
	if Fmt(nil, "%g") != "n/a" || Fmt(&z, "%.1f") != "12.5" {
		t.Error("Fmt")
	}
}
