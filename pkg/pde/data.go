package pde

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Data are measurements of u: points in the problem's input order, the
// measured values and, optionally, each value's standard deviation.
type Data struct {
	Points [][]float64
	U      []float64
	Std    []float64 // nil: no per-row standard deviation
}

// ReadData reads measurements from CSV: a header naming the problem's
// inputs (in any order), then u, then optionally std; one row per point.
// Errors are one line naming the line of the file and the column; lines
// starting with # are comments.
func ReadData(r io.Reader, p *Problem) (*Data, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	col, width, err := dataHeader(cr, p)
	if err != nil {
		return nil, err
	}
	d := &Data{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err // csv's errors name the line
		}
		row, _ := cr.FieldPos(0)
		if len(rec) != width {
			return nil, fmt.Errorf("line %d: %d cells, the header has %d", row, len(rec), width)
		}
		if err := d.add(p, rec, row, col); err != nil {
			return nil, err
		}
	}
	if len(d.U) == 0 {
		return nil, errors.New("no data rows after the header")
	}
	return d, nil
}

// dataHeader reads the header: the column of each name and the number of
// columns.
func dataHeader(cr *csv.Reader, p *Problem) (col map[string]int, width int, err error) {
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, 0, fmt.Errorf("empty file: want a header (%s, u, optional std) and one row per point", strings.Join(p.Inputs, ", "))
	}
	if err != nil {
		return nil, 0, fmt.Errorf("header: %v", err)
	}
	col = map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; dup {
			return nil, 0, fmt.Errorf("header: column %q appears twice", h)
		}
		if h != "u" && h != "std" && !slices.Contains(p.Inputs, h) {
			return nil, 0, fmt.Errorf("header: unknown column %q: the columns are the problem's inputs (%s), u and optionally std", h, strings.Join(p.Inputs, ", "))
		}
		col[h] = i
	}
	for _, need := range append(slices.Clone(p.Inputs), "u") {
		if _, ok := col[need]; !ok {
			return nil, 0, fmt.Errorf("header: no column %q: the columns are the problem's inputs (%s), u and optionally std", need, strings.Join(p.Inputs, ", "))
		}
	}
	return col, len(head), nil
}

// add appends the row rec (line row of the file) to d: the point, inside
// p's domain, u and, with a std column, a positive std.
func (d *Data) add(p *Problem, rec []string, row int, col map[string]int) error {
	cell := func(name string) (float64, error) {
		s := strings.TrimSpace(rec[col[name]])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("line %d: column %s: %q is not a finite number", row, name, s)
		}
		return v, nil
	}
	x := make([]float64, p.Dim())
	for i, in := range p.Inputs {
		v, err := cell(in)
		if err != nil {
			return err
		}
		if v < p.Lo[i] || v > p.Hi[i] {
			return fmt.Errorf("line %d: %s = %g is outside the domain [%g, %g]", row, in, v, p.Lo[i], p.Hi[i])
		}
		x[i] = v
	}
	u, err := cell("u")
	if err != nil {
		return err
	}
	d.Points, d.U = append(d.Points, x), append(d.U, u)
	if _, hasStd := col["std"]; hasStd {
		s, err := cell("std")
		if err != nil {
			return err
		}
		if !(s > 0) {
			return fmt.Errorf("line %d: std = %g: a standard deviation must be positive", row, s)
		}
		d.Std = append(d.Std, s)
	}
	return nil
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
