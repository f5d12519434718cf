package eqtext

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// Env is what the names of an equation stand for at a term's points:
// pkg/pde's Vars (the problem's outputs, inputs, Params and Unknowns, the
// term's fields) or a Transform's inputs alone. Scope lists the names; the
// methods give the N x 1 nodes, of one graph, of the names Scope lists.
type Env interface {
	Scope() Scope
	// Const is the number c at every point.
	Const(c float64) *ad.Node
	// Jet is the named output's jet: the output (U) and its derivatives by
	// input index.
	Jet(output string) *ad.Jet
	// NormalDerivative is the named output's grad . n, or an error saying
	// why the points have no normals.
	NormalDerivative(output string) (*ad.Node, error)
	// Input is input i's coordinate.
	Input(i int) *ad.Node
	Unknown(name string) *ad.Node
	Field(name string) *ad.Node
}

// Scope is the names an Env resolves, each kind in the order an error
// lists it. A name of two kinds is an error.
type Scope struct {
	Outputs, Inputs []string
	Params          map[string]float64 // numbers, folded like constants
	Unknowns        []string
	Fields          []string
	// InputsOnly marks an expression of the inputs alone (a Transform's G
	// or D, a condition's value), which reads the inputs, the Params and
	// the constants (Outputs only to name the mistake of reading one);
	// Reader names what reads it in an error ("" is "a transform").
	InputsOnly bool
	Reader     string
}

// Value is a number or a node of the graph: numbers are folded, so 5*pi^2
// is one constant and D*u_xx is ad.Scale(u_xx, D), as written by hand.
type Value struct {
	C float64
	N *ad.Node // nil: the number C
}

// builder builds the graph of one equation in one Env.
type builder struct {
	q     *Equation
	env   Env
	scope Scope
}

// Residual builds lhs - rhs at env's points: an N x 1 node.
func (q *Equation) Residual(env Env) (*ad.Node, error) {
	b := &builder{q: q, env: env, scope: env.Scope()}
	l, err := b.eval(q.LHS)
	if err != nil {
		return nil, err
	}
	r := Value{}
	if q.RHS != nil {
		if r, err = b.eval(q.RHS); err != nil {
			return nil, err
		}
	}
	d, err := b.binary('-', l, r, 0)
	if err != nil {
		return nil, err
	}
	return d.Node(b.env), nil
}

// Eval is the value of the left side at env's points: an expression's, for
// text without "=".
func (q *Equation) Eval(env Env) (Value, error) {
	b := &builder{q: q, env: env, scope: env.Scope()}
	return b.eval(q.LHS)
}

// Node is the value as an N x 1 node of env's graph.
func (a Value) Node(env Env) *ad.Node {
	if a.N != nil {
		return a.N
	}
	return env.Const(a.C)
}

func (b *builder) eval(e *Expr) (Value, error) {
	switch e.Op {
	case 'n':
		return Value{C: e.Num}, nil
	case 'v':
		return b.name(e)
	case 'm':
		a, err := b.eval(e.Args[0])
		if err != nil || a.N == nil {
			return Value{C: -a.C}, err
		}
		return Value{N: ad.Neg(a.N)}, nil
	case 'f':
		a, err := b.eval(e.Args[0])
		if err != nil {
			return Value{}, err
		}
		f := functions[e.Name]
		if a.N != nil {
			return Value{N: f.node(a.N)}, nil
		}
		return b.finite(e.Col, Value{C: f.num(a.C)})
	}
	x, err := b.eval(e.Args[0])
	if err != nil {
		return Value{}, err
	}
	y, err := b.eval(e.Args[1])
	if err != nil {
		return Value{}, err
	}
	return b.binary(e.Op, x, y, e.Col)
}

// finite refuses a constant that is not finite (log(0), 1/0, sqrt(-1)).
func (b *builder) finite(col int, a Value) (Value, error) {
	if a.N == nil && (math.IsNaN(a.C) || math.IsInf(a.C, 0)) {
		return Value{}, b.q.Errorf(col, "the constant is %v", a.C)
	}
	return a, nil
}

// binary applies op to x and y, folding numbers and using the op a
// hand-written residual would (Scale for a number times a node, AddConst
// for a number added).
func (b *builder) binary(op byte, x, y Value, col int) (Value, error) {
	if x.N == nil && y.N == nil {
		var c float64
		switch op {
		case '+':
			c = x.C + y.C
		case '-':
			c = x.C - y.C
		case '*':
			c = x.C * y.C
		case '/':
			c = x.C / y.C
		case '^':
			c = math.Pow(x.C, y.C)
		}
		return b.finite(col, Value{C: c})
	}
	switch op {
	case '+':
		switch {
		case x.N == nil:
			return Value{N: ad.AddConst(y.N, x.C)}, nil
		case y.N == nil:
			return Value{N: ad.AddConst(x.N, y.C)}, nil
		}
		return Value{N: ad.Add(x.N, y.N)}, nil
	case '-':
		switch {
		case x.N == nil:
			return Value{N: ad.AddConst(ad.Neg(y.N), x.C)}, nil
		case y.N == nil:
			return Value{N: ad.AddConst(x.N, -y.C)}, nil
		}
		return Value{N: ad.Sub(x.N, y.N)}, nil
	case '*':
		switch {
		case x.N == nil:
			return Value{N: ad.Scale(y.N, x.C)}, nil
		case y.N == nil:
			return Value{N: ad.Scale(x.N, y.C)}, nil
		}
		return Value{N: ad.Mul(x.N, y.N)}, nil
	case '/':
		if y.N == nil {
			if y.C == 0 {
				return Value{}, b.q.Errorf(col, "division by 0")
			}
			return Value{N: ad.Scale(x.N, 1/y.C)}, nil
		}
		return Value{N: ad.Div(x.Node(b.env), y.N)}, nil
	}
	// ^: a number exponent is ad.Pow; an exponent that varies is
	// exp(y ln x).
	if y.N == nil {
		return Value{N: ad.Pow(x.N, y.C)}, nil
	}
	if x.N == nil {
		if !(x.C > 0) {
			return Value{}, b.q.Errorf(col, "a power of %g with a varying exponent; the base must be positive", x.C)
		}
		return Value{N: ad.Exp(ad.Scale(y.N, math.Log(x.C)))}, nil
	}
	return Value{N: ad.Exp(ad.Mul(y.N, ad.Log(x.N)))}, nil
}

// name resolves a name: an output or its derivative, an input, a Param,
// an Unknown, a Field, a constant.
func (b *builder) name(e *Expr) (Value, error) {
	fail := func(format string, args ...any) (Value, error) {
		return Value{}, b.q.Errorf(e.Col, "%s: %s", e.Name, fmt.Sprintf(format, args...))
	}
	s := b.scope
	if s.InputsOnly && s.isOutput(e.Name) {
		return fail("an output, which moves with the solution; %s", s.known())
	}
	var found []string
	var out Value
	see := func(kind string, a Value) {
		found = append(found, kind)
		out = a
	}
	if slices.Contains(s.Outputs, e.Name) {
		see("the output", Value{N: b.env.Jet(e.Name).U})
	}
	if i := slices.Index(s.Inputs, e.Name); i >= 0 {
		see("an input", Value{N: b.env.Input(i)})
	}
	if c, ok := s.Params[e.Name]; ok {
		see("a parameter", Value{C: c})
	}
	if slices.Contains(s.Unknowns, e.Name) {
		see("an unknown", Value{N: b.env.Unknown(e.Name)})
	}
	if slices.Contains(s.Fields, e.Name) {
		see("a field", Value{N: b.env.Field(e.Name)})
	}
	switch {
	case len(found) == 1:
		return out, nil
	case len(found) > 1:
		return fail("the name of %s; rename one", strings.Join(found, " and "))
	}
	if field, subs, ok := strings.Cut(e.Name, "_"); ok && slices.Contains(s.Outputs, field) {
		return b.derivative(field, subs, fail)
	}
	if c, ok := constants[e.Name]; ok {
		return Value{C: c}, nil
	}
	return fail("unknown name; %s", s.known())
}

// derivative is output field's derivative by the inputs in subs: one
// letter each, or separated by "_" (u_x1_x2); "n" is the normal derivative
// unless an input is named n.
func (b *builder) derivative(field, subs string, fail func(string, ...any) (Value, error)) (Value, error) {
	inputs := b.scope.Inputs
	if subs == "n" && !slices.Contains(inputs, "n") {
		dn, err := b.env.NormalDerivative(field)
		if err != nil {
			return fail("the normal derivative, and %v", err)
		}
		return Value{N: dn}, nil
	}
	var by []string
	switch {
	case subs == "" || strings.Contains(subs, "_"):
		by = strings.Split(subs, "_")
	case slices.Contains(inputs, subs):
		by = []string{subs}
	default:
		for _, r := range subs {
			by = append(by, string(r))
		}
	}
	idx := make([]int, len(by))
	for k, in := range by {
		idx[k] = slices.Index(inputs, in)
		if idx[k] < 0 {
			return fail("no input %q; the inputs are %s", in, strings.Join(inputs, ", "))
		}
	}
	jet := b.env.Jet(field)
	switch len(idx) {
	case 1:
		return Value{N: jet.D(idx[0])}, nil
	case 2:
		return Value{N: jet.D2(idx[0], idx[1])}, nil
	}
	return fail("a derivative of order %d; equations have first and second derivatives (write higher orders by hand)", len(idx))
}

// isOutput reports whether name is an output or its derivative (u, v_x),
// not an input or a parameter.
func (s Scope) isOutput(name string) bool {
	field, _, _ := strings.Cut(name, "_")
	_, param := s.Params[name]
	return !param && !slices.Contains(s.Inputs, name) && slices.Contains(s.Outputs, field)
}

// known lists the names of the scope.
func (s Scope) known() string {
	var parts []string
	add := func(kind string, names []string) {
		if len(names) > 0 {
			parts = append(parts, kind+" "+strings.Join(names, ", "))
		}
	}
	if s.InputsOnly {
		add("inputs", s.Inputs)
		add("parameters", slices.Sorted(maps.Keys(s.Params)))
		add("constants", slices.Sorted(maps.Keys(constants)))
		reader := s.Reader
		if reader == "" {
			reader = "a transform"
		}
		return reader + " reads " + strings.Join(parts, "; ")
	}
	add("outputs", s.Outputs)
	add("inputs", s.Inputs)
	add("parameters", slices.Sorted(maps.Keys(s.Params)))
	add("unknowns", s.Unknowns)
	add("fields", s.Fields)
	add("constants", slices.Sorted(maps.Keys(constants)))
	return "known are " + strings.Join(parts, "; ")
}
