package pde

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// condProblem is a problem in (x, t) on [0, 1] x [0, 2] with the one term
// tm, drawn with seed 1.
func condProblem(t *testing.T, tm Term) *Problem {
	t.Helper()
	p := &Problem{Name: "cond", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 2},
		Params: map[string]float64{"a": 0.7}, Terms: []Term{tm}}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestConditions: each one-line term has the name and group it derives,
// and its residual equals the term written by hand at the same points.
func TestConditions(t *testing.T) {
	t.Parallel()
	sinx := func(x []float64) float64 { return math.Sin(math.Pi * x[0]) }
	zero := func([]float64) float64 { return 0 }
	two := func([]float64) float64 { return 2 }
	onePointFive := func([]float64) float64 { return 1.5 }
	pts := [][]float64{{0.1, 0.5}, {0.4, 1.5}, {0.9, 0.2}}
	y := []float64{0.3, -0.2, 0.05}
	cases := []struct {
		got         Term
		name, group string
		hand        Term
	}{
		{Dirichlet(Boundary("t"), 9, 0.0), "dirichlet_boundary", "boundary",
			Term{Residual: DataResidual, Draw: &Draw{Region: Boundary("t"), N: 9, Value: zero}}},
		{Dirichlet(Face("x", Lo), 5, 2), "dirichlet_x_lo", "boundary",
			Term{Residual: DataResidual, Draw: &Draw{Region: Face("x", Lo), N: 5, Value: two}}},
		{Dirichlet(Faces("x"), 6, sinx), "dirichlet_x", "boundary",
			Term{Residual: DataResidual, Draw: &Draw{Region: Faces("x"), N: 6, Value: sinx}}},
		{Dirichlet(Initial("t"), 6, "a*sin(pi*x)"), "dirichlet_t_initial", "boundary",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Sub(v.U, ad.Scale(ad.Sin(ad.Scale(v.X("x"), math.Pi)), 0.7)) },
				Draw: &Draw{Region: Initial("t"), N: 6}}},
		{Neumann("x", Lo, 5, 1.5), "neumann_x_lo", "boundary",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Sub(ad.Neg(v.D("x")), v.Target) },
				Draw: &Draw{Region: Face("x", Lo), N: 5, Value: onePointFive}}},
		{Neumann("x", Hi, 5, "x*t"), "neumann_x_hi", "boundary",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Sub(v.D("x"), ad.Mul(v.X("x"), v.X("t"))) },
				Draw: &Draw{Region: Face("x", Hi), N: 5}}},
		{Robin("x", Hi, 5, 2, 0.5, sinx), "robin_x_hi", "boundary",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Sub(ad.Add(ad.Scale(v.U, 2), ad.Scale(v.D("x"), 0.5)), v.Target) },
				Draw: &Draw{Region: Face("x", Hi), N: 5, Value: sinx}}},
		{Robin("t", Lo, 5, 1, 3, 0.0), "robin_t_lo", "boundary",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Sub(ad.Sub(v.U, ad.Scale(v.D("t"), 3)), v.Target) },
				Draw: &Draw{Region: Face("t", Lo), N: 5, Value: zero}}},
		{InitialValue("t", 7, sinx), "initial_t", "boundary",
			Term{Residual: DataResidual, Draw: &Draw{Region: Initial("t"), N: 7, Value: sinx}}},
		{InitialRate("t", 7, 0.0), "initial_rate_t", "boundary",
			Term{Residual: DerivativeResidual("t"), Draw: &Draw{Region: Initial("t"), N: 7, Value: zero}}},
		{PDE("u_t = a*u_xx", 10), "pde", "pde",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Sub(v.D("t"), ad.Scale(v.D2("x", "x"), 0.7)) },
				Draw: &Draw{Region: Interior(), N: 10}}},
		{Measurements(&Data{Points: pts, U: y}), "data", "data",
			Term{Residual: DataResidual, Points: pts, Target: y, Measured: true}},
		{Measurements(&Data{Points: pts, U: y, Std: []float64{0.1, 0.2, 0.4}}), "data", "data",
			Term{Residual: func(v *Vars) *ad.Node { return ad.Scale(ad.Sub(v.U, v.Target), 1) },
				Fields: map[string][]float64{"w": {10, 5, 2.5}}, Points: pts, Target: y, Measured: true}},
		{Dirichlet(Interior(), 4, 1.0).Named("pin").InGroup("pde"), "pin", "pde",
			Term{Residual: DataResidual, Draw: &Draw{Region: Interior(), N: 4, Value: func([]float64) float64 { return 1 }}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got.Name != c.name || c.got.Group != c.group {
				t.Errorf("name %q group %q, want %q %q", c.got.Name, c.got.Group, c.name, c.group)
			}
			if c.got.Measured != c.hand.Measured {
				t.Errorf("Measured %v, want %v", c.got.Measured, c.hand.Measured)
			}
			if w := c.hand.Fields["w"]; w != nil { // the weights by hand
				r := c.hand.Residual
				c.hand.Residual = func(v *Vars) *ad.Node { return ad.Mul(r(v), v.Field("w")) }
			}
			p, hand := condProblem(t, c.got), condProblem(t, c.hand)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Terms[0].Points, hand.Terms[0].Points) || !reflect.DeepEqual(p.Terms[0].Target, hand.Terms[0].Target) {
				t.Fatalf("points %v targets %v, by hand %v %v", p.Terms[0].Points, p.Terms[0].Target, hand.Terms[0].Points, hand.Terms[0].Target)
			}
			got, err := compileTerm(p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := compileTerm(hand)
			if err != nil {
				t.Fatal(err)
			}
			rg, rw := got.at(got.w), want.at(want.w)
			for k := range rw {
				if math.Abs(rg[k]-rw[k]) > 1e-14*(1+math.Abs(rw[k])) {
					t.Errorf("residual %d: %.17g, by hand %.17g", k, rg[k], rw[k])
				}
			}
		})
	}
}

// TestConditionErrors: a value a condition cannot use is an error of
// Validate naming the term.
func TestConditionErrors(t *testing.T) {
	t.Parallel()
	var nilFunc func([]float64) float64
	cases := []struct {
		tm   Term
		want string
	}{
		{Dirichlet(Boundary(), 4, "u = 1"), `problem "cond" term "dirichlet_boundary": value "u = 1": an expression of the point such as sin(pi*x), not an equation`},
		{Dirichlet(Boundary(), 4, "sin(x"), `problem "cond" term "dirichlet_boundary": equation "sin(x": col 4: ( is not closed`},
		{Dirichlet(Boundary(), 4, "sin(y)"), `problem "cond" term "dirichlet_boundary": equation "sin(y)": col 5: y: unknown name; a condition's value reads inputs x, t; parameters a; constants e, pi`},
		// A value is of the point: one reading the solution was accepted
		// and fitted to garbage.
		{Dirichlet(Boundary(), 4, "u + 1"), `problem "cond" term "dirichlet_boundary": equation "u + 1": col 1: u: an output, which moves with the solution; a condition's value reads inputs x, t; parameters a; constants e, pi`},
		{Neumann("x", Hi, 4, "a*u_t"), `problem "cond" term "neumann_x_hi": equation "a*u_t": col 3: u_t: an output, which moves with the solution; a condition's value reads`},
		// Not finite at the points: it trained and diverged at epoch 1.
		{Dirichlet(Face("x", Lo), 4, "log(x-0.5)"), `problem "cond" term "dirichlet_x_lo": value "log(x-0.5)" is NaN at [0 `},
		{InitialValue("t", 4, "1/(x-x)"), `problem "cond" term "initial_t": value "1/(x-x)" is +Inf at [`},
		{Dirichlet(Boundary(), 4, math.Inf(1)), `problem "cond" term "dirichlet_boundary": value +Inf; give a finite number`},
		{Robin("x", Lo, 4, math.NaN(), 1, 0.0), `problem "cond" term "robin_x_lo": Robin coefficient a = NaN; give a finite number`},
		{RobinOn(Boundary(), 4, 0, 0, 0.0), `problem "cond" term "robin_boundary": Robin coefficients a = b = 0: the condition reads nothing; give a or b nonzero`},
		{Dirichlet(Boundary(), 4, strings.Repeat("x+", 60)+"("), `problem "cond" term "dirichlet_boundary": equation "x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x..." (121 characters): col 121: ( is not closed`},
		{Neumann("x", Lo, 4, []float64{1}), `problem "cond" term "neumann_x_lo": value of type []float64; give a number, a func([]float64) float64 or an expression string`},
		{InitialValue("t", 4, nilFunc), `problem "cond" term "initial_t": the value is a nil function; give a number, a function of the point or an expression`},
		{PDE("u_t = ", 4), `problem "cond" term "pde": equation "u_t = ": col 7: nothing right of =; write lhs = rhs`},
		{Neumann("y", Lo, 4, 0.0), `problem "cond" term "neumann_y_lo": region Face("y", Lo): no input "y"; the inputs are ["x" "t"]`},
	}
	for _, c := range cases {
		p := &Problem{Name: "cond", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 2},
			Params: map[string]float64{"a": 0.7}, Terms: []Term{c.tm}}
		q, err := p.Sample(1)
		if err == nil {
			err = q.Validate()
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// sysProblem is a problem in (x, t) on [0, 1] x [0, 2] of the outputs u,
// v and a (a coefficient field of an inverse problem) with the term tm
// first, drawn with seed 1; an equation reads every output.
func sysProblem(t *testing.T, tm Term) *Problem {
	t.Helper()
	p := &Problem{Name: "sys", Inputs: []string{"x", "t"}, Outputs: []string{"u", "v", "a"}, Lo: []float64{0, 0}, Hi: []float64{1, 2},
		Params: map[string]float64{"c": 0.7}, Terms: []Term{tm, PDE("u_t = a*u_xx + v", 5)}}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestConditionsOnAnOutput: a one-line condition on another output than
// the first (Term.Output, set by For or directly) constrains that output:
// its residual is the one written by hand on it, and differs from the
// same condition on u. The conditions once read u whatever the Output
// said, so a flow's condition on v, or an inverse problem's on its
// coefficient field a, landed on u.
func TestConditionsOnAnOutput(t *testing.T) {
	t.Parallel()
	sinx := func(x []float64) float64 { return math.Sin(math.Pi * x[0]) }
	half := func([]float64) float64 { return 0.5 }
	zero := func([]float64) float64 { return 0 }
	pts := [][]float64{{0.1, 0.5}, {0.4, 1.5}, {0.9, 0.2}}
	cases := []struct {
		got    Term
		output string
		name   string // For's name
		hand   Residual
		draw   *Draw
	}{
		{Dirichlet(Face("x", Lo), 5, 0.5), "v", "dirichlet_x_lo_v", DataResidual, &Draw{Region: Face("x", Lo), N: 5, Value: half}},
		{Dirichlet(Initial("t"), 6, "c*sin(pi*x)"), "a", "dirichlet_t_initial_a",
			func(v *Vars) *ad.Node { return ad.Sub(v.Out("a"), ad.Scale(ad.Sin(ad.Scale(v.X("x"), math.Pi)), 0.7)) }, &Draw{Region: Initial("t"), N: 6}},
		{Neumann("x", Lo, 5, 0.5), "v", "neumann_x_lo_v",
			func(v *Vars) *ad.Node { return ad.Sub(ad.Neg(v.DOut("v", "x")), v.Target) }, &Draw{Region: Face("x", Lo), N: 5, Value: half}},
		{NeumannOn(Boundary(), 8, "x*t"), "a", "neumann_boundary_a",
			func(v *Vars) *ad.Node { return ad.Sub(v.DNOut("a"), ad.Mul(v.X("x"), v.X("t"))) }, &Draw{Region: Boundary(), N: 8}},
		{Robin("x", Hi, 5, 2, 0.5, sinx), "v", "robin_x_hi_v",
			func(v *Vars) *ad.Node {
				return ad.Sub(ad.Add(ad.Scale(v.Out("v"), 2), ad.Scale(v.DOut("v", "x"), 0.5)), v.Target)
			},
			&Draw{Region: Face("x", Hi), N: 5, Value: sinx}},
		{RobinOn(Boundary(), 8, 1, 3, 0.0), "a", "robin_boundary_a",
			func(v *Vars) *ad.Node { return ad.Sub(ad.Add(v.Out("a"), ad.Scale(v.DNOut("a"), 3)), v.Target) },
			&Draw{Region: Boundary(), N: 8, Value: zero}},
		{InitialValue("t", 7, sinx), "v", "initial_t_v", DataResidual, &Draw{Region: Initial("t"), N: 7, Value: sinx}},
		{InitialRate("t", 7, 0.5), "v", "initial_rate_t_v", DerivativeResidual("t"), &Draw{Region: Initial("t"), N: 7, Value: half}},
		{Periodic("x", 6), "a", "periodic_x_a",
			func(v *Vars) *ad.Node { return ad.Sub(v.Out("a"), v.Pair().Out("a")) }, &Draw{Region: FacePairs("x"), N: 6}},
		{Measurements(&Data{Points: pts, U: []float64{0.3, -0.2, 0.05}}), "v", "data_v", DataResidual, nil},
		{Dirichlet(Face("x", Lo), 5, 0.5).Named("wall"), "v", "wall", DataResidual, &Draw{Region: Face("x", Lo), N: 5, Value: half}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.got.For("u").For(c.output); got.Name != c.name || got.Output != c.output {
				t.Errorf("For(%q): name %q output %q, want %q %q", c.output, got.Name, got.Output, c.name, c.output)
			}
			on := c.got
			on.Output = c.output // set directly: the same as For
			hand := Term{Name: on.Name, Output: c.output, Residual: c.hand, Draw: c.draw, Measured: on.Measured}
			if c.draw == nil {
				hand.Points, hand.Target = on.Points, on.Target
			}
			p, want := sysProblem(t, on), sysProblem(t, hand)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			rg, rw, ru := residualAt(t, p), residualAt(t, want), residualAt(t, sysProblem(t, c.got))
			differs := false
			for k := range rw {
				if math.Abs(rg[k]-rw[k]) > 1e-14*(1+math.Abs(rw[k])) {
					t.Errorf("residual %d: %.17g, by hand on %s %.17g", k, rg[k], c.output, rw[k])
				}
				differs = differs || math.Abs(ru[k]-rw[k]) > 1e-3
			}
			if !differs {
				t.Errorf("the condition on u has the residual of the condition on %s: the test cannot tell them apart", c.output)
			}
		})
	}
}

// residualAt is the first term's residual of p at the weights compileTerm
// draws.
func residualAt(t *testing.T, p *Problem) []float64 {
	t.Helper()
	c, err := compileTerm(p)
	if err != nil {
		t.Fatal(err)
	}
	return c.at(c.w)
}

// TestOutputNotRead: a term whose Output its residual does not read is an
// error of Validate: a condition written by hand on u and labelled v
// said nothing of v and nothing warned.
func TestOutputNotRead(t *testing.T) {
	t.Parallel()
	tm := Term{Name: "lid_v", Output: "v", Residual: func(v *Vars) *ad.Node { return ad.Sub(v.U, v.Target) },
		Draw: &Draw{Region: Face("x", Hi), N: 4, Value: func([]float64) float64 { return 0 }}}
	err := sysProblem(t, tm).Validate()
	want := `problem "sys" term "lid_v": Output "v", and the residual does not read v; build it from v (pde.DataResidual, v.Out("v")) or write a one-line condition's field with .For("v")`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestWithField: a field drawn with the term's points, read by name in
// its equation; the Draw it was given is not changed, and a term without a
// Draw is an error of Validate.
func TestWithField(t *testing.T) {
	t.Parallel()
	base := PDE("u_xx = f", 5)
	term := base.WithField("f", func(x []float64) float64 { return 2 * x[0] })
	if base.Draw.Fields != nil {
		t.Fatal("WithField changed the Draw it was given")
	}
	p := &Problem{Name: "f", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1}, Terms: []Term{term}}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, x := range q.Terms[0].Points {
		if got := q.Terms[0].Fields["f"][i]; got != 2*x[0] {
			t.Errorf("field at %v: %g, want %g", x, got, 2*x[0])
		}
	}
	given := Term{Name: "pde", Points: [][]float64{{0.5}}, Residual: Eq("u_xx = f")}.WithField("f", func([]float64) float64 { return 1 })
	p.Terms = []Term{given}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), `WithField("f"): the term has no Draw`) {
		t.Errorf("WithField without a Draw: %v, want an error saying so", err)
	}
}
