package eqtext

import (
	"errors"
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// inputsEnv is an Env of the inputs alone, at the points x (N x D).
type inputsEnv struct {
	x      *ad.Node
	inputs []string
	params map[string]float64
}

func (e inputsEnv) Scope() Scope {
	return Scope{Inputs: e.inputs, Params: e.params, InputsOnly: true}
}
func (e inputsEnv) Const(c float64) *ad.Node {
	return e.x.Graph().Fill(e.x.Shape().Rows, 1, c)
}
func (e inputsEnv) Jet(string) *ad.Jet { return nil }
func (e inputsEnv) NormalDerivative(string) (*ad.Node, error) {
	return nil, errors.New("no normals")
}
func (e inputsEnv) Input(i int) *ad.Node    { return ad.SliceCol(e.x, i) }
func (e inputsEnv) Unknown(string) *ad.Node { return nil }
func (e inputsEnv) Field(string) *ad.Node   { return nil }

// TestEval checks the folding of numbers, the values of an expression of
// the inputs at points, and the error of a name the scope does not have.
func TestEval(t *testing.T) {
	g := ad.NewGraph()
	x := g.Input("x", 3, 2)
	env := inputsEnv{x: x, inputs: []string{"x", "t"}, params: map[string]float64{"a": 2}}
	eval := func(text string) (Value, error) {
		q, err := Parse(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		return q.Eval(env)
	}
	if v, err := eval("5*pi^2 - a"); err != nil || v.N != nil || v.C != 5*math.Pi*math.Pi-2 {
		t.Errorf("5*pi^2 - a = %+v, %v; want the number %v", v, err, 5*math.Pi*math.Pi-2)
	}
	v, err := eval("a*x^2 - sin(t)/2 + 1")
	if err != nil || v.N == nil {
		t.Fatalf("a*x^2 - sin(t)/2 + 1 = %+v, %v; want a node", v, err)
	}
	prog := g.Compile(v.N)
	pts := []float64{0.5, 1, -1, 0, 2, 3}
	prog.Set(x, pts)
	prog.Run()
	for i, got := range prog.Value(v.N) {
		xi, ti := pts[2*i], pts[2*i+1]
		if want := 2*xi*xi - math.Sin(ti)/2 + 1; math.Abs(got-want) > 1e-14 {
			t.Errorf("point %d: %v, want %v", i, got, want)
		}
	}
	for text, want := range map[string]string{
		"x*y":     `equation "x*y": col 3: y: unknown name; a transform reads inputs x, t; parameters a; constants e, pi`,
		"log(0)":  `equation "log(0)": col 1: the constant is -Inf`,
		"x/(a-2)": `equation "x/(a-2)": col 2: division by 0`,
		"(-a)^x":  `equation "(-a)^x": col 5: a power of -2 with a varying exponent; the base must be positive`,
	} {
		if _, err := eval(text); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", text, err, want)
		}
	}
}
