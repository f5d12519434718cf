package datafile_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/evidence-pinn/bpinn/pkg/datafile"
)

func TestReadPoints(t *testing.T) {
	xt, lo, hi := []string{"x", "t"}, []float64{-1, 0}, []float64{1, 1}
	pts, err := datafile.ReadPointsIn(strings.NewReader("# x t\n\n 0.25\t1 \n-0 0x1p-2\n"), xt, lo, hi)
	if err != nil || len(pts) != 2 || !slices.Equal(pts[0], []float64{0.25, 1}) || !slices.Equal(pts[1], []float64{0, 0.25}) {
		t.Errorf("ReadPoints = %v, %v; want [[0.25 1] [0 0.25]]", pts, err)
	}
	if pts, err := datafile.ReadPointsIn(strings.NewReader("5 -3\n"), xt, nil, nil); err != nil || !slices.Equal(pts[0], []float64{5, -3}) {
		t.Errorf("without bounds: %v, %v; want [[5 -3]]", pts, err)
	}
	for _, c := range []struct {
		in     string
		inputs []string
		line   int
		want   string
	}{
		{"0.5 0.1\n0.5\n", xt, 2, "line 2: want 2 numbers (x t), got 1"},
		{"0.1 0.2\n", []string{"x"}, 1, "line 1: want 1 number (x), got 2"},
		{"0.5 0.1\n\n0.5 abc\n", xt, 3, `line 3: t = "abc" is not a finite number`},
		{"NaN 0.1\n", xt, 1, `line 1: x = "NaN" is not a finite number`},
		{"0.5 -Inf\n", xt, 1, `line 1: t = "-Inf" is not a finite number`},
		{strings.Repeat("9", 50) + "x 0\n", xt, 1, `line 1: x = "` + strings.Repeat("9", 40) + `..." is not a finite number`},
		{"1.5 0.1\n", xt, 1, "line 1: x = 1.5 is outside [-1, 1]"},
		{"0 0\n" + strings.Repeat("1", datafile.MaxPointLine+10) + "\n", xt, 2, "line 2: longer than 65536 bytes"},
	} {
		pts, err := datafile.ReadPointsIn(strings.NewReader(c.in), c.inputs, lo, hi)
		var pe *datafile.PointError
		if pts != nil || !errors.As(err, &pe) || pe.Line != c.line || err.Error() != c.want {
			t.Errorf("%.30q: %v, %v; want the error %q", c.in, pts, err, c.want)
		}
	}
	// An I/O error is not the input's fault: no PointError.
	_, err = datafile.ReadPointsIn(iotest.ErrReader(errors.New("disk gone")), xt, lo, hi)
	var pe *datafile.PointError
	if err == nil || errors.As(err, &pe) {
		t.Errorf("a failing reader: %v; want its error, not a PointError", err)
	}
}

// FuzzReadPoints checks the point reader: it never panics, every error
// is a PointError naming a line in one line, and every accepted point has
// the right number of finite coordinates inside the bounds.
func FuzzReadPoints(f *testing.F) {
	for _, s := range []string{"0.5 0.1\n", "0 0\n1 1\n", "# c\n\n 0.25\t1 \n", "0.5\n", "1e-3 abc\n", "NaN 0\n", "2 0\n", "0x1p-2 0.5\n", "+.5 -0"} {
		f.Add(s)
	}
	inputs, lo, hi := []string{"x", "t"}, []float64{-1, 0}, []float64{1, 1}
	f.Fuzz(func(t *testing.T, s string) {
		pts, err := datafile.ReadPointsIn(strings.NewReader(s), inputs, lo, hi)
		if err != nil {
			var pe *datafile.PointError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "line ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not a one-line PointError naming a line", err)
			}
			return
		}
		for _, x := range pts {
			if len(x) != 2 {
				t.Fatalf("point %v has %d coordinates", x, len(x))
			}
			for i, v := range x {
				if math.IsNaN(v) || v < lo[i] || v > hi[i] {
					t.Fatalf("accepted %v outside the domain", x)
				}
			}
		}
	})
}
