package pde

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// DefaultOutput is the name of a problem's one output when Outputs is empty.
const DefaultOutput = "u"

// OutputNames returns the problem's output names: Outputs, or the one
// output "u" when it is empty.
func (p *Problem) OutputNames() []string {
	if len(p.Outputs) == 0 {
		return []string{DefaultOutput}
	}
	return p.Outputs
}

// OutputIndex returns the index of the named output; "" is the first. It
// is -1 for a name the problem does not have.
func (p *Problem) OutputIndex(name string) int {
	if name == "" {
		return 0
	}
	return slices.Index(p.OutputNames(), name)
}

// ExactValues returns the exact or reference value of every output at x
// (ExactOutputs, or Exact as the one output), nil when the problem has
// neither.
func (p *Problem) ExactValues(x []float64) []float64 {
	switch {
	case p.ExactOutputs != nil:
		return p.ExactOutputs(x)
	case p.Exact != nil:
		return []float64{p.Exact(x)}
	}
	return nil
}

// HasExact reports whether the problem has an exact or reference solution.
func (p *Problem) HasExact() bool { return p.Exact != nil || p.ExactOutputs != nil }

// GridOutputs is Grid, or the TestPoints when the problem has them, with
// the exact value of every output: exact[k][i] is output k at point i (nil
// without an exact solution). ExactOutputs giving other than one value per
// output is an error.
func (p *Problem) GridOutputs(n int) (pts [][]float64, exact [][]float64, err error) {
	pts = p.TestPoints
	if pts == nil {
		pts, _ = (&Problem{Inputs: p.Inputs, Lo: p.Lo, Hi: p.Hi, Domain: p.Domain}).Grid(n)
	}
	if !p.HasExact() {
		return pts, nil, nil
	}
	exact = make([][]float64, len(p.OutputNames()))
	for k := range exact {
		exact[k] = make([]float64, len(pts))
	}
	for i, x := range pts {
		vals, err := p.exactAt(x)
		if err != nil {
			return nil, nil, err
		}
		for k := range exact {
			exact[k][i] = vals[k]
		}
	}
	return pts, exact, nil
}

// exactAt is ExactValues at x, an error unless it gives one value per
// output.
func (p *Problem) exactAt(x []float64) ([]float64, error) {
	vals := p.ExactValues(x)
	if n := len(p.OutputNames()); len(vals) != n {
		return nil, fmt.Errorf("problem %q: ExactOutputs gives %d values at %v for %d outputs (%s); give one per output, in Outputs order",
			p.Name, len(vals), x, n, strings.Join(p.OutputNames(), ", "))
	}
	return vals, nil
}

// ValidateExact checks the exact solution at the first point of the
// first term: one value per output (GridOutputs checks every point). A
// trainer calls it with Validate, which leaves it out so that the bands,
// which build models of the problem, never read the truth.
func (p *Problem) ValidateExact() error {
	if !p.HasExact() || len(p.Terms) == 0 || len(p.Terms[0].Points) == 0 {
		return nil
	}
	_, err := p.exactAt(slices.Clone(p.Terms[0].Points[0]))
	return err
}

// validateOutputs checks the output names and every term's Output.
func (p *Problem) validateOutputs() error {
	seen := map[string]bool{}
	for _, name := range p.Outputs {
		switch {
		case !isIdent(name) || strings.Contains(name, "_"):
			return fmt.Errorf("problem %q: output %q; name every output with letters and digits (no \"_\": u_x is u's derivative)", p.Name, name)
		case seen[name]:
			return fmt.Errorf("problem %q: two outputs are named %q; give each output its own name", p.Name, name)
		case slices.Contains(p.Inputs, name):
			return fmt.Errorf("problem %q output %q: the name is also an input; rename the output", p.Name, name)
		case slices.ContainsFunc(p.Unknowns, func(u Unknown) bool { return u.Name == name }):
			return fmt.Errorf("problem %q output %q: the name is also an unknown; rename one", p.Name, name)
		}
		seen[name] = true
	}
	for _, t := range p.Terms {
		if p.OutputIndex(t.Output) < 0 {
			return fmt.Errorf("problem %q term %q: Output %q; the outputs are %s", p.Name, t.Name, t.Output, strings.Join(p.OutputNames(), ", "))
		}
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// outputNodes splits the network's output u (N x F, one column per output)
// into one N x 1 node per output; one output is u itself, so a one-output
// problem's graph is the same as ever. given, if not nil, are the outputs
// already split.
func outputNodes(u *ad.Node, given []*ad.Node, f int) ([]*ad.Node, error) {
	if given != nil {
		return given, nil
	}
	if u.Shape().Cols != f {
		return nil, fmt.Errorf("the network has %d outputs, the problem %d", u.Shape().Cols, f)
	}
	if f == 1 {
		return []*ad.Node{u}, nil
	}
	out := make([]*ad.Node, f)
	for k := range out {
		out[k] = ad.SliceCol(u, k)
	}
	return out, nil
}

// Out returns the named output at the points (Problem.Outputs; U is the
// first).
func (v *Vars) Out(name string) *ad.Node {
	k, ok := v.outputIndex("Out", name)
	if !ok {
		return v.U
	}
	return v.outs[k]
}

// DOut returns d name / d input.
func (v *Vars) DOut(name, input string) *ad.Node {
	k, ok := v.outputIndex("DOut", name)
	i, ok2 := v.input("DOut", input)
	if !ok || !ok2 {
		return v.U
	}
	return v.outJet(k).D(i)
}

// D2Out returns the second derivative d2 name / d a d b.
func (v *Vars) D2Out(name, a, b string) *ad.Node {
	k, ok := v.outputIndex("D2Out", name)
	i, ok2 := v.input("D2Out", a)
	j, ok3 := v.input("D2Out", b)
	if !ok || !ok2 || !ok3 {
		return v.U
	}
	return v.outJet(k).D2(i, j)
}

// DNOut returns the outward normal derivative of the named output.
func (v *Vars) DNOut(name string) *ad.Node {
	k, ok := v.outputIndex("DNOut", name)
	if !ok {
		return v.U
	}
	if !v.hasNormals() {
		return v.fail("DNOut(%q): %s", name, noNormals)
	}
	return v.normalDerivative(v.outJet(k))
}

// Measured returns the output the term measures (Term.Output).
func (v *Vars) Measured() *ad.Node {
	t := v.p.Terms[v.termIndex]
	if k := v.p.OutputIndex(t.Output); k > 0 {
		return v.outs[k]
	}
	return v.U
}

func (v *Vars) outputIndex(op, name string) (int, bool) {
	k := slices.Index(v.p.OutputNames(), name)
	if k < 0 {
		v.fail("%s(%q): no output named %q; the outputs are %s", op, name, name, strings.Join(v.p.OutputNames(), ", "))
	}
	return k, k >= 0
}

// outJet returns output k's jet, built on first use.
func (v *Vars) outJet(k int) *ad.Jet {
	if k == 0 {
		return v.jet
	}
	if v.jets == nil {
		v.jets = map[int]*ad.Jet{}
	}
	j, ok := v.jets[k]
	if !ok {
		j = ad.NewJet(v.outs[k], v.jet.X)
		v.jets[k] = j
	}
	return j
}

// standIn is validateResiduals' stand-in network: u = tanh(x w) for one
// output; for several, output k is tanh(x w_k) with a parameter and a node
// of its own (w the first), so that a residual's dependence on each output
// shows. It sets in's U (the first output) and outputs at x, or, with pair,
// PairU and pairOutputs there, and returns the parameters by output.
func standIn(p *Problem, g *ad.Graph, w *ad.Node) (net func(in *ResidualInputs, x *ad.Node, pair bool), ws []*ad.Node) {
	ws = []*ad.Node{w}
	for k := 1; k < len(p.OutputNames()); k++ {
		ws = append(ws, g.Param(fmt.Sprintf("w%d", k), p.Dim(), 1))
	}
	return func(in *ResidualInputs, x *ad.Node, pair bool) {
		outs := make([]*ad.Node, len(ws))
		for k, wk := range ws {
			outs[k] = ad.Tanh(ad.MatMul(x, wk))
		}
		if len(ws) == 1 {
			outs = nil // one output: U itself, as a trainer gives it
		}
		if pair {
			in.PairU, in.pairOutputs = ad.Tanh(ad.MatMul(x, w)), outs
		} else {
			in.U, in.outputs = ad.Tanh(ad.MatMul(x, w)), outs
		}
	}, ws
}

// outputsRead is an error naming the first output no residual reads: the
// data would say nothing of it.
func (p *Problem) outputsRead(read []bool) error {
	for k, ok := range read {
		if !ok {
			name := p.OutputNames()[k]
			return fmt.Errorf("problem %q output %q: no residual reads it; use it in a term (v.Out(%q), an equation) or remove it from Outputs", p.Name, name, name)
		}
	}
	return nil
}
