package bayes

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/evidence-pinn/bpinn/internal/dense"
	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// HessianKind selects how the data Hessians H_t are computed.
type HessianKind string

// The Hessians.
const (
	// GaussNewton is J_t^T J_t: positive semi-definite, so A is positive
	// definite for any alpha > 0 (the default).
	GaussNewton HessianKind = "gauss-newton"
	// Exact is the full second derivative of E_D^t, by Hessian-vector
	// products; indefinite away from the exact minimum.
	Exact HessianKind = "exact"
)

// ParseHessian checks a name.
func ParseHessian(s string) (HessianKind, error) {
	switch HessianKind(s) {
	case GaussNewton, "":
		return GaussNewton, nil
	case Exact:
		return Exact, nil
	}
	return "", fmt.Errorf("unknown hessian %q: use gauss-newton or exact", s)
}

// Model couples a problem and a network: E_T = sum_i alpha_i E_w^i +
// sum_t beta_t E_D^t, with alpha groups of weight classes and beta groups of
// loss terms. The parameters are the network's weights followed by the
// problem's unknown coefficients (Problem.Unknowns, on their inferred scale:
// ln of the value for a Positive one), all in Theta; a Gaussian unknown is
// one more alpha group "alpha_<name>", a flat one is in no alpha group
// (AlphaOf -1: no prior term, docs/inverse.md). It owns compiled programs
// bound to Theta, so it is not safe for concurrent use: build one Model per
// goroutine.
type Model struct {
	Problem *pde.Problem
	Net     *nn.MLP
	// Theta is the parameter vector: Net.W (which shares its first
	// Net.NumWeights() values) then one value per unknown.
	Theta     []float64
	Alphas    []nn.Group // alpha groups (W_i = Alphas[i].Len())
	AlphaOf   []int      // parameter -> alpha group; -1 for a flat-prior unknown
	BetaNames []string   // beta groups
	TermGroup []int      // term -> beta group
	// TermOutput is each term's output (Term.Output's index in
	// Problem.OutputNames; "" is the first), looked up once.
	TermOutput []int
	N          []int // N_t: residuals per beta group

	g       *ad.Graph
	ps      ad.Params
	x       []*ad.Node // per term
	pair    []*ad.Node // per term, the partners' Input; nil without Pairs
	target  []*ad.Node // per term, nil without data
	fields  []map[string]*ad.Node
	res     []*ad.Node // per term residual (N x 1)
	ed      []*ad.Node // per beta group: 1/2 sum r^2 (1x1)
	betaIn  []*ad.Node // per beta group, 1x1 Params feeding the loss
	betaBuf []float64
	grads   []*ad.Node
	train   *ad.Program

	jac  []*ad.Jacobian // per term (Gauss-Newton), built on first use
	hess []*ad.Hessian  // per beta group (exact), built on first use
	jbuf [][]float64
	// gnTmp is one term's J^T J, kept between hyperparameter steps.
	gnTmp []float64
	// noise is each measured term's MeasuredNoise, NaN until first used
	// (measuredNoise).
	noise []float64
	// source is each term's rms residual at u = 0 (equationSource), NaN
	// until first used.
	source []float64

	pool *par.Pool // the threads of the row work; nil: the calling goroutine
	// alphaMode is the mode of Alphas, which a sibling shares.
	alphaMode nn.AlphaMode
}

// startPool gives the model (and the models built from it) a pool of
// threads, closed when the model is no longer reachable.
func (m *Model) startPool(threads int) {
	pool := par.New(threads)
	if pool == nil {
		return
	}
	m.setPool(pool)
	runtime.AddCleanup(m, func(p *par.Pool) { p.Close() }, pool)
}

// Threads is the number of threads the model's row work runs on (1
// without a pool): what a fit's own parallel work may take.
func (m *Model) Threads() int {
	if m.pool == nil {
		return 1
	}
	return m.pool.Threads()
}

// setPool runs the model's programs and dense products on pool's threads
// (the same bits as on one).
func (m *Model) setPool(pool *par.Pool) {
	m.pool = pool
	if m.train != nil {
		m.train.SetPool(pool)
	}
	for _, j := range m.jac {
		j.Prog.SetPool(pool)
	}
}

// NewModel builds the model of p on net, its programs compiled on first
// use. alphaMode is "single" or "classes", betaMode "single" or "split".
func NewModel(p *pde.Problem, net *nn.MLP, alphaMode nn.AlphaMode, betaMode pde.BetaMode) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	names, termGroup, err := p.BetaGroups(betaMode)
	if err != nil {
		return nil, err
	}
	return newModel(p, net, alphaMode, names, termGroup)
}

// newModel is NewModel for a problem already validated (Train validates
// before it builds the network: Validate builds every residual once more)
// with its beta groups worked out (names, and each term's group): a
// Config's, or a model's for a sibling.
func newModel(p *pde.Problem, net *nn.MLP, alphaMode nn.AlphaMode, names []string, termGroup []int) (*Model, error) {
	if f := len(p.OutputNames()); net.Sizes[0] != p.Dim() || net.Sizes[len(net.Sizes)-1] != f {
		return nil, fmt.Errorf("network %v for problem %q: want %d inputs and %d outputs", net.Sizes, p.Name, p.Dim(), f)
	}
	alphas, err := net.Groups(alphaMode)
	if err != nil {
		return nil, err
	}
	m := &Model{Problem: p, Net: net, Alphas: alphas, AlphaOf: nn.GroupIndex(alphas, net.NumWeights()),
		BetaNames: names, TermGroup: termGroup, N: make([]int, len(names)), alphaMode: alphaMode}
	g := ad.NewGraph()
	m.g = g
	m.ps = net.Params(g)
	netPs := m.ps
	unknowns := m.addUnknowns(g)
	m.ed = make([]*ad.Node, len(names))
	for i, t := range p.Terms {
		n := len(t.Points)
		x := g.Input("x_"+t.Name, n, p.Dim())
		var target *ad.Node
		if t.Target != nil {
			target = g.Input("target_"+t.Name, n, 1)
		}
		fields := map[string]*ad.Node{}
		for name := range t.Fields {
			fields[name] = g.Input("field_"+t.Name+"_"+name, n, 1)
		}
		at := []*ad.Node{x}
		var pair *ad.Node
		if t.Pairs != nil { // a periodic condition: the net at the partners too
			pair = g.Input("pair_"+t.Name, n, p.Dim())
			at = append(at, pair)
		}
		us := make([]*ad.Node, len(at))
		for j, a := range at {
			us[j] = net.Apply(netPs, a)
		}
		in := pde.ResidualInputs{U: us[0], X: x, Target: target, Fields: fields, Unknowns: unknowns}
		if pair != nil {
			in.PairX, in.PairU = pair, us[1]
		}
		r, err := p.BuildResidual(i, in)
		if err != nil {
			return nil, err
		}
		m.pair = append(m.pair, pair)
		m.fields = append(m.fields, fields)
		m.x = append(m.x, x)
		m.target = append(m.target, target)
		m.res = append(m.res, r)
		m.TermOutput = append(m.TermOutput, p.OutputIndex(t.Output))
		k := termGroup[i]
		m.N[k] += n
		ed := ad.Scale(ad.Sum(ad.Square(r)), 0.5)
		if m.ed[k] == nil {
			m.ed[k] = ed
		} else {
			m.ed[k] = ad.Add(m.ed[k], ed)
		}
	}
	m.betaBuf = make([]float64, len(names))
	var loss *ad.Node
	for k := range names {
		b := g.Param("beta_"+names[k], 1, 1)
		m.betaIn = append(m.betaIn, b)
		term := ad.Mul(b, m.ed[k])
		if loss == nil {
			loss = term
		} else {
			loss = ad.Add(loss, term)
		}
	}
	m.grads = ad.Grad(loss, m.ps...)
	return m, nil
}

// trainProgram is the training program (E_D per beta group and the
// gradient), compiled on first use: a model built for its Jacobians alone
// (the error estimate's) never pays for it.
func (m *Model) trainProgram() *ad.Program {
	if m.train == nil {
		m.train = m.g.Compile(append(append([]*ad.Node{}, m.ed...), m.grads...)...)
		m.train.SetPool(m.pool)
		m.feed(m.train)
		for k, b := range m.betaIn {
			m.train.Bind(b, m.betaBuf[k:k+1])
		}
	}
	return m.train
}

// ReleaseTrain drops the training program, compiled again (the same
// bits) when next used: it is the largest thing a model holds (its
// buffers for every point: 0.63 GB at poisson-holes' 5 x 100 net), which
// a step that builds the N x P residual Jacobian need not keep beside it,
// nor a holder of a model that runs it no more (pkg/band's check of the
// fresh points).
func (m *Model) ReleaseTrain() { m.train = nil }

// addUnknowns appends the problem's unknowns to the parameters: Theta grows
// by one value per unknown (Init, or ln Init for a Positive one), Net.W
// becomes Theta's head, a 1 x 1 Param per unknown joins ps, and a Gaussian
// unknown gets its own alpha group. It returns the Params by name.
func (m *Model) addUnknowns(g *ad.Graph) map[string]*ad.Node {
	us := m.Problem.Unknowns
	m.Theta = m.Net.W
	if len(us) == 0 {
		return nil
	}
	nw := m.Net.NumWeights()
	m.Theta = make([]float64, nw+len(us))
	copy(m.Theta, m.Net.W)
	m.Net.W = m.Theta[:nw:nw]
	byName := make(map[string]*ad.Node, len(us))
	for k, u := range us {
		m.Theta[nw+k] = score.UnknownScale(u, u.Init)
		node := g.Param("unknown_"+u.Name, 1, 1)
		byName[u.Name] = node
		m.ps = append(m.ps, node)
		gi := -1
		if u.Prior == pde.PriorGaussian {
			gi = len(m.Alphas)
			m.Alphas = append(m.Alphas, nn.Group{Name: "alpha_" + u.Name, Classes: []nn.Class{{Name: u.Name, Offset: nw + k, Len: 1}}})
		}
		m.AlphaOf = append(m.AlphaOf, gi)
	}
	return byName
}

// sibling builds a model of q (the same problem drawn anew, a copy of it,
// or some of its terms; checked by the caller where it comes from
// elsewhere: ModelOn) with the beta groups names and termGroup (q's
// terms') on a copy of m's parameters, weights and unknowns: NewModel on
// m.Net itself would move Net.W away from m.Theta.
func (m *Model) sibling(q *pde.Problem, names []string, termGroup []int) (*Model, error) {
	m2, err := newModel(q, m.Net.Clone(), m.alphaMode, names, termGroup)
	if err != nil {
		return nil, err
	}
	m2.setPool(m.pool)
	if len(m2.Theta) != len(m.Theta) {
		return nil, fmt.Errorf("problem %q: %d parameters, the model has %d", q.Name, len(m2.Theta), len(m.Theta))
	}
	copy(m2.Theta, m.Theta)
	return m2, nil
}

// UnknownValues returns the unknowns on their inferred scale (a view into
// Theta: writing it moves them).
func (m *Model) UnknownValues() []float64 { return m.Theta[m.Net.NumWeights():] }

// feed sets the terms' points, partners, targets and fields and binds the
// parameters.
func (m *Model) feed(prog *ad.Program) {
	for i, t := range m.Problem.Terms {
		if prog.Uses(m.x[i]) {
			prog.Set(m.x[i], slices.Concat(t.Points...))
		}
		if pn := m.pair[i]; pn != nil && prog.Uses(pn) {
			prog.Set(pn, slices.Concat(t.Pairs...))
		}
		if tn := m.target[i]; tn != nil && prog.Uses(tn) {
			prog.Set(tn, t.Target)
		}
		for name, fn := range m.fields[i] {
			if prog.Uses(fn) {
				prog.Set(fn, t.Fields[name])
			}
		}
	}
	m.ps.Bind(prog, m.Theta)
}

// NumWeights is P, the number of parameters: the network's weights and the
// unknowns.
func (m *Model) NumWeights() int { return len(m.Theta) }

// W returns the number of weights in each alpha group.
func (m *Model) W() []int {
	w := make([]int, len(m.Alphas))
	for i, g := range m.Alphas {
		w[i] = g.Len()
	}
	return w
}

// DataLoss evaluates E_D^t per beta group and the gradient of
// sum_t beta_t E_D^t into grad (len P) at the current weights.
func (m *Model) DataLoss(beta, ed, grad []float64) {
	m.runED(beta, ed)
	m.ps.Gather(m.trainProgram(), m.grads, grad)
}

// runED runs the training program at beta and writes E_D^t per beta
// group into ed.
func (m *Model) runED(beta, ed []float64) {
	copy(m.betaBuf, beta)
	m.trainProgram().Run()
	for k, n := range m.ed {
		ed[k] = m.train.Scalar(n)
	}
}

// WeightLoss returns E_w^i = 1/2 sum of squares per alpha group (a
// flat-prior unknown is in none).
func (m *Model) WeightLoss(ew []float64) {
	for i := range ew {
		ew[i] = 0
	}
	for k, w := range m.Theta {
		if gi := m.AlphaOf[k]; gi >= 0 {
			ew[gi] += 0.5 * w * w
		}
	}
}

// Hessians writes H_t (P x P, row-major) of each beta group into hs at the
// current weights.
func (m *Model) Hessians(kind HessianKind, hs [][]float64) {
	P := m.NumWeights()
	switch kind {
	case Exact:
		if m.hess == nil {
			for _, ed := range m.ed {
				h := ad.NewHessian(ed, m.ps)
				m.feed(h.Prog)
				m.hess = append(m.hess, h)
			}
		}
		for k, h := range m.hess {
			h.ComputeTo(hs[k])
		}
	default:
		m.jacobians()
		for k := range hs {
			for i := range hs[k] {
				hs[k][i] = 0
			}
		}
		if len(m.gnTmp) != P*P {
			m.gnTmp = make([]float64, P*P)
		}
		tmp := m.gnTmp
		for i, j := range m.jac {
			dense.GaussNewton(m.pool, tmp, m.jbuf[i], j.Rows(), P)
			h := hs[m.TermGroup[i]]
			for k, v := range tmp {
				h[k] += v
			}
		}
	}
}

// buildJacobians compiles the per-term residual Jacobians on first use.
func (m *Model) buildJacobians() {
	if m.jac != nil {
		return
	}
	P := m.NumWeights()
	for i, r := range m.res {
		j := ad.NewJacobian(r, m.ps)
		j.Prog.SetPool(m.pool)
		m.feed(j.Prog)
		m.jac = append(m.jac, j)
		m.jbuf = append(m.jbuf, make([]float64, len(m.Problem.Terms[i].Points)*P))
	}
}

// TermJacobians returns each term's residual r_t and its Jacobian dr_t/dw
// (N_t x P, row-major) at the current weights.
func (m *Model) TermJacobians() (res, jac [][]float64) {
	m.jacobians()
	for i, j := range m.jac {
		jac = append(jac, slices.Clone(m.jbuf[i]))
		res = append(res, slices.Clone(j.Prog.Value(m.res[i])))
	}
	return res, jac
}

// OutputJacobians returns each term's residual r_t and its Jacobian with
// respect to the network's output layer alone (N_t x C, row-major, C =
// out x (H+1): the layer's weights, then its biases, as they sit at the
// end of Net.W): the columns of TermJacobians' that belong to that layer,
// from a reverse pass that stops there. It is for a network without
// unknowns, whose output layer ends Theta.
func (m *Model) OutputJacobians() (res, jac [][]float64) {
	L := m.Net.Layers()
	if len(m.ps) != 2*L {
		panic(fmt.Sprintf("bayes: OutputJacobians of a model with %d unknowns; the output layer does not end Theta", len(m.ps)-2*L))
	}
	layer := m.ps[2*L-2:]
	for i, r := range m.res {
		j := ad.NewJacobian(r, layer)
		j.Prog.SetPool(m.pool)
		m.feed(j.Prog)
		dst := make([]float64, j.Rows()*layer.Size())
		j.ComputeTo(dst)
		jac = append(jac, dst)
		res = append(res, slices.Clone(j.Prog.Value(m.res[i])))
	}
	return res, jac
}

// jacobians computes each term's residual Jacobian (N_i x P, row-major)
// into m.jbuf at the current weights.
func (m *Model) jacobians() {
	m.buildJacobians()
	for i, j := range m.jac {
		j.ComputeTo(m.jbuf[i])
	}
}

// GroupJacobians returns each beta group's residual Jacobian (its terms'
// rows stacked in term order, N_t x P row-major) at the current weights;
// a group of one term shares the model's buffer (valid until the next call).
func (m *Model) GroupJacobians() [][]float64 {
	m.jacobians()
	out := make([][]float64, len(m.BetaNames))
	terms := make([]int, len(m.BetaNames))
	for _, g := range m.TermGroup {
		terms[g]++
	}
	for i, j := range m.jbuf {
		if g := m.TermGroup[i]; terms[g] == 1 {
			out[g] = j // the group's only term: its buffer, not a copy
		} else {
			out[g] = append(out[g], j...)
		}
	}
	return out
}

// Layers returns the weight ranges [lo, hi) of the network's layers.
func (m *Model) Layers() [][2]int {
	var out [][2]int
	off := 0
	for l := 0; l < m.Net.Layers(); l++ {
		n := (m.Net.InWidth(l) + 1) * m.Net.Sizes[l+1]
		out = append(out, [2]int{off, off + n})
		off += n
	}
	return out
}

// Residuals returns each term's residual vector at the current weights
// (one run of the training program).
func (m *Model) Residuals() [][]float64 {
	m.DataLoss(m.betaBuf, make([]float64, len(m.betaBuf)), make([]float64, m.NumWeights()))
	out := make([][]float64, len(m.res))
	for k, r := range m.res {
		out[k] = append([]float64(nil), m.train.Value(r)...)
	}
	return out
}

// redraw moves every term that is not Measured to draw k of the problem's
// points (Problem.Redraw); the Measured terms keep theirs.
func (m *Model) redraw(k uint64) error {
	q, err := m.Problem.Redraw(k)
	if err != nil {
		return err
	}
	terms := slices.Clone(m.Problem.Terms)
	if len(q.Terms) != len(terms) {
		return fmt.Errorf("problem %q: draw %d has %d terms, want %d", m.Problem.Name, k, len(q.Terms), len(terms))
	}
	for i, t := range q.Terms {
		if terms[i].Measured {
			continue
		}
		if t.Name != terms[i].Name || len(t.Points) != len(terms[i].Points) || (t.Target == nil) != (terms[i].Target == nil) ||
			(t.Pairs == nil) != (terms[i].Pairs == nil) || !sameKeys(t.Fields, terms[i].Fields) {
			return fmt.Errorf("problem %q: term %d of draw %d is %q with %d points, want %q with %d (Redraw must keep the terms, their sizes, fields and pairs)",
				m.Problem.Name, i, k, t.Name, len(t.Points), terms[i].Name, len(terms[i].Points))
		}
		// The fields (a boundary's normals among them) and partners belong
		// to the new points as much as the targets do.
		terms[i].Points, terms[i].Target, terms[i].Fields, terms[i].Pairs = t.Points, t.Target, t.Fields, t.Pairs
	}
	m.setTerms(terms)
	return nil
}

// sameKeys reports whether two term field maps have the same names.
func sameKeys(a, b map[string][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// setTerms replaces the terms' points, targets, fields and pairs (same
// sizes) and feeds every compiled program with them.
func (m *Model) setTerms(terms []pde.Term) {
	copy(m.Problem.Terms, terms)
	if m.train != nil {
		m.feed(m.train)
	}
	for _, j := range m.jac {
		m.feed(j.Prog)
	}
	for _, h := range m.hess {
		m.feed(h.Prog)
	}
}
