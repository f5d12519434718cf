package pde

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/geom"
	"github.com/evidence-pinn/bpinn/pkg/pde/internal/eqtext"
)

// Term is one loss term: points in the domain, optional targets, and the
// residual; Group names the beta hyperparameter the term is weighted by
// ("pde", "boundary", "data"): terms of one group share a beta.
type Term struct {
	Name   string
	Group  string
	Points [][]float64 // one row per point, in the problem's input order
	Target []float64   // one value per point, or nil
	// Output names the output a data term measures (one of
	// Problem.Outputs): DataResidual and DerivativeResidual read it, and
	// the band's value check compares it with the targets. "" is the
	// first output.
	Output string
	// Fields are named values at the points (one per point) that the
	// residual reads with Vars.Field: a source or a coefficient known only
	// as numbers. The outward normals of boundary points are fields too
	// (NormalField).
	Fields map[string][]float64
	// Pairs, if not nil, holds a partner of every point (one row per
	// point): the residual reads u at both (Vars.Pair), e.g. the periodic
	// condition u(lo, y) = u(hi, y) of Periodic.
	Pairs    [][]float64
	Residual Residual
	// Measured marks observations: targets measured at given points (with
	// noise), not a condition that holds wherever one looks. Training that
	// redraws the points of the other terms (Problem.Redraw) keeps these.
	Measured bool
	// Draw, if not nil, says how Problem.Sample draws the term's Points
	// and Target: a region of the domain, a count and a sampler. A term
	// has Points or a Draw, not both (Sample would replace the Points).
	Draw *Draw
	// drawn marks Points that Sample drew from the Draw.
	drawn bool
	// derivedName is the Name a one-line constructor derived ("" after
	// Named), which For extends by the output's name.
	derivedName string
	// value is a one-line condition's value given as text, which Validate
	// evaluates at the points: it must be finite there.
	value *eqtext.Equation
	// equation is the parsed text of a term PDE made (Addends).
	equation *eqtext.Equation
	// setsValue marks a condition on the output's own value (Dirichlet,
	// InitialValue): its values are the output's (OutputValues).
	setsValue bool
}

// Problem is a PDE (or a regression) as data: the domain, the loss terms and
// the exact or reference solution.
type Problem struct {
	Name   string
	Inputs []string // input names in order, e.g. x, t
	// Outputs names the fields a solution has, one network output each
	// (u, v, p of a flow); empty is the one field "u". Residuals read
	// them by name (Vars.Out, DOut, D2Out; equations as text: v, p_x).
	Outputs []string
	// Transforms make fields meet Dirichlet conditions exactly: field =
	// G + D*N (hard constraints; Transform).
	Transforms []Transform
	// Lo, Hi are the domain box: the domain itself when Domain is nil, its
	// bounding box otherwise (nil there until Sample sets them).
	Lo, Hi []float64
	// Domain, if not nil, is the domain (pkg/geom): a disk, a polygon, a
	// plate with holes, or a geom.SpaceTime of one for a time-dependent
	// problem. Its coordinates are the inputs in order (a SpaceTime's
	// input names must be the problem's, time last). Draws on Interior,
	// Boundary, On(parts) and Initial use it; points given outside it are
	// an error.
	Domain geom.Domain
	Params map[string]float64
	// Unknowns are coefficients inferred with the weights (inverse
	// problems); residuals read them with Vars.Unknown.
	Unknowns []Unknown
	// Sampling is how the points were drawn (Uniform, LatinHypercube,
	// Halton; after Sample the schemes "+"-joined when terms differ), ""
	// for points given otherwise. Before Sample it is the sampler of the
	// Draw terms that name none ("" there means Uniform).
	Sampling Sampler
	Terms    []Term
	// Exact returns the exact or reference solution at a point (nil if none).
	Exact func(x []float64) float64
	// ExactOutputs, if not nil, returns the exact or reference value of
	// every output at a point, in Outputs order; it takes precedence over
	// Exact, which a problem of several outputs may leave nil (Exact is
	// then the first output's).
	ExactOutputs func(x []float64) []float64
	// TestPoints, if not nil, are where a fit is scored against the exact
	// solution (GridOutputs, and so a record's errors and bpinn fit's
	// summary) in place of the grid: a benchmark's own test points, for
	// any number of inputs (the grid is scored for 1 or 2).
	TestPoints [][]float64
	// Fresh, if not nil, returns the same problem with new points (and new
	// measurement noise) of the same kinds: held-out points on which a fit's
	// residuals show what its training points cannot, e.g. a PDE satisfied
	// at the collocation points and not between them.
	// Problem.Sample sets it and Redraw (so do the paper's problems,
	// pkg/problems).
	Fresh func() (*Problem, error)
	// Redraw, if not nil, returns draw k >= 1 of the problem's points: the
	// same terms, in the same order and sizes, at new points. A trainer
	// uses it to move the collocation points during training while the
	// Measured terms stay; k = 0 is the problem's own draw.
	Redraw func(k uint64) (*Problem, error)
	// met names the terms Sample left out as met by a Transform.
	met []string
}

// Dim is the number of inputs.
func (p *Problem) Dim() int { return len(p.Inputs) }

// Priors of an unknown coefficient.
const (
	PriorFlat     = "flat"     // no prior term: the unknown adds nothing to E_W
	PriorGaussian = "gaussian" // a zero-mean Gaussian on the inferred scale, with its own alpha
)

// Unknown is a scalar coefficient of the problem inferred with the weights
// (an inverse problem): a diffusivity, a viscosity, a wave speed.
type Unknown struct {
	Name string
	// Init is the starting value on the natural scale; it must be positive
	// for a Positive unknown.
	Init float64
	// Positive unknowns are inferred as ln(value): their standard deviation
	// is on that scale and their interval is exp of its ends.
	Positive bool
	// Prior is PriorFlat ("" means flat) or PriorGaussian.
	Prior string
	// Truth is the value that made the data, where it is known (a study
	// with synthetic data); nil otherwise.
	Truth *float64
}

// BetaMode says how a problem's terms share betas.
type BetaMode string

// The beta groupings.
const (
	BetaSingle BetaMode = "single" // one beta "beta" for every term
	BetaSplit  BetaMode = "split"  // one beta "beta_<group>" per term Group
)

// BetaGroups returns the beta group names for a mode, and for each term the
// index of its group: BetaSingle puts every term in one group "beta",
// BetaSplit gives each Group its beta "beta_<group>", "" is split when the
// terms name groups and single when none does.
func (p *Problem) BetaGroups(mode BetaMode) (names []string, termGroup []int, err error) {
	if mode == "" {
		mode = p.DefaultBetaMode()
	}
	switch mode {
	case BetaSingle:
		return []string{"beta"}, make([]int, len(p.Terms)), nil
	case BetaSplit:
		idx := map[string]int{}
		termGroup = make([]int, len(p.Terms))
		for i, t := range p.Terms {
			if t.Group == "" {
				return nil, nil, fmt.Errorf("problem %q term %q: no Group, and betas are split by group: name its Group or set BetaMode single", p.Name, t.Name)
			}
			k, ok := idx[t.Group]
			if !ok {
				k = len(names)
				idx[t.Group] = k
				names = append(names, "beta_"+t.Group)
			}
			termGroup[i] = k
		}
		return names, termGroup, nil
	}
	return nil, nil, fmt.Errorf("unknown beta mode %q: use single or split", mode)
}

// DefaultBetaMode is the beta mode of a fit that names none: split when
// any term names a group (the equation's residuals and the data's noise
// differ), single when none does.
func (p *Problem) DefaultBetaMode() BetaMode {
	for _, t := range p.Terms {
		if t.Group != "" {
			return BetaSplit
		}
	}
	return BetaSingle
}

// MaxInputs is the most inputs a problem has (five space dimensions and
// time: PINNacle's HeatND).
const MaxInputs = 6

// Validate checks the problem before anything is built: inputs and domain,
// every term's points, targets and fields, the unknowns, and each residual,
// built once on a small stand-in network so that a name the problem does not
// have, a panic or a residual that ignores u is an error here. Errors are
// one line naming the problem, the term and the field.
func (p *Problem) Validate() error {
	if err := p.validateDomain(); err != nil {
		return err
	}
	if len(p.Terms) == 0 {
		return fmt.Errorf("problem %q: no loss terms; add at least one Term", p.Name)
	}
	if err := p.validateUnknowns(); err != nil {
		return err
	}
	if err := p.validateParams(); err != nil {
		return err
	}
	if err := p.validateOutputs(); err != nil {
		return err
	}
	names := map[string]bool{}
	for _, t := range p.Terms {
		if t.Name == "" {
			return fmt.Errorf("problem %q: a term has no Name; name every term", p.Name)
		}
		if names[t.Name] {
			return fmt.Errorf("problem %q: two terms are named %q; give each term its own name", p.Name, t.Name)
		}
		names[t.Name] = true
		if err := p.validateTerm(t); err != nil {
			return err
		}
	}
	if err := p.validateTransforms(); err != nil {
		return err
	}
	return p.validateResiduals()
}

func (p *Problem) validateDomain() error {
	if p.Dim() < 1 || p.Dim() > MaxInputs {
		return fmt.Errorf("problem %q: %d inputs; a problem has 1 to %d inputs: set Inputs, e.g. []string{\"x\", \"t\"}", p.Name, p.Dim(), MaxInputs)
	}
	seen := map[string]bool{}
	for _, in := range p.Inputs {
		if in == "" || seen[in] {
			return fmt.Errorf("problem %q: inputs %q: every input needs its own non-empty name", p.Name, p.Inputs)
		}
		seen[in] = true
	}
	if p.Domain != nil {
		if err := p.validateGeometry(); err != nil {
			return err
		}
	}
	if len(p.Lo) != p.Dim() || len(p.Hi) != p.Dim() {
		return fmt.Errorf("problem %q: domain Lo/Hi need %d values each (one per input %v)", p.Name, p.Dim(), p.Inputs)
	}
	for i := range p.Lo {
		if math.IsInf(p.Lo[i], 0) || math.IsInf(p.Hi[i], 0) || !(p.Lo[i] < p.Hi[i]) {
			return fmt.Errorf("problem %q: domain of %s is [%g, %g]; need finite Lo < Hi", p.Name, p.Inputs[i], p.Lo[i], p.Hi[i])
		}
	}
	return nil
}

func (p *Problem) validateTerm(t Term) error {
	if len(t.Points) == 0 && t.Draw != nil {
		return fmt.Errorf("problem %q term %q: a Draw but no points yet; draw them with p.Sample(seed) and use the problem it returns", p.Name, t.Name)
	}
	if len(t.Points) == 0 {
		return fmt.Errorf("problem %q term %q: no points; give it Points or a Draw", p.Name, t.Name)
	}
	if err := p.pointsAndDraw(t); err != nil {
		return err
	}
	if t.Residual == nil {
		return fmt.Errorf("problem %q term %q: no Residual function", p.Name, t.Name)
	}
	if t.Target != nil && len(t.Target) != len(t.Points) {
		return fmt.Errorf("problem %q term %q: %d targets for %d points", p.Name, t.Name, len(t.Target), len(t.Points))
	}
	if t.Pairs != nil && len(t.Pairs) != len(t.Points) {
		return fmt.Errorf("problem %q term %q: %d pairs for %d points; give one partner per point", p.Name, t.Name, len(t.Pairs), len(t.Points))
	}
	for _, set := range []struct {
		what string
		pts  [][]float64
	}{{"point", t.Points}, {"pair", t.Pairs}} {
		for k, x := range set.pts {
			if len(x) != p.Dim() {
				return fmt.Errorf("problem %q term %q: %s %d has %d coordinates, want %d (%v)", p.Name, t.Name, set.what, k, len(x), p.Dim(), p.Inputs)
			}
			if err := p.outside(t, set.what, k, x); err != nil {
				return err
			}
		}
	}
	if k := badIndex(t.Target); k >= 0 {
		return fmt.Errorf("problem %q term %q: target %d is %v", p.Name, t.Name, k, t.Target[k])
	}
	for _, name := range slices.Sorted(maps.Keys(t.Fields)) {
		f := t.Fields[name]
		if len(f) != len(t.Points) {
			return fmt.Errorf("problem %q term %q: field %q has %d values for %d points", p.Name, t.Name, name, len(f), len(t.Points))
		}
		if k := badIndex(f); k >= 0 {
			return fmt.Errorf("problem %q term %q: field %q value %d is %v", p.Name, t.Name, name, k, f[k])
		}
	}
	if err := p.validateValue(t); err != nil {
		return err
	}
	return p.validateNormals(t)
}

// validateValue evaluates a condition's value given as text at the
// term's points: a value that is not finite at one (log(x - 0.5)) is an
// error, as a target that is not finite is. A value that does not build
// (a name it cannot read) is left to its residual's error.
func (p *Problem) validateValue(t Term) error {
	vals, ok := p.textValues(t)
	if !ok {
		return nil
	}
	if k := badIndex(vals); k >= 0 {
		return fmt.Errorf("problem %q term %q: value %s is %v at %v; give a value finite on the term's points", p.Name, t.Name, eqtext.Quote(t.value.Text), vals[k], t.Points[k])
	}
	return nil
}

// Values returns what a condition term sets its output (or the derivative
// it constrains) to at its points: its Target, or its value given as text
// evaluated there. ok is false for a term with neither (the equation, a
// condition written as a residual of its own).
func (p *Problem) Values(t Term) (values []float64, ok bool) {
	if t.Target != nil {
		return t.Target, true
	}
	return p.textValues(t)
}

// textValues evaluates t's value given as text at its points; ok is false
// when t has none or it does not build.
func (p *Problem) textValues(t Term) ([]float64, bool) {
	if t.value == nil {
		return nil, false
	}
	g := ad.NewGraph()
	x := g.Input("x", len(t.Points), p.Dim())
	u := ad.SliceCol(x, 0)
	v := (&Vars{U: u, p: p, term: t.Name, jet: ad.NewJet(u, x)}).valueVars()
	e, err := t.value.Eval(env{v})
	if err != nil {
		return nil, false
	}
	return evalAt(g, x, e.Node(env{v}), t.Points), true
}

// OutputValues returns, per output (OutputNames' order), the values that
// the conditions on the output's own value (Dirichlet, InitialValue) and
// its measurements (Measured terms) give at their points: the scale of
// each field that the problem states. An output no such term constrains
// gets none; terms not yet drawn (before Sample) give none.
func (p *Problem) OutputValues() [][]float64 {
	out := make([][]float64, len(p.OutputNames()))
	for _, t := range p.Terms {
		k := p.OutputIndex(t.Output)
		if k < 0 || !t.GivesValues() || len(t.Points) == 0 {
			continue
		}
		if vals, _ := p.Values(t); badIndex(vals) < 0 {
			out[k] = append(out[k], vals...)
		}
	}
	return out
}

// GivesValues reports whether t states its output's own values at its
// points: a condition on the value (Dirichlet, InitialValue) or a
// measurement, whose values OutputValues reads.
func (t Term) GivesValues() bool { return t.setsValue || t.Measured }

// pointsAndDraw refuses a term given both Points and a Draw: Sample
// would draw over the Points without a word.
func (p *Problem) pointsAndDraw(t Term) error {
	if t.Draw != nil && len(t.Points) > 0 && !t.drawn {
		return fmt.Errorf("problem %q term %q: both Points and a Draw; Sample draws the points: drop the Points, or drop the Draw to keep them", p.Name, t.Name)
	}
	return nil
}

// badIndex is the index of the first value that is not finite, or -1.
func badIndex(v []float64) int {
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return k
		}
	}
	return -1
}

// validateParams refuses a parameter that is not a finite number: an
// equation folds it into every residual.
func (p *Problem) validateParams() error {
	for _, name := range slices.Sorted(maps.Keys(p.Params)) {
		if v := p.Params[name]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("problem %q parameter %q = %v; give a finite number in Params", p.Name, name, v)
		}
	}
	return nil
}

func (p *Problem) validateUnknowns() error {
	seen := map[string]bool{}
	for _, u := range p.Unknowns {
		switch {
		case u.Name == "":
			return fmt.Errorf("problem %q: an unknown has no Name; name every unknown", p.Name)
		case seen[u.Name]:
			return fmt.Errorf("problem %q: two unknowns are named %q", p.Name, u.Name)
		case slices.Contains(p.Inputs, u.Name):
			return fmt.Errorf("problem %q unknown %q: the name is also an input; rename the unknown", p.Name, u.Name)
		case math.IsNaN(u.Init) || math.IsInf(u.Init, 0):
			return fmt.Errorf("problem %q unknown %q: initial value %v; give a finite Init", p.Name, u.Name, u.Init)
		case u.Positive && !(u.Init > 0):
			return fmt.Errorf("problem %q unknown %q: initial value %g for a positive unknown; give Init > 0", p.Name, u.Name, u.Init)
		case u.Truth != nil && (math.IsNaN(*u.Truth) || math.IsInf(*u.Truth, 0)):
			return fmt.Errorf("problem %q unknown %q: truth %v; give a finite Truth or nil", p.Name, u.Name, *u.Truth)
		case u.Prior != "" && u.Prior != PriorFlat && u.Prior != PriorGaussian:
			return fmt.Errorf("problem %q unknown %q: prior %q; use %s or %s", p.Name, u.Name, u.Prior, PriorFlat, PriorGaussian)
		}
		seen[u.Name] = true
	}
	return nil
}

// validateResiduals builds every residual on a stand-in network u =
// tanh(x W) at the term's points (W a D x 1 parameter), so that errors in a
// residual show before any training: bad names, panics, wrong shapes, a
// residual that does not depend on u, and unknowns that no residual reads.
func (p *Problem) validateResiduals() error {
	used := map[string]bool{}
	usedOut := make([]bool, len(p.OutputNames()))
	for i, t := range p.Terms {
		g := ad.NewGraph()
		n := len(t.Points)
		x := g.Input("x", n, p.Dim())
		w := g.Param("w", p.Dim(), 1)
		net, ws := standIn(p, g, w)
		in := ResidualInputs{X: x, Fields: map[string]*ad.Node{}, Unknowns: map[string]*ad.Node{}}
		net(&in, x, false)
		if t.Pairs != nil {
			in.PairX = g.Input("pair", n, p.Dim())
			net(&in, in.PairX, true)
		}
		if t.Target != nil {
			in.Target = g.Input("target", n, 1)
		}
		for name := range t.Fields {
			in.Fields[name] = g.Input("field_"+name, n, 1)
		}
		params := ad.Params(slices.Clone(ws))
		for _, u := range p.Unknowns {
			in.Unknowns[u.Name] = g.Param(u.Name, 1, 1)
			params = append(params, in.Unknowns[u.Name])
		}
		r, u, err := p.buildResidual(i, in)
		if err != nil {
			return err
		}
		prog := g.Compile(r)
		if !slices.ContainsFunc(ws, prog.Uses) {
			return fmt.Errorf("problem %q term %q: the residual does not depend on u; build it from v.U or its derivatives", p.Name, t.Name)
		}
		for k, wk := range ws {
			if prog.Uses(wk) {
				usedOut[k] = true
			}
		}
		if k := p.OutputIndex(t.Output); t.Output != "" && !prog.Uses(ws[k]) {
			return fmt.Errorf("problem %q term %q: Output %q, and the residual does not read %s; build it from %s (pde.DataResidual, v.Out(%q)) or write a one-line condition's field with .For(%q)",
				p.Name, t.Name, t.Output, t.Output, t.Output, t.Output, t.Output)
		}
		if err := p.checkRows(t, r, params); err != nil {
			return err
		}
		maps.Copy(used, u)
	}
	if err := p.outputsRead(usedOut); err != nil {
		return err
	}
	for _, u := range p.Unknowns {
		if !used[u.Name] {
			return fmt.Errorf("problem %q unknown %q: no residual reads it; use v.Unknown(%q) in a term or remove it", p.Name, u.Name, u.Name)
		}
	}
	return nil
}

// checkRows builds the per-point Jacobian of r, as training does for the
// evidence: a residual that reduces over the points (a sum or mean of u)
// and feeds the result back into each point's residual has no per-point
// Jacobian, which pkg/ad reports by a panic.
func (p *Problem) checkRows(t Term, r *ad.Node, params ad.Params) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("problem %q term %q: the residual mixes the points: a reduction over them (a sum or mean of u, ad.Sum, ad.Mean, ad.SumRows) enters the residual of each point; give each point a residual of its own point only (%v)", p.Name, t.Name, e)
		}
	}()
	ad.JacobianRows(r, params...)
	return nil
}

// NumPoints is the number of residuals of all terms.
func (p *Problem) NumPoints() int {
	n := 0
	for _, t := range p.Terms {
		n += len(t.Points)
	}
	return n
}

// Grid returns a grid over the domain with the exact solution (the first
// output's, ExactValues) at each point
// (nil if the problem has none): n points in 1-D, n x n in 2-D, and in 3-D
// to 6-D m^d points with m = max(2, round(n^(2/d))), about as many points as
// in 2-D. The first input varies fastest. The grid spans the box Lo, Hi;
// with a Domain, its points outside the domain are left out (a reference
// solution has no values in a hole).
func (p *Problem) Grid(n int) (pts [][]float64, exact []float64) {
	d := p.Dim()
	if d < 1 || d > MaxInputs {
		panic(fmt.Sprintf("pde: Grid: %d inputs; a problem has 1 to %d inputs", d, MaxInputs))
	}
	m := max(n, 0)
	if d > 2 {
		m = max(2, int(math.Round(math.Pow(float64(n), 2/float64(d)))))
	}
	for _, x := range geom.Lattice(p.Lo, p.Hi, m) {
		if p.Domain == nil || p.Domain.Contains(x) {
			pts = append(pts, x)
		}
	}
	if p.Exact != nil || p.ExactOutputs != nil {
		exact = make([]float64, len(pts))
		for i, x := range pts {
			exact[i] = math.NaN() // ExactOutputs without a value: an error of the errors (score.OnGrid)
			if v := p.ExactValues(x); len(v) > 0 {
				exact[i] = v[0]
			}
		}
	}
	return pts, exact
}
