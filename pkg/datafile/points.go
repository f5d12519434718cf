// Package datafile reads the text files a user gives for a problem:
// points to evaluate a fit at, one per line (ReadPoints; bpinn predict and
// bpinn exact read them from stdin), and measurements of u as CSV
// (ReadData, for pde.Measurements and pde.Problem.WithData; bpinn fit
// --data). Each reader checks every value against the problem (its inputs
// by name, its box), and a malformed line is a one-line error naming the
// line: bad input a user can fix, told apart from an I/O error.
package datafile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// MaxPointLine bounds a line of ReadPointsIn's input (a point is a few
// numbers), so that a stray binary file is an error, not a huge buffer.
const MaxPointLine = 1 << 16

// PointError is a malformed line of ReadPointsIn's input: bad input the user
// can fix, unlike an I/O error.
type PointError struct {
	Line int    // 1-based
	Msg  string // what is wrong, in one line
}

// Error is "line N: what is wrong".
func (e *PointError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ReadPointsIn reads one point per line: len(inputs) finite numbers separated
// by spaces or tabs, in the order of inputs (whose names the errors use).
// With lo and hi (nil for none), coordinate i must lie in [lo[i], hi[i]].
// Blank lines and lines starting with # are skipped. A bad line is a
// *PointError naming it; nothing is returned then.
func ReadPointsIn(r io.Reader, inputs []string, lo, hi []float64) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), MaxPointLine)
	var pts [][]float64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		x, msg := parsePoint(strings.Fields(text), inputs, lo, hi)
		if msg != "" {
			return nil, &PointError{line, msg}
		}
		pts = append(pts, x)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &PointError{line + 1, fmt.Sprintf("longer than %d bytes", MaxPointLine)}
		}
		return nil, err
	}
	return pts, nil
}

// ReadPoints reads points in p's input order inside p's box (Lo, Hi), as
// ReadPointsIn does.
func ReadPoints(r io.Reader, p *pde.Problem) ([][]float64, error) {
	return ReadPointsIn(r, p.Inputs, p.Lo, p.Hi)
}

// parsePoint parses the fields of one line; msg says what is wrong.
func parsePoint(fields, inputs []string, lo, hi []float64) (x []float64, msg string) {
	if len(fields) != len(inputs) {
		want := fmt.Sprintf("%d numbers", len(inputs))
		if len(inputs) == 1 {
			want = "1 number"
		}
		return nil, fmt.Sprintf("want %s (%s), got %d", want, strings.Join(inputs, " "), len(fields))
	}
	x = make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			if len(f) > 40 {
				f = f[:40] + "..."
			}
			return nil, fmt.Sprintf("%s = %q is not a finite number", inputs[i], f)
		}
		if lo != nil && (v < lo[i] || v > hi[i]) {
			return nil, fmt.Sprintf("%s = %g is outside [%g, %g]", inputs[i], v, lo[i], hi[i])
		}
		x[i] = v
	}
	return x, ""
}
