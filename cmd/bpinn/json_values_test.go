package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFitJSONValues: the numbers of `fit --json` are defined (not null) and
// are the ones the summary prints, to the printed precision; TestFitJSON
// checks only that the keys exist, which a null passes.
func TestFitJSONValues(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "heat.json")
	code, out, errOut := cli(t, "fit", "heat", "--epochs", "400", "--hyper-start", "200", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// num is the number at a path of keys; null or missing fails.
	num := func(path ...string) float64 {
		t.Helper()
		var v any = m
		for _, k := range path {
			o, _ := v.(map[string]any)
			v = o[k]
		}
		x, ok := v.(float64)
		if !ok {
			t.Fatalf("%v = %v, want a number", path, v)
		}
		return x
	}
	// printed is the text the summary shows after label (a regexp).
	printed := func(label string) string {
		t.Helper()
		sub := regexp.MustCompile(label + ` = ([-+.0-9eE]+|n/a)`).FindStringSubmatch(out)
		if sub == nil {
			t.Fatalf("summary lacks %q:\n%s", label, out)
		}
		return sub[1]
	}
	if m["problem"] != "heat" || m["status"] != "ok" || num("epochs") != 400 || num("hyper_start") != 200 || num("seed") != 1 {
		t.Errorf("problem %v status %v epochs %v hyper_start %v seed %v: want heat ok 400 200 1",
			m["problem"], m["status"], m["epochs"], m["hyper_start"], m["seed"])
	}
	for _, c := range []struct {
		label, format string
		path          []string
	}{
		{`rel L2`, "%.4g", []string{"errors", "rel_l2"}},
		{`mse`, "%.4g", []string{"errors", "mse"}},
		{`max \|err\|`, "%.4g", []string{"errors", "max_abs"}},
		{`coverage\(2 sigma\)`, "%.3f", []string{"errors", "coverage_2sigma"}},
		{`log evidence`, "%.6g", []string{"log_evidence"}},
		{`log p`, "%.6g", []string{"log_p"}},
		{`gamma`, "%.4g", []string{"gamma"}},
		{`alpha: alpha`, "%.5g", []string{"alpha", "alpha"}},
		{`beta:  beta`, "%.5g", []string{"beta", "beta"}},
	} {
		if got, want := fmt.Sprintf(c.format, num(c.path...)), printed(c.label); got != want {
			t.Errorf("%v = %s in the JSON, the summary prints %s", c.path, got, want)
		}
	}
	// A defined fit: a positive error below 1 (the net learned something
	// in 400 epochs), a coverage fraction, a positive gamma.
	if e := num("errors", "rel_l2"); !(e > 0 && e < 1) {
		t.Errorf("rel_l2 = %g, want in (0, 1)", e)
	}
	if c := num("errors", "coverage_2sigma"); !(c >= 0 && c <= 1) {
		t.Errorf("coverage = %g, want a fraction", c)
	}
	if g := num("gamma"); !(g > 0 && g <= 25) {
		t.Errorf("gamma = %g, want in (0, 25] for the 25 weights of 2-6-1", g)
	}
}

// TestFitHeldBeta: the summary marks a beta held at a known noise, which is
// 1/std^2 exactly and not the evidence's, and only that one.
func TestFitHeldBeta(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--known-noise", "beta=0.01"}, "beta:  beta = 10000 (held: known noise)\n"},
		{nil, ""},
	} {
		code, out, errOut := cli(t, append([]string{"fit", "heat", "--epochs", "200", "--hyper-start", "100"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		if c.want == "" && strings.Contains(out, "held") || !strings.Contains(out, c.want) {
			t.Errorf("%v: the summary should mark %q and no other beta held:\n%s", c.args, c.want, out)
		}
	}
}
