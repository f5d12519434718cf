package pde

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evidence-pinn/bpinn/pkg/ad"
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

// expr is a node of a parsed equation.
type expr struct {
	op   byte    // 'n' number, 'v' name, 'f' function call, 'm' negation, or + - * / ^
	col  int     // 1-based column in the text, in characters
	num  float64 // op 'n'
	name string  // op 'v' and 'f'
	args []*expr
}

// equation is a parsed equation: the residual lhs - rhs (rhs nil: = 0).
type equation struct {
	text     string
	lhs, rhs *expr
}

// functions are the functions an equation can call: the value for a
// constant argument and the graph for a node.
var functions = map[string]struct {
	num  func(float64) float64
	node func(*ad.Node) *ad.Node
}{
	"sin":  {math.Sin, ad.Sin},
	"cos":  {math.Cos, ad.Cos},
	"exp":  {math.Exp, ad.Exp},
	"log":  {math.Log, ad.Log},
	"sqrt": {math.Sqrt, func(a *ad.Node) *ad.Node { return ad.Pow(a, 0.5) }},
	"tanh": {math.Tanh, ad.Tanh},
	"abs":  {math.Abs, ad.Abs},
}

// constants are the names an equation knows without a problem.
var constants = map[string]float64{"pi": math.Pi, "e": math.E}

// errorf is an error of the equation at a byte offset of its text.
func (q *equation) errorf(off int, format string, args ...any) error {
	return fmt.Errorf("equation %q: col %d: %s", q.text, q.col(off), fmt.Sprintf(format, args...))
}

func (q *equation) col(off int) int {
	off = min(max(off, 0), len(q.text))
	return utf8.RuneCountInString(q.text[:off]) + 1
}

// parseEquation checks the tokens with go/scanner, splits the text at "="
// and parses each side with go/parser. Go reads this arithmetic, ^ aside:
// ^ is replaced by &, which Go parses one level tighter than + - like * and
// /, and the power is then bound to its base (product). Every other
// byte keeps its offset, so Go's positions are columns of the text.
func parseEquation(text string) (*equation, error) {
	q := &equation{text: text}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("equation %q: empty; write lhs = rhs, e.g. u_xx = -f", text)
	}
	// Newlines would make the scanner insert semicolons: the text is one
	// line.
	src := []byte(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, text))
	eqAt, err := q.scan(src)
	if err != nil {
		return nil, err
	}
	for i, c := range src {
		if c == '^' {
			src[i] = '&'
		}
	}
	side := func(lo, hi int, what string) (*expr, error) {
		part := slices.Clone(src)
		for i := range part {
			if i < lo || i >= hi {
				part[i] = ' '
			}
		}
		if strings.TrimSpace(string(part)) == "" {
			return nil, q.errorf(min(hi, len(text)), "nothing %s; write lhs = rhs", what)
		}
		return q.parse(part)
	}
	if eqAt < 0 {
		q.lhs, err = side(0, len(src), "")
		return q, err
	}
	if q.lhs, err = side(0, eqAt, "left of ="); err != nil {
		return nil, err
	}
	if q.rhs, err = side(eqAt+1, len(src), "right of ="); err != nil {
		return nil, err
	}
	return q, nil
}

// scan checks that the text holds only the tokens of arithmetic, with
// balanced parentheses on each side of at most one "=", and returns the
// offset of the "=" (-1 for none).
func (q *equation) scan(src []byte) (eqAt int, err error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) {
		if err == nil {
			err = q.errorf(pos.Offset, "%s", msg)
		}
	}, 0)
	eqAt = -1
	var open []int // offsets of the unclosed (
	for {
		pos, tok, lit := s.Scan()
		if err != nil {
			return -1, err
		}
		off := file.Offset(pos)
		switch tok {
		case token.EOF:
			if len(open) > 0 {
				return -1, q.errorf(open[len(open)-1], "( is not closed")
			}
			return eqAt, nil
		case token.IDENT, token.INT, token.FLOAT, token.ADD, token.SUB, token.MUL, token.QUO, token.XOR, token.COMMA:
		case token.SEMICOLON:
			if lit != "\n" { // the one inserted at the end
				return -1, q.errorf(off, "%q is not arithmetic; use + - * / ^, ( ), names and numbers", ";")
			}
		case token.LPAREN:
			open = append(open, off)
		case token.RPAREN:
			if len(open) == 0 {
				return -1, q.errorf(off, ") without a matching (")
			}
			open = open[:len(open)-1]
		case token.ASSIGN:
			if eqAt >= 0 {
				return -1, q.errorf(off, "a second =; an equation is lhs = rhs")
			}
			if len(open) > 0 {
				return -1, q.errorf(open[len(open)-1], "( is not closed before =")
			}
			eqAt = off
		default:
			if lit == "" {
				lit = tok.String()
			}
			return -1, q.errorf(off, "%q is not arithmetic; use + - * / ^, ( ), names and numbers", lit)
		}
	}
}

// parse parses one side (the other blanked out) and lowers Go's tree to
// an expr.
func (q *equation) parse(src []byte) (*expr, error) {
	fset := token.NewFileSet()
	x, err := parser.ParseExprFrom(fset, "", src, 0)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, q.errorf(list[0].Pos.Offset, "%s", list[0].Msg)
		}
		return nil, fmt.Errorf("equation %q: %v", q.text, err)
	}
	base := fset.File(x.Pos()).Base()
	return q.lower(x, base)
}

// lower turns Go's expression into an expr; base maps Go's positions to
// offsets.
func (q *equation) lower(x ast.Expr, base int) (*expr, error) {
	off := func(n ast.Node) int { return int(n.Pos()) - base }
	switch x := x.(type) {
	case *ast.ParenExpr:
		return q.lower(x.X, base)
	case *ast.Ident:
		return &expr{op: 'v', col: q.col(off(x)), name: x.Name}, nil
	case *ast.BasicLit:
		return q.number(x, off(x))
	case *ast.UnaryExpr:
		a, err := q.lower(x.X, base)
		switch {
		case err != nil:
			return nil, err
		case x.Op == token.SUB:
			return &expr{op: 'm', col: q.col(off(x)), args: []*expr{a}}, nil
		case x.Op == token.ADD:
			return a, nil
		case x.Op == token.AND: // a ^ without its base
			return nil, q.errorf(off(x), "^ needs a base on its left")
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.ADD, token.SUB:
			a, err := q.lower(x.X, base)
			if err != nil {
				return nil, err
			}
			b, err := q.lower(x.Y, base)
			if err != nil {
				return nil, err
			}
			return &expr{op: byte(x.Op.String()[0]), col: q.col(int(x.OpPos) - base), args: []*expr{a, b}}, nil
		case token.MUL, token.QUO, token.AND:
			return q.product(x, base)
		}
	case *ast.CallExpr:
		return q.call(x, base)
	}
	return nil, q.errorf(off(x), "%q is not arithmetic; use + - * / ^, ( ), names, numbers and functions", q.text[off(x):min(int(x.End())-base, len(q.text))])
}

func (q *equation) number(x *ast.BasicLit, off int) (*expr, error) {
	lit := x.Value
	if len(lit) > 1 && lit[0] == '0' && strings.ContainsAny(lit[1:2], "xXoObB") {
		return nil, q.errorf(off, "%s: write numbers in decimal", lit)
	}
	v, err := strconv.ParseFloat(lit, 64)
	switch {
	case math.IsInf(v, 0):
		return nil, q.errorf(off, "%s is beyond float64's range", lit)
	case err != nil:
		return nil, q.errorf(off, "%s is not a number", lit)
	}
	return &expr{op: 'n', col: q.col(off), num: v}, nil
}

func (q *equation) call(x *ast.CallExpr, base int) (*expr, error) {
	id, ok := x.Fun.(*ast.Ident)
	off := int(x.Fun.Pos()) - base
	if !ok {
		return nil, q.errorf(off, "only a function can be called: %s", functionNames())
	}
	if _, ok := functions[id.Name]; !ok {
		return nil, q.errorf(off, "%s(): no such function; the functions are %s", id.Name, functionNames())
	}
	if len(x.Args) != 1 {
		return nil, q.errorf(off, "%s takes 1 argument, not %d", id.Name, len(x.Args))
	}
	a, err := q.lower(x.Args[0], base)
	if err != nil {
		return nil, err
	}
	return &expr{op: 'f', col: q.col(off), name: id.Name, args: []*expr{a}}, nil
}

func functionNames() string { return strings.Join(slices.Sorted(maps.Keys(functions)), ", ") }

// product lowers a chain of * / and ^ (Go's & in the source), which Go
// parses left to right at one level: a*b^c is (a*b)&c. The chain is
// flattened into operands and regrouped: each run of ^ binds first, to the
// right (a^b^c = a^(b^c)), a sign in front of a base applies to the power
// (-a^2 = -(a^2)); then * and / from the left.
func (q *equation) product(x *ast.BinaryExpr, base int) (*expr, error) {
	var operands []ast.Expr
	var ops []*ast.BinaryExpr
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.MUL || b.Op == token.QUO || b.Op == token.AND) {
			walk(b.X)
			ops = append(ops, b)
			operands = append(operands, b.Y)
			return
		}
		operands = append(operands, e)
	}
	walk(x)
	// bases are the operands without the signs written in front of them
	// (signs holds their columns; an operand in parentheses has none): a
	// power's base is bases[k], its signs go outside the power; an operand
	// that is no base (an exponent, a factor) is low[k], signs included.
	low := make([]*expr, len(operands))
	bases := make([]*expr, len(operands))
	signs := make([][]int, len(operands))
	for i, o := range operands {
		for u, ok := o.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD); u, ok = o.(*ast.UnaryExpr) {
			if u.Op == token.SUB {
				signs[i] = append(signs[i], q.col(int(u.Pos())-base))
			}
			o = u.X
		}
		var err error
		if bases[i], err = q.lower(o, base); err != nil {
			return nil, err
		}
		low[i] = negate(bases[i], signs[i])
	}
	// power folds operands i..j (joined by ^) from the right.
	power := func(i, j int) *expr {
		r := low[j]
		for k := j - 1; k >= i; k-- {
			r = negate(&expr{op: '^', col: q.col(int(ops[k].OpPos) - base), args: []*expr{bases[k], r}}, signs[k])
		}
		return r
	}
	var out *expr
	var opAt *ast.BinaryExpr // the * or / before the current run
	for i := 0; i < len(low); {
		j := i
		for j < len(ops) && ops[j].Op == token.AND {
			j++
		}
		f := power(i, j)
		if out == nil {
			out = f
		} else {
			out = &expr{op: byte(opAt.Op.String()[0]), col: q.col(int(opAt.OpPos) - base), args: []*expr{out, f}}
		}
		if j < len(ops) {
			opAt = ops[j]
		}
		i = j + 1
	}
	return out, nil
}

// negate wraps e in the negations written at the columns cols, the
// innermost last.
func negate(e *expr, cols []int) *expr {
	for _, col := range slices.Backward(cols) {
		e = &expr{op: 'm', col: col, args: []*expr{e}}
	}
	return e
}

// value is a number or a node of the graph: numbers are folded, so 5*pi^2
// is one constant and D*u_xx is ad.Scale(u_xx, D), as written by hand.
type value struct {
	c float64
	n *ad.Node // nil: the number c
}

// residual builds lhs - rhs at the term's points.
func (q *equation) residual(v *Vars) *ad.Node {
	l, err := q.eval(v, q.lhs)
	if err != nil {
		return v.fail("%v", err)
	}
	r := value{}
	if q.rhs != nil {
		if r, err = q.eval(v, q.rhs); err != nil {
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

func (q *equation) eval(v *Vars, e *expr) (value, error) {
	switch e.op {
	case 'n':
		return value{c: e.num}, nil
	case 'v':
		return q.name(v, e)
	case 'm':
		a, err := q.eval(v, e.args[0])
		if err != nil || a.n == nil {
			return value{c: -a.c}, err
		}
		return value{n: ad.Neg(a.n)}, nil
	case 'f':
		a, err := q.eval(v, e.args[0])
		if err != nil {
			return value{}, err
		}
		f := functions[e.name]
		if a.n != nil {
			return value{n: f.node(a.n)}, nil
		}
		return q.finite(e, value{c: f.num(a.c)})
	}
	a, err := q.eval(v, e.args[0])
	if err != nil {
		return value{}, err
	}
	b, err := q.eval(v, e.args[1])
	if err != nil {
		return value{}, err
	}
	return q.binary(v, e.op, a, b, e.col)
}

// finite refuses a constant that is not finite (log(0), 1/0, sqrt(-1)).
func (q *equation) finite(e *expr, a value) (value, error) {
	if a.n == nil && (math.IsNaN(a.c) || math.IsInf(a.c, 0)) {
		return value{}, fmt.Errorf("equation %q: col %d: the constant is %v", q.text, e.col, a.c)
	}
	return a, nil
}

// binary applies op to a and b, folding numbers and using the op a
// hand-written residual would (Scale for a number times a node, AddConst
// for a number added).
func (q *equation) binary(v *Vars, op byte, a, b value, col int) (value, error) {
	at := &expr{col: col}
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
		return q.finite(at, value{c: c})
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
				return value{}, fmt.Errorf("equation %q: col %d: division by 0", q.text, col)
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
			return value{}, fmt.Errorf("equation %q: col %d: a power of %g with a varying exponent; the base must be positive", q.text, col, a.c)
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
func (q *equation) name(v *Vars, e *expr) (value, error) {
	fail := func(format string, args ...any) (value, error) {
		return value{}, fmt.Errorf("equation %q: col %d: %s: %s", q.text, e.col, e.name, fmt.Sprintf(format, args...))
	}
	var found []string
	var out value
	see := func(kind string, a value) {
		found = append(found, kind)
		out = a
	}
	outputs := v.p.OutputNames()
	if slices.Contains(outputs, e.name) {
		u, _ := v.output(e.name)
		see("the output", value{n: u})
	}
	if i := slices.Index(v.p.Inputs, e.name); i >= 0 {
		see("an input", value{n: v.jet.In(i)})
	}
	if c, ok := v.p.Params[e.name]; ok {
		see("a parameter", value{c: c})
	}
	if slices.ContainsFunc(v.p.Unknowns, func(u Unknown) bool { return u.Name == e.name }) {
		see("an unknown", value{n: v.Unknown(e.name)})
	}
	if f, ok := v.fields[e.name]; ok {
		see("a field", value{n: f})
	}
	switch {
	case len(found) == 1:
		return out, nil
	case len(found) > 1:
		return fail("the name of %s; rename one", strings.Join(found, " and "))
	}
	if field, subs, ok := strings.Cut(e.name, "_"); ok && slices.Contains(outputs, field) {
		return q.derivative(v, e, field, subs, fail)
	}
	if c, ok := constants[e.name]; ok {
		return value{c: c}, nil
	}
	return fail("unknown name; %s", q.known(v))
}

// derivative is output field's derivative by the inputs in subs.
func (q *equation) derivative(v *Vars, e *expr, field, subs string, fail func(string, ...any) (value, error)) (value, error) {
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
	add("outputs", v.p.OutputNames())
	add("inputs", v.p.Inputs)
	add("parameters", slices.Sorted(maps.Keys(v.p.Params)))
	var unk []string
	for _, u := range v.p.Unknowns {
		unk = append(unk, u.Name)
	}
	add("unknowns", unk)
	add("fields", slices.Sorted(maps.Keys(v.fields)))
	add("constants", slices.Sorted(maps.Keys(constants)))
	return "known are " + strings.Join(parts, "; ")
}
