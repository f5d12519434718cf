package pde

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// eqProblem is a small problem of the named inputs on [0.2, 1]^D (away
// from 0, for log x and x^t): parameters a, D and nu, a positive unknown
// kappa and a signed unknown c, one term "pde" whose residual is res and
// with a field f.
func eqProblem(inputs []string, res Residual) *Problem {
	lo, hi := make([]float64, len(inputs)), make([]float64, len(inputs))
	for i := range lo {
		lo[i], hi[i] = 0.2, 1
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([][]float64, 7)
	f := make([]float64, len(pts))
	for k := range pts {
		pts[k] = make([]float64, len(inputs))
		for i := range pts[k] {
			pts[k][i] = 0.2 + 0.8*rng.Float64()
		}
		f[k] = rng.NormFloat64()
	}
	return &Problem{
		Name: "eq", Inputs: inputs, Lo: lo, Hi: hi,
		Params:   map[string]float64{"a": 0.7, "D": 0.1, "nu": 0.01},
		Unknowns: []Unknown{{Name: "kappa", Init: 0.3, Positive: true}, {Name: "c", Init: -0.5}},
		Terms:    []Term{{Name: "pde", Group: "pde", Points: pts, Fields: map[string][]float64{"f": f}, Residual: res}},
	}
}

// compiledTerm is the residual of a problem's term 0 on a small tanh
// network, with the gradient of sum(C r) (C fixed, random) in the weights
// and the unknowns, all in one flat vector w.
type compiledTerm struct {
	prog   *ad.Program
	r      *ad.Node
	loss   *ad.Node
	grads  []*ad.Node
	params ad.Params
	w      []float64
	feed   func(*ad.Program) // sets the points, fields and targets
}

func compileTerm(p *Problem) (*compiledTerm, error) {
	tm := p.Terms[0]
	g := ad.NewGraph()
	n, dim := len(tm.Points), p.Dim()
	x := g.Input("x", n, dim)
	m := nn.New([]int{dim, 6, len(p.OutputNames())}, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	ps := m.Params(g)
	in := ResidualInputs{U: m.Apply(ps, x), X: x, Fields: map[string]*ad.Node{}, Unknowns: map[string]*ad.Node{}}
	if tm.Pairs != nil {
		in.PairX = g.Input("pair", n, dim)
		in.PairU = m.Apply(ps, in.PairX)
	}
	for name := range tm.Fields {
		in.Fields[name] = g.Input("field_"+name, n, 1)
	}
	if tm.Target != nil {
		in.Target = g.Input("target", n, 1)
	}
	w := append([]float64(nil), m.W...)
	for _, u := range p.Unknowns {
		in.Unknowns[u.Name] = g.Param(u.Name, 1, 1)
		ps = append(ps, in.Unknowns[u.Name])
		if u.Positive {
			w = append(w, math.Log(u.Init))
		} else {
			w = append(w, u.Init)
		}
	}
	r, err := p.BuildResidual(0, in)
	if err != nil {
		return nil, err
	}
	cw := g.Input("C", n, 1)
	loss := ad.Sum(ad.Mul(r, cw))
	grads := ad.Grad(loss, ps...)
	c := &compiledTerm{prog: g.Compile(append([]*ad.Node{r, loss}, grads...)...), r: r, loss: loss, grads: grads, params: ps, w: w}
	flat := make([]float64, 0, n*dim)
	for _, pt := range tm.Points {
		flat = append(flat, pt...)
	}
	// A constant residual reads none of them.
	c.feed = func(prog *ad.Program) {
		if prog.Uses(x) {
			prog.Set(x, flat)
		}
		if tm.Pairs != nil && prog.Uses(in.PairX) {
			prog.Set(in.PairX, slices.Concat(tm.Pairs...))
		}
		for name, f := range tm.Fields {
			if prog.Uses(in.Fields[name]) {
				prog.Set(in.Fields[name], f)
			}
		}
		if tm.Target != nil && prog.Uses(in.Target) {
			prog.Set(in.Target, tm.Target)
		}
	}
	c.feed(c.prog)
	rng := rand.New(rand.NewPCG(5, 6))
	cv := make([]float64, n)
	for i := range cv {
		cv[i] = 2*rng.Float64() - 1
	}
	if c.prog.Uses(cw) {
		c.prog.Set(cw, cv)
	}
	c.params.Bind(c.prog, c.w)
	return c, nil
}

// at returns the residual at the weights z.
func (c *compiledTerm) at(z []float64) []float64 {
	copy(c.w, z)
	c.prog.Run()
	return append([]float64(nil), c.prog.Value(c.r)...)
}

// TestEquation: each equation's residual equals the one written by hand
// at the same weights (to rounding: numbers fold in another order), and
// its gradient in the weights and unknowns matches finite differences.
func TestEquation(t *testing.T) {
	t.Parallel()
	xt, xy := []string{"x", "t"}, []string{"x", "y"}
	cases := []struct {
		text   string
		inputs []string
		hand   Residual
	}{
		{"u_t + a*u_x = D*u_xx", xt, func(v *Vars) *ad.Node {
			return ad.Sub(ad.Add(v.D("t"), ad.Scale(v.D("x"), 0.7)), ad.Scale(v.D2("x", "x"), 0.1))
		}},
		{"u_xx + u_yy + 5*pi^2*sin(2*pi*x)*sin(pi*y) = 0", xy, func(v *Vars) *ad.Node {
			src := ad.Mul(ad.Sin(ad.Scale(v.X("x"), 2*math.Pi)), ad.Sin(ad.Scale(v.X("y"), math.Pi)))
			return ad.Add(ad.Add(v.D2("x", "x"), v.D2("y", "y")), ad.Scale(src, 5*math.Pi*math.Pi))
		}},
		{"u_t = kappa*u_xx", xt, func(v *Vars) *ad.Node {
			return ad.Sub(v.D("t"), ad.Mul(v.Unknown("kappa"), v.D2("x", "x")))
		}},
		{"u*u_x + c*u_t - nu*(u_xx + u_tt) = f", xt, func(v *Vars) *ad.Node {
			lhs := ad.Add(ad.Mul(v.U, v.D("x")), ad.Mul(v.Unknown("c"), v.D("t")))
			return ad.Sub(ad.Sub(lhs, ad.Scale(ad.Add(v.D2("x", "x"), v.D2("t", "t")), 0.01)), v.Field("f"))
		}},
		// Precedence: ^ before unary minus, to the right; * and / to the left.
		{"-u^2 + 2^3^2*x - u/2/4", xt, func(v *Vars) *ad.Node {
			return ad.Sub(ad.Add(ad.Neg(ad.Square(v.U)), ad.Scale(v.X("x"), 512)), ad.Scale(v.U, 0.125))
		}},
		{"(-u)^3 + x*-u^2 + u^-1 + abs(u)^0.5", xt, func(v *Vars) *ad.Node {
			a := ad.Add(ad.Pow(ad.Neg(v.U), 3), ad.Mul(v.X("x"), ad.Neg(ad.Square(v.U))))
			return ad.Add(ad.Add(a, ad.Pow(v.U, -1)), ad.Pow(ad.Abs(v.U), 0.5))
		}},
		{"sqrt(abs(u)) + exp(-t)*log(x + 1) - tanh(u_x) + cos(u)/(1 + x^2) = 3", xt, func(v *Vars) *ad.Node {
			a := ad.Add(ad.Pow(ad.Abs(v.U), 0.5), ad.Mul(ad.Exp(ad.Neg(v.X("t"))), ad.Log(ad.AddConst(v.X("x"), 1))))
			b := ad.Div(ad.Cos(v.U), ad.AddConst(ad.Square(v.X("x")), 1))
			return ad.AddConst(ad.Add(ad.Sub(a, ad.Tanh(v.D("x"))), b), -3)
		}},
		// A varying exponent is exp(b ln a); e is a constant.
		{"x^t*u + e^x*u_t + 2/u", xt, func(v *Vars) *ad.Node {
			a := ad.Mul(ad.Exp(ad.Mul(v.X("t"), ad.Log(v.X("x")))), v.U)
			return ad.Add(ad.Add(a, ad.Mul(ad.Exp(v.X("x")), v.D("t"))), ad.Div(v.U.Graph().Fill(v.N(), 1, 2), v.U))
		}},
		// No "=": the text is the residual; mixed derivatives either way.
		{"u_x - sin(x) + u_xt - u_tx", xt, func(v *Vars) *ad.Node {
			return ad.Sub(ad.Add(ad.Sub(v.D("x"), ad.Sin(v.X("x"))), v.D2("x", "t")), v.D2("t", "x"))
		}},
		// Inputs of longer names: subscripts joined by _.
		{"u_x1_x2 + u_x1\n + x2", []string{"x1", "x2"}, func(v *Vars) *ad.Node {
			return ad.Add(ad.Add(v.D2("x1", "x2"), v.D("x1")), v.X("x2"))
		}},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			res, err := Equation(c.text)
			if err != nil {
				t.Fatal(err)
			}
			got, err := compileTerm(eqProblem(c.inputs, res))
			if err != nil {
				t.Fatal(err)
			}
			want, err := compileTerm(eqProblem(c.inputs, c.hand))
			if err != nil {
				t.Fatal(err)
			}
			w := append([]float64(nil), got.w...)
			rg, rw := got.at(w), want.at(w)
			for k := range rw {
				if !scalar.EqualWithinAbsOrRel(rg[k], rw[k], 1e-13, 1e-12) {
					t.Errorf("residual %d: %.17g, written by hand %.17g", k, rg[k], rw[k])
				}
			}
			// The gradient of sum(C r) against central differences.
			grad := make([]float64, len(w))
			got.at(w)
			got.params.Gather(got.prog, got.grads, grad)
			f := func(z []float64) float64 {
				got.at(z)
				return got.prog.Value(got.loss)[0]
			}
			fdg := fd.Gradient(nil, f, w, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			for i := range grad {
				if !scalar.EqualWithinAbsOrRel(grad[i], fdg[i], 1e-6, 1e-5) {
					t.Errorf("gradient[%d]: %.10g, finite differences %.10g", i, grad[i], fdg[i])
				}
			}
			// The per-point Jacobian (Gauss-Newton's J) against central
			// differences of the residual.
			jac := ad.NewJacobian(got.r, got.params)
			got.feed(jac.Prog)
			jw := append([]float64(nil), w...)
			got.params.Bind(jac.Prog, jw)
			P, N := len(w), len(rw)
			J := make([]float64, N*P)
			jac.ComputeTo(J)
			fdJ := mat.NewDense(N, P, nil)
			fd.Jacobian(fdJ, func(y, z []float64) { copy(y, got.at(z)) }, w, &fd.JacobianSettings{Formula: fd.Central})
			for k := range N {
				for i := range P {
					if !scalar.EqualWithinAbsOrRel(J[k*P+i], fdJ.At(k, i), 1e-6, 1e-5) {
						t.Errorf("jacobian[%d,%d]: %.10g, finite differences %.10g", k, i, J[k*P+i], fdJ.At(k, i))
					}
				}
			}
		})
	}
}

// TestEquationValidate: a problem whose terms are equations passes
// Validate, and Eq gives the residual Equation gives.
func TestEquationValidate(t *testing.T) {
	t.Parallel()
	p := eqProblem([]string{"x", "t"}, Eq("u_t + c*u_x = kappa*u_xx + f"))
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Equation("u_t + c*u_x = kappa*u_xx + f")
	if err != nil {
		t.Fatal(err)
	}
	a, err := compileTerm(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := compileTerm(eqProblem([]string{"x", "t"}, res))
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := a.at(a.w), b.at(b.w)
	for k := range ra {
		if ra[k] != rb[k] {
			t.Fatalf("residual %d: Eq %v, Equation %v", k, ra[k], rb[k])
		}
	}
}

// TestEquationErrors: every mistake is one line with the column, from
// Equation (syntax) or from building the residual (names).
func TestEquationErrors(t *testing.T) {
	t.Parallel()
	const term = `problem "eq" term "pde": `
	cases := []struct{ text, want string }{
		// Syntax: Equation's errors.
		{"", `equation "": empty; write lhs = rhs, e.g. u_xx = -f`},
		{"  ", `equation "  ": empty; write lhs = rhs, e.g. u_xx = -f`},
		{"= u", `equation "= u": col 1: nothing left of =; write lhs = rhs`},
		{"u_xx =", `equation "u_xx =": col 7: nothing right of =; write lhs = rhs`},
		{"u = 0 = 1", `equation "u = 0 = 1": col 7: a second =; an equation is lhs = rhs`},
		{"u == 0", `equation "u == 0": col 3: "==" is not arithmetic; use + - * / ^, ( ), names and numbers`},
		{"sin(x + u", `equation "sin(x + u": col 4: ( is not closed`},
		{"(u = 0)", `equation "(u = 0)": col 1: ( is not closed before =`},
		{"u) = 0", `equation "u) = 0": col 2: ) without a matching (`},
		{"sinh(u) = 0", `equation "sinh(u) = 0": col 1: sinh(): no such function; the functions are abs, cos, exp, log, sin, sqrt, tanh`},
		{"u + sin(u, x)", `equation "u + sin(u, x)": col 5: sin takes 1 argument, not 2`},
		{"u + sin()", `equation "u + sin()": col 5: sin takes 1 argument, not 0`},
		{"u + u(x)", `equation "u + u(x)": col 5: u(): no such function; the functions are abs, cos, exp, log, sin, sqrt, tanh`},
		{"u + 1e", `equation "u + 1e": col 7: exponent has no digits`},
		{"u + 1e999", `equation "u + 1e999": col 5: 1e999 is beyond float64's range`},
		{"u + 0x10", `equation "u + 0x10": col 5: 0x10: write numbers in decimal`},
		{"u + 2i", `equation "u + 2i": col 5: "2i" is not arithmetic; use + - * / ^, ( ), names and numbers`},
		{"u + a.b", `equation "u + a.b": col 6: "." is not arithmetic; use + - * / ^, ( ), names and numbers`},
		{"u % 2", `equation "u % 2": col 3: "%" is not arithmetic; use + - * / ^, ( ), names and numbers`},
		{"u & 2", `equation "u & 2": col 3: "&" is not arithmetic; use + - * / ^, ( ), names and numbers`},
		{"u + * 2", `equation "u + * 2": col 5: "* 2" is not arithmetic; use + - * / ^, ( ), names, numbers and functions`},
		{"^u", `equation "^u": col 1: ^ needs a base on its left`},
		// A missing operand points at the operator that lacks it, not past
		// the end of the side (go/parser's "expected operand, found 'EOF'").
		{"u ^", `equation "u ^": col 3: ^ needs an operand on its right`},
		{"u_t + = u_xx", `equation "u_t + = u_xx": col 5: + needs an operand on its right`},
		{"(u - ) = 0", `equation "(u - ) = 0": col 4: - needs an operand on its right`},
		{"u u_x", `equation "u u_x": col 3: u_x follows an operand without an operator; write * for a product`},
		// A long text is cut in the message (an over-deep one echoed all of it).
		{strings.Repeat("(", 100000) + "u" + strings.Repeat(")", 100000),
			`equation "` + strings.Repeat("(", 77) + `..." (200001 characters): col 100001: nested too deeply; write a shallower expression`},
		{"u; u", `equation "u; u": col 2: ";" is not arithmetic; use + - * / ^, ( ), names and numbers`},
		{"π·u", `equation "π·u": col 2: illegal character U+00B7 '·'`},
		// Names: errors of the built residual, with the term.
		{"u_t + u_y = 0", term + `equation "u_t + u_y = 0": col 7: u_y: no input "y"; the inputs are x, t`},
		{"u_ = 0", term + `equation "u_ = 0": col 1: u_: no input ""; the inputs are x, t`},
		{"u_x_ = 0", term + `equation "u_x_ = 0": col 1: u_x_: no input ""; the inputs are x, t`},
		{"u_xxx = 0", term + `equation "u_xxx = 0": col 1: u_xxx: a derivative of order 3; equations have first and second derivatives (write higher orders by hand)`},
		{"u_t = k*u_xx", term + `equation "u_t = k*u_xx": col 7: k: unknown name; known are outputs u; inputs x, t; parameters D, a, nu; unknowns kappa, c; fields f; constants e, pi`},
		{"u/(a - 0.7)", term + `equation "u/(a - 0.7)": col 2: division by 0`},
		{"u + log(0)", term + `equation "u + log(0)": col 5: the constant is -Inf`},
		{"u + (-2)^x", term + `equation "u + (-2)^x": col 9: a power of -2 with a varying exponent; the base must be positive`},
	}
	for _, c := range cases {
		res, err := Equation(c.text)
		if err == nil {
			var tm *compiledTerm
			tm, err = compileTerm(eqProblem([]string{"x", "t"}, res))
			if err == nil {
				t.Errorf("%q: no error, residual %v", c.text, tm.at(tm.w))
				continue
			}
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.text, err, c.want)
		}
		// Eq reports the same error when the residual is built.
		p := eqProblem([]string{"x", "t"}, Eq(c.text))
		if err := p.Validate(); err == nil || !strings.HasSuffix(err.Error(), strings.TrimPrefix(c.want, term)) {
			t.Errorf("%q: Validate: %v", c.text, err)
		}
	}
}

// TestEquationAmbiguous: a name that is two things is an error, and a
// name of the problem comes before a constant.
func TestEquationAmbiguous(t *testing.T) {
	t.Parallel()
	p := eqProblem([]string{"x", "t"}, Eq("u_t = a*u_xx + e*u + kappa*c"))
	p.Params["f"] = 1
	p.Params["e"] = 2
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Terms[0].Residual = Eq("u_t = f + kappa*c")
	want := `problem "eq" term "pde": equation "u_t = f + kappa*c": col 7: f: the name of a parameter and a field; rename one`
	if err := p.Validate(); err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// FuzzEquation: Equation never panics, and neither does building the
// residual it returns.
func FuzzEquation(f *testing.F) {
	for _, s := range []string{
		"u_t + a*u_x = D*u_xx", "u_xx + u_yy + 5*pi^2*sin(2*pi*x)*sin(pi*y) = 0",
		"-u^2^-x/(1+abs(u))", "sqrt(u_xt)*exp(kappa) - f", "(u", "u = = 0", "1/0", "x^(-u)", "0x1p-2", "u_", "_",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		res, err := Equation(text)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %v", err)
			}
			return
		}
		if _, err := compileTerm(eqProblem([]string{"x", "t"}, res)); err != nil && strings.Contains(err.Error(), "panicked") {
			t.Error(err)
		}
	})
}
