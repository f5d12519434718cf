// Package figdata turns fits and results (pkg/bayes) into the plain data
// that pkg/viz draws: the training history, solution slices, fields on a
// grid, training points, the evidence and error of an ensemble, and the
// Laplace-vs-HMC comparison. The report (pkg/report) and the notebooks
// share it, so a figure shows the same numbers in both.
//
// viz imports no other package of this module and bayes no display code;
// figdata is the one place that knows both, and it displays nothing.
//
// # Panics
//
// Slices, Fields and Points are for problems with two inputs (x, t) and
// panic for others, Curves for problems of one; Slices and Fields also
// panic when the problem has no exact solution, Fields when n < 2, and
// SlicesOf and FieldsOf for an output the problem does not have.
package figdata

import (
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// History is the training history of f for viz.Training: E_T, E_hyp, and
// one series per alpha and per beta group, named after the group when
// there are several (a single one takes viz's default name, α or β).
// Points that are not finite are left out, and so are E_hyp's zeros (no
// hyperparameter step yet).
func History(f *bayes.Fit) viz.History {
	h := viz.History{ET: viz.Series{Name: "E_T"}, EHyp: viz.Series{Name: "E_hyp"},
		Alpha: make([]viz.Series, len(f.Alpha)), Beta: make([]viz.Series, len(f.Beta))}
	if len(h.Alpha) > 1 {
		for i, g := range f.Model.Alphas {
			h.Alpha[i].Name = g.Name
		}
	}
	if len(h.Beta) > 1 {
		for i, n := range f.Model.BetaNames {
			h.Beta[i].Name = n
		}
	}
	add := func(s *viz.Series, epoch int, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s.Epochs, s.Values = append(s.Epochs, epoch), append(s.Values, v)
		}
	}
	for _, p := range f.History {
		add(&h.ET, p.Epoch, p.ET)
		if p.EHyp != 0 {
			add(&h.EHyp, p.Epoch, p.EHyp)
		}
		for i, a := range p.Alpha {
			add(&h.Alpha[i], p.Epoch, a)
		}
		for i, b := range p.Beta {
			add(&h.Beta[i], p.Epoch, b)
		}
	}
	return h
}

// SliceTimes are the times of Slices when none are given, as fractions of
// the time span: the paper's five slices t = 0, 0.25, 0.5, 0.75, 1 on [0, 1].
var SliceTimes = []float64{0, 0.25, 0.5, 0.75, 1}

// slicePoints is the number of points of x in a slice.
const slicePoints = 101

// Slices is the solution of f at the given times, as fractions of the time
// span (no fractions: SliceTimes), for viz.Slices and viz.ErrorBand: the
// exact solution, the prediction and its Laplace standard deviation
// (nil without a Laplace approximation) at 101 evenly spaced points of x.
func Slices(f *bayes.Fit, fracs ...float64) []viz.Slice {
	return SlicesOf(f, "", fracs...)
}

// SlicesOf is Slices of the named output of a problem of several
// (pde.Problem.Outputs; "" is the first): one figure per field, each
// panel titled with the field's name and the time.
func SlicesOf(f *bayes.Fit, output string, fracs ...float64) []viz.Slice {
	p := f.Model.Problem
	check2D("Slices", p, true)
	k := outputIndex(p, output)
	if len(fracs) == 0 {
		fracs = SliceTimes
	}
	out := make([]viz.Slice, 0, len(fracs))
	for _, fr := range fracs {
		s := viz.Slice{T: p.Lo[1] + fr*(p.Hi[1]-p.Lo[1]), X: Linspace(p.Lo[0], p.Hi[0], slicePoints)}
		if k > 0 {
			s.Label = fmt.Sprintf("%s, t = %.3g", p.OutputNames()[k], s.T)
		}
		pts := make([][]float64, len(s.X))
		s.Exact = make([]float64, len(s.X))
		for i, x := range s.X {
			pts[i] = []float64{x, s.T}
			s.Exact[i] = p.ExactValues(pts[i])[k]
		}
		s.Pred, s.Sigma = predict(f, k, pts)
		out = append(out, s)
	}
	return out
}

// Fields are the prediction u_pred of f and its error |u_pred - u_true| on
// an n x n grid over the domain's bounding box, for viz.HeatMap. The two
// share their X and Y; on a problem with a Domain, the grid points outside
// it (holes, where no solution exists) are masked in both.
func Fields(f *bayes.Fit, n int) (u, absErr viz.Field) {
	return FieldsOf(f, "", n)
}

// FieldsOf is Fields of the named output ("" is the first).
func FieldsOf(f *bayes.Fit, output string, n int) (u, absErr viz.Field) {
	p := f.Model.Problem
	check2D("Fields", p, true)
	k := outputIndex(p, output)
	if n < 2 {
		panic(fmt.Sprintf("figdata: Fields: n = %d, want at least 2", n))
	}
	u.X, u.Y = Linspace(p.Lo[0], p.Hi[0], n), Linspace(p.Lo[1], p.Hi[1], n)
	pts := make([][]float64, 0, n*n)
	for _, y := range u.Y { // row-major over Y, as viz.Field
		for _, x := range u.X {
			pts = append(pts, []float64{x, y})
		}
	}
	u.Z, _ = predict(f, k, pts)
	absErr = viz.Field{X: u.X, Y: u.Y, Z: make([]float64, len(pts))}
	if p.Domain != nil {
		u.Mask = make([]bool, len(pts))
		absErr.Mask = u.Mask
	}
	for i, x := range pts {
		if u.Mask != nil && !p.Contains(x) {
			u.Mask[i] = true // absErr.Z stays 0 there: the exact solution is not defined
			continue
		}
		absErr.Z[i] = math.Abs(u.Z[i] - p.ExactValues(x)[k])
	}
	return u, absErr
}

// Linspace returns n evenly spaced values from lo to hi: the x of a curve
// or a grid line (lo alone for n = 1, none for n < 1).
func Linspace(lo, hi float64, n int) []float64 {
	if n == 1 {
		return []float64{lo}
	}
	v := make([]float64, max(n, 0))
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return v
}

// Points are the training points of p for viz.Points: one set per term
// group ("pde", "boundary", "data"), in the order the groups first appear.
func Points(p *pde.Problem) []viz.PointSet {
	check2D("Points", p, false)
	var sets []viz.PointSet
	idx := map[string]int{}
	for _, t := range p.Terms {
		i, ok := idx[t.Group]
		if !ok {
			i = len(sets)
			idx[t.Group] = i
			sets = append(sets, viz.PointSet{Name: t.Group})
		}
		for _, x := range t.Points {
			sets[i].X, sets[i].Y = append(sets[i].X, x[0]), append(sets[i].Y, x[1])
		}
	}
	return sets
}

func check2D(fn string, p *pde.Problem, exact bool) {
	if p.Dim() != 2 {
		panic(fmt.Sprintf("figdata: %s: problem %q has %d inputs, want 2 (x, t)", fn, p.Name, p.Dim()))
	}
	if exact && !p.HasExact() {
		panic(fmt.Sprintf("figdata: %s: problem %q has no exact solution", fn, p.Name))
	}
}

// EvidenceAndError returns the log evidence and the true relative L2 error
// of the results where both are defined and the error is positive, for
// viz.EvidenceVsError (a log axis) and record.Spearman.
func EvidenceAndError(rs []record.Result) (logZ, relErr []float64) {
	for i := range rs {
		z, e := record.Val(rs[i].LogEvidence), rs[i].RelL2()
		if !math.IsNaN(z) && !math.IsNaN(e) && e > 0 {
			logZ, relErr = append(logZ, z), append(relErr, e)
		}
	}
	return logZ, relErr
}

// Comparison is c for viz.LaplaceVsHMC: the data of p (the points of its
// terms with targets; p is 1-D, such as the regression), the truth, and
// the Laplace and HMC bands on c's grid.
func Comparison(p *pde.Problem, c *posterior.Comparison) viz.Comparison {
	var dx, dy []float64
	for _, t := range p.Terms {
		if t.Target == nil {
			continue
		}
		for i, x := range t.Points {
			dx, dy = append(dx, x[0]), append(dy, t.Target[i])
		}
	}
	return viz.Comparison{DataX: dx, DataY: dy, X: c.X, True: c.Truth, Fits: []viz.Band{
		{Name: "Laplace (evidence)", Mean: c.Laplace.Mean, Sigma: c.Laplace.Sigma},
		{Name: "HMC", Mean: c.Sampled.Mean, Sigma: c.Sampled.Std},
	}}
}

// Curves are the fields of a problem of one input on n evenly spaced
// points, one Slice per output (Label its name), for viz.Slices and
// viz.ErrorBand: one panel per field, the exact solution where the problem
// has one. It panics for a problem of more inputs or n < 2.
func Curves(f *bayes.Fit, n int) []viz.Slice {
	p := f.Model.Problem
	if p.Dim() != 1 || n < 2 {
		panic(fmt.Sprintf("figdata: Curves: problem %q has %d inputs and n = %d; want 1 input and n >= 2", p.Name, p.Dim(), n))
	}
	x := Linspace(p.Lo[0], p.Hi[0], n)
	pts := make([][]float64, n)
	for i, v := range x {
		pts[i] = []float64{v}
	}
	var out []viz.Slice
	for k, name := range p.OutputNames() {
		s := viz.Slice{Label: name, X: x}
		if p.HasExact() {
			s.Exact = make([]float64, n)
			for i, pt := range pts {
				s.Exact[i] = p.ExactValues(pt)[k]
			}
		}
		s.Pred, s.Sigma = predict(f, k, pts)
		out = append(out, s)
	}
	return out
}

// outputIndex is the index of the named output; a name the problem does
// not have panics, as the other misuses of this package do.
func outputIndex(p *pde.Problem, name string) int {
	k := p.OutputIndex(name)
	if k < 0 {
		panic(fmt.Sprintf("figdata: problem %q has no output %q; its outputs are %v", p.Name, name, p.OutputNames()))
	}
	return k
}

// predict is output k's prediction at points built here with the problem's
// inputs, so an error is a bug of this package.
func predict(f *bayes.Fit, k int, pts [][]float64) (mean, sigma []float64) {
	mean, sigma, err := f.PredictOutput(f.Model.Problem.OutputNames()[k], pts)
	if err != nil {
		panic(fmt.Sprintf("figdata: %v", err))
	}
	return mean, sigma
}
