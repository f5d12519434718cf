package pde

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde/internal/eqtext"
)

// Equation compiles an equation written as text, e.g. "u_t + a*u_x =
// D*u_xx", into the Residual lhs - rhs: the same pkg/ad graph the residual
// written by hand builds. Text without "=" is the residual itself (= 0).
//
// Names are resolved when the residual is built, against the problem and
// the term:
//   - u, and its derivatives by subscript: u_x, u_t, u_xx, u_xt (first and
//     second); subscripts are input names, one letter each, or separated by
//     "_" where an input's name is longer (u_x1_x2); a problem of several
//     outputs (Problem.Outputs) reads each by its name the same way: v,
//     p_x, v_yy;
//   - u_n, the outward normal derivative grad u . n, in a term drawn on a
//     boundary (a term without normals is an error; an input named n
//     makes u_n the derivative by it);
//   - the inputs by name (x, t, ...);
//   - the problem's Params (numbers) and Unknowns (inferred);
//   - the term's Fields;
//   - the constants pi and e (a name of the problem comes first).
//
// Operators are + - * / and ^ (power: binds tighter than unary minus, so
// -u^2 is -(u^2), and groups to the right, 2^3^2 = 2^9); functions are sin,
// cos, exp, log, sqrt, tanh and abs. A power whose exponent depends on the
// points (not a number or parameter) is exp(b ln a): its base must be
// positive.
//
// A syntax error (an unknown function, a wrong number of arguments, a bad
// number, unbalanced parentheses, an empty side, two "=") is returned here;
// a name the problem does not have is an error of Validate and
// BuildResidual. Every error is one line with the column, e.g.
//
//	equation "u_t + u_y = 0": col 7: u_y: no input "y"; the inputs are x, t
func Equation(text string) (Residual, error) {
	e, err := parseEquation(text)
	if err != nil {
		return nil, err
	}
	return e.residual, nil
}

// Eq is Equation for a Term literal, Residual: pde.Eq("u_xx = -f"): a
// syntax error is reported by Validate (and BuildResidual) with the term's
// name, like a name the problem does not have.
func Eq(text string) Residual {
	e, err := parseEquation(text)
	if err != nil {
		return func(v *Vars) *ad.Node { return v.fail("%v", err) }
	}
	return e.residual
}

// equation is a parsed equation (package eqtext reads the text) and the
// building of its residual: the names resolved against the problem and the
// term, the numbers folded.
type equation struct{ *eqtext.Equation }

func parseEquation(text string) (*equation, error) {
	q, err := eqtext.Parse(text)
	if err != nil {
		return nil, err
	}
	return &equation{q}, nil
}

// value is a number or a node of the graph: numbers are folded, so 5*pi^2
// is one constant and D*u_xx is ad.Scale(u_xx, D), as written by hand.
type value struct {
	c float64
	n *ad.Node // nil: the number c
}

// residual builds lhs - rhs at the term's points.
func (q *equation) residual(v *Vars) *ad.Node {
	l, err := q.eval(v, q.LHS)
	if err != nil {
		return v.fail("%v", err)
	}
	r := value{}
	if q.RHS != nil {
		if r, err = q.eval(v, q.RHS); err != nil {
			return v.fail("%v", err)
		}
	}
	d, err := q.binary(v, '-', l, r, 0)
	if err != nil {
		return v.fail("%v", err)
	}
	return q.node(v, d)
}

// node is a value as an N x 1 node.
func (q *equation) node(v *Vars, a value) *ad.Node {
	if a.n != nil {
		return a.n
	}
	return v.U.Graph().Fill(v.N(), 1, a.c)
}

func (q *equation) eval(v *Vars, e *eqtext.Expr) (value, error) {
	switch e.Op {
	case 'n':
		return value{c: e.Num}, nil
	case 'v':
		return q.name(v, e)
	case 'm':
		a, err := q.eval(v, e.Args[0])
		if err != nil || a.n == nil {
			return value{c: -a.c}, err
		}
		return value{n: ad.Neg(a.n)}, nil
	case 'f':
		a, err := q.eval(v, e.Args[0])
		if err != nil {
			return value{}, err
		}
		f := eqtext.Functions[e.Name]
		if a.n != nil {
			return value{n: f.Node(a.n)}, nil
		}
		return q.finite(e.Col, value{c: f.Num(a.c)})
	}
	a, err := q.eval(v, e.Args[0])
	if err != nil {
		return value{}, err
	}
	b, err := q.eval(v, e.Args[1])
	if err != nil {
		return value{}, err
	}
	return q.binary(v, e.Op, a, b, e.Col)
}

// finite refuses a constant that is not finite (log(0), 1/0, sqrt(-1)).
func (q *equation) finite(col int, a value) (value, error) {
	if a.n == nil && (math.IsNaN(a.c) || math.IsInf(a.c, 0)) {
		return value{}, q.Errorf(col, "the constant is %v", a.c)
	}
	return a, nil
}

// binary applies op to a and b, folding numbers and using the op a
// hand-written residual would (Scale for a number times a node, AddConst
// for a number added).
func (q *equation) binary(v *Vars, op byte, a, b value, col int) (value, error) {
	if a.n == nil && b.n == nil {
		var c float64
		switch op {
		case '+':
			c = a.c + b.c
		case '-':
			c = a.c - b.c
		case '*':
			c = a.c * b.c
		case '/':
			c = a.c / b.c
		case '^':
			c = math.Pow(a.c, b.c)
		}
		return q.finite(col, value{c: c})
	}
	switch op {
	case '+':
		switch {
		case a.n == nil:
			return value{n: ad.AddConst(b.n, a.c)}, nil
		case b.n == nil:
			return value{n: ad.AddConst(a.n, b.c)}, nil
		}
		return value{n: ad.Add(a.n, b.n)}, nil
	case '-':
		switch {
		case a.n == nil:
			return value{n: ad.AddConst(ad.Neg(b.n), a.c)}, nil
		case b.n == nil:
			return value{n: ad.AddConst(a.n, -b.c)}, nil
		}
		return value{n: ad.Sub(a.n, b.n)}, nil
	case '*':
		switch {
		case a.n == nil:
			return value{n: ad.Scale(b.n, a.c)}, nil
		case b.n == nil:
			return value{n: ad.Scale(a.n, b.c)}, nil
		}
		return value{n: ad.Mul(a.n, b.n)}, nil
	case '/':
		if b.n == nil {
			if b.c == 0 {
				return value{}, q.Errorf(col, "division by 0")
			}
			return value{n: ad.Scale(a.n, 1/b.c)}, nil
		}
		return value{n: ad.Div(q.node(v, a), b.n)}, nil
	}
	// ^: a number exponent is ad.Pow; an exponent that varies is
	// exp(b ln a).
	if b.n == nil {
		return value{n: ad.Pow(a.n, b.c)}, nil
	}
	if a.n == nil {
		if !(a.c > 0) {
			return value{}, q.Errorf(col, "a power of %g with a varying exponent; the base must be positive", a.c)
		}
		return value{n: ad.Exp(ad.Scale(b.n, math.Log(a.c)))}, nil
	}
	return value{n: ad.Exp(ad.Mul(b.n, ad.Log(a.n)))}, nil
}

// output returns the named output at the points and its jet.
func (v *Vars) output(name string) (*ad.Node, *ad.Jet) {
	k := slices.Index(v.p.OutputNames(), name)
	return v.outs[k], v.outJet(k)
}

// name resolves a name: an output or its derivative, an input, a Param,
// an Unknown, a Field, a constant.
func (q *equation) name(v *Vars, e *eqtext.Expr) (value, error) {
	fail := func(format string, args ...any) (value, error) {
		return value{}, q.Errorf(e.Col, "%s: %s", e.Name, fmt.Sprintf(format, args...))
	}
	var found []string
	var out value
	see := func(kind string, a value) {
		found = append(found, kind)
		out = a
	}
	outputs := v.p.OutputNames()
	if !v.inputsOnly && slices.Contains(outputs, e.Name) {
		u, _ := v.output(e.Name)
		see("the output", value{n: u})
	}
	if i := slices.Index(v.p.Inputs, e.Name); i >= 0 {
		see("an input", value{n: v.jet.In(i)})
	}
	if c, ok := v.p.Params[e.Name]; ok {
		see("a parameter", value{c: c})
	}
	if !v.inputsOnly && slices.ContainsFunc(v.p.Unknowns, func(u Unknown) bool { return u.Name == e.Name }) {
		see("an unknown", value{n: v.Unknown(e.Name)})
	}
	if f, ok := v.fields[e.Name]; ok {
		see("a field", value{n: f})
	}
	switch {
	case len(found) == 1:
		return out, nil
	case len(found) > 1:
		return fail("the name of %s; rename one", strings.Join(found, " and "))
	}
	if field, subs, ok := strings.Cut(e.Name, "_"); ok && !v.inputsOnly && slices.Contains(outputs, field) {
		return q.derivative(v, e, field, subs, fail)
	}
	if c, ok := eqtext.Constants[e.Name]; ok {
		return value{c: c}, nil
	}
	return fail("unknown name; %s", q.known(v))
}

// derivative is output field's derivative by the inputs in subs.
func (q *equation) derivative(v *Vars, e *eqtext.Expr, field, subs string, fail func(string, ...any) (value, error)) (value, error) {
	if subs == "n" && !slices.Contains(v.p.Inputs, "n") {
		if !v.hasNormals() {
			return fail("the normal derivative, and %s", noNormals)
		}
		_, jet := v.output(field)
		return value{n: v.normalDerivative(jet)}, nil
	}
	var by []string
	switch {
	case subs == "" || strings.Contains(subs, "_"):
		by = strings.Split(subs, "_")
	case slices.Contains(v.p.Inputs, subs):
		by = []string{subs}
	default:
		for _, r := range subs {
			by = append(by, string(r))
		}
	}
	idx := make([]int, len(by))
	for k, in := range by {
		idx[k] = slices.Index(v.p.Inputs, in)
		if idx[k] < 0 {
			return fail("no input %q; the inputs are %s", in, strings.Join(v.p.Inputs, ", "))
		}
	}
	_, jet := v.output(field)
	switch len(idx) {
	case 1:
		return value{n: jet.D(idx[0])}, nil
	case 2:
		return value{n: jet.D2(idx[0], idx[1])}, nil
	}
	return fail("a derivative of order %d; equations have first and second derivatives (write higher orders by hand)", len(idx))
}

// known lists the names a residual of the term can read.
func (q *equation) known(v *Vars) string {
	var parts []string
	add := func(kind string, names []string) {
		if len(names) > 0 {
			parts = append(parts, kind+" "+strings.Join(names, ", "))
		}
	}
	if v.inputsOnly { // a Transform's expression
		add("inputs", v.p.Inputs)
		add("parameters", slices.Sorted(maps.Keys(v.p.Params)))
		add("constants", slices.Sorted(maps.Keys(eqtext.Constants)))
		return "a transform reads " + strings.Join(parts, "; ")
	}
	add("outputs", v.p.OutputNames())
	add("inputs", v.p.Inputs)
	add("parameters", slices.Sorted(maps.Keys(v.p.Params)))
	var unk []string
	for _, u := range v.p.Unknowns {
		unk = append(unk, u.Name)
	}
	add("unknowns", unk)
	add("fields", slices.Sorted(maps.Keys(v.fields)))
	add("constants", slices.Sorted(maps.Keys(eqtext.Constants)))
	return "known are " + strings.Join(parts, "; ")
}
