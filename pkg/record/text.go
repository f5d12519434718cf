package record

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// WriteText prints the fit for people, the summary of bpinn fit: status,
// errors and bands on the grid, residuals, unknowns, hyperparameters,
// evidence and the steps of training. Values the record does not define
// print as "n/a".
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	r.writeText(&b)
	_, err := w.Write([]byte(b.String()))
	return err
}

func (r *Result) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s seed %d: status %s after %d of %d epochs (%.2f s)\n", r.Problem, r.Seed, r.Status, r.Epochs, r.EpochsPlan, r.Seconds)
	if r.Reason != "" {
		fmt.Fprintf(w, "  reason: %s\n", r.Reason)
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warning)
	}
	if e := r.Errors; e != nil {
		where := "on %d grid points"
		if e.TestPoints {
			where = "at the problem's %d test points"
		}
		fmt.Fprintf(w, "  rel L2 = %s  mse = %s  max |err| = %s  coverage(2 sigma) = %s  "+where+"\n",
			Fmt(e.RelL2, "%.4g"), Fmt(e.MSE, "%.4g"), Fmt(e.MaxAbs, "%.4g"), Fmt(e.Coverage2S, "%.3f"), e.Points)
		for _, name := range r.Outputs { // several fields: the line above is over all (rel L2 the joint L2RE)
			if o := e.Outputs[name]; o != nil {
				fmt.Fprintf(w, "    %s: rel L2 = %s  mse = %s  max |err| = %s  coverage(2 sigma) = %s\n",
					name, Fmt(o.RelL2, "%.4g"), Fmt(o.MSE, "%.4g"), Fmt(o.MaxAbs, "%.4g"), Fmt(o.Coverage2S, "%.3f"))
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
	writeUnknowns(w, r.Unknowns)
	fmt.Fprintf(w, "  alpha: %s\n", namedNums(r.AlphaNames, r.Alpha, nil))
	fmt.Fprintf(w, "  beta:  %s\n", namedNums(r.BetaNames, r.Beta, r.HeldBetas()))
	fmt.Fprintf(w, "  log evidence = %s  (log p = %s, gamma = %s; the paper's convention: the constant -N/2 ln 2pi = %s is left out)\n",
		Fmt(r.LogEvidence, "%.6g"), Fmt(r.LogP, "%.6g"), Fmt(r.Gamma, "%.4g"), Fmt(r.LogPConst, "%.6g"))
	if r.LaplaceStructure != "" && r.LaplaceStructure != "dense" { // the dense A needs no word
		gap := ""
		if r.LogDetGap != nil {
			gap = fmt.Sprintf(", ln|A| within %.3g nats of the Gauss-Newton A's", *r.LogDetGap)
		}
		fmt.Fprintf(w, "  Laplace approximation: A in the %s structure%s (docs/curvature.md)\n", r.LaplaceStructure, gap)
	}
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
			Fmt(p.F0, "%.6g"), Fmt(p.F, "%.6g"), p.Iterations, p.Status)
	}
}

// Fmt formats *p with the verb f, "n/a" when p is nil (undefined).
func Fmt(p *float64, f string) string {
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
		parts[i] = n + " = " + Fmt(m[n], "%.5g")
		if i < len(held) && held[i] {
			parts[i] += " (held: known noise)"
		}
	}
	return strings.Join(parts, ", ")
}

// writeUnknowns lists an inverse problem's coefficients: the estimate, its
// standard deviation on the inferred scale and the 95 % interval.
func writeUnknowns(w io.Writer, us map[string]UnknownJSON) {
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
		line := fmt.Sprintf("  unknown %s = %s  (sd %s%s; 95%% interval [%s, %s]", n, Fmt(u.Value, "%.6g"), Fmt(u.SD, "%.3g"), on,
			Fmt(u.Lo95, "%.6g"), Fmt(u.Hi95, "%.6g"))
		if u.Truth != nil {
			line += fmt.Sprintf("; truth %.6g", *u.Truth)
			if u.Value != nil && *u.Truth != 0 {
				line += fmt.Sprintf(", relative error %.3g", math.Abs(*u.Value-*u.Truth)/math.Abs(*u.Truth))
			}
		}
		fmt.Fprintln(w, line+")")
	}
}
