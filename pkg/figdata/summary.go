package figdata

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// Along returns n points of p evenly spaced in one input from its Lo to
// its Hi, every other input held at its value in at, and the values of
// the varying input (the x of a curve): the line a flux or a profile is
// read along.
func Along(p *pde.Problem, input string, n int, at map[string]float64) (s []float64, pts [][]float64, err error) {
	k := slices.Index(p.Inputs, input)
	if k < 0 {
		return nil, nil, fmt.Errorf("figdata: Along: no input %q; the inputs are %s", input, strings.Join(p.Inputs, ", "))
	}
	for name := range at {
		if !slices.Contains(p.Inputs, name) || name == input {
			return nil, nil, fmt.Errorf("figdata: Along %s: %q is not one of the other inputs (%s)", input, name, strings.Join(p.Inputs, ", "))
		}
	}
	s = Linspace(p.Lo[k], p.Hi[k], n)
	for _, v := range s {
		x := make([]float64, p.Dim())
		for i, name := range p.Inputs {
			val, ok := at[name]
			switch {
			case i == k:
				val = v
			case !ok:
				return nil, nil, fmt.Errorf("figdata: Along %s: no value for input %q; give it in at", input, name)
			}
			x[i] = val
		}
		pts = append(pts, x)
	}
	return s, pts, nil
}

// Curve is a quantity of a fit along a line: its mean and Laplace standard
// deviation at the points, the exact values where known, and measured data
// to draw with it.
type Curve struct {
	X            []float64 // the varying coordinate of the points
	Mean, Sigma  []float64
	Exact        []float64    // nil without an exact quantity
	Errors       score.Errors // against Exact; zero without it
	DataX, DataY []float64    // measurements drawn as points; may be empty
}

// Quantity is q of f at pts (Fit.PredictQuantity), x their varying
// coordinate (as Along returns), compared with exact where it is not nil.
func Quantity(f *bayes.Fit, x []float64, pts [][]float64, q pde.Residual, exact func([]float64) float64) (Curve, error) {
	if len(x) != len(pts) {
		return Curve{}, fmt.Errorf("figdata: Quantity: %d values of x for %d points", len(x), len(pts))
	}
	c := Curve{X: x}
	var err error
	if c.Mean, c.Sigma, err = f.PredictQuantity(pts, q); err != nil {
		return Curve{}, err
	}
	if exact != nil {
		for _, p := range pts {
			c.Exact = append(c.Exact, exact(p))
		}
		c.Errors = score.Compute(c.Mean, c.Sigma, c.Exact)
	}
	return c, nil
}

// Comparison is c for viz.LaplaceVsHMC: the data, the exact curve and the
// mean with its band, named name.
func (c Curve) Comparison(name string) viz.Comparison {
	return viz.Comparison{DataX: c.DataX, DataY: c.DataY, X: c.X, True: c.Exact,
		Fits: []viz.Band{{Name: name, Mean: c.Mean, Sigma: c.Sigma}}}
}

// Slice is c for viz.ErrorBand and viz.Slices, labelled label.
func (c Curve) Slice(label string) viz.Slice {
	return viz.Slice{Label: label, X: c.X, Exact: c.Exact, Pred: c.Mean, Sigma: c.Sigma}
}

// TermValues are the values of one input at the points of p's term and
// the term's targets: measurements to draw with a curve (Curve.DataX,
// DataY). An error names a term or input p does not have.
func TermValues(p *pde.Problem, term, input string) (x, y []float64, err error) {
	i := slices.IndexFunc(p.Terms, func(t pde.Term) bool { return t.Name == term })
	k := slices.Index(p.Inputs, input)
	switch {
	case i < 0:
		return nil, nil, fmt.Errorf("figdata: TermValues: problem %q has no term %q", p.Name, term)
	case k < 0:
		return nil, nil, fmt.Errorf("figdata: TermValues: problem %q has no input %q", p.Name, input)
	}
	for _, pt := range p.Terms[i].Points {
		x = append(x, pt[k])
	}
	return x, p.Terms[i].Target, nil
}

// SummaryHTML is what to read from a fit, as an HTML table captioned with
// the problem's name, one row per item: status, its errors against the
// exact solution on a grid of gridN (record.ErrorsOf: rel_l2, the paper
// band's coverage and q95, the calibrated band's; absent without an exact
// solution), log_evidence with gamma and alpha, one beta per group
// ("held" where Settings.KnownNoise fixed it) and the warnings. A row is
// <th>key</th><td>value</td>, the keys those of a record.
func SummaryHTML(f *bayes.Fit, gridN int) string {
	var rows [][2]string
	add := func(k, format string, a ...any) { rows = append(rows, [2]string{k, fmt.Sprintf(format, a...)}) }
	status := string(f.Status)
	if f.Reason != "" {
		status += ": " + f.Reason
	}
	add("status", "%s after %d epochs (seed %d, %.1f s)", status, f.Epochs, f.Settings.Seed, f.Seconds)
	if p := f.Model.Problem; p.HasExact() {
		if e, err := record.ErrorsOf(f, gridN); err != nil {
			add("errors", "%v", err)
		} else {
			add("rel_l2", "%.3g", e.RelL2) // with several fields, PINNacle's joint L2RE
			if len(e.Outputs) > 0 {
				for _, name := range p.OutputNames() {
					add("rel_l2 "+name, "%.3g", e.Outputs[name].RelL2)
				}
			}
			for _, r := range []struct {
				key string
				v   float64
			}{{"coverage", e.Coverage2S}, {"q95", e.Q95}, {"coverage_calibrated", e.Coverage2SCalibrated}, {"q95_calibrated", e.Q95Calibrated}} {
				if !math.IsNaN(r.v) {
					add(r.key, "%.3g", r.v)
				}
			}
		}
	}
	if l := f.Laplace; l != nil {
		add("log_evidence", "%.2f", l.LogEvidence)
		add("gamma", "%.1f of %d weights", l.Gamma, f.Model.NumWeights())
	}
	for i, a := range f.Alpha {
		add(f.Model.Alphas[i].Name, "%.4g", a)
	}
	for i, b := range f.Beta {
		if f.Inferred(i) {
			add(f.Model.BetaNames[i], "%.4g", b)
		} else {
			add(f.Model.BetaNames[i], "%.4g (held)", b)
		}
	}
	add("warnings", "%d", len(f.Warnings))
	for _, w := range f.Warnings {
		add("warning", "%s", w)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<table><caption>%s</caption>\n", html.EscapeString(f.Model.Problem.Name))
	for _, r := range rows {
		fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>\n", html.EscapeString(r[0]), html.EscapeString(r[1]))
	}
	b.WriteString("</table>\n")
	return b.String()
}

// EnsembleHTML is an ensemble's fits as an HTML table ranked by log
// evidence (highest first; fits without one last, by seed): seed, status,
// ln Z and, where the problem has an exact solution, the rel L2 error on
// a grid of gridN (Fit.GridErrors). Nil fits (bayes.Train returned an
// error) are left out.
func EnsembleHTML(fits []*bayes.Fit, gridN int) string {
	fs := slices.DeleteFunc(slices.Clone(fits), func(f *bayes.Fit) bool { return f == nil })
	lnZ := func(f *bayes.Fit) float64 {
		if f.Laplace == nil || math.IsNaN(f.Laplace.LogEvidence) {
			return math.Inf(-1)
		}
		return f.Laplace.LogEvidence
	}
	slices.SortStableFunc(fs, func(a, b *bayes.Fit) int {
		return cmp.Or(cmp.Compare(lnZ(b), lnZ(a)), cmp.Compare(a.Settings.Seed, b.Settings.Seed))
	})
	var b strings.Builder
	name := ""
	if len(fs) > 0 {
		name = fs[0].Model.Problem.Name + ": "
	}
	fmt.Fprintf(&b, "<table><caption>%s%d fits by evidence</caption>\n<tr><th>rank</th><th>seed</th><th>status</th><th>ln Z</th><th>rel L2</th></tr>\n", html.EscapeString(name), len(fs))
	for i, f := range fs {
		z, rel := "—", "—"
		if l := lnZ(f); !math.IsInf(l, -1) {
			z = fmt.Sprintf("%.2f", l)
		}
		if e, err := f.GridErrors(gridN); err == nil {
			rel = fmt.Sprintf("%.3g", e.RelL2)
		}
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", i+1, f.Settings.Seed, html.EscapeString(string(f.Status)), z, rel)
	}
	b.WriteString("</table>\n")
	return b.String()
}
