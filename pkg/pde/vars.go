package pde

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// Residual builds a term's residual (N x 1) from what the term sees at its
// points: the network's output and its input derivatives by input name, the
// coordinates, the term's targets and fields, and the problem's unknown
// coefficients. The squared residuals are the term's loss E_D = 1/2 sum r^2.
//
//	func(v *pde.Vars) *ad.Node { // u_t - kappa u_xx
//		return ad.Sub(v.D("t"), ad.Scale(v.D2("x", "x"), 0.1))
//	}
type Residual func(v *Vars) *ad.Node

// Vars is what a residual sees at its term's N points. Every method returns
// an N x 1 node of the graph, so anything built from them is differentiated
// with respect to the weights (and the unknowns) like the network itself.
//
// A name that the problem does not have never panics: the first one is
// recorded, a placeholder is returned so the residual can be built to the
// end, and Problem.Validate (or BuildResidual) returns an error naming the
// term and the name.
type Vars struct {
	U      *ad.Node // the (first) field u: the network's output, transformed (Problem.Transforms)
	Target *ad.Node // the term's targets; nil for a term without Target

	p         *Problem
	term      string
	jet       *ad.Jet
	outs      []*ad.Node      // per output (Problem.OutputNames); outs[0] is U
	jets      map[int]*ad.Jet // per output k > 0, built on first use
	termIndex int             // the term's index in p.Terms
	fields    map[string]*ad.Node
	unknowns  map[string]*ad.Node // 1 x 1 Params on the inferred scale
	used      map[string]bool     // unknowns read
	pair      *Vars               // u at the term's Pairs; nil without
	// inputsOnly marks a Transform's expressions and a condition's value,
	// which read the inputs, the Params and the constants only; reader
	// names the latter in errors.
	inputsOnly bool
	reader     string
	err        error
}

// N is the number of points of the term.
func (v *Vars) N() int { return v.U.Shape().Rows }

// Jet is the underlying jet: derivatives by input index, for code that
// builds residuals from pkg/ad directly. Its index errors panic; Validate and
// BuildResidual turn such a panic into an error naming the term.
func (v *Vars) Jet() *ad.Jet { return v.jet }

func (v *Vars) fail(format string, args ...any) *ad.Node {
	if v.err == nil {
		v.err = fmt.Errorf("problem %q term %q: %s", v.p.Name, v.term, fmt.Sprintf(format, args...))
	}
	return v.U
}

// input returns the index of the named input.
func (v *Vars) input(op, name string) (int, bool) {
	i := slices.Index(v.p.Inputs, name)
	if i < 0 {
		v.fail("%s(%q): no input named %q; the inputs are %s", op, name, name, strings.Join(v.p.Inputs, ", "))
	}
	return i, i >= 0
}

// X returns the coordinate of the named input at the points: a source term
// or a variable coefficient is built from it with pkg/ad's functions, e.g.
// ad.Sin(ad.Scale(v.X("x"), math.Pi)).
func (v *Vars) X(name string) *ad.Node {
	i, ok := v.input("X", name)
	if !ok {
		return v.U
	}
	return v.jet.In(i)
}

// D returns du/d name.
func (v *Vars) D(name string) *ad.Node {
	i, ok := v.input("D", name)
	if !ok {
		return v.U
	}
	return v.jet.D(i)
}

// D2 returns the second derivative d2u / d a d b.
func (v *Vars) D2(a, b string) *ad.Node {
	i, ok := v.input("D2", a)
	k, ok2 := v.input("D2", b)
	if !ok || !ok2 {
		return v.U
	}
	return v.jet.D2(i, k)
}

// Normal returns the named input's component of the outward unit normal
// at the points: the term's field NormalField(name), which Sample fills on
// a boundary region.
func (v *Vars) Normal(name string) *ad.Node {
	if _, ok := v.input("Normal", name); !ok {
		return v.U
	}
	n, ok := v.fields[NormalField(name)]
	if !ok {
		return v.fail("Normal(%q): %s", name, noNormals)
	}
	return n
}

// noNormals says what to do when a term without normals reads one.
const noNormals = "the term has no normals; draw it on a boundary region (Boundary, Face, Faces, On) or give its points' normals as the fields NormalField(input)"

// hasNormals reports whether the term has normals (every input's field).
func (v *Vars) hasNormals() bool {
	for _, in := range v.p.Inputs {
		if _, ok := v.fields[NormalField(in)]; !ok {
			return false
		}
	}
	return true
}

// DN returns the outward normal derivative u_n = grad u . n at the points.
func (v *Vars) DN() *ad.Node {
	if !v.hasNormals() {
		return v.fail("DN(): %s", noNormals)
	}
	return v.normalDerivative(v.jet)
}

// normalDerivative is grad . n of jet's output.
func (v *Vars) normalDerivative(jet *ad.Jet) *ad.Node {
	var dn *ad.Node
	for i, in := range v.p.Inputs {
		t := ad.Mul(jet.D(i), v.Normal(in))
		if dn == nil {
			dn = t
		} else {
			dn = ad.Add(dn, t)
		}
	}
	return dn
}

// Pair returns what the residual sees at the partners of the term's points
// (Term.Pairs): u and its derivatives there, the same unknowns and the
// row's fields (without the normals). A term without pairs is an error.
func (v *Vars) Pair() *Vars {
	if v.pair == nil {
		v.fail("Pair(): the term has no pairs; draw it on FacePairs(input) (pde.Periodic) or give Term.Pairs")
		return v
	}
	return v.pair
}

// Field returns the term's named values at its points (Term.Fields): a
// source or a coefficient known only as numbers.
func (v *Vars) Field(name string) *ad.Node {
	f, ok := v.fields[name]
	if !ok {
		return v.fail("Field(%q): the term has no field %q; its fields are %s", name, name, listOr(slices.Sorted(maps.Keys(v.fields)), "none (set Term.Fields)"))
	}
	return f
}

// Unknown returns the named unknown coefficient of the problem
// (Problem.Unknowns) on its natural scale, the same value at every point.
func (v *Vars) Unknown(name string) *ad.Node {
	k := slices.IndexFunc(v.p.Unknowns, func(u Unknown) bool { return u.Name == name })
	theta, ok := v.unknowns[name]
	if k < 0 || !ok {
		return v.fail("Unknown(%q): the problem has no unknown %q; its unknowns are %s", name, name, listOr(unknownNames(v.p), "none (declare it in Problem.Unknowns)"))
	}
	v.used[name] = true
	// The Param enters through Broadcast first, the one way a per-row
	// Jacobian can see a parameter shared by all points.
	b := ad.Broadcast(theta, ad.Shape{Rows: v.N(), Cols: 1})
	if v.p.Unknowns[k].Positive {
		return ad.Exp(b)
	}
	return b
}

func listOr(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return strings.Join(names, ", ")
}

// ResidualInputs are the graph nodes a term's residual is built from.
type ResidualInputs struct {
	// U is the network's output at the Input X (N x D): N x F, one column
	// per output of the problem (Problem.OutputNames).
	U, X   *ad.Node
	Target *ad.Node // N x 1, nil for a term without Target
	// Fields holds one N x 1 Input per name of the term's Fields.
	Fields map[string]*ad.Node
	// Unknowns holds one 1 x 1 Param per Problem.Unknowns name, on the
	// scale it is inferred on (ln of the value for a Positive unknown).
	Unknowns map[string]*ad.Node
	// PairU is the network's output (N x F) at the Input PairX (N x D), the
	// term's Pairs; a term with Pairs needs them, others ignore them.
	PairU, PairX *ad.Node
	// outputs and pairOutputs, when set (Validate's stand-in network), are
	// the outputs as nodes of their own instead of U's and PairU's columns.
	outputs, pairOutputs []*ad.Node
}

// BuildResidual builds term i's residual from in. A panic inside the
// user's residual, a name the problem does not have, a nil result or a
// result of the wrong shape is an error naming the term.
func (p *Problem) BuildResidual(i int, in ResidualInputs) (*ad.Node, error) {
	r, _, err := p.buildResidual(i, in)
	return r, err
}

// buildResidual is BuildResidual that also returns which unknowns the
// residual read.
func (p *Problem) buildResidual(i int, in ResidualInputs) (r *ad.Node, used map[string]bool, err error) {
	t := p.Terms[i]
	outs, err := outputNodes(in.U, in.outputs, len(p.OutputNames()))
	if err != nil {
		return nil, nil, fmt.Errorf("problem %q term %q: %v", p.Name, t.Name, err)
	}
	if outs, err = p.transformOutputs(outs, in.X); err != nil {
		return nil, nil, err
	}
	v := &Vars{U: outs[0], Target: in.Target, p: p, term: t.Name, termIndex: i, jet: ad.NewJet(outs[0], in.X), outs: outs,
		fields: in.Fields, unknowns: in.Unknowns, used: map[string]bool{}}
	n := in.U.Shape().Rows
	if t.Pairs != nil {
		if in.PairU == nil || in.PairX == nil {
			return nil, nil, fmt.Errorf("problem %q term %q: the term pairs points (Term.Pairs, a periodic condition) and the trainer gives no u at the partners (ResidualInputs.PairU, PairX); this trainer cannot fit paired terms", p.Name, t.Name)
		}
		if in.PairU.Shape() != in.U.Shape() {
			return nil, nil, fmt.Errorf("problem %q term %q: u at the pairs has shape %v, want %v", p.Name, t.Name, in.PairU.Shape(), in.U.Shape())
		}
		fields := maps.Clone(in.Fields)
		for _, name := range p.Inputs {
			delete(fields, NormalField(name))
		}
		pouts, err := outputNodes(in.PairU, in.pairOutputs, len(p.OutputNames()))
		if err != nil {
			return nil, nil, fmt.Errorf("problem %q term %q: at the pairs: %v", p.Name, t.Name, err)
		}
		if pouts, err = p.transformOutputs(pouts, in.PairX); err != nil {
			return nil, nil, err
		}
		v.pair = &Vars{U: pouts[0], Target: in.Target, p: p, term: t.Name, termIndex: i, jet: ad.NewJet(pouts[0], in.PairX), outs: pouts,
			fields: fields, unknowns: in.Unknowns, used: v.used}
	}
	defer func() {
		if e := recover(); e != nil {
			r, err = nil, fmt.Errorf("problem %q term %q: the residual panicked: %v", p.Name, t.Name, e)
		}
	}()
	r = t.Residual(v)
	if v.err == nil && v.pair != nil {
		v.err = v.pair.err
	}
	switch {
	case v.err != nil:
		return nil, nil, v.err
	case r == nil:
		return nil, nil, fmt.Errorf("problem %q term %q: the residual returned nil; return an N x 1 node built from v", p.Name, t.Name)
	case r.Shape() != (ad.Shape{Rows: n, Cols: 1}):
		return nil, nil, fmt.Errorf("problem %q term %q: the residual has shape %v, want %dx1 (one value per point)", p.Name, t.Name, r.Shape(), n)
	case r.Graph() != in.U.Graph():
		return nil, nil, fmt.Errorf("problem %q term %q: the residual is not built from v's nodes", p.Name, t.Name)
	}
	return r, v.used, nil
}

// DataResidual is u - target, u the output the term measures
// (Term.Output).
func DataResidual(v *Vars) *ad.Node {
	if v.Target == nil {
		return v.fail("DataResidual needs targets: set the term's Target (one value per point)")
	}
	return ad.Sub(v.Measured(), v.Target)
}

// DerivativeResidual returns the residual du/d name - target, u the output
// the term measures (Term.Output).
func DerivativeResidual(name string) Residual {
	return func(v *Vars) *ad.Node {
		if v.Target == nil {
			return v.fail("DerivativeResidual(%q) needs targets: set the term's Target", name)
		}
		if k := v.p.OutputIndex(v.p.Terms[v.termIndex].Output); k > 0 {
			return ad.Sub(v.DOut(v.p.OutputNames()[k], name), v.Target)
		}
		return ad.Sub(v.D(name), v.Target)
	}
}

// Hold returns p with the named unknowns held at the given values (natural
// scale): its residuals read them as constants, and a fit infers only the
// unknowns left. Holding every unknown at its truth gives the forward
// problem of an inverse one, with the same terms, points and data.
func (p *Problem) Hold(values map[string]float64) (*Problem, error) {
	held := map[string]float64{} // on the inferred scale
	for _, name := range slices.Sorted(maps.Keys(values)) {
		k := slices.IndexFunc(p.Unknowns, func(u Unknown) bool { return u.Name == name })
		v := values[name]
		switch {
		case k < 0:
			return nil, fmt.Errorf("problem %q: hold %q: no such unknown; its unknowns are %s", p.Name, name, listOr(unknownNames(p), "none"))
		case math.IsNaN(v) || math.IsInf(v, 0):
			return nil, fmt.Errorf("problem %q: hold %s = %v; give a finite value", p.Name, name, v)
		case p.Unknowns[k].Positive && !(v > 0):
			return nil, fmt.Errorf("problem %q: hold %s = %g; %s is positive, give a value > 0", p.Name, name, v, name)
		case p.Unknowns[k].Positive:
			v = math.Log(v)
		}
		held[name] = v
	}
	q := *p
	q.Unknowns = slices.DeleteFunc(slices.Clone(p.Unknowns), func(u Unknown) bool { _, ok := values[u.Name]; return ok })
	q.Terms = slices.Clone(p.Terms)
	for i, t := range p.Terms {
		res := t.Residual
		q.Terms[i].Residual = func(v *Vars) *ad.Node {
			w := *v
			w.p = p // Vars.Unknown looks the names up in p
			w.unknowns = maps.Clone(v.unknowns)
			if w.unknowns == nil {
				w.unknowns = map[string]*ad.Node{}
			}
			for name, th := range held {
				w.unknowns[name] = v.U.Graph().Fill(1, 1, th)
			}
			if v.pair != nil { // the partners see the held unknowns too
				pw := *v.pair
				pw.p, pw.unknowns = p, w.unknowns
				w.pair = &pw
			}
			r := res(&w)
			v.err = w.err
			if v.err == nil && w.pair != nil {
				v.err = w.pair.err
			}
			return r
		}
	}
	return &q, nil
}

func unknownNames(p *Problem) []string {
	names := make([]string, len(p.Unknowns))
	for i, u := range p.Unknowns {
		names[i] = u.Name
	}
	return names
}
