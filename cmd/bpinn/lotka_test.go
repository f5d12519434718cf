package main

import (
	"strings"
	"testing"
)

// lotka-volterra-inverse through the CLI on a short schedule (seconds): the
// fit prints the four rates with their intervals and truths and each
// field's errors under the joint line, and coverage fits two data draws.
func TestLotkaVolterraPipeline(t *testing.T) {
	small := []string{"--epochs", "300", "--hyper-start", "150", "--hidden", "6", "--final-hyper", "1", "--polish-iter", "100"}
	code, out, errOut := cli(t, with([]string{"fit", "lotka-volterra-inverse"}, small...)...)
	if code != exitOK {
		t.Fatalf("fit: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"unknown a = ", "unknown b = ", "unknown c = ", "unknown d = ", "on ln d; 95% interval [",
		"truth 0.5, relative error", "beta_pde", "beta_data", "\n    u: rel L2 = ", "\n    v: rel L2 = "} {
		if !strings.Contains(out, want) {
			t.Errorf("fit output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = cli(t, with([]string{"coverage", "lotka-volterra-inverse", "--draws", "2", "--workers", "1"}, small...)...)
	if code != exitOK {
		t.Fatalf("coverage: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"data seed 1: ", "data seed 2: ", "lotka-volterra-inverse: 2 draws (data seeds 1 to 2, network seed 1)", "95% interval holds the truth in "} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage output lacks %q:\n%s", want, out)
		}
	}
}
