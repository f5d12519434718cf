// Package notebooks_test executes every notebook in this directory headless,
// the way GoNB tests its own notebooks: kernel/install.sh registers the GoNB
// kernel (with --raw_error) in a temporary Jupyter data directory, then
// `jupyter nbconvert --execute` runs each notebook in quick mode
// (BPINN_QUICK=1) with the Go module proxy switched off (GOPROXY=off: the
// notebooks must build from the module cache that scripts/setup.sh fills).
//
// A notebook fails when a cell shows an error or writes to stderr (a failed
// `!` shell command, a panic, log output), when its first code cell is not
// kernel/setup-cell.txt, or when one of its checks in expect fails.
//
// No check reads a clock: each notebook's stated quick-mode time is
// measured by make check-docs (scripts/checkdocs), which runs this test with
// BPINN_NB_TIMES=file to collect the times. Every process a run starts,
// GoNB's gopls included (it lives in a process group of its own), is ended
// when the run ends (internal/reap).
//
// Under -short the notebooks are only parsed, not executed. Set
// BPINN_NB_OUT=dir to keep the executed notebooks for inspection.
package notebooks_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/internal/nbtime"
	"github.com/evidence-pinn/bpinn/internal/reap"
)

// expect holds the checks on each notebook's outputs, keyed by the
// notebook's path relative to notebooks/. Every notebooks/*.ipynb is executed
// whether it is listed or not (it must then only run without errors); a
// listed notebook that does not exist fails the test.
//
// Numbers are read from the text the notebook prints; printed takes the last
// match, so a value printed once per epoch is checked at its final value.
// A cell that displays a figure must end with gonbui.Sync() (pkg/viz's
// display helpers should call it): GoNB drops what is still in its pipe
// when the cell's program exits, and hasPNG would fail now and then.
var expect = map[string][]check{
	"testdata/smoke.ipynb": {
		printed(`logdet = `+num, near(math.Log(5), 1e-6)),
		printed(`heat = `+num, near(math.Exp(-math.Pi*math.Pi/10), 1e-6)),
		printed(`BPINN_QUICK = "1"`),
		hasPNG(),
		hasHTML(`id="bpinn-smoke"`),
	},
	// The bounds are about 3x the quick-mode values measured when the
	// notebooks were written (in parentheses), so that a change of the
	// training code that makes the fits clearly worse fails here.
	"00-tour.ipynb": {
		printed(`rel_l2 = `+num, below(1e-4)),                         // (2.9e-08: no noise, beta at the clamp)
		printed(`log_evidence = `+num, above(50)),                     // (107; nats, not a ratio)
		printed(`coverage = `+num, within(0.5, 1)),                    // (1.0)
		printed(`warning: beta = 1e\+08 is at the clamp`),             // explained in the notebook
		printed(`(?m)^ 8  25 +`+num+` +`+num, above(50), below(1e-4)), // the scan's 8-unit row (107, 2.9e-08)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"01-hmc-vs-laplace.ipynb": {
		// The regression's rel L2 is over [-1, 1], mostly outside the data.
		printed(`rel_l2 = `+num, below(0.8)),                                        // (0.57)
		printed(`alpha = `+num+`, beta = `+num, within(0.05, 1), within(150, 1500)), // (0.19, 432; paper 0.24, 596)
		printed(`max_gap = `+num, below(5)),                                         // (1.07)
		printed(`coverage Laplace: inside `+num, above(0.7)),                        // (1.0)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"02-heat.ipynb": {
		printed(`coverage_calibrated = `+num, within(0.5, 1)),
		printed(`rel_l2 = `+num, below(0.03)),      // (0.0059)
		printed(`coverage = `+num, within(0.3, 1)), // (0.85)
		printed(`log_evidence = `+num, above(200)), // (347)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"03-wave.ipynb": {
		printed(`coverage_calibrated = `+num, within(0.5, 1)),
		printed(`rel_l2 = `+num, below(0.03)),      // (0.0064)
		printed(`coverage = `+num, within(0.2, 1)), // (0.58)
		printed(`log_evidence = `+num, above(300)), // (587)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"04-wave-full.ipynb": {
		printed(`coverage_calibrated = `+num, within(0.3, 1)),
		printed(`rel_l2 \(full\) = `+num, below(0.05)),      // (0.010)
		printed(`rel_l2 \(single\) = `+num, below(0.03)),    // (0.0064)
		printed(`log_evidence \(full\) = `+num, above(300)), // (628)
		printed(`ln Z_full - ln Z_single = `+num, above(0)), // (41; the paper: the full model is more probable)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"05-burgers.ipynb": {
		printed(`coverage_calibrated = `+num, within(0.3, 1)),
		printed(`u_x\(0, 1.6037/pi\) = `+num, near(-152.00516, 1e-4)),
		printed(`rel_l2 = `+num, below(0.6)), // (0.29)
		printed(`beta\[beta_data\] = `+num, above(1)),
		printed(`rel_l2 \(2-6-6-6-1, resample\) = `+num, below(0.4)),       // (0.136)
		printed(`log_evidence \(2-6-6-6-1, resample\) = `+num, above(800)), // (1714.7; 2-8-8-1: 1133.7)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"08-inverse.ipynb": {
		printed(`rel_err = `+num, below(0.05)),
		printed(`sd\(ln kappa\) = `+num, within(0.002, 0.05)),
		printed(`mean_rel_err = `+num, below(0.05)),
		printed(`ln Z_reaction - ln Z_plain \(r = 0.5\) = `+num, above(0)), // the evidence picks the physics that made the data
		printed(`beta_data = `+num, within(0.2, 5)),                        // per-row std: about 1 when the stated deviations are right
		hasPNG(), hasHTML("<progress"),
	},
	"06-architecture-by-evidence.ipynb": {
		printed(`best_hidden = `+num, within(4, 12)),   // (10)
		printed(`rel_l2 = `+num, below(0.02)),          // (0.0033)
		printed(`spearman = `+num, below(0)),           // (-0.92 over 10 fits)
		hasPNG(), hasHTMLChart(), hasHTML("<progress"), // a progress bar
	},
	"10-pinnacle.ipynb": {
		printed(`heat-nd +inputs \[x1 x2 x3 x4 x5 t\]`),           // the suite listed with its derived nets
		printed(`rel_l2 = `+num, below(0.01)),                     // (0.0026; PINNacle's best listed 1.19e-4)
		printed(`log_evidence = `+num, above(5000)),               // (11788)
		printed(`coverage_calibrated = `+num, within(0.5, 1)),     // (0.868, and the record warns)
		printed(`rel_l2 \(PINNacle's loss\) = `+num, below(0.04)), // (0.0115: the evidence wins here)
		hasHTML("<progress"),                                      // a progress bar
	},
	"09-systems-and-geometry.ipynb": {
		printed(`plate: rel_l2 = `+num, below(0.15)),                 // (0.055; a 2-10-10-1 net against the finite-difference reference)
		printed(`plate: coverage = `+num, within(0.5, 1)),            // (0.915)
		printed(`plate: coverage_calibrated = `+num, within(0.8, 1)), // (0.964)
		printed(`plate: q95 = `+num, within(1, 5)),                   // (2.24)
		printed(`plate: ln Z = `+num, above(400)),                    // (694.9)
		printed(`oscillator: u rel_l2 = `+num, below(3e-4)),          // (5.9e-05)
		printed(`oscillator: v rel_l2 = `+num, below(3e-4)),          // (5.7e-05)
		printed(`oscillator: u rel_l2 = .*coverage = `+num, within(0.5, 1)),
		printed(`oscillator: v rel_l2 = .*coverage = `+num, within(0.5, 1)),
		printed(`oscillator: joint rel_l2 = `+num, below(3e-4)), // (5.8e-05)
		printed(`oscillator: v\(pi\) = `+num, near(-1, 1e-3)),   // (-0.99998)
		printed(`disk: rel_l2 = `+num, below(3e-4)),             // (7.4e-05)
		printed(`disk: u_n\(1, 0\) = `+num, near(2, 5e-3)),      // (1.9999; the Robin condition holds u_n = 2)
		hasPNG(), hasHTML("<progress"),
	},
	// The fits' numbers are rows of nb.Summary's tables, read as
	// "<caption>: <key> = <value>" (tableText).
	"07-your-own-pde.ipynb": {
		printed(`poisson-2d: rel_l2 = `+num, below(0.002)),                          // (0.00062; the best of 4 seeds)
		printed(`poisson-2d: coverage = `+num, within(0.5, 1)),                      // (0.99)
		printed(`poisson-2d: q95 = `+num, within(1, 3)),                             // (1.69)
		printed(`poisson-2d: coverage_calibrated = `+num, within(0.85, 1)),          // (0.989)
		printed(`poisson-2d: q95_calibrated = `+num, within(1.2, 3)),                // (1.69)
		printed(`advection-diffusion: q95 = `+num, within(1, 3)),                    // (2.25)
		printed(`advection-diffusion: coverage_calibrated = `+num, within(0.85, 1)), // (0.978)
		printed(`advection-diffusion: q95_calibrated = `+num, within(1.2, 3)),       // (1.64: the value check widens x1.37)
		printed(`reaction: q95 = `+num, below(1)),                                   // (0.16: one noise draw, see docs/results/coverage.md)
		printed(`reaction: coverage_calibrated = `+num, within(0.9, 1)),             // (1.0)
		printed(`reaction: q95_calibrated = `+num, below(1)),                        // (0.16)
		printed(`poisson-2d: log_evidence = `+num, above(150)),                      // (231; the two poor seeds: -156, -158)
		printed(`poisson-2d: beta_pde = `+num, above(0)),                            // one beta per group:
		printed(`poisson-2d: beta_boundary = `+num, above(0)),                       // beta_pde, beta_boundary
		printed(`poisson-2d: flux rel_l2 = `+num, below(0.01)),                      // (0.0023)
		printed(`advection-diffusion: rel_l2 = `+num, below(0.0015)),                // (0.00037)
		printed(`advection-diffusion: coverage = `+num, within(0.5, 1)),             // (0.91)
		printed(`advection-diffusion: log_evidence = `+num, above(500)),             // (709)
		printed(`advection-diffusion: beta_pde = `+num, above(0)),
		printed(`advection-diffusion: beta_boundary = `+num, above(0)),
		printed(`advection-diffusion: flux rel_l2 = `+num, below(0.002)),                // (0.00043)
		printed(`advection-diffusion: beta_pde rms residual: .*\(ratio `+num, below(3)), // (1.24: fresh points)
		printed(`reaction: rel_l2 = `+num, below(0.01)),                                 // (0.0031)
		printed(`reaction: coverage = `+num, within(0.5, 1)),                            // (1.0)
		printed(`reaction: log_evidence = `+num, above(40)),                             // (81)
		printed(`reaction: beta_pde = `+num, above(0)),
		printed(`reaction: beta_data = `+num, above(0)),
		printed(`reaction: noise from beta_data = `+num, within(0.035, 0.075)), // (0.054; the data's noise is 0.05)
		printed(`reaction: gamma_data = `+num, within(0.7, 1.3)),               // (1.0: the data fix the missing condition)
		printed(`reaction: u' rel_l2 = `+num, below(0.003)),                    // (0.0008)
		printed(`poisson-2d: 4 fits by evidence`),                              // nb.Ranked's table
		hasPNG(), hasHTML("<progress"), // a progress bar
	},
}

// Limits of one notebook's execution. Quick mode should make every notebook
// run in well under a minute once the Go build cache is warm; the first
// compile of gonum, gonum/plot or go-echarts in a cold cache takes longer.
const (
	cellTimeout     = 10 * time.Minute // nbconvert's per-cell timeout
	notebookTimeout = 30 * time.Minute
)

// smoke is the notebook that proves the wiring; it runs first.
const smoke = "testdata/smoke.ipynb"

// TestNotebookFiles checks, without Jupyter, that every notebook parses and
// starts with the setup cell. It runs under -short too.
func TestNotebookFiles(t *testing.T) {
	setup := setupCell(t)
	for _, name := range notebookNames(t) {
		nb, err := readNotebook(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := nb.checkSetupCell(setup); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if name == smoke {
			continue
		}
		if b, err := os.ReadFile(name); err != nil {
			t.Error(err)
		} else if _, err := nbtime.Stated(b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name := range expect {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("expect lists %s, which does not exist: %v", name, err)
		}
	}
}

// TestNotebooks executes every notebook, one subtest each, in sequence (the
// kernels compile Go code, which keeps the cores busy). With
// BPINN_NB_TIMES=file it appends each run's times to file (nbtime.Append).
func TestNotebooks(t *testing.T) {
	if testing.Short() {
		t.Skip("executing notebooks takes minutes; skipped under -short")
	}
	times := os.Getenv("BPINN_NB_TIMES")
	k := installKernel(t)
	for _, name := range notebookNames(t) {
		t.Run(name, func(t *testing.T) {
			nb := k.execute(t, name)
			if nb == nil {
				return
			}
			if fails := nb.failures(); len(fails) > 0 {
				t.Errorf("%s failed in %d cell(s):\n%s", name, len(fails), strings.Join(fails, "\n"))
			}
			for _, c := range expect[name] {
				if err := c.run(nb); err != nil {
					t.Errorf("%s: %s: %v", name, c.desc, err)
				}
			}
			if times != "" && name != smoke {
				if err := nbtime.Append(times, nbtime.Run{Notebook: name, Wall: nb.elapsed.Seconds(), CPU: nb.cpu.Seconds()}); err != nil {
					t.Errorf("BPINN_NB_TIMES: %v", err)
				}
			}
		})
	}
}

// notebookNames returns the smoke notebook followed by notebooks/*.ipynb in
// lexical order.
func notebookNames(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return append([]string{smoke}, names...)
}

func setupCell(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "kernel", "setup-cell.txt"))
	if err != nil {
		t.Fatalf("reading the setup cell: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// # Checks

// A check is one assertion on an executed notebook, built by printed, hasPNG,
// hasHTML or hasHTMLChart.
type check struct {
	desc string
	run  func(nb *notebook) error
}

// A bound is a condition on a printed number: below, above, within, near.
// NaN satisfies none.
type bound struct {
	desc string
	ok   func(float64) bool
}

// num matches a number as Go's %v, %g, %e or %f prints it, NaN and ±Inf
// included (so they fail the bound rather than the match); use it as a
// capture group in printed's pattern: printed(`rel_l2 = `+num, below(3e-2)).
const num = `([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|NaN|[-+]?Inf)`

func below(hi float64) bound {
	return bound{fmt.Sprintf("< %g", hi), func(v float64) bool { return v < hi }}
}

func above(lo float64) bound {
	return bound{fmt.Sprintf("> %g", lo), func(v float64) bool { return v > lo }}
}

// within is the closed interval [lo, hi].
func within(lo, hi float64) bound {
	return bound{fmt.Sprintf("in [%g, %g]", lo, hi), func(v float64) bool { return lo <= v && v <= hi }}
}

// near is |v - want| <= tol.
func near(want, tol float64) bound {
	return bound{fmt.Sprintf("%g ± %g", want, tol), func(v float64) bool { return math.Abs(v-want) <= tol }}
}

// printed requires the regular expression pattern to match the notebook's
// text output (stdout, text/plain and text/markdown, in cell order) and, at
// its last match, the i-th capture group to parse as a float64 within
// bounds[i]. With no bounds it only requires the match.
func printed(pattern string, bounds ...bound) check {
	re := regexp.MustCompile(pattern)
	if re.NumSubexp() < len(bounds) {
		panic(fmt.Sprintf("printed(%q): %d bounds but %d capture groups", pattern, len(bounds), re.NumSubexp()))
	}
	desc := fmt.Sprintf("printed(%q)", strings.ReplaceAll(pattern, num, "<num>"))
	return check{desc: desc, run: func(nb *notebook) error {
		all := re.FindAllStringSubmatch(nb.text(), -1)
		if len(all) == 0 {
			return errors.New("no text output matches")
		}
		m := all[len(all)-1]
		for i, b := range bounds {
			v, err := strconv.ParseFloat(m[i+1], 64)
			if err != nil {
				return fmt.Errorf("in %q, group %d %q is not a number", m[0], i+1, m[i+1])
			}
			if !b.ok(v) {
				return fmt.Errorf("in %q: got %g, want %s", m[0], v, b.desc)
			}
		}
		return nil
	}}
}

// hasPNG requires at least one image/png output that decodes as a PNG.
func hasPNG() check {
	return check{desc: "hasPNG()", run: func(nb *notebook) error {
		n := 0
		for _, o := range nb.outputs("image/png") {
			b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(o.text), ""))
			if err != nil {
				return fmt.Errorf("cell %d: image/png is not base64: %v", o.cell, err)
			}
			if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
				return fmt.Errorf("cell %d: image/png does not decode: %v", o.cell, err)
			}
			n++
		}
		if n == 0 {
			return errors.New("no image/png output")
		}
		return nil
	}}
}

// hasHTML requires a text/html output containing substr.
func hasHTML(substr string) check {
	return check{desc: fmt.Sprintf("hasHTML(%q)", substr), run: func(nb *notebook) error {
		for _, o := range nb.outputs("text/html") {
			if strings.Contains(o.text, substr) {
				return nil
			}
		}
		return fmt.Errorf("no text/html output contains %q", substr)
	}}
}

// hasHTMLChart requires an HTML output from go-echarts (pkg/viz).
func hasHTMLChart() check {
	c := hasHTML("echarts")
	c.desc = "hasHTMLChart()"
	return c
}

// # The kernel and nbconvert

type kernel struct {
	jupyter string   // path of the jupyter command
	env     []string // environment of nbconvert and so of the kernel
}

// installKernel finds Jupyter and Go and runs kernel/install.sh into a
// temporary Jupyter data directory, the way users install the kernel. The
// kernel's environment carries a mark (reap.Cleanup): every process started
// with it, and its descendants, are ended when t ends.
func installKernel(t *testing.T) *kernel {
	t.Helper()
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		jupyter = "/usr/bin/jupyter"
	}
	if out, err := exec.Command(jupyter, "nbconvert", "--version").CombinedOutput(); err != nil {
		t.Fatalf("jupyter nbconvert is missing (looked in PATH and /usr/bin/jupyter): %v %s\n"+
			"run scripts/setup.sh (as root: it installs Debian's jupyter-nbconvert), or go test -short to skip the notebooks",
			err, bytes.TrimSpace(out))
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command(goCmd, "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	// The kernel needs go, gonb and goimports (kernel/install.sh also writes
	// these directories into the kernelspec's PATH).
	path := strings.Join([]string{
		filepath.Join(goEnv("GOPATH"), "bin"),
		filepath.Join(goEnv("GOROOT"), "bin"),
		os.Getenv("PATH"),
	}, string(os.PathListSeparator))

	dir := t.TempDir()
	dataDir, configDir := filepath.Join(dir, "data"), filepath.Join(dir, "config")
	for _, d := range []string{dataDir, configDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(),
		reap.Cleanup(t),
		"PATH="+path,
		"JUPYTER_DATA_DIR="+dataDir, // the kernelspec, and runtime files
		"JUPYTER_PATH="+dataDir,
		"JUPYTER_CONFIG_DIR="+configDir, // no user configuration
	)

	install := exec.Command("bash", filepath.Join("..", "kernel", "install.sh"))
	install.Env = append(env, "BPINN_RAW_ERROR=1")
	start := time.Now()
	out, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("kernel/install.sh: %v\n%s", err, out)
	}
	t.Logf("kernel/install.sh (%v): %s", time.Since(start).Round(time.Millisecond), bytes.TrimSpace(out))

	env = append(env,
		"BPINN_QUICK=1",
		"GOPROXY=off", // everything must come from the module cache
	)
	return &kernel{jupyter: jupyter, env: env}
}

// pythonWith returns the first of python3 on PATH and Debian's
// /usr/bin/python3 that imports module, or "" (Debian's Jupyter and
// python3-selenium are for /usr/bin/python3, which may not be the first
// python3 on PATH).
func pythonWith(module string) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import "+module).Run() == nil {
			return p
		}
	}
	return ""
}

// execute runs the notebook name with nbconvert and returns it with its
// outputs, or nil after reporting a failure of nbconvert itself (a timeout,
// a kernel that died).
func (k *kernel) execute(t *testing.T, name string) *notebook {
	t.Helper()
	outDir := t.TempDir()
	if keep := os.Getenv("BPINN_NB_OUT"); keep != "" {
		outDir = filepath.Join(keep, filepath.Dir(name))
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), notebookTimeout)
	defer cancel()
	if dl, ok := t.Deadline(); ok {
		// Stop early enough to report which notebook hung.
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, k.jupyter, "nbconvert",
		"--to", "notebook", "--execute", "--allow-errors",
		"--ExecutePreprocessor.kernel_name=gonb",
		fmt.Sprintf("--ExecutePreprocessor.timeout=%d", int(cellTimeout.Seconds())),
		"--output-dir", outDir, name)
	// The run's own mark: what it leaves running (gopls, when the kernel
	// did not stop it in nbclient's grace time) ends with it.
	mark := reap.NewMark()
	defer func() {
		found, err := reap.Kill(mark, 5*time.Second)
		if len(found) > 0 {
			t.Logf("%s: ended what the run left running: %s", name, strings.Join(found, ", "))
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}()
	cmd.Env = append(slices.Clip(k.env), mark)
	// An interrupted nbconvert shuts its kernel down; a killed one would not.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start).Round(100 * time.Millisecond)
	if err != nil {
		log := stderr.String()
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted: the notebook ran into go test -timeout or notebookTimeout (%v): %w", notebookTimeout, err)
			// Drop the Python tracebacks of the interruption itself.
			if i := strings.Index(log, "Traceback (most recent call last):"); i >= 0 {
				log = log[:i]
			}
		}
		t.Errorf("%s: nbconvert failed after %v: %v\nnbconvert and kernel log (last lines):\n%s", name, elapsed, err, tail(log, 40))
		return nil
	}
	nb, err := readNotebook(filepath.Join(outDir, filepath.Base(name)))
	if err != nil {
		t.Errorf("%s: reading the executed notebook: %v", name, err)
		return nil
	}
	nb.elapsed = elapsed
	// The CPU time of nbconvert and what it waited for: the kernel, the Go
	// builds and the cells' programs. A loaded machine stretches the wall
	// time, not this.
	nb.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(100 * time.Millisecond)
	t.Logf("%s: executed in %v (%v of CPU); %s", name, elapsed, nb.cpu, nb.timings())
	return nb
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = append([]string{"..."}, l[len(l)-lines:]...)
	}
	return strings.Join(l, "\n")
}

// # Reading notebooks

// notebook is the part of an .ipynb file (nbformat 4) that the checks read.
type notebook struct {
	elapsed time.Duration // nbconvert's wall time, set by execute
	cpu     time.Duration // its CPU time with its children's
	Cells   []struct {
		CellType       string    `json:"cell_type"`
		Source         multiline `json:"source"`
		ExecutionCount *int      `json:"execution_count"` // In [n]
		Metadata       struct {
			Execution map[string]string `json:"execution"` // nbclient's timestamps
		} `json:"metadata"`
		Outputs []struct {
			OutputType string               `json:"output_type"` // stream, display_data, execute_result, error
			Name       string               `json:"name"`        // stdout or stderr, for streams
			Text       multiline            `json:"text"`
			Data       map[string]multiline `json:"data"` // by MIME type
			EName      string               `json:"ename"`
			EValue     string               `json:"evalue"`
			Traceback  []string             `json:"traceback"`
		} `json:"outputs"`
	} `json:"cells"`
}

// multiline is a notebook string, stored as a string or a list of lines;
// any other JSON value is kept as its text.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err == nil {
		*m = multiline(strings.Join(l, ""))
		return nil
	}
	*m = multiline(b)
	return nil
}

func readNotebook(path string) (*notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nb := new(notebook)
	if err := json.Unmarshal(b, nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %v", err)
	}
	return nb, nil
}

// checkSetupCell reports whether the first code cell is the setup cell.
func (nb *notebook) checkSetupCell(setup string) error {
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		if got := strings.TrimSpace(string(c.Source)); got != setup {
			return fmt.Errorf("the first code cell must be kernel/setup-cell.txt verbatim:\n%s\ngot:\n%s", setup, got)
		}
		return nil
	}
	return errors.New("no code cell")
}

// output is one output of a code cell, flattened.
type output struct {
	cell int    // index of the cell in the notebook, from 0
	kind string // stdout, stderr, error, or a MIME type
	text string // without ANSI escapes; for errors, ename, evalue and traceback
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

func (nb *notebook) all() []output {
	var res []output
	for i, c := range nb.Cells {
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "stream":
				res = append(res, output{i, o.Name, ansi.ReplaceAllString(string(o.Text), "")})
			case "error":
				text := fmt.Sprintf("%s: %s\n%s", o.EName, o.EValue, strings.Join(o.Traceback, "\n"))
				res = append(res, output{i, "error", ansi.ReplaceAllString(text, "")})
			default:
				for _, mime := range sortedKeys(o.Data) {
					res = append(res, output{i, mime, string(o.Data[mime])})
				}
			}
		}
	}
	return res
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (nb *notebook) outputs(kind string) []output {
	var res []output
	for _, o := range nb.all() {
		if o.kind == kind {
			res = append(res, o)
		}
	}
	return res
}

// text is what a reader sees as text: stdout, text/plain, text/markdown.
func (nb *notebook) text() string {
	var sb strings.Builder
	for _, o := range nb.all() {
		t := o.text
		switch o.kind {
		case "stdout", "text/plain", "text/markdown":
		case "text/html":
			t = tableText(t)
		default:
			continue
		}
		sb.WriteString(t)
		if t != "" && !strings.HasSuffix(t, "\n") {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

var (
	tableRE   = regexp.MustCompile(`(?s)<table>\s*(?:<caption>(.*?)</caption>)?(.*?)</table>`)
	keyRowRE  = regexp.MustCompile(`<tr><th>(.*?)</th><td>(.*?)</td></tr>`)
	captionRE = regexp.MustCompile(`^(\S+?): `)
)

// tableText reads the tables of an HTML output (nb.Summary's, nb.Ranked's)
// as text: the caption, then each row of a key and a value as
// "<caption>: <key> = <value>", so that printed checks them like printed
// lines.
func tableText(h string) string {
	var sb strings.Builder
	for _, t := range tableRE.FindAllStringSubmatch(h, -1) {
		caption := html.UnescapeString(t[1])
		sb.WriteString(caption + "\n")
		name := caption
		if m := captionRE.FindStringSubmatch(caption); m != nil {
			name = m[1]
		}
		for _, r := range keyRowRE.FindAllStringSubmatch(t[2], -1) {
			fmt.Fprintf(&sb, "%s: %s = %s\n", name, html.UnescapeString(r[1]), html.UnescapeString(r[2]))
		}
	}
	return sb.String()
}

// failures describes every cell with an error output or stderr output: the
// cell's position (from 1, markdown cells
// included) and In [n] (GoNB's Cell[n]), its first line, then the error.
func (nb *notebook) failures() []string {
	const maxText = 4000
	var res []string
	for i, c := range nb.Cells {
		var msgs []string
		for _, o := range nb.all() {
			if o.cell != i {
				continue
			}
			switch o.kind {
			case "error":
				msgs = append(msgs, o.text)
			case "stderr": // any stderr output fails the notebook
				msgs = append(msgs, "stderr:\n"+strings.TrimRight(o.text, "\n"))
			}
		}
		if len(msgs) == 0 {
			continue
		}
		msg := strings.Join(msgs, "\n")
		if len(msg) > maxText {
			msg = msg[:maxText] + "\n[...]"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(c.Source)), "\n")
		in := "In [ ]"
		if c.ExecutionCount != nil {
			in = fmt.Sprintf("In [%d]", *c.ExecutionCount)
		}
		res = append(res, fmt.Sprintf("--- cell %d, %s, %q:\n%s", i+1, in, first, msg))
	}
	return res
}

// timings lists the code cells' execution times as the kernel reported them
// (GoNB reports whole seconds), numbering cells from 1 as failures does.
func (nb *notebook) timings() string {
	var parts []string
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		busy, err1 := time.Parse(time.RFC3339Nano, c.Metadata.Execution["iopub.status.busy"])
		idle, err2 := time.Parse(time.RFC3339Nano, c.Metadata.Execution["iopub.status.idle"])
		if err1 != nil || err2 != nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("cell %d %v", i+1, idle.Sub(busy)))
	}
	return strings.Join(parts, ", ")
}

// TestTableText: nb.Summary's rows read as "<problem>: <key> = <value>",
// which printed checks; rows without a key (nb.Ranked's) are left out.
func TestTableText(t *testing.T) {
	h := "<table><caption>poisson-2d</caption>\n<tr><th>rel_l2</th><td>0.00062</td></tr>\n<tr><th>beta_data</th><td>2500 (held)</td></tr>\n</table>\n" +
		"<table><caption>poisson-2d: 4 fits by evidence</caption>\n<tr><th>rank</th><th>seed</th></tr>\n<tr><td>1</td><td>3</td></tr>\n</table>\n"
	want := "poisson-2d\npoisson-2d: rel_l2 = 0.00062\npoisson-2d: beta_data = 2500 (held)\npoisson-2d: 4 fits by evidence\n"
	if got := tableText(h); got != want {
		t.Errorf("tableText:\n%s\nwant:\n%s", got, want)
	}
}
