package datafile_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// ReadPoints reads the points to evaluate a fit at; a bad line is a
// PointError naming it.
func ExampleReadPoints() {
	p := &pde.Problem{Name: "heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1}}
	pts, err := datafile.ReadPoints(strings.NewReader("# x t\n0.25 0.5\n1 0\n"), p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pts)
	_, err = datafile.ReadPoints(strings.NewReader("0.25 0.5\n0.5 2\n"), p)
	var pe *datafile.PointError
	fmt.Println(errors.As(err, &pe), err)
	// Output:
	// [[0.25 0.5] [1 0]]
	// true line 2: t = 2 is outside [0, 1]
}

// ReadData reads measurements of u, with an optional standard deviation
// per row, in the problem's input order whatever the columns' order.
func ExampleReadData() {
	p := &pde.Problem{Name: "heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1}}
	d, err := datafile.ReadData(strings.NewReader("t, x, u, std\n0.5, 0.25, 0.3, 0.01\n"), p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Points, d.U, d.Std)
	// Output: [[0.25 0.5]] [0.3] [0.01]
}
