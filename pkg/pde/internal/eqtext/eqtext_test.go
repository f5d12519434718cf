package eqtext

import (
	"fmt"
	"strings"
	"testing"
)

// show writes e in prefix form with full parentheses.
func show(e *Expr) string {
	switch e.Op {
	case 'n':
		return fmt.Sprint(e.Num)
	case 'v':
		return e.Name
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = show(a)
	}
	op := string(e.Op)
	if e.Op == 'f' {
		op = e.Name
	}
	return "(" + op + " " + strings.Join(args, " ") + ")"
}

// TestParseTree checks the rebinding of ^ (tighter than unary minus and
// * /, grouped to the right) and the sides.
func TestParseTree(t *testing.T) {
	for _, c := range []struct{ text, lhs, rhs string }{
		{"-u^2 = 2^3^2", "(m (^ u 2))", "(^ 2 (^ 3 2))"},
		{"a*b^c/d", "(/ (* a (^ b c)) d)", ""},
		{"u_t + sin(x) = D*u_xx", "(+ u_t (sin x))", "(* D u_xx)"},
	} {
		q, err := Parse(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		rhs := ""
		if q.RHS != nil {
			rhs = show(q.RHS)
		}
		if got := show(q.LHS); got != c.lhs || rhs != c.rhs {
			t.Errorf("%q: got %s = %s, want %s = %s", c.text, got, rhs, c.lhs, c.rhs)
		}
	}
}

func TestParseErrorColumn(t *testing.T) {
	_, err := Parse("u_t = u_xx )")
	want := `equation "u_t = u_xx )": col 12: ) without a matching (`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
