// Package eqtext reads an equation written as text, e.g. "u_t + a*u_x =
// D*u_xx", into a syntax tree and builds its graph. Parse does the
// scanning, the parsing (by go/parser, with ^ rebound to a power), and the
// checks that need no problem (the tokens, the parentheses, the functions
// and their arguments, the numbers). Equation.Residual and Equation.Eval
// resolve the names through an Env, which pkg/pde implements over a term's
// Vars, and build the pkg/ad graph a hand-written residual would, numbers
// folded.
package eqtext

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

// Expr is a node of a parsed equation.
type Expr struct {
	Op   byte    // 'n' number, 'v' name, 'f' function call, 'm' negation, or + - * / ^
	Col  int     // 1-based column in the text, in characters
	Num  float64 // Op 'n'
	Name string  // Op 'v' and 'f'
	Args []*Expr
}

// Equation is a parsed equation: the residual LHS - RHS (RHS nil: = 0).
type Equation struct {
	Text     string
	LHS, RHS *Expr
}

// function is a function an equation can call: its value for a constant
// argument (num) and its graph for a node (node).
type function struct {
	num  func(float64) float64
	node func(*ad.Node) *ad.Node
}

// functions are the functions an equation can call, by name.
var functions = map[string]function{
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

// Errorf is an error of the equation at a column of its text (Expr.Col).
func (q *Equation) Errorf(col int, format string, args ...any) error {
	return fmt.Errorf("equation %s: col %d: %s", Quote(q.Text), col, fmt.Sprintf(format, args...))
}

// QuoteMax is the most characters of a text an error quotes.
const QuoteMax = 80

// Quote is text quoted for an error, cut to QuoteMax characters (marked
// "...") so that a long text does not fill the message.
func Quote(text string) string {
	if utf8.RuneCountInString(text) <= QuoteMax {
		return strconv.Quote(text)
	}
	r := []rune(text)
	return strconv.Quote(string(r[:QuoteMax-3])+"...") + fmt.Sprintf(" (%d characters)", len(r))
}

// errorAt is an error of the equation at a byte offset of its text.
func (q *Equation) errorAt(off int, format string, args ...any) error {
	return q.Errorf(q.col(off), format, args...)
}

// col is the column of a byte offset.
func (q *Equation) col(off int) int {
	off = min(max(off, 0), len(q.Text))
	return utf8.RuneCountInString(q.Text[:off]) + 1
}

// Parse reads an equation, "lhs = rhs" or an expression alone (= 0), into
// its syntax tree, or returns a one-line error with the column.
//
// It checks the tokens with go/scanner, splits the text at "="
// and parses each side with go/parser. Go reads this arithmetic, ^ aside:
// ^ is replaced by &, which Go parses one level tighter than + - like * and
// /, and the power is then bound to its base (product). Every other
// byte keeps its offset, so Go's positions are columns of the text.
func Parse(text string) (*Equation, error) {
	q := &Equation{Text: text}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("equation %s: empty; write lhs = rhs, e.g. u_xx = -f", Quote(text))
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
	side := func(lo, hi int, what string) (*Expr, error) {
		part := slices.Clone(src)
		for i := range part {
			if i < lo || i >= hi {
				part[i] = ' '
			}
		}
		if strings.TrimSpace(string(part)) == "" {
			return nil, q.errorAt(min(hi, len(text)), "nothing %s; write lhs = rhs", what)
		}
		return q.parse(part)
	}
	if eqAt < 0 {
		q.LHS, err = side(0, len(src), "")
		return q, err
	}
	if q.LHS, err = side(0, eqAt, "left of ="); err != nil {
		return nil, err
	}
	if q.RHS, err = side(eqAt+1, len(src), "right of ="); err != nil {
		return nil, err
	}
	return q, nil
}

// scan checks that the text holds only the tokens of arithmetic, with
// balanced parentheses on each side of at most one "=", and returns the
// offset of the "=" (-1 for none).
func (q *Equation) scan(src []byte) (eqAt int, err error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) {
		if err == nil {
			err = q.errorAt(pos.Offset, "%s", msg)
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
				return -1, q.errorAt(open[len(open)-1], "( is not closed")
			}
			return eqAt, nil
		case token.IDENT, token.INT, token.FLOAT, token.ADD, token.SUB, token.MUL, token.QUO, token.XOR, token.COMMA:
		case token.SEMICOLON:
			if lit != "\n" { // the one inserted at the end
				return -1, q.errorAt(off, "%q is not arithmetic; use + - * / ^, ( ), names and numbers", ";")
			}
		case token.LPAREN:
			open = append(open, off)
		case token.RPAREN:
			if len(open) == 0 {
				return -1, q.errorAt(off, ") without a matching (")
			}
			open = open[:len(open)-1]
		case token.ASSIGN:
			if eqAt >= 0 {
				return -1, q.errorAt(off, "a second =; an equation is lhs = rhs")
			}
			if len(open) > 0 {
				return -1, q.errorAt(open[len(open)-1], "( is not closed before =")
			}
			eqAt = off
		default:
			if lit == "" {
				lit = tok.String()
			}
			return -1, q.errorAt(off, "%q is not arithmetic; use + - * / ^, ( ), names and numbers", lit)
		}
	}
}

// parse parses one side (the other blanked out) and lowers Go's tree to
// an Expr.
func (q *Equation) parse(src []byte) (*Expr, error) {
	fset := token.NewFileSet()
	x, err := parser.ParseExprFrom(fset, "", src, 0)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, q.syntaxError(src, list[0].Pos.Offset, list[0].Msg)
		}
		return nil, fmt.Errorf("equation %s: %v", Quote(q.Text), err)
	}
	base := fset.File(x.Pos()).Base()
	return q.lower(x, base)
}

// syntaxError is go/parser's error msg at offset off of one side (src, the
// other side blanked out) in the equation's words: a missing operand
// points at the operator that lacks it, not past the end of the side.
func (q *Equation) syntaxError(src []byte, off int, msg string) error {
	found := func() string { // the token Go found, "" at the side's end
		_, f, _ := strings.Cut(msg, "found ")
		return strings.Trim(f, "'")
	}
	switch {
	case strings.HasPrefix(msg, "expected operand"):
		if f := found(); f != "EOF" && f != "')'" && f != ")" && f != "" {
			return q.errorAt(off, "%s where an operand should be; use + - * / ^ between names and numbers", f)
		}
		// the side or a parenthesis ends after an operator: point at it
		end := min(off, len(src))
		for end > 0 && src[end-1] == ' ' {
			end--
		}
		if end == 0 {
			return q.errorAt(off, "an operand is missing")
		}
		op := string(src[end-1])
		if op == "&" {
			op = "^"
		}
		return q.errorAt(end-1, "%s needs an operand on its right", op)
	case strings.HasPrefix(msg, "expected 'EOF'"):
		return q.errorAt(off, "%s follows an operand without an operator; write * for a product", found())
	case strings.Contains(msg, "nesting depth"):
		return q.errorAt(off, "nested too deeply; write a shallower expression")
	}
	return q.errorAt(off, "%s", strings.ReplaceAll(msg, "'EOF'", "the end"))
}

// lower turns Go's expression into an Expr; base maps Go's positions to
// offsets.
func (q *Equation) lower(x ast.Expr, base int) (*Expr, error) {
	off := func(n ast.Node) int { return int(n.Pos()) - base }
	switch x := x.(type) {
	case *ast.ParenExpr:
		return q.lower(x.X, base)
	case *ast.Ident:
		return &Expr{Op: 'v', Col: q.col(off(x)), Name: x.Name}, nil
	case *ast.BasicLit:
		return q.number(x, off(x))
	case *ast.UnaryExpr:
		a, err := q.lower(x.X, base)
		switch {
		case err != nil:
			return nil, err
		case x.Op == token.SUB:
			return &Expr{Op: 'm', Col: q.col(off(x)), Args: []*Expr{a}}, nil
		case x.Op == token.ADD:
			return a, nil
		case x.Op == token.AND: // a ^ without its base
			return nil, q.errorAt(off(x), "^ needs a base on its left")
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
			return &Expr{Op: byte(x.Op.String()[0]), Col: q.col(int(x.OpPos) - base), Args: []*Expr{a, b}}, nil
		case token.MUL, token.QUO, token.AND:
			return q.product(x, base)
		}
	case *ast.CallExpr:
		return q.call(x, base)
	}
	return nil, q.errorAt(off(x), "%s is not arithmetic; use + - * / ^, ( ), names, numbers and functions", Quote(q.Text[off(x):min(int(x.End())-base, len(q.Text))]))
}

func (q *Equation) number(x *ast.BasicLit, off int) (*Expr, error) {
	lit := x.Value
	if len(lit) > 1 && lit[0] == '0' && strings.ContainsAny(lit[1:2], "xXoObB") {
		return nil, q.errorAt(off, "%s: write numbers in decimal", lit)
	}
	v, err := strconv.ParseFloat(lit, 64)
	switch {
	case math.IsInf(v, 0):
		return nil, q.errorAt(off, "%s is beyond float64's range", lit)
	case err != nil:
		return nil, q.errorAt(off, "%s is not a number", lit)
	}
	return &Expr{Op: 'n', Col: q.col(off), Num: v}, nil
}

func (q *Equation) call(x *ast.CallExpr, base int) (*Expr, error) {
	id, ok := x.Fun.(*ast.Ident)
	off := int(x.Fun.Pos()) - base
	if !ok {
		return nil, q.errorAt(off, "only a function can be called: %s", functionNames())
	}
	if _, ok := functions[id.Name]; !ok {
		return nil, q.errorAt(off, "%s(): no such function; the functions are %s", id.Name, functionNames())
	}
	if len(x.Args) != 1 {
		return nil, q.errorAt(off, "%s takes 1 argument, not %d", id.Name, len(x.Args))
	}
	a, err := q.lower(x.Args[0], base)
	if err != nil {
		return nil, err
	}
	return &Expr{Op: 'f', Col: q.col(off), Name: id.Name, Args: []*Expr{a}}, nil
}

func functionNames() string { return strings.Join(slices.Sorted(maps.Keys(functions)), ", ") }

// product lowers a chain of * / and ^ (Go's & in the source), which Go
// parses left to right at one level: a*b^c is (a*b)&c. The chain is
// flattened into operands and regrouped: each run of ^ binds first, to the
// right (a^b^c = a^(b^c)), a sign in front of a base applies to the power
// (-a^2 = -(a^2)); then * and / from the left.
func (q *Equation) product(x *ast.BinaryExpr, base int) (*Expr, error) {
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
	low := make([]*Expr, len(operands))
	bases := make([]*Expr, len(operands))
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
	power := func(i, j int) *Expr {
		r := low[j]
		for k := j - 1; k >= i; k-- {
			r = negate(&Expr{Op: '^', Col: q.col(int(ops[k].OpPos) - base), Args: []*Expr{bases[k], r}}, signs[k])
		}
		return r
	}
	var out *Expr
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
			out = &Expr{Op: byte(opAt.Op.String()[0]), Col: q.col(int(opAt.OpPos) - base), Args: []*Expr{out, f}}
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
func negate(e *Expr, cols []int) *Expr {
	for _, col := range slices.Backward(cols) {
		e = &Expr{Op: 'm', Col: col, Args: []*Expr{e}}
	}
	return e
}

// Addends returns the residual LHS - RHS as a sum of addends, each an
// Equation without a right side: the operands of each side's top-level
// sums and differences, through parentheses and negations, and through a
// product with a sum (a*(b + c) is a*b + a*c; (b + c)/a is b/a + c/a);
// the right side's negated; a written 0 is none. u_tt - (u_xx + 2*u_yy) =
// 0 has the three addends u_tt, -u_xx and -(2*u_yy); 0.01*(u_xx + u_yy)
// has 0.01*u_xx and 0.01*u_yy; a function call is one addend.
func (q *Equation) Addends() []*Equation {
	var out []*Equation
	var add func(e *Expr, wrap func(*Expr) *Expr)
	add = func(e *Expr, wrap func(*Expr) *Expr) {
		op := func(o byte, args ...*Expr) func(*Expr) *Expr {
			return func(x *Expr) *Expr {
				a := make([]*Expr, len(args))
				for i, y := range args {
					if a[i] = y; y == nil {
						a[i] = x
					}
				}
				return wrap(&Expr{Op: o, Col: e.Col, Args: a})
			}
		}
		switch {
		case e.Op == '+':
			add(e.Args[0], wrap)
			add(e.Args[1], wrap)
		case e.Op == '-':
			add(e.Args[0], wrap)
			add(e.Args[1], op('m', nil))
		case e.Op == 'm':
			add(e.Args[0], op('m', nil))
		case e.Op == '*' && isSum(e.Args[1]):
			add(e.Args[1], op('*', e.Args[0], nil))
		case (e.Op == '*' || e.Op == '/') && isSum(e.Args[0]):
			add(e.Args[0], op(e.Op, nil, e.Args[1]))
		case e.Op == 'n' && e.Num == 0:
		default:
			out = append(out, &Equation{Text: q.Text, LHS: wrap(e)})
		}
	}
	add(q.LHS, func(e *Expr) *Expr { return e })
	if q.RHS != nil {
		add(q.RHS, func(e *Expr) *Expr { return &Expr{Op: 'm', Col: e.Col, Args: []*Expr{e}} })
	}
	return out
}

// isSum reports whether e is a sum or a difference, or the negation of
// one.
func isSum(e *Expr) bool {
	for e.Op == 'm' {
		e = e.Args[0]
	}
	return e.Op == '+' || e.Op == '-'
}
