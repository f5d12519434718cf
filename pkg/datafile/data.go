package datafile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// ReadData reads measurements of u for p from CSV (pde.Data, the points
// for pde.Measurements and Problem.WithData): a header naming the problem's
// inputs (in any order), then u, then optionally std; one row per point.
// Errors are one line naming the line of the file and the column; lines
// starting with # are comments.
func ReadData(r io.Reader, p *pde.Problem) (*pde.Data, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	col, width, err := dataHeader(cr, p)
	if err != nil {
		return nil, err
	}
	d := &pde.Data{}
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
		if err := addRow(d, p, rec, row, col); err != nil {
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
func dataHeader(cr *csv.Reader, p *pde.Problem) (col map[string]int, width int, err error) {
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

// addRow appends the row rec (line row of the file) to d: the point,
// inside p's domain, u and, with a std column, a positive std.
func addRow(d *pde.Data, p *pde.Problem, rec []string, row int, col map[string]int) error {
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
