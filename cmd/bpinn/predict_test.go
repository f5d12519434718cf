package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

func predict(t *testing.T, input string, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := cmdWith("predict", args, strings.NewReader(input), &o, &e)
	return code, o.String(), e.String()
}

// TestPredict: bpinn predict prints, from a fit's record alone, the
// prediction of the fit restored in Go (the same bits), with a header
// naming the columns; bad points are one-line errors naming the line.
func TestPredict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "heat.json")
	if code, _, errOut := cli(t, append([]string{"fit", "heat", "--json", path}, quick...)...); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	code, out, errOut := predict(t, "0.5 0.1\n\n# a comment\n0.25 0.9\n", path)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || lines[0] != "x t u u_sigma u_sigma_heldout u_sigma_calibrated" {
		t.Fatalf("output %q: want the header x t u u_sigma u_sigma_heldout u_sigma_calibrated and 2 lines", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r record.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := record.Restore(p, &r)
	if err != nil {
		t.Fatal(err)
	}
	pts := [][]float64{{0.5, 0.1}, {0.25, 0.9}}
	pr, err := record.Predict(f, r.Bands, pts)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := pr.WriteTable(&want); err != nil {
		t.Fatal(err)
	}
	if out != want.String() {
		t.Errorf("bpinn predict:\n%s\nrestored in Go:\n%s", out, want.String())
	}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		u, _ := strconv.ParseFloat(f[2], 64)
		s, _ := strconv.ParseFloat(f[3], 64)
		if exact := problems.HeatExact(pts[i][0], pts[i][1], 0.1); !(s > 0) || abs(u-exact) > 0.05 {
			t.Errorf("line %q: u far from the exact %g or sigma not positive", l, exact)
		}
	}
	for _, c := range []struct{ input, want string }{
		{"0.5 0.1\n0.5\n", "line 2: want 2 numbers (x t), got 1"},
		{"0.5 NaN\n", `line 1: t = "NaN" is not a finite number`},
		{"0.5 0.1\n\nx 0.2\n", `line 3: x = "x" is not a finite number`},
		{"1.5 0.1\n", "line 1: x = 1.5 is outside [0, 1]"},
	} {
		code, out, errOut := predict(t, c.input, path)
		if code != exitUsage || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d stdout %q stderr %q; want 2, nothing printed, one line with %q", c.input, code, out, errOut, c.want)
		}
	}
	if code, out, _ := cli(t, "predict", "--help"); code != 0 || !strings.Contains(out, "usage: bpinn predict [--seed SEED] RECORD") {
		t.Errorf("predict --help: exit %d, output %q", code, out)
	}
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("not json\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want one record file"},
		{[]string{filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{garbage}, "not a bpinn record"},
		{[]string{path, "--seed", "7"}, "no fit of seed 7"},
	} {
		code, _, errOut := predict(t, "0.5 0.1\n", c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d stderr %q; want 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
