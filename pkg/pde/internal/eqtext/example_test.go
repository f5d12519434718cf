package eqtext_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/pde/internal/eqtext"
)

// A parsed equation is a tree of Exprs with their columns; errors name the
// column.
func ExampleParse() {
	q, err := eqtext.Parse("u_t = -u^2")
	if err != nil {
		panic(err)
	}
	m := q.RHS
	fmt.Printf("%c at col %d of %c at col %d\n", m.Op, m.Col, m.Args[0].Op, m.Args[0].Col)
	_, err = eqtext.Parse("u_t = sinh(u)")
	fmt.Println(err)
	// Output:
	// m at col 7 of ^ at col 9
	// equation "u_t = sinh(u)": col 7: sinh(): no such function; the functions are abs, cos, exp, log, sin, sqrt, tanh
}
