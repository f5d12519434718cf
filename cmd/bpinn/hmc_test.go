package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHMCBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no problem", nil, "missing the problem"},
		{"unknown problem", []string{"nosuch"}, `nosuch`},
		{"bad sampler", []string{"regression", "--sampler", "gibbs"}, "--sampler is \"gibbs\""},
		{"leapfrog with nuts", []string{"regression", "--sampler", "nuts", "--leapfrog", "20"}, "--leapfrog is for --sampler hmc"},
		{"bad metric", []string{"regression", "--metric", "full"}, "--metric is \"full\""},
		{"target 1", []string{"regression", "--target-accept", "1"}, "--target-accept is 1"},
		{"depth 0", []string{"regression", "--max-depth", "0"}, "--max-depth is 0"},
		{"two problems", []string{"regression", "regression"}, "one problem expected"},
		{"bad recipe", []string{"regression", "--recipe", "fast"}, "--recipe fast: use tuned or paper"},
		{"zero samples", []string{"regression", "--samples", "0"}, "--samples is 0"},
		{"negative samples", []string{"regression", "--samples=-5"}, "--samples is -5"},
		{"zero chains", []string{"regression", "--chains", "0"}, "--chains is 0"},
		{"negative chains", []string{"regression", "--chains", "-1"}, "--chains is -1"},
		{"negative burn-in", []string{"regression", "--burn-in", "-1"}, "--burn-in is -1"},
		{"zero leapfrog", []string{"regression", "--leapfrog", "0"}, "--leapfrog is 0"},
		{"zero epochs", []string{"--epochs", "0", "regression"}, "--epochs is 0"},
		{"not a number", []string{"regression", "--samples", "many"}, "--samples many: not a valid value"},
		{"unknown flag", []string{"regression", "--steps", "3"}, "unknown flag --steps"},
		{"negative seed", []string{"regression", "--seed", "-1"}, "--seed -1: not a positive integer"},
		{"seed zero", []string{"regression", "--fit-seed", "0"}, "--fit-seed 0: not a positive integer"},
		{"too few epochs", []string{"regression", "--epochs", "999"}, "need at least 1000"},
		{"json in a missing directory", []string{"regression", "--json", filepath.Join(t.TempDir(), "no", "h.json")}, "does not exist"},
		{"json is a directory", []string{"regression", "--json", t.TempDir()}, "is a directory"},
		{"bad whitening", []string{"heat-inverse", "--whitening", "fisher"}, `--whitening is "fisher": use exact or gauss-newton`},
		{"whitening of a forward problem", []string{"heat", "--whitening", "exact"}, `--whitening is for inverse problems`},
		{"bad hidden", []string{"heat-inverse", "--hidden", "6,0"}, "want positive layer sizes"},
		{"several fields", []string{"lid-driven"}, "lid-driven has 3 fields (u, v, p)"},
		{"ladder without 1", []string{"regression", "--temperatures", "2,3"}, "--temperatures is [2 3]: give 1 first"},
		{"ladder not increasing", []string{"regression", "--temperatures", "1,2,2"}, "--temperatures is [1 2 2]"},
		{"ladder not numbers", []string{"regression", "--temperatures", "1,hot"}, `"hot" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := cmdWith("hmc", tc.args, nil, &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit code: got %d, want 2", code)
			}
			msg := stderr.String()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("stderr: got %q, want it to contain %q", msg, tc.want)
			}
			if n := strings.Count(msg, "\n"); n != 1 || !strings.HasSuffix(msg, "\n") {
				t.Errorf("stderr: got %d lines (%q), want one", n, msg)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: got %q, want nothing", stdout.String())
			}
		})
	}
}

func TestHMCHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-h"} {
		var stdout, stderr bytes.Buffer
		if code := cmdWith("hmc", []string{arg}, nil, &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit code %d, want 0", arg, code)
		}
		for _, want := range []string{"usage: bpinn hmc PROBLEM", "--sampler", "--samples", "--burn-in", "--chains",
			"--metric", "--target-accept", "--max-depth", "--leapfrog", "--sample-hyper", "--whiten", "--whitening", "--temperatures", "--recipe", "--seed", "--fit-seed", "--epochs", "--json"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: usage lacks %q", arg, want)
			}
		}
	}
}

// TestHMCRun runs a small comparison end to end and checks the JSON: no
// NaN, the fields docs/hmc.md documents, one value per grid point, no
// temporary file left behind.
func TestHMCRun(t *testing.T) {
	t.Parallel()
	path, stdout := hmcOK(t, "regression", "--samples", "200", "--burn-in", "200", "--chains", "2",
		"--max-depth", "8", "--target-accept", "0.8", "--epochs", "3000", "--seed", "2", "--hidden", "5")
	for _, want := range []string{"Laplace vs nuts on regression", "sigma ratio Laplace/sampled",
		"2-sigma coverage sampled", "max R-hat", "E-BFMI", "tree depth", "ESS per 1000 gradients", "predictive", "wrote " + path} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Inf")) {
		t.Error("JSON contains NaN or Inf")
	}
	var rep struct {
		Command string `json:"command"`
		Fit     struct {
			Seed   *uint64   `json:"seed"`
			Epochs int       `json:"epochs"`
			Hidden []int     `json:"hidden"`
			Status string    `json:"status"`
			Alpha  []float64 `json:"alpha"`
			Beta   []float64 `json:"beta"`
		} `json:"fit"`
		Comparison map[string]json.RawMessage `json:"comparison"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Command != "hmc" || rep.Fit.Epochs != 3000 || !slices.Equal(rep.Fit.Hidden, []int{5}) || rep.Fit.Status != "ok" ||
		len(rep.Fit.Alpha) != 1 || len(rep.Fit.Beta) != 1 || rep.Fit.Seed == nil {
		t.Errorf("fit: got command %q, %+v", rep.Command, rep.Fit)
	}
	for _, k := range []string{"problem", "alpha", "beta", "hmc_settings", "data_intervals", "x", "truth",
		"laplace", "hmc", "max_gap_sigma", "mean_gap_sigma", "width_ratio", "coverage_laplace",
		"coverage_hmc", "diagnostics"} {
		if _, ok := rep.Comparison[k]; !ok {
			t.Errorf("comparison: field %s missing", k)
		}
	}
	var x []float64
	var hmc struct{ Mean, Std []float64 }
	var diag struct {
		Accept    []float64  `json:"accept"`
		StepSize  []float64  `json:"step_size"`
		Divergent []int      `json:"divergent"`
		TreeDepth []float64  `json:"tree_depth"`
		EBFMI     []*float64 `json:"ebfmi"`
	}
	for k, v := range map[string]any{"x": &x, "hmc": &hmc, "diagnostics": &diag} {
		if err := json.Unmarshal(rep.Comparison[k], v); err != nil {
			t.Errorf("comparison.%s: %v", k, err)
		}
	}
	if len(x) != 201 || len(hmc.Mean) != 201 || len(hmc.Std) != 201 {
		t.Errorf("got %d grid points, %d means, %d stds, want 201 each", len(x), len(hmc.Mean), len(hmc.Std))
	}
	if len(diag.Accept) != 2 || len(diag.StepSize) != 2 || len(diag.Divergent) != 2 || len(diag.TreeDepth) != 2 || len(diag.EBFMI) != 2 {
		t.Errorf("diagnostics: got %+v, want 2 chains of accept, step size, divergent, tree depth, E-BFMI", diag)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("output directory holds %d files, want only hmc.json", len(entries))
	}
}

// removeOn is a writer that removes dir once the output contains mark: the
// --json directory goes away after the run and before the write.
type removeOn struct {
	bytes.Buffer
	mark, dir string
}

func (w *removeOn) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.mark) {
		os.RemoveAll(w.dir)
	}
	return n, err
}

func TestHMCJSONLostAfterRun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hmc.json")
	stdout := &removeOn{mark: "Laplace vs hmc", dir: dir}
	var stderr bytes.Buffer
	code := cmdWith("hmc", []string{"regression", "--samples", "100", "--burn-in", "100", "--chains", "1",
		"--leapfrog", "5", "--epochs", "3000", "--seed", "3", "--json", path}, nil, stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	msg := lines[len(lines)-1]
	if !strings.HasPrefix(msg, "bpinn hmc: cannot write "+path+": ") {
		t.Fatalf("want a last line naming %s, got:\n%s", path, stderr.String())
	}
	_, saved, ok := strings.Cut(msg, "the results are saved in ")
	if !ok {
		t.Fatalf("the error does not say where the results went: %s", msg)
	}
	defer os.Remove(saved)
	var rep struct {
		Command    string         `json:"command"`
		Comparison map[string]any `json:"comparison"`
	}
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Command != "hmc" || rep.Comparison["hmc"] == nil {
		t.Errorf("rescued file %s: command %q, err %v", saved, rep.Command, err)
	}
}

// TestHMCHeatQuick samples a PDE posterior in the quick mode: heat, with
// the hyperparameters sampled too, in whitened coordinates, a few draws of
// one chain; the grid is 21 x 21, the hyperparameters' marginals are
// printed and recorded, and so is the calibrated band beside the Laplace
// one (heat has fresh points).
func TestHMCHeatQuick(t *testing.T) {
	t.Parallel()
	path, stdout := hmcOK(t, "heat", "--samples", "60", "--burn-in", "60", "--chains", "1", "--max-depth", "5",
		"--target-accept", "0.8", "--sample-hyper", "--whiten", "--epochs", "5000")
	for _, want := range []string{"Laplace vs nuts on heat", "2-sigma coverage sampled", "ln alpha", "ln beta", "Occam sigma", "whitened by the fit's A",
		"sigma ratio calibrated/sampled", "2-sigma coverage calibrated"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Comparison struct {
			Points   [][]float64 `json:"points"`
			Settings struct {
				Whiten bool `json:"whiten"`
			} `json:"hmc_settings"`
			Hyper struct {
				Alpha, Beta []map[string]any
			} `json:"hyper"`
			Calibrated struct {
				Sigma []float64 `json:"sigma"`
			} `json:"calibrated"`
			CoverageCalibrated map[string]float64 `json:"coverage_calibrated"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if c := rep.Comparison; len(c.Points) != 441 || len(c.Hyper.Alpha) == 0 || len(c.Hyper.Beta) == 0 || !c.Settings.Whiten {
		t.Errorf("got %d grid points, %d alpha and %d beta marginals, whiten %v; want 441, at least 1 each, true",
			len(c.Points), len(c.Hyper.Alpha), len(c.Hyper.Beta), c.Settings.Whiten)
	}
	if c := rep.Comparison; len(c.Calibrated.Sigma) != 441 || c.CoverageCalibrated["all"] <= 0 {
		t.Errorf("calibrated band: %d sigmas, coverage %v; want 441 and a coverage above 0", len(c.Calibrated.Sigma), c.CoverageCalibrated)
	}
}

// TestHMCTempered runs a small comparison with parallel tempering: the
// JSON records the ladder and each chain's exchange rates, the summary
// prints them.
func TestHMCTempered(t *testing.T) {
	t.Parallel()
	path, stdout := hmcOK(t, "regression", "--samples", "50", "--burn-in", "50", "--chains", "2", "--max-depth", "6",
		"--target-accept", "0.8", "--epochs", "3000", "--temperatures", "1,1.5,2.25")
	if !strings.Contains(stdout, "parallel tempering at T = 1, 1.5, 2.25") {
		t.Errorf("stdout lacks the tempering line:\n%s", stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Comparison struct {
			Settings struct {
				Temperatures []float64 `json:"temperatures"`
			} `json:"hmc_settings"`
			Diagnostics struct {
				SwapAccept [][]float64 `json:"swap_accept"`
			} `json:"diagnostics"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	c := rep.Comparison
	if len(c.Settings.Temperatures) != 3 || len(c.Diagnostics.SwapAccept) != 2 || len(c.Diagnostics.SwapAccept[0]) != 2 {
		t.Errorf("temperatures %v, swap rates %v; want 3 temperatures and 2 rates for each of 2 chains", c.Settings.Temperatures, c.Diagnostics.SwapAccept)
	}
}

// hmcOK runs bpinn hmc with args and --json into a temporary file, fails
// the test on a non-zero exit, and returns the file's path and stdout.
func hmcOK(t *testing.T, args ...string) (path, stdout string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "hmc.json")
	var out, stderr bytes.Buffer
	if code := cmdWith("hmc", append(args, "--json", path), nil, &out, &stderr); code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr.String())
	}
	return path, out.String()
}
