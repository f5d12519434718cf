package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/schollz/progressbar/v3"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// gridN is the error grid: 100x100 for two inputs, 200 points for one.
const gridN = 100

const fitText = `Trains one network on PROBLEM (listed below) with the paper's evidence
framework: Adam on E_T, and from --hyper-start every --hyper-every
epochs a step of the hyperparameters (alpha, beta) down E_hyp. Prints a short
summary and, with --json, writes the full result (docs/results-schema.md)
atomically (temporary file + rename). On a terminal a bar on stderr follows
the Adam epochs.

A fit that diverges (NaN or Inf in the loss) or whose evidence is undefined
is still a completed command: exit status 0, with the status and the epoch in
the summary and the JSON ("diverged", "not-positive-definite",
"occam-invalid", "polish-failed"). When a final MacKay round leaves A
numerically singular (a hyperparameter running toward 0 or the cap), the fit
is reported at the latest round where the evidence is defined and says so
("stepped back"; hyper.final_backoff in the JSON). Exit status 2 is bad
input, 1 an I/O failure.`

func cmdFit(args []string, stdout, stderr io.Writer) int {
	fs := cliflag.NewFlagSet("fit")
	var ff fitFlags
	ff.register(fs)
	seed := cliflag.Seed{V: 1}
	fs.Var(&seed, "seed", "`seed` of the network initialization")
	jsonPath := fs.String("json", "", "write the result JSON to `FILE`")
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cliflag.PrintUsage(stdout, fs, "bpinn fit PROBLEM [flags]", fitText, problemDefaults())
		return exitOK
	}
	if err != nil {
		return report(stderr, "fit", err)
	}
	r, err := fitOnce(pos, &ff, seed.V, *jsonPath, stderr)
	if err != nil {
		return report(stderr, "fit", err)
	}
	printFit(stdout, r)
	return exitOK
}

func fitOnce(pos []string, ff *fitFlags, seed uint64, jsonPath string, stderr io.Writer) (*record.Result, error) {
	if len(pos) != 1 {
		return nil, usagef("want one problem (%s), got %d arguments", strings.Join(problems.Names(), ", "), len(pos))
	}
	p, err := ff.problem(pos[0])
	if err != nil {
		return nil, err
	}
	s, err := ff.settings(p, seed)
	if err != nil {
		return nil, err
	}
	if jsonPath != "" {
		if err := cliflag.CheckWritable(jsonPath); err != nil {
			return nil, err
		}
	}
	var done func()
	s.Progress, s.Stage, done = fitProgress(stderr, p.Name)
	r, err := runFit(ff.context(), p, s, ff.dataSeed.V)
	done()
	if err != nil {
		return nil, err
	}
	if jsonPath != "" {
		if err := saveJSON(jsonPath, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// fitProgress shows a fit's Adam epochs as a bar on a terminal (nothing
// otherwise: a log gets the summary), then each step after them on one
// status line (Settings.Stage): the polish, each final round, the Laplace
// approximation. done erases what the fit left on the line.
func fitProgress(w io.Writer, name string) (progress func(epoch, epochs int), stage func(string), done func()) {
	if !isTerminal(w) {
		return nil, nil, func() {}
	}
	var bar *progressbar.ProgressBar
	status := false
	progress = func(epoch, epochs int) {
		if bar == nil {
			bar = newBar(w, epochs, name+" epochs", progressbar.OptionClearOnFinish())
		}
		bar.Set(epoch)
		if epoch == epochs {
			bar.Finish()
		}
	}
	stage = func(what string) {
		fmt.Fprintf(w, "\r\033[K%s: Adam done; %s...", name, what)
		status = true
	}
	return progress, stage, func() {
		clearBar(bar)
		if status {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}

// runFit trains and records one fit.
func runFit(ctx context.Context, p *pde.Problem, s bayes.Settings, dataSeed uint64) (*record.Result, error) {
	f, err := bayes.Train(ctx, p, s)
	if err != nil {
		return nil, err
	}
	r := record.NewResult(f, gridN)
	r.DataSeed = dataSeed
	return &r, nil
}

func printFit(w io.Writer, r *record.Result) {
	fmt.Fprintf(w, "%s seed %d: status %s after %d of %d epochs (%.2f s)\n", r.Problem, r.Seed, r.Status, r.Epochs, r.EpochsPlan, r.Seconds)
	if r.Reason != "" {
		fmt.Fprintf(w, "  reason: %s\n", r.Reason)
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warning)
	}
	if e := r.Errors; e != nil {
		fmt.Fprintf(w, "  rel L2 = %s  mse = %s  max |err| = %s  coverage(2 sigma) = %s  on %d grid points\n",
			num(e.RelL2, "%.4g"), num(e.MSE, "%.4g"), num(e.MaxAbs, "%.4g"), num(e.Coverage2S, "%.3f"), e.Points)
		for _, name := range r.Outputs { // several fields: the line above is over all (rel L2 the joint L2RE)
			if o := e.Outputs[name]; o != nil {
				fmt.Fprintf(w, "    %s: rel L2 = %s  mse = %s  max |err| = %s  coverage(2 sigma) = %s\n",
					name, num(o.RelL2, "%.4g"), num(o.MSE, "%.4g"), num(o.MaxAbs, "%.4g"), num(o.Coverage2S, "%.3f"))
			}
		}
	}
	if l := r.ResidualLine(); l != "" {
		fmt.Fprintf(w, "  rms residual, training -> fresh points: %s\n", l)
	}
	if e := r.Errors; e != nil && e.Coverage2SHeldOut != nil && e.SigmaRatioHeldOut != nil {
		fmt.Fprintf(w, "  with beta from the fresh residuals (not the paper's band): coverage(2 sigma) = %.3f, sigma x%.3g (median)\n",
			*e.Coverage2SHeldOut, *e.SigmaRatioHeldOut)
	}
	if e := r.Errors; e != nil && e.Q95 != nil {
		fmt.Fprintf(w, "  q95 of |u - u*|/sigma = %.2f (1.96 for a calibrated band)\n", *e.Q95)
	}
	if e := r.Errors; e != nil && e.Coverage2SCalibrated != nil && e.Q95Calibrated != nil && e.SigmaRatioCalibrated != nil {
		fmt.Fprintf(w, "  calibrated band (no exact solution used): coverage(2 sigma) = %.3f, q95 = %.2f, sigma x%.3g (median)\n",
			*e.Coverage2SCalibrated, *e.Q95Calibrated, *e.SigmaRatioCalibrated)
	}
	printUnknowns(w, r.Unknowns)
	fmt.Fprintf(w, "  alpha: %s\n", namedNums(r.AlphaNames, r.Alpha, nil))
	fmt.Fprintf(w, "  beta:  %s\n", namedNums(r.BetaNames, r.Beta, r.HeldBetas()))
	fmt.Fprintf(w, "  log evidence = %s  (log p = %s, gamma = %s; the paper's convention: the constant -N/2 ln 2pi = %s is left out)\n",
		num(r.LogEvidence, "%.6g"), num(r.LogP, "%.6g"), num(r.Gamma, "%.4g"), num(r.LogPConst, "%.6g"))
	h := r.Hyper
	fmt.Fprintf(w, "  hyper steps %d (not PD %d, rejected %d, Occam-invalid %d)\n", h.Steps, h.NotPD, h.Rejected, h.OccamBad)
	if h.FinalRounds > 0 || h.FinalBackoff != "" {
		fmt.Fprintf(w, "  final MacKay rounds %d (last relative move %.3g)\n", h.FinalRounds, h.FinalMove)
	}
	if h.FinalBackoff != "" {
		fmt.Fprintf(w, "  stepped back: %s\n", h.FinalBackoff)
	}
	if p := r.Polish; p != nil {
		fmt.Fprintf(w, "  polish: E_T %s before the first (at the hyperparameters after Adam), %s after the last (at the final ones); %d iterations in all (%s)\n",
			num(p.F0, "%.6g"), num(p.F, "%.6g"), p.Iterations, p.Status)
	}
}

func num(p *float64, f string) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf(f, *p)
}

// namedNums is m's values in the order of names (m's keys sorted when
// names is empty), a name whose held entry is true marked as held at a
// known noise: a beta of exactly 1/std^2 that the evidence did not choose.
func namedNums(names []string, m map[string]*float64, held []bool) string {
	if len(names) == 0 {
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " = " + num(m[n], "%.5g")
		if i < len(held) && held[i] {
			parts[i] += " (held: known noise)"
		}
	}
	return strings.Join(parts, ", ")
}

// printUnknowns lists an inverse problem's coefficients: the estimate, its
// standard deviation on the inferred scale and the 95 % interval.
func printUnknowns(w io.Writer, us map[string]record.UnknownJSON) {
	names := make([]string, 0, len(us))
	for n := range us {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		u := us[n]
		on := ""
		if u.Scale == "log" {
			on = " on ln " + n
		}
		line := fmt.Sprintf("  unknown %s = %s  (sd %s%s; 95%% interval [%s, %s]", n, num(u.Value, "%.6g"), num(u.SD, "%.3g"), on,
			num(u.Lo95, "%.6g"), num(u.Hi95, "%.6g"))
		if u.Truth != nil {
			line += fmt.Sprintf("; truth %.6g", *u.Truth)
			if u.Value != nil && *u.Truth != 0 {
				line += fmt.Sprintf(", relative error %.3g", math.Abs(*u.Value-*u.Truth)/math.Abs(*u.Truth))
			}
		}
		fmt.Fprintln(w, line+")")
	}
}
