package pde

import (
	"fmt"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// TrialResidual is term i's residual at its points for the fields that
// build makes from the input columns (one N x 1 node per input, one node
// per output of the problem in return, in Problem.OutputNames' order), as
// a trainer builds it from its network: the term's targets, fields and
// pairs are fed at its points. It is what the term asks of a given
// function: an exact solution's check, or a trial field's (the waves an
// equation carries, pkg/bayes). A residual that reads an unknown
// coefficient is an error: a trial field has none.
func (p *Problem) TrialResidual(i int, build func(cols []*ad.Node) []*ad.Node) ([]float64, error) {
	if i < 0 || i >= len(p.Terms) {
		return nil, fmt.Errorf("problem %q: no term %d; it has %d", p.Name, i, len(p.Terms))
	}
	tm := p.Terms[i]
	g := ad.NewGraph()
	n, dim := len(tm.Points), p.Dim()
	if n == 0 {
		return nil, fmt.Errorf("problem %q term %q: no points; draw the problem (Sample) first", p.Name, tm.Name)
	}
	feed := map[*ad.Node][]float64{}
	input := func(name string, cols int, rows [][]float64) *ad.Node {
		x := g.Input(name, n, cols)
		feed[x] = slices.Concat(rows...)
		return x
	}
	outputs := len(p.OutputNames())
	var err error
	net := func(x *ad.Node) *ad.Node {
		cols := make([]*ad.Node, dim)
		for k := range cols {
			cols[k] = ad.SliceCol(x, k)
		}
		u := build(cols)
		if len(u) != outputs {
			err = fmt.Errorf("problem %q term %q: the trial gives %d fields, want %d (%v)", p.Name, tm.Name, len(u), outputs, p.OutputNames())
			return g.Fill(n, outputs, 0)
		}
		return ad.Cols(u...)
	}
	x := input("x", dim, tm.Points)
	in := ResidualInputs{U: net(x), X: x, Fields: map[string]*ad.Node{}}
	if tm.Target != nil {
		in.Target = g.Input("target", n, 1)
		feed[in.Target] = tm.Target
	}
	for name, f := range tm.Fields {
		in.Fields[name] = g.Input("field_"+name, n, 1)
		feed[in.Fields[name]] = f
	}
	if tm.Pairs != nil {
		in.PairX = input("pair", dim, tm.Pairs)
		in.PairU = net(in.PairX)
	}
	if err != nil {
		return nil, err
	}
	r, err := p.BuildResidual(i, in)
	if err != nil {
		return nil, err
	}
	prog := g.Compile(r)
	for node, v := range feed {
		if prog.Uses(node) {
			prog.Set(node, v)
		}
	}
	prog.Run()
	return slices.Clone(prog.Value(r)), nil
}
