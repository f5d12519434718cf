package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/version"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// quick are training flags that keep a fit to tens of milliseconds.
var quick = []string{"--epochs", "300", "--hyper-start", "100"}

func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runWith(args, nil, &o, &e)
	return code, o.String(), e.String()
}

// cmdWith runs the command name on args, reading stdin.
func cmdWith(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(append([]string{name}, args...), stdin, stdout, stderr)
}

func with(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.jsonl")
	os.WriteFile(existing, []byte("{}\n"), 0o644)
	garbage := filepath.Join(dir, "garbage.jsonl")
	os.WriteFile(garbage, []byte("not json\n"), 0o644)
	noDir := filepath.Join(dir, "missing", "x.json")
	csvDir := t.TempDir() // apart from dir, whose entries are counted below
	badCSV := filepath.Join(csvDir, "bad.csv")
	os.WriteFile(badCSV, []byte("x,t,u,std\n0.5,0.5,0.3,0.01\n0.5,0.5,0.3,-1\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "missing command: use one of"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"fit"}, "want one problem"},
		{[]string{"fit", "heat", "wave"}, "want one problem"},
		{[]string{"fit", "hat"}, `unknown problem "hat"`},
		{[]string{"fit", "heat", "--epochs", "0"}, "must be positive"},
		{[]string{"fit", "heat", "--epochs", "-5"}, "must be positive"},
		{[]string{"fit", "heat", "--epochs", "many"}, "not an integer"},
		{[]string{"fit", "heat", "--epochs", "300", "--hyper-start", "500"}, "beyond epochs"},
		{[]string{"fit", "heat", "--hyper-start", "0"}, "must be positive"},
		{[]string{"fit", "heat", "--hyper-every", "-1"}, "must be positive"},
		{[]string{"fit", "heat", "--polish-memory", "0"}, "must be positive"},
		{[]string{"fit", "heat", "--threads", "-2"}, "must be positive"},
		{[]string{"fit", "heat", "--polish-memory", "20"}, "polishes by gauss-newton"},
		{[]string{"fit", "heat", "--foo"}, "unknown flag --foo"},
		{[]string{"fit", "heat", "---epochs", "5"}, "---epochs is not a flag"},
		{[]string{"fit", "heat", "--epochs"}, "--epochs needs a value"},
		{[]string{"fit", "heat", "--polish=maybe"}, "--polish maybe: not a valid value"},
		{[]string{"fit", "burgers", "--known-noise", "data=0.02,beta_data=0.05"}, "both name beta_data"},
		{[]string{"fit", "heat", "--hessian", "bfgs"}, "gauss-newton or exact"},
		{[]string{"fit", "heat", "--alphas", "many"}, "single or classes"},
		{[]string{"fit", "heat", "--betas", "many"}, "single or split"},
		{[]string{"fit", "heat", "--updater", "sgd"}, "adam or mackay"},
		{[]string{"fit", "heat", "--activation", "relu"}, "tanh"},
		{[]string{"fit", "heat", "--hidden", "8,0"}, "positive layer sizes"},
		{[]string{"fit", "heat", "--hidden", ""}, "positive layer sizes"},
		{[]string{"fit", "heat", "--kappa", "-1"}, "must be positive"},
		{[]string{"fit", "heat", "--lr", "0"}, "--lr 0: must be positive"},
		{[]string{"fit", "heat", "--lr", "5"}, "setting LR = 5: above 1"},
		{[]string{"fit", "heat", "--alpha0", "1e9"}, "alpha0/beta0 must lie in [1e-08, 1e+08]"},
		{[]string{"fit", "heat", "--beta0", "0"}, "--beta0 0: must be positive"},
		{[]string{"fit", "heat", "--fixed", "--alpha0", "0.1"}, "alpha0 and beta0 do not apply with fixed"},
		{[]string{"fit", "heat", "--fixed-beta", "2"}, "fixed-alpha, fixed-beta and fixed-mean need fixed"},
		{[]string{"fit", "heat", "--recipe", "paper", "--polish-iter", "20"}, "need polish in the paper's recipe"},
		{[]string{"fit", "heat", "--lr-decay", "2"}, "lr-decay = 2: must lie in (0, 1]"},
		{[]string{"fit", "heat", "--lr-decay", "0"}, "--lr-decay 0: must be positive"},
		{[]string{"fit", "heat", "--hyper-lr", "1.5"}, "setting Hyper.LR = 1.5: above 1"},
		{[]string{"fit", "heat", "--hyper-lr", "inf"}, "--hyper-lr inf: not a finite number"},
		{[]string{"fit", "heat", "--resample", "-100"}, "setting Resample = -100: give K > 0 epochs between redraws, 0 for the schedule's or -1 for never"},
		{[]string{"fit", "heat", "--kappa", "NaN"}, "not a finite number"},
		{[]string{"fit", "heat", "--scale", "unit"}, "--scale unit: use none or auto or box"},
		{[]string{"fit", "wave", "--kappa", "0.2"}, "--kappa applies to heat, heat-inverse, heat2-inverse, heat2-reaction only"},
		{[]string{"fit", "heat", "--reaction", "0.5"}, "--reaction applies to heat2-inverse, heat2-reaction only"},
		{[]string{"fit", "heat-inverse", "--data", badCSV}, "line 3: std = -1: a standard deviation must be positive"},
		{[]string{"fit", "heat-inverse", "--data", filepath.Join(csvDir, "none.csv")}, "--data: open"},
		{[]string{"coverage", "heat", "--draws", "2"}, `problem "heat" has no unknown coefficients`},
		{[]string{"coverage", "heat-inverse", "--data", badCSV}, "coverage draws the data anew"},
		{[]string{"coverage", "heat-inverse", "--data-seed", "0"}, "seeds start at 1"},
		{[]string{"coverage", "heat-inverse", "--seed", "0"}, "seeds start at 1"},
		{[]string{"coverage", "heat-inverse", "--draws", "0"}, "must be positive"},
		{[]string{"coverage", "heat-inverse", "--draws", "2", "--data-seed", "18446744073709551615"}, "overflow"},
		{[]string{"fit", "heat", "--seed", "0"}, "seeds start at 1"},
		{[]string{"fit", "heat", "--seed", "-3"}, "not a positive integer"},
		{[]string{"fit", "heat", "--data-seed", "x"}, "not a positive integer"},
		{[]string{"fit", "burgers", "--known-noise", "data"}, "GROUP=STD"},
		{[]string{"fit", "burgers-inverse", "--init", "nu"}, "NAME=VALUE"},
		{[]string{"fit", "burgers-inverse", "--init", "nu=0.01,nu=0.02"}, "unknown nu given twice"},
		{[]string{"fit", "burgers-inverse", "--init", "mu=0.01"}, `has no unknown "mu"; its unknowns: nu`},
		{[]string{"fit", "burgers-inverse", "--init", "nu=0"}, "start it above 0"},
		{[]string{"fit", "heat", "--init", "kappa=0.1"}, `problem "heat" has no unknown coefficients`},
		{[]string{"fit", "burgers", "--known-noise", "data=0"}, "positive standard deviation"},
		{[]string{"fit", "burgers", "--known-noise", "measured=0.02"}, "has the groups beta_pde, beta_boundary, beta_data"},
		{[]string{"fit", "heat", "--known-noise", "beta=0.01", "--fixed"}, "use one of them"},
		{[]string{"fit", "heat", "--known-noise", "beta=1e-5"}, "1/std^2 in"},
		{with([]string{"fit", "heat", "--nan-at", "999"}, quick...), "beyond epochs"},
		{with([]string{"fit", "heat", "--json", noDir}, quick...), "does not exist"},
		{with([]string{"fit", "heat", "--json", dir}, quick...), "is a directory"},
		{[]string{"ensemble"}, "want one problem"},
		{[]string{"ensemble", "heat", "--n", "0"}, "must be positive"},
		{[]string{"ensemble", "heat", "--shard", "4/4"}, "0 <= I < N"},
		{[]string{"ensemble", "heat", "--shard", "1"}, "I/N"},
		{[]string{"ensemble", "heat", "--n", "2", "--shard", "3/4"}, "holds none"},
		{[]string{"ensemble", "heat", "--n", "2", "--seed-base", "18446744073709551615"}, "overflows"},
		{[]string{"ensemble", "heat", "--resume"}, "--resume needs --out"},
		{[]string{"ensemble", "heat", "--workers", "-1"}, "--workers -1"},
		{[]string{"ensemble", "heat", "--seed-base", "0"}, "seeds start at 1"},
		{with([]string{"ensemble", "heat", "--out", existing}, quick...), "use --resume"},
		{with([]string{"ensemble", "heat", "--out", garbage, "--resume"}, quick...), "line 1"},
		{with([]string{"ensemble", "heat", "--epochs", "0"}), "must be positive"},
		{[]string{"merge"}, "no files"},
		{[]string{"merge", filepath.Join(dir, "nope.jsonl")}, "no such file"},
		{[]string{"merge", garbage}, "line 1"},
		{[]string{"merge", "--out", noDir, existing}, "does not exist"},
		{[]string{"ensemble", "heat", "--sbatch", "3"}, "--sbatch needs --workers C"},
		{[]string{"ensemble", "heat", "--sbatch", "0", "--workers", "2"}, "--sbatch 0: must be positive"},
		{[]string{"ensemble", "heat", "--n", "4", "--sbatch", "5", "--workers", "2"}, "more shards than the 4 seeds"},
		{[]string{"ensemble", "heat", "--sbatch", "3", "--workers", "2", "--out", "x.jsonl"}, "drop --out"},
		{[]string{"ensemble", "heat", "--sbatch", "3", "--workers", "2", "--shard", "0/3"}, "drop --shard"},
		{[]string{"ensemble", "heat", "--sbatch", "3", "--workers", "2", "--resume"}, "drop --resume"},
		{[]string{"ensemble", "hat", "--sbatch", "3", "--workers", "2"}, `unknown problem "hat"`},
		{[]string{"ensemble", "heat", "--sbatch", "3", "--workers", "2", "--epochs", "300", "--hyper-start", "500"}, "beyond epochs"},
		{[]string{"status"}, "no files"},
		{[]string{"status", filepath.Join(dir, "nope.jsonl")}, "no such file"},
		{[]string{"status", garbage}, "line 1"},
		{[]string{"status", "--n", "0", existing}, "--n 0: must be positive"},
		{[]string{"status", "--shards", "x", existing}, "not an integer"},
		{[]string{"status", "--seed-base", "0", existing}, "seeds start at 1"},
		{[]string{"status", "--n", "2", "--seed-base", "18446744073709551615", existing}, "overflows"},
		{[]string{"exact"}, "want one problem"},
		{[]string{"exact", "hat"}, "unknown problem"},
		{[]string{"exact", "wave", "--kappa", "1"}, "--kappa applies to heat, heat-inverse, heat2-inverse, heat2-reaction only"},
		{[]string{"version", "extra"}, "takes no arguments"},
	} {
		code, out, errOut := cli(t, c.args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", c.args, code, errOut)
			continue
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%q: stderr %q, want it to contain %q", c.args, errOut, c.want)
		}
		if c.args != nil && (strings.Count(errOut, "\n") != 1 || out != "") {
			t.Errorf("%q: want one line on stderr and nothing on stdout, got stderr %q stdout %q", c.args, errOut, out)
		}
	}
	// Nothing was written by the failed commands.
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("failed commands left files: %v", names)
	}
	if b, _ := os.ReadFile(existing); string(b) != "{}\n" {
		t.Errorf("a refused ensemble changed %s: %q", existing, b)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"fit", []string{"usage: bpinn fit PROBLEM", "--epochs", "(default 1)", "heat", "exit status 0", "heat             x,t     6       15000   5000", "heat-inverse     x,t     8,8     15000   5000         25           single   split"}},
		{"ensemble", []string{"usage: bpinn ensemble PROBLEM", "--shard", "--resume", "(default 100)", "Spearman"}},
		{"merge", []string{"usage: bpinn merge", "--out"}},
		{"exact", []string{"usage: bpinn exact PROBLEM", "heat            x t", "burgers         x t", "regression      x", "wave-inverse    x t"}},
		{"version", []string{"usage: bpinn version"}},
		{"hmc", []string{"usage: bpinn hmc"}},
	} {
		for _, h := range []string{"--help", "-h"} {
			code, out, errOut := cli(t, c.cmd, h)
			if code != 0 || errOut != "" {
				t.Errorf("%s %s: exit %d stderr %q", c.cmd, h, code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s %s: output lacks %q:\n%s", c.cmd, h, w, out)
				}
			}
			if strings.Contains(out, "nan-at") {
				t.Errorf("%s %s shows the hidden flag --nan-at", c.cmd, h)
			}
		}
	}
	if code, out, _ := cli(t, "--help"); code != 0 || !strings.Contains(out, "ensemble") {
		t.Errorf("bpinn --help: exit %d, output %q", code, out)
	}
	if code, out, _ := cli(t, "help", "fit"); code != 0 || !strings.Contains(out, "usage: bpinn fit PROBLEM") {
		t.Errorf("bpinn help fit: exit %d, output %q", code, out)
	}
	if code, out, _ := cli(t, "version"); code != 0 || !strings.HasPrefix(out, "bpinn "+version.Version+" ") || !strings.Contains(out, "go1.") {
		t.Errorf("bpinn version: exit %d, output %q", code, out)
	}
}

func exact(t *testing.T, input string, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := cmdWith("exact", args, strings.NewReader(input), &o, &e)
	return code, o.String(), e.String()
}

func TestExact(t *testing.T) {
	t.Parallel()
	burgers, err := problems.New("burgers", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		input string
		want  func(x []float64) float64
	}{
		{[]string{"heat"}, "0.5 0.1\n0 0\n\n# comment\n 0.25\t1 \n1e-3 0.5\n", func(x []float64) float64 { return problems.HeatExact(x[0], x[1], 0.1) }},
		{[]string{"heat", "--kappa", "0.5"}, "0.5 0.1\n0.3 0.9\n", func(x []float64) float64 { return problems.HeatExact(x[0], x[1], 0.5) }},
		{[]string{"wave"}, "0.5 0.1\n0.2 0.7\n1 1\n", func(x []float64) float64 { return problems.WaveExact(x[0], x[1]) }},
		{[]string{"wave-full"}, "0.125 0.3\n", func(x []float64) float64 { return problems.WaveExact(x[0], x[1]) }},
		{[]string{"regression"}, "-0.5\n0\n0.77\n", func(x []float64) float64 { return problems.RegressionCurve(x[0]) }},
		{[]string{"burgers"}, "0 0.5\n-0.5 0.25\n0.01 0.99\n", burgers.Exact},
	} {
		code, out, errOut := exact(t, c.input, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		var pts [][]float64
		for _, l := range strings.Split(c.input, "\n") {
			f := strings.Fields(l)
			if len(f) == 0 || strings.HasPrefix(f[0], "#") {
				continue
			}
			var x []float64
			for _, s := range f {
				v, _ := strconv.ParseFloat(s, 64)
				x = append(x, v)
			}
			pts = append(pts, x)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != len(pts) {
			t.Fatalf("%v: %d output lines for %d points", c.args, len(lines), len(pts))
		}
		for i, x := range pts {
			got, err := strconv.ParseFloat(lines[i], 64)
			if want := c.want(x); err != nil || got != want { // full precision: the same bits
				t.Errorf("%v at %v: got %s, want %s", c.args, x, lines[i], strconv.FormatFloat(want, 'g', -1, 64))
			}
		}
	}
	// -sin(pi*0) is -0 in floating point; users read 0.
	if code, out, _ := exact(t, "0 0\n", "burgers"); code != 0 || out != "0\n" {
		t.Errorf("burgers at (0, 0): exit %d, output %q, want \"0\\n\"", code, out)
	}
}

// A problem of several fields prints a header naming the columns, then per
// point its inputs and every field, as bpinn predict does.
func TestExactFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, input, header string }{
		{"lid-driven", "0.5 0.5\n0.1 0.9\n", "x y u v p"},
		{"lotka-volterra-inverse", "0.5\n1\n", "tau u v"},
	} {
		p, err := problems.New(c.name, problems.Options{})
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := exact(t, c.input, c.name)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || lines[0] != c.header || len(lines) != 3 {
			t.Fatalf("%s: exit %d (%s), output %q; want the header %q and 2 lines", c.name, code, errOut, out, c.header)
		}
		for i, in := range strings.Split(strings.TrimSuffix(c.input, "\n"), "\n") {
			var x []float64
			for _, f := range strings.Fields(in) {
				v, _ := strconv.ParseFloat(f, 64)
				x = append(x, v)
			}
			var want []string
			for _, v := range append(x, p.ExactValues(x)...) {
				want = append(want, strconv.FormatFloat(v+0, 'g', -1, 64))
			}
			if got := lines[i+1]; got != strings.Join(want, " ") {
				t.Errorf("%s at %v: got %q, want %q", c.name, x, got, strings.Join(want, " "))
			}
		}
	}
}

func TestExactBadLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem, input, want string
	}{
		{"heat", "0.5 0.1\n0.5\n", "line 2: want 2 numbers (x t), got 1"},
		{"heat", "0.5 0.1 0.3\n", "line 1: want 2 numbers (x t), got 3"},
		{"heat", "0.5 0.1\n\n0.5 abc\n", `line 3: t = "abc" is not a finite number`},
		{"heat", "NaN 0.1\n", "line 1: x = \"NaN\" is not a finite number"},
		{"heat", "0.5 Inf\n", "is not a finite number"},
		{"heat", "1.5 0.1\n", "line 1: x = 1.5 is outside [0, 1]"},
		{"burgers", "-1.01 0.5\n", "outside [-1, 1]"},
		{"regression", "0.1 0.2\n", "want 1 number (x), got 2"},
		{"heat", strings.Repeat("1", datafile.MaxPointLine+10) + "\n", "line 1: longer than"},
	} {
		code, out, errOut := exact(t, c.input, c.problem)
		if code != exitUsage || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s %q: exit %d stdout %q stderr %q; want 2, nothing printed, one line with %q", c.problem, c.input[:min(len(c.input), 30)], code, out, errOut, c.want)
		}
	}
}

// nonFiniteRE matches a NaN or infinity written as a JSON value.
var nonFiniteRE = regexp.MustCompile(`[:,\[]\s*"?[-+]?(NaN|Inf|Infinity)"?\s*[,}\]]`)

var secondsRE = regexp.MustCompile(`"seconds": ?[-0-9.eE+]+`)

// noSeconds blanks the one field that may differ between identical runs.
func noSeconds(b []byte) string { return secondsRE.ReplaceAllString(string(b), `"seconds":0`) }

func TestFitJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, problem := range []string{"heat", "regression", "wave-full"} {
		path := filepath.Join(dir, problem+".json")
		code, out, errOut := cli(t, with([]string{"fit", problem, "--json", path}, quick...)...)
		if code != 0 {
			t.Fatalf("fit %s: exit %d: %s", problem, code, errOut)
		}
		for _, w := range []string{"status ok", "rel L2", "coverage", "rms residual, training -> fresh points", "q95 of |u - u*|/sigma",
			"calibrated band (no exact solution used)", "alpha", "beta", "log evidence"} {
			if !strings.Contains(out, w) {
				t.Errorf("fit %s: summary lacks %q:\n%s", problem, w, out)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if nonFiniteRE.Match(b) {
			t.Errorf("fit %s: JSON holds a non-finite value: %s", problem, nonFiniteRE.Find(b))
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("fit %s: %v", problem, err)
		}
		warnings, _ := m["warnings"].([]any)
		if n := strings.Count(out, "  warning: "); n != len(warnings) {
			t.Errorf("fit %s: %d warnings printed, the record has %d", problem, n, len(warnings))
		}
		for _, k := range []string{"problem", "seed", "status", "epochs", "inputs", "params", "architecture", "activation",
			"hessian", "updater", "alpha_mode", "beta_mode", "alpha", "beta", "log_evidence", "log_p", "log_p_convention",
			"log_p_const", "ln_sigma_alpha", "ln_sigma_beta", "comb", "gamma", "e_w", "e_d", "errors", "hyper",
			"seconds", "version", "weights", "terms", "history", "residual_rms"} {
			if _, ok := m[k]; !ok {
				t.Errorf("fit %s: JSON lacks %q", problem, k)
			}
		}
		errs, _ := m["errors"].(map[string]any)
		for _, k := range []string{"rel_l2", "mse", "max_abs", "coverage_2sigma"} {
			if _, ok := errs[k].(float64); !ok {
				t.Errorf("fit %s: errors.%s = %v, want a number", problem, k, errs[k])
			}
		}
		var r record.Result
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("fit %s: decode into Result: %v", problem, err)
		}
		if r.Weights == nil || r.Weights.NumWeights() == 0 || len(r.History) == 0 || r.DataSeed != 1 {
			t.Errorf("fit %s: weights %v, %d history points, data seed %d", problem, r.Weights, len(r.History), r.DataSeed)
		}
		if want := map[string]int{"heat": 10000, "regression": 200, "wave-full": 10000}[problem]; r.Errors.Points != want {
			t.Errorf("fit %s: errors on %d points, want %d", problem, r.Errors.Points, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files in the output directory, want 3 (temporary files left behind?)", len(entries))
	}
}

func TestFitDeterministic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var got []string
	for i := 0; i < 2; i++ {
		path := filepath.Join(dir, strconv.Itoa(i)+".json")
		if code, _, errOut := cli(t, with([]string{"fit", "wave-full", "--seed", "7", "--polish", "--json", path}, quick...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		b, _ := os.ReadFile(path)
		got = append(got, noSeconds(b))
	}
	if got[0] != got[1] {
		t.Errorf("two fits with the same flags differ apart from seconds")
	}
}

func TestFitNaN(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nan.json")
	code, out, errOut := cli(t, with([]string{"fit", "heat", "--nan-at", "75", "--json", path}, quick...)...)
	if code != 0 {
		t.Fatalf("a diverged fit exits %d, want 0: %s", code, errOut)
	}
	if !strings.Contains(out, "status diverged after 75") || !strings.Contains(out, "epoch 75") {
		t.Errorf("summary does not report the divergence at epoch 75:\n%s", out)
	}
	b, _ := os.ReadFile(path)
	var r record.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != string(bayes.StatusDiverged) || r.Epochs != 75 || !strings.Contains(r.Reason, "epoch 75") || r.LogEvidence != nil {
		t.Errorf("status %q epochs %d reason %q log evidence %v; want diverged at epoch 75, null evidence",
			r.Status, r.Epochs, r.Reason, r.LogEvidence)
	}
	if math.IsNaN(r.RelL2()) || !math.IsNaN(r.Coverage()) {
		t.Errorf("rel L2 %v coverage %v: want the error of the last good weights and no coverage", r.RelL2(), r.Coverage())
	}
}

// bpinn coverage and bpinn fit on an inverse problem: each draw's estimate,
// the summary line, and the fit's unknowns (small settings: seconds).
func TestCoverageAndUnknowns(t *testing.T) {
	small := []string{"--epochs", "200", "--hyper-start", "100", "--hidden", "4", "--final-hyper", "2"}
	code, out, errOut := cli(t, with([]string{"coverage", "heat-inverse", "--draws", "2", "--workers", "1"}, small...)...)
	if code != exitOK {
		t.Fatalf("coverage: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"data seed 1: ", "data seed 2: ", "kappa = ", "heat-inverse: 2 draws (data seeds 1 to 2, network seed 1)", "95% interval holds the truth in "} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage output lacks %q:\n%s", want, out)
		}
	}
	rec := filepath.Join(t.TempDir(), "fit.json")
	code, out, errOut = cli(t, with([]string{"fit", "heat-inverse", "--init", "kappa=0.2", "--json", rec}, small...)...)
	if code != exitOK || !strings.Contains(out, "unknown kappa = ") || !strings.Contains(out, "on ln kappa; 95% interval [") || !strings.Contains(out, "truth 0.1, relative error") {
		t.Errorf("fit heat-inverse: exit %d, stdout:\n%s\nstderr %s", code, out, errOut)
	}
	// --init starts kappa at 0.2 instead of the problem's 0.05, and the
	// record says so.
	var r struct {
		Unknowns map[string]struct{ Init *float64 } `json:"unknowns"`
	}
	if b, err := os.ReadFile(rec); err != nil || json.Unmarshal(b, &r) != nil {
		t.Fatalf("record %s: %v", rec, err)
	}
	if k := r.Unknowns["kappa"]; k.Init == nil || *k.Init != 0.2 {
		t.Errorf("record's unknowns.kappa.init = %v, want 0.2", k.Init)
	}
}
