package pde

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde/internal/eqtext"
)

// Transform is a hard constraint: the field Output is G + D*N, N the
// network's output for it, so that where D vanishes the field is G
// whatever the weights (an output transform in DeepXDE's sense). G and D
// are expressions of the inputs, read like an equation's side: the
// problem's inputs and Params, the constants pi and e, the functions of
// Equation. G states the Dirichlet values; D vanishes where they hold and
// nowhere inside, e.g. u = 0 on the faces of the unit square is G "0",
// D "x*(1-x)*y*(1-y)".
//
// The transform is part of the model: the residuals read the transformed
// field and its derivatives, so the Jacobians, the Hessians, the evidence,
// the predictions and the Laplace band all see it.
type Transform struct {
	Output string // the field; "" is the first
	G, D   string // G "" is 0
	// Meets names the condition terms the transform meets exactly (terms
	// of the field with targets: its Dirichlet conditions). Sample checks
	// at their drawn points that D vanishes and G equals the targets, and
	// leaves them out of the problem it returns: a term met exactly has
	// residual zero, so a beta group of such terms has E_D = 0 and no
	// MacKay beta, (N - gamma)/(2 E_D).
	Meets []string
}

// transformTol is how close to zero D, and to the targets G, must be at a
// met term's points: relative to D's largest magnitude at the problem's
// points, and to 1 + |target|. A boundary point of a disk or a polygon is
// on it to round-off only.
const transformTol = 1e-9

// transformVars is what an expression of a transform reads at the points
// x: the inputs, the Params and the constants, none of which can fail (a
// name it does not have is Eval's error). Its U is a column of x: a node of
// x's graph with one row per point, the shape of its constants.
func (p *Problem) transformVars(x *ad.Node, tr Transform) *Vars {
	u := ad.SliceCol(x, 0)
	return &Vars{U: u, p: p, term: "transform of " + p.outputName(tr.Output), jet: ad.NewJet(u, x), inputsOnly: true}
}

// outputName is the name of the output ("" is the first).
func (p *Problem) outputName(name string) string {
	if k := p.OutputIndex(name); k >= 0 {
		return p.OutputNames()[k]
	}
	return name
}

// transformValues builds G and D at the points x: a number or a node.
func (p *Problem) transformValues(x *ad.Node, tr Transform) (g, d eqtext.Value, err error) {
	v := p.transformVars(x, tr)
	for _, side := range []struct {
		name, text string
		out        *eqtext.Value
	}{{"G", tr.G, &g}, {"D", tr.D, &d}} {
		if side.text == "" && side.name == "G" {
			continue // G "" is 0
		}
		if side.text == "" {
			return g, d, fmt.Errorf("problem %q transform of %q: no D; give the expression that vanishes where G holds, e.g. x*(1-x)", p.Name, p.outputName(tr.Output))
		}
		q, err := eqtext.Parse(side.text)
		if err != nil {
			return g, d, fmt.Errorf("problem %q transform of %q: %s: %v", p.Name, p.outputName(tr.Output), side.name, err)
		}
		if q.RHS != nil {
			return g, d, fmt.Errorf("problem %q transform of %q: %s %s has \"=\"; give an expression of the inputs, e.g. x*(1-x)", p.Name, p.outputName(tr.Output), side.name, eqtext.Quote(side.text))
		}
		if *side.out, err = q.Eval(env{v}); err != nil {
			return g, d, fmt.Errorf("problem %q transform of %q: %s: %v", p.Name, p.outputName(tr.Output), side.name, err)
		}
	}
	return g, d, nil
}

// transformOutputs applies the problem's transforms to the outputs at x
// (one N x 1 node each): the network's raw outputs in, the fields out. A
// problem without transforms gets outs itself, the graph it always had.
func (p *Problem) transformOutputs(outs []*ad.Node, x *ad.Node) ([]*ad.Node, error) {
	if len(p.Transforms) == 0 {
		return outs, nil
	}
	for _, tr := range p.Transforms {
		if p.OutputIndex(tr.Output) < 0 {
			return nil, p.noTransformOutput(tr)
		}
	}
	fields := make([]*ad.Node, len(outs))
	for k, n := range outs {
		var err error
		if fields[k], err = p.TransformOutput(k, n, x); err != nil {
			return nil, err
		}
	}
	return fields, nil
}

// transformed is g + d*n, numbers folded as an equation folds them.
func transformed(n *ad.Node, g, d eqtext.Value) *ad.Node {
	var dn *ad.Node
	if d.N == nil {
		dn = ad.Scale(n, d.C)
	} else {
		dn = ad.Mul(d.N, n)
	}
	switch {
	case g.N != nil:
		return ad.Add(g.N, dn)
	case g.C != 0:
		return ad.AddConst(dn, g.C)
	}
	return dn
}

// TransformOutput is output k's field from the network's raw output n
// (N x 1) at the points x (N x D): its Transform applied, or n itself
// without one.
func (p *Problem) TransformOutput(k int, n, x *ad.Node) (*ad.Node, error) {
	for _, tr := range p.Transforms {
		if p.OutputIndex(tr.Output) == k {
			g, d, err := p.transformValues(x, tr)
			if err != nil {
				return nil, err
			}
			return transformed(n, g, d), nil
		}
	}
	return n, nil
}

// Transformed reports whether output k has a Transform.
func (p *Problem) Transformed(k int) bool {
	return slices.ContainsFunc(p.Transforms, func(tr Transform) bool { return p.OutputIndex(tr.Output) == k })
}

func (p *Problem) noTransformOutput(tr Transform) error {
	return fmt.Errorf("problem %q: a transform of output %q; the outputs are %s", p.Name, tr.Output, strings.Join(p.OutputNames(), ", "))
}

// evalTransform returns G and D at the points.
func (p *Problem) evalTransform(tr Transform, pts [][]float64) (g, d []float64, err error) {
	gr := ad.NewGraph()
	x := gr.Input("x", len(pts), p.Dim())
	gv, dv, err := p.transformValues(x, tr)
	if err != nil {
		return nil, nil, err
	}
	node := func(a eqtext.Value) *ad.Node {
		if a.N != nil {
			return a.N
		}
		return gr.Fill(len(pts), 1, a.C)
	}
	return evalAt(gr, x, node(gv), pts), evalAt(gr, x, node(dv), pts), nil
}

// evalAt is the value of node n of graph g, built from the Input x, at the
// points pts.
func evalAt(g *ad.Graph, x, n *ad.Node, pts [][]float64) []float64 {
	prog := g.Compile(n)
	if prog.Uses(x) {
		prog.Set(x, slices.Concat(pts...))
	}
	prog.Run()
	return slices.Clone(prog.Value(n))
}

// validateTransforms checks the transforms: an output of the problem, one
// transform a field, expressions that read only inputs, Params and
// constants, finite values at every term's points, and the terms each
// Meets: met (and left out) by Sample, never present.
func (p *Problem) validateTransforms() error {
	seen := map[int]bool{}
	for _, tr := range p.Transforms {
		k := p.OutputIndex(tr.Output)
		if k < 0 {
			return p.noTransformOutput(tr)
		}
		name := p.OutputNames()[k]
		if seen[k] {
			return fmt.Errorf("problem %q: two transforms of %q; give each field one", p.Name, name)
		}
		seen[k] = true
		err := p.eachMet(tr, func(m string, present bool) error {
			switch {
			case present:
				return fmt.Errorf("problem %q term %q: met exactly by the transform of %q (residual zero, no beta); draw the problem with Sample, which leaves it out, or remove the term", p.Name, m, name)
			case !slices.Contains(p.met, m):
				return fmt.Errorf("problem %q transform of %q: Meets %q, and the problem has no such term; name the field's condition terms", p.Name, name, m)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// eachMet calls f with every name tr Meets, in order, and whether p has a
// term of that name; a present term is checked first (checkMet), and an
// error, of the check or of f, ends the walk.
func (p *Problem) eachMet(tr Transform, f func(m string, present bool) error) error {
	if p.OutputIndex(tr.Output) < 0 {
		return p.noTransformOutput(tr)
	}
	scale, err := p.transformScale(tr)
	if err != nil {
		return err
	}
	for _, m := range tr.Meets {
		i := slices.IndexFunc(p.Terms, func(t Term) bool { return t.Name == m })
		if i >= 0 {
			if err := p.checkMet(tr, p.Terms[i], scale); err != nil {
				return err
			}
		}
		if err := f(m, i >= 0); err != nil {
			return err
		}
	}
	return nil
}

// transformScale is D's largest magnitude at the points and partners of
// every term; a value of G or D that is not finite there is an error.
func (p *Problem) transformScale(tr Transform) (float64, error) {
	scale := 0.0
	for _, t := range p.Terms {
		for _, set := range [][][]float64{t.Points, t.Pairs} {
			if len(set) == 0 {
				continue
			}
			g, d, err := p.evalTransform(tr, set)
			if err != nil {
				return 0, err
			}
			for i := range g {
				if bad(g[i]) || bad(d[i]) {
					return 0, fmt.Errorf("problem %q transform of %q: G = %v, D = %v at %v (term %q); give expressions finite on the domain", p.Name, p.outputName(tr.Output), g[i], d[i], set[i], t.Name)
				}
				scale = math.Max(scale, math.Abs(d[i]))
			}
		}
	}
	return scale, nil
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// checkMet checks that tr meets term t at its points: t is a condition on
// tr's field with targets, D vanishes there (relative to scale, D's
// largest magnitude) and G equals the targets.
func (p *Problem) checkMet(tr Transform, t Term, scale float64) error {
	name := p.outputName(tr.Output)
	switch {
	case p.OutputIndex(t.Output) != p.OutputIndex(tr.Output):
		return fmt.Errorf("problem %q transform of %q: Meets term %q, a term of %q; name the field's own conditions", p.Name, name, t.Name, p.outputName(t.Output))
	case t.Target == nil || t.Measured:
		return fmt.Errorf("problem %q transform of %q: Meets term %q, which states no exact values (no targets, or measured ones); name the field's Dirichlet conditions", p.Name, name, t.Name)
	}
	g, d, err := p.evalTransform(tr, t.Points)
	if err != nil {
		return err
	}
	for i := range d {
		if !(math.Abs(d[i]) <= transformTol*scale) {
			return fmt.Errorf("problem %q transform of %q: D = %g at %v, a point of term %q; D must vanish where the term states the value", p.Name, name, d[i], t.Points[i], t.Name)
		}
		if !(math.Abs(g[i]-t.Target[i]) <= transformTol*(1+math.Abs(t.Target[i]))) {
			return fmt.Errorf("problem %q transform of %q: G = %g at %v, term %q states %g; G must equal the term's values", p.Name, name, g[i], t.Points[i], t.Name, t.Target[i])
		}
	}
	return nil
}

// meet checks every transform at the points of the terms it Meets and
// returns the problem without them (Sample's last step).
func (p *Problem) meet() (*Problem, error) {
	if len(p.Transforms) == 0 {
		return p, nil
	}
	q := *p
	drop := map[string]bool{}
	for _, tr := range p.Transforms {
		err := p.eachMet(tr, func(m string, present bool) error {
			if present { // an absent one Validate names
				drop[m] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	q.Terms = slices.DeleteFunc(slices.Clone(p.Terms), func(t Term) bool { return drop[t.Name] })
	q.met = append(slices.Clone(p.met), slices.Sorted(maps.Keys(drop))...)
	return &q, nil
}
