package pde

import (
	"math"
	"strings"
	"testing"
)

// ReadData: a good file in any column order, and each malformed file a
// one-line error naming its row and column.
func TestReadData(t *testing.T) {
	t.Parallel()
	p := HeatInverse(Options{})
	d, err := ReadData(strings.NewReader("t, x, u, std\n# a comment\n0.5, 0.25, 0.3, 0.01\n1, 1, 0, 0.02\n"), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Points) != 2 || d.Points[0][0] != 0.25 || d.Points[0][1] != 0.5 || d.U[1] != 0 || d.Std[1] != 0.02 {
		t.Errorf("read %+v", d)
	}
	for _, c := range []struct{ file, want string }{
		{"", "empty file"},
		{"x,u\n0.5,1\n", `header: no column "t"`},
		{"x,t,v\n0.5,0.5,1\n", `header: unknown column "v"`},
		{"x,t,u\n0.5,0.5,1\n0.5,abc,1\n", `line 3: column t: "abc" is not a finite number`},
		{"x,t,u\n0.5,0.5,NaN\n", `line 2: column u: "NaN" is not a finite number`},
		{"x,t,u\n0.5,1.5,1\n", "line 2: t = 1.5 is outside the domain [0, 1]"},
		{"x,t,u,std\n0.5,0.5,1,-0.1\n", "line 2: std = -0.1: a standard deviation must be positive"},
		{"x,t,u\n0.5,0.5\n", "line 2: 2 cells, the header has 3"},
		{"# comment\nx,t,u\n0.5,0.5,1\n0.5,0.5,x\n", `line 4: column u: "x" is not a finite number`},
		{"x,t,u\n", "no data rows"},
	} {
		_, err := ReadData(strings.NewReader(c.file), p)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\\n") {
			t.Errorf("%q: error %v, want one line containing %q", c.file, err, c.want)
		}
	}
}

// WithData replaces the measured term (heat-inverse's "data") or adds one
// (heat has none), weights rows by 1/std, and its fresh draws keep the data.
func TestWithData(t *testing.T) {
	t.Parallel()
	d := &Data{Points: [][]float64{{0.5, 0.5}, {0.25, 0.1}}, U: []float64{0.3, 0.6}, Std: []float64{0.01, 0.04}}
	for _, c := range []struct {
		p     *Problem
		terms int
	}{{HeatInverse(Options{}), 3}, {Heat(Options{}), 3}, {BurgersWide(Options{}), 4}} {
		q := c.p.WithData(d)
		if err := q.Validate(); err != nil {
			t.Fatal(err)
		}
		last := q.Terms[len(q.Terms)-1]
		if len(q.Terms) != c.terms || last.Name != "data" || !last.Measured || len(last.Points) != 2 || q.Exact != nil || q.DefaultBetaMode() != "split" {
			t.Errorf("%s: terms %d, last %q with %d points, exact %v, betas %s", c.p.Name, len(q.Terms), last.Name, len(last.Points), q.Exact != nil, q.DefaultBetaMode())
		}
		if w := last.Fields["inv_std"]; len(w) != 2 || math.Abs(w[1]-25) > 1e-12 {
			t.Errorf("%s: weights %v, want 1/std", c.p.Name, w)
		}
		f, err := q.Fresh()
		if err != nil || len(f.Terms) != c.terms || f.Terms[len(f.Terms)-1].Target[1] != 0.6 {
			t.Errorf("%s: fresh draw lost the data: %v", c.p.Name, err)
		}
		if q.Defaults.KnownNoise != nil {
			t.Errorf("%s: the stated noise of the study's data %v stays with the user's", c.p.Name, q.Defaults.KnownNoise)
		}
		if len(q.Unknowns) > 0 && q.Unknowns[0].Truth != nil {
			t.Errorf("%s: the truth of the study's data stays with the user's", c.p.Name)
		}
	}
}
