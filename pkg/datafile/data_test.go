package datafile_test

import (
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// heat is a problem of inputs x, t on the unit square.
func heat() *pde.Problem {
	return &pde.Problem{Name: "heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1}}
}

// ReadData: a good file in any column order, and each malformed file a
// one-line error naming its row and column.
func TestReadData(t *testing.T) {
	t.Parallel()
	p := heat()
	d, err := datafile.ReadData(strings.NewReader("t, x, u, std\n# a comment\n0.5, 0.25, 0.3, 0.01\n1, 1, 0, 0.02\n"), p)
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
		_, err := datafile.ReadData(strings.NewReader(c.file), p)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\\n") {
			t.Errorf("%q: error %v, want one line containing %q", c.file, err, c.want)
		}
	}
}
