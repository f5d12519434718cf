package pde

import (
	"slices"
)

// Data are measurements of u: points in the problem's input order, the
// measured values and, optionally, each value's standard deviation.
type Data struct {
	Points [][]float64
	U      []float64
	Std    []float64 // nil: no per-row standard deviation
}

// WithData returns p with its measured term (the first Measured term)
// replaced by d, or with a term "data" (group "data") added when p has
// none; its Fresh and Redraw keep d. With per-row standard deviations the
// residual is (u - y)/std, each point weighted by its own precision, and
// the data group's beta is still inferred: it comes out near 1 when the
// stated deviations are right, and rescales them when they are not
// (docs/inverse.md). The problem's exact solution and the unknowns' truths
// are dropped: they describe the study's own data, not d (so is a
// schedule's known noise of that data: schedule.Schedule.ForData).
func (p *Problem) WithData(d *Data) *Problem {
	q := *p
	q.Terms = slices.Clone(p.Terms)
	q.Unknowns = slices.Clone(p.Unknowns)
	for i := range q.Unknowns {
		q.Unknowns[i].Truth = nil
	}
	q.Exact, q.ExactOutputs = nil, nil
	t := Measurements(d)
	if k := slices.IndexFunc(q.Terms, func(t Term) bool { return t.Measured }); k >= 0 {
		t.Name, t.Group = q.Terms[k].Name, q.Terms[k].Group
		q.Terms[k] = t
	} else {
		q.Terms = append(q.Terms, t)
	}
	wrap := func(build func() (*Problem, error)) func() (*Problem, error) {
		return func() (*Problem, error) {
			r, err := build()
			if err != nil {
				return nil, err
			}
			return r.WithData(d), nil
		}
	}
	if p.Fresh != nil {
		q.Fresh = wrap(p.Fresh)
	}
	if p.Redraw != nil {
		redraw := p.Redraw
		q.Redraw = func(k uint64) (*Problem, error) { return wrap(func() (*Problem, error) { return redraw(k) })() }
	}
	return &q
}
