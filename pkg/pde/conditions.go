package pde

import (
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde/internal/eqtext"
)

// The one-line terms: PDE for the equation, Dirichlet, Neumann, NeumannOn,
// Robin, RobinOn, Periodic, InitialValue and InitialRate for the
// conditions, Measurements for data.
// Each returns a Term with a Draw (or, for data, its points), a Name
// derived from what it is and where ("dirichlet_x_lo"), and a Group:
// "pde" for the equation, "boundary" for every condition, "data" for
// measurements. Named and InGroup change them.
//
// A condition (and Measurements) constrains the term's Output, the first
// output unless For names another: Dirichlet(Face("y", Hi), 20,
// 0).For("v") is v = 0 on the lid; its residual reads the output when it
// is built, so setting Term.Output directly does the same.
//
// A condition's value is one of:
//   - a number: u = 0;
//   - a func([]float64) float64 of the point, evaluated at the drawn
//     points into the term's Target (as Draw.Value);
//   - an expression string of the inputs, the problem's Params and the
//     constants, read like an equation's side, e.g. "sin(pi*x)".
//
// A value of another type, an expression with a mistake, one naming an
// output (the value would move with the solution), or one that is not
// finite at a point of the term is an error of Validate naming the term.

// PDE is the equation (text, see Equation) at n points of the interior:
// Name and Group "pde".
func PDE(equation string, n int) Term {
	r, q := eq(equation)
	return Term{Name: "pde", Group: "pde", Residual: r, Draw: &Draw{Region: Interior(), N: n}, derivedName: "pde", equation: q}
}

// Dirichlet is u = value at n points of the region.
func Dirichlet(r Region, n int, value any) Term {
	t := condition("dirichlet_"+regionName(r), r, n, (*Vars).own, value)
	t.setsValue = true
	return t
}

// Neumann is du/dn = value at n points of the face input = side, n the
// outward normal: -d/d input on the Lo face, d/d input on the Hi face.
// NeumannOn is the same on any boundary region.
func Neumann(input string, side Side, n int, value any) Term {
	f := Face(input, side)
	return condition("neumann_"+regionName(f), f, n, normal(input, side), value)
}

// NeumannOn is du/dn = value at n points of a boundary region r (On,
// Boundary, Face, Faces), n the outward unit normal drawn with each point.
func NeumannOn(r Region, n int, value any) Term {
	return condition("neumann_"+regionName(r), r, n, (*Vars).ownDN, value)
}

// Robin is a*u + b*du/dn = value at n points of the face input = side,
// with n the outward normal as in Neumann. RobinOn is the same on any
// boundary region.
func Robin(input string, side Side, n int, a, b float64, value any) Term {
	f := Face(input, side)
	dn := normal(input, side)
	return condition("robin_"+regionName(f), f, n, func(v *Vars) *ad.Node {
		return ad.Add(ad.Scale(v.own(), a), ad.Scale(dn(v), b))
	}, value, robinCoefficients(a, b)...)
}

// RobinOn is a*u + b*du/dn = value at n points of a boundary region r,
// with n the outward unit normal as in NeumannOn.
func RobinOn(r Region, n int, a, b float64, value any) Term {
	return condition("robin_"+regionName(r), r, n, func(v *Vars) *ad.Node {
		return ad.Add(ad.Scale(v.own(), a), ad.Scale(v.ownDN(), b))
	}, value, robinCoefficients(a, b)...)
}

// Periodic is u(input = Lo) = u(input = Hi) at n pairs of points on the
// two faces of the input (FacePairs), the other coordinates equal: a
// periodic condition in one input of a box, in the group "boundary". The
// derivatives' periodicity is a residual of the same term read at the
// partners, e.g. ad.Sub(v.D("x"), v.Pair().D("x")).
func Periodic(input string, n int) Term {
	return Term{Name: "periodic_" + input, Group: "boundary", Draw: &Draw{Region: FacePairs(input), N: n},
		Residual: func(v *Vars) *ad.Node { return ad.Sub(v.own(), v.Pair().own()) }, derivedName: "periodic_" + input}
}

// InitialValue is u = value at n points of the slice input = Lo (t = 0).
func InitialValue(input string, n int, value any) Term {
	t := condition("initial_"+input, Initial(input), n, (*Vars).own, value)
	t.setsValue = true
	return t
}

// InitialRate is du/d input = value at n points of the slice input = Lo:
// the initial velocity of a second-order equation in time.
func InitialRate(input string, n int, value any) Term {
	return condition("initial_rate_"+input, Initial(input), n, func(v *Vars) *ad.Node { return v.ownD(input) }, value)
}

// Measurements are measured values of u at points: Name and Group "data",
// Measured (a redraw keeps them). With per-point standard deviations
// (Data.Std, e.g. from datafile.ReadData) the residual is (u - y)/std,
// each point weighted by its own precision.
func Measurements(d *Data) Term {
	t := Term{Name: "data", Group: "data", Points: d.Points, Target: d.U, Residual: DataResidual, Measured: true, derivedName: "data"}
	if d.Std != nil {
		w := make([]float64, len(d.Std))
		for i, s := range d.Std {
			if !(s > 0) || math.IsInf(s, 0) {
				return failing(t, "standard deviation %d is %v; give each a finite number > 0", i, s)
			}
			w[i] = 1 / s
		}
		t.Fields = map[string][]float64{"inv_std": w}
		t.Residual = func(v *Vars) *ad.Node { return ad.Mul(ad.Sub(v.Measured(), v.Target), v.Field("inv_std")) }
	}
	return t
}

// Named returns t with its Name set.
func (t Term) Named(name string) Term {
	t.Name, t.derivedName = name, ""
	return t
}

// For returns t constraining the named output (Term.Output): a one-line
// condition or Measurements on a field other than the first, e.g.
// InitialValue("t", 20, 1).For("v"). A name the term derived
// ("dirichlet_x_lo") gets the output's name appended
// ("dirichlet_x_lo_v"), so the same condition on two fields has two
// names; a name given by Named stays.
func (t Term) For(output string) Term {
	if t.derivedName != "" {
		t.Name = t.derivedName + "_" + output
	}
	t.Output = output
	return t
}

// InGroup returns t with its Group set: the terms of a group share a beta.
func (t Term) InGroup(group string) Term {
	t.Group = group
	return t
}

// WithField returns t with a field drawn at its points: f evaluated at
// each drawn point into the term's Fields[name] (Draw.Fields), which an
// equation reads by name, e.g. PDE("u^3 - u_xx = f", 30).WithField("f",
// source). A term without a Draw is returned with a residual that reports
// it (Validate).
func (t Term) WithField(name string, f func([]float64) float64) Term {
	if t.Draw == nil {
		return failing(t, "WithField(%q): the term has no Draw; give its Fields at its Points instead", name)
	}
	d := *t.Draw // the caller's Draw stays as it was
	d.Fields = maps.Clone(d.Fields)
	if d.Fields == nil {
		d.Fields = map[string]func([]float64) float64{}
	}
	d.Fields[name] = f
	t.Draw = &d
	return t
}

// normal is the outward normal derivative of the term's output on the
// face input = side.
func normal(input string, side Side) func(v *Vars) *ad.Node {
	return func(v *Vars) *ad.Node {
		if side == Lo {
			return ad.Neg(v.ownD(input))
		}
		return v.ownD(input)
	}
}

// condition is the term lhs(u) = value on n points of r, in the group
// "boundary"; problems are the mistakes in its numbers (robinCoefficients),
// reported by Validate.
func condition(name string, r Region, n int, lhs func(v *Vars) *ad.Node, value any, problems ...string) Term {
	t := Term{Name: name, Group: "boundary", Draw: &Draw{Region: r, N: n}, derivedName: name}
	if len(problems) > 0 {
		return failing(t, "%s", strings.Join(problems, "; "))
	}
	switch g := value.(type) {
	case float64:
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return failing(t, "value %v; give a finite number", g)
		}
		t.Draw.Value = func([]float64) float64 { return g }
	case int:
		t.Draw.Value = func([]float64) float64 { return float64(g) }
	case func([]float64) float64:
		if g == nil {
			return failing(t, "the value is a nil function; give a number, a function of the point or an expression")
		}
		t.Draw.Value = g
	case string:
		q, err := eqtext.Parse(g)
		switch {
		case err != nil:
			return failing(t, "%v", err)
		case q.RHS != nil:
			return failing(t, "value %s: an expression of the point such as sin(pi*x), not an equation", eqtext.Quote(g))
		}
		t.value = q
		t.Residual = func(v *Vars) *ad.Node {
			e, err := q.Eval(env{v.valueVars()})
			if err != nil {
				return v.fail("%v", err)
			}
			return ad.Sub(lhs(v), e.Node(env{v}))
		}
		return t
	default:
		return failing(t, "value of type %T; give a number, a func([]float64) float64 or an expression string", value)
	}
	t.Residual = func(v *Vars) *ad.Node {
		if v.Target == nil {
			return v.fail("no targets: the term's value is drawn with its points (Draw.Value); keep its Draw")
		}
		return ad.Sub(lhs(v), v.Target)
	}
	return t
}

// robinCoefficients are the mistakes in a Robin condition's a and b.
func robinCoefficients(a, b float64) []string {
	var bad []string
	for _, c := range []struct {
		name string
		v    float64
	}{{"a", a}, {"b", b}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			bad = append(bad, fmt.Sprintf("Robin coefficient %s = %v; give a finite number", c.name, c.v))
		}
	}
	if len(bad) == 0 && a == 0 && b == 0 {
		bad = append(bad, "Robin coefficients a = b = 0: the condition reads nothing; give a or b nonzero")
	}
	return bad
}

// own is the term's output (Term.Output; the first when "") at the
// points: what a one-line condition constrains.
func (v *Vars) own() *ad.Node { return v.ownJet().U }

// ownD is d own / d input.
func (v *Vars) ownD(input string) *ad.Node {
	i, ok := v.input("D", input)
	if !ok {
		return v.U
	}
	return v.ownJet().D(i)
}

// ownDN is the outward normal derivative of the term's output.
func (v *Vars) ownDN() *ad.Node {
	if !v.hasNormals() {
		return v.fail("DN(): %s", noNormals)
	}
	return v.normalDerivative(v.ownJet())
}

// ownJet is the jet of the term's output.
func (v *Vars) ownJet() *ad.Jet {
	out := v.p.Terms[v.termIndex].Output
	k := v.p.OutputIndex(out)
	if k < 0 {
		v.fail("Output %q; the outputs are %s", out, strings.Join(v.p.OutputNames(), ", "))
		return v.jet
	}
	return v.outJet(k)
}

// valueVars is what a condition's value reads: v's inputs, the Params and
// the constants, not the outputs, unknowns or fields.
func (v *Vars) valueVars() *Vars {
	w := *v
	w.inputsOnly, w.reader = true, "a condition's value"
	return &w
}

// failing is t with a residual that reports the mistake when it is built
// (Validate), since a Term literal cannot return an error.
func failing(t Term, format string, args ...any) Term {
	msg := fmt.Sprintf(format, args...)
	t.Residual = func(v *Vars) *ad.Node { return v.fail("%s", msg) }
	return t
}

// regionName is a region in a term's name: "interior", "x_lo", "x" (both
// faces), "boundary", "t_initial", the parts of On ("holes", "boundary"
// for all; a slash becomes "_"), "x_pairs".
func regionName(r Region) string {
	switch r.kind {
	case kindInterior:
		return "interior"
	case kindFace:
		return r.inputs[0] + "_" + strings.ToLower(r.side.String())
	case kindFaces:
		return r.inputs[0]
	case kindBoundary:
		return "boundary"
	case kindInitial:
		return r.inputs[0] + "_initial"
	case kindParts:
		if len(r.inputs) == 0 {
			return "boundary"
		}
		return strings.ReplaceAll(strings.Join(r.inputs, "_"), "/", "_")
	case kindPairs:
		return r.inputs[0] + "_pairs"
	}
	return "region"
}
