package nb

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// GridN is the grid of the fits' errors in the tables here: 100 x 100 in
// 2-D (200 points in 1-D), a record's.
const GridN = 100

// Must returns v, and stops the cell (a panic, which GoNB shows as the
// cell's error) at an error: the notebook's way to say "this must work".
func Must[T any](v T, err error) T {
	Check(err)
	return v
}

// Must2 is Must for a call of two results.
func Must2[T, U any](v T, w U, err error) (T, U) {
	Check(err)
	return v, w
}

// Check stops the cell at an error, as Must.
func Check(err error) {
	if err != nil {
		panic(err)
	}
}

// Draw shows a figure made by a viz function, Draw(viz.Slices(ss, l)),
// and stops the cell at an error of making or showing it.
func Draw(fig *viz.Figure, err error) {
	Check(err)
	Check(Show(fig))
}

// HTML displays an HTML fragment (a table of figdata).
func HTML(s string) {
	if isNotebook() {
		displayHTML(s)
	}
}

// Summary shows what to read from a fit as a table (figdata.SummaryHTML):
// status, errors against the exact solution with the coverage and q95 of
// the paper's and the calibrated band, ln Z, one beta per group (held ones
// marked), the warnings.
func Summary(f *bayes.Fit) { HTML(figdata.SummaryHTML(f, GridN)) }

// Ranked shows an ensemble's fits as a table ranked by log evidence
// (figdata.EnsembleHTML), with each fit's error where the problem has an
// exact solution.
func Ranked(fits []*bayes.Fit) { HTML(figdata.EnsembleHTML(fits, GridN)) }

// Field shows f's prediction and its error against the exact solution on
// an n x n grid of a problem of two inputs (figdata.Fields).
func Field(f *bayes.Fit, n int) {
	p := f.Model.Problem
	u, absErr := figdata.Fields(f, n)
	y := p.Inputs[1]
	Draw(viz.HeatMap(u, viz.Labels{Title: fmt.Sprintf("%s: u_pred(x, %s)", p.Name, y), Y: y}))
	Draw(viz.HeatMap(absErr, viz.Labels{Title: p.Name + ": |u_pred − u_true|", Y: y, Z: "|error|"}))
}

// Slices shows f at the given fractions of its second input's span
// (figdata.Slices; none: the paper's five) with the 2σ band, then the
// error with the paper's band and with the calibrated band
// (band.Calibrated at the problem's fresh points), where the problem has
// fresh points.
func Slices(f *bayes.Fit, fracs ...float64) {
	p := f.Model.Problem
	ss := labelled(p, figdata.Slices(f, fracs...))
	Draw(viz.Slices(ss, viz.Labels{Title: p.Name + ": exact and predicted u, 2σ band"}))
	Draw(viz.ErrorBand(ss, viz.Labels{Title: p.Name + ": error and the paper's 2σ band"}))
	d, err := band.FreshDrawOf(p)
	if err != nil {
		return // no fresh points: no calibrated band
	}
	cal := Must(band.Calibrated(f, d))
	Draw(viz.ErrorBand(labelled(p, figdata.Slices(cal, fracs...)), viz.Labels{Title: p.Name + ": error and the calibrated 2σ band"}))
}

// labelled names each slice by the second input ("y = 0.25"), which is
// not always time.
func labelled(p *pde.Problem, ss []viz.Slice) []viz.Slice {
	for i := range ss {
		ss[i].Label = fmt.Sprintf("%s = %.3g", p.Inputs[1], ss[i].T)
	}
	return ss
}

// Curve shows a quantity with its 2σ band (and c's data as points) against
// its varying coordinate.
func Curve(c figdata.Curve, l viz.Labels) {
	Draw(viz.LaplaceVsHMC(c.Comparison("PINN, 2σ (Laplace)"), l))
}

// Quantity is q of f at pts with its band from the same Laplace posterior
// (figdata.Quantity: x is the points' varying coordinate, exact the exact
// quantity or nil), shown as Curve; it returns the curve and its errors.
func Quantity(f *bayes.Fit, l viz.Labels, x []float64, pts [][]float64, q pde.Residual, exact func([]float64) float64) figdata.Curve {
	c := Must(figdata.Quantity(f, x, pts, q, exact))
	Curve(c, l)
	return c
}
