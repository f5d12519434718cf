package refsol

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Table is a reference solution read from a PINNacle .dat file: one row
// per node, the point (x, y) and the values of the fields at it, in the
// file's column order (u for Poisson2d-C; u, v, p for NS2d-C).
type Table struct {
	Points [][2]float64
	Values [][]float64
}

// ReadDat reads PINNacle's (COMSOL's) text export: lines starting with %
// are comments, blank lines are skipped, columns are separated by runs of
// blanks, CRLF line ends are accepted. Every data row must hold x, y and
// the same number (at least one) of finite field values.
func ReadDat(r io.Reader) (*Table, error) {
	t := &Table{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	cols, first := 0, 0
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "%") {
			continue
		}
		fields := strings.Fields(s)
		if cols == 0 {
			if len(fields) < 3 {
				return nil, fmt.Errorf("refsol: line %d has %d columns; a reference row is x y and at least one value", line, len(fields))
			}
			cols, first = len(fields), line
		}
		if len(fields) != cols {
			return nil, fmt.Errorf("refsol: line %d has %d columns, line %d had %d; every row needs the same columns", line, len(fields), first, cols)
		}
		row := make([]float64, cols)
		for c, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("refsol: line %d, column %d: %q is not a finite number", line, c+1, f)
			}
			row[c] = v
		}
		t.Points = append(t.Points, [2]float64{row[0], row[1]})
		t.Values = append(t.Values, row[2:])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("refsol: reading the reference: %w", err)
	}
	if cols == 0 {
		return nil, fmt.Errorf("refsol: the reference has no data rows (only comments or blank lines)")
	}
	return t, nil
}

// ReadDatFile reads a PINNacle .dat file by ReadDat; errors name the file.
func ReadDatFile(path string) (*Table, error) { return readFile(path, ReadDat) }

// readFile opens path and reads it by read; errors name the file.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("refsol: %w", err)
	}
	defer f.Close()
	t, err := read(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// L2RE returns PINNacle's error measure of the solution f against the
// table: ||Y - Y*||_F / ||Y*||_F over every row and all fields together,
// Y = f at the table's points, Y* the table's values.
func (t *Table) L2RE(f func(x, y float64) ([]float64, error)) (float64, error) {
	var num, den float64
	for r, pt := range t.Points {
		y, err := f(pt[0], pt[1])
		if err != nil {
			return 0, err
		}
		if len(y) != len(t.Values[r]) {
			return 0, fmt.Errorf("refsol: the solution has %d fields, the reference %d", len(y), len(t.Values[r]))
		}
		for c, want := range t.Values[r] {
			num += (y[c] - want) * (y[c] - want)
			den += want * want
		}
	}
	if den == 0 {
		return 0, fmt.Errorf("refsol: the reference is zero everywhere; its relative error is undefined")
	}
	return math.Sqrt(num / den), nil
}
