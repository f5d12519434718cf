package pde

import (
	"errors"
	"maps"
	"slices"

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
	q, err := eqtext.Parse(text)
	if err != nil {
		return nil, err
	}
	return residualOf(q), nil
}

// residualOf is the Residual of a parsed equation: its lhs - rhs.
func residualOf(q *eqtext.Equation) Residual {
	return func(v *Vars) *ad.Node {
		r, err := q.Residual(env{v})
		if err != nil {
			return v.fail("%v", err)
		}
		return r
	}
}

// Addends returns the addends of the term's equation when PDE made it from
// text (and its Residual was not replaced since): the operands of the
// top-level sums and differences of each side, the right side's negated,
// each a Residual; they sum to the term's residual. u_tt - 4*u_xx = 0 has
// u_tt and -(4*u_xx). Nil for a residual written in Go, which has no
// terms to read. A fit whose equation's residual is as large as its
// addends has not made them cancel (bayes.Fit.Equations).
func (t Term) Addends() []Residual {
	if t.equation == nil {
		return nil
	}
	var out []Residual
	for _, a := range t.equation.Addends() {
		out = append(out, residualOf(a))
	}
	return out
}

// Eq is Equation for a Term literal, Residual: pde.Eq("u_xx = -f"): a
// syntax error is reported by Validate (and BuildResidual) with the term's
// name, like a name the problem does not have.
func Eq(text string) Residual {
	r, _ := eq(text)
	return r
}

// eq is Eq and the parsed equation (nil for a syntax error, which the
// Residual reports).
func eq(text string) (Residual, *eqtext.Equation) {
	q, err := eqtext.Parse(text)
	if err != nil {
		return func(v *Vars) *ad.Node { return v.fail("%v", err) }, nil
	}
	return residualOf(q), q
}

// env is what the names of an equation read from a Vars (eqtext.Env): the
// problem's outputs, inputs, Params and Unknowns and the term's fields, or,
// for a Transform's expression or a condition's value (inputsOnly), the
// inputs and Params alone.
type env struct{ v *Vars }

func (e env) Scope() eqtext.Scope {
	v := e.v
	s := eqtext.Scope{Outputs: v.p.OutputNames(), Inputs: v.p.Inputs, Params: v.p.Params, InputsOnly: v.inputsOnly, Reader: v.reader}
	if !v.inputsOnly {
		s.Unknowns = unknownNames(v.p)
		s.Fields = slices.Sorted(maps.Keys(v.fields))
	}
	return s
}

func (e env) Const(c float64) *ad.Node { return e.v.U.Graph().Fill(e.v.N(), 1, c) }

func (e env) Jet(output string) *ad.Jet {
	return e.v.outJet(slices.Index(e.v.p.OutputNames(), output))
}

func (e env) NormalDerivative(output string) (*ad.Node, error) {
	if !e.v.hasNormals() {
		return nil, errors.New(noNormals)
	}
	return e.v.normalDerivative(e.Jet(output)), nil
}

func (e env) Input(i int) *ad.Node { return e.v.jet.In(i) }

func (e env) Unknown(name string) *ad.Node { return e.v.Unknown(name) }

func (e env) Field(name string) *ad.Node { return e.v.fields[name] }
