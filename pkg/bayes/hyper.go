package bayes

import (
	"math"
	"runtime"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"gonum.org/v1/gonum/floats"
)

// finalHyperStep moves alpha and beta to MacKay's fixed point at the current
// weights, clamped to [MinHyper, MaxHyper], and returns the largest relative
// move; false (the hyperparameters are kept) when A is not positive
// definite or the step is not finite. The
// clamp matters where a term can be fitted exactly: wave-full's split
// beta_pde would go past 1e8, and the cap reads it as a residual noise
// floor of 1e-4.
func (f *Fit) finalHyperStep() (move float64, ok bool) {
	kind, why := f.laplaceKind()
	if why != "" {
		kind = f.Settings.Curvature
	}
	hy, loss, err := f.roundEvidence(kind)
	if err != nil {
		return 0, false
	}
	alpha, beta := hy.MacKay(loss)
	if f.fresh != nil {
		copy(f.fresh.Theta, f.Model.Theta)
		held, train := f.fresh.GroupRMS(f.Beta), rmsFromED(loss.ED, loss.N) // loss: at these weights
		for t, h := range held {
			if tr := train[t]; f.Inferred(t) && h > tr {
				beta[t] *= (tr / h) * (tr / h)
			}
		}
	}
	f.holdKnown(beta)
	next := append(append([]float64(nil), alpha...), beta...)
	prev := append(append([]float64(nil), f.Alpha...), f.Beta...)
	for i, v := range next {
		if math.IsNaN(v) {
			return 0, false
		}
		next[i] = math.Min(math.Max(v, MinHyper), MaxHyper)
		move = math.Max(move, math.Abs(next[i]-prev[i])/prev[i])
	}
	copy(f.Alpha, next[:len(alpha)])
	copy(f.Beta, next[len(alpha):])
	return move, true
}

// roundEvidence is the evidence of a final round under kind: the final
// Laplace's own under LowRank (curv.Compute's lowrank is another
// approximation, that of the Adam phase's steps), and under Dual that
// same low-rank Laplace where it is much cheaper than the dual traces
// and close (curv.CloseLowRankLaplace), else evidence's.
func (f *Fit) roundEvidence(kind curv.Kind) (*curv.Hyper, curv.Loss, error) {
	switch kind {
	case curv.LowRank:
		l, loss, err := f.laplace(kind, f.Beta)
		if err != nil {
			return nil, loss, err
		}
		return &l.Hyper, loss, nil
	case curv.Dual: // above DenseLimit: evidence's system too
		loss, s := f.loss(), f.system(false)
		defer dropJacobians(s)
		if l := curv.CloseLowRankLaplace(s, loss, f.lowRankOptions(), false, f.Model.pool); l != nil {
			return &l.Hyper, loss, nil
		}
		return f.evidenceOf(s, loss, kind, false)
	}
	return f.evidence(kind, false)
}

// Hessians evaluates the loss parts and data Hessians (Settings.Hessian)
// at the current weights: the dense Laplace's input (curv.NewLaplace).
func (f *Fit) Hessians() *curv.Hessians {
	m := f.Model
	P := m.NumWeights()
	c := &curv.Hessians{AlphaOf: m.AlphaOf, Loss: f.loss(), Pool: m.pool, H: make([][]float64, len(f.Beta))}
	for t := range c.H {
		c.H[t] = make([]float64, P*P)
	}
	m.Hessians(f.Settings.Hessian, c.H)
	return c
}

// loss evaluates the loss parts at the current weights.
func (f *Fit) loss() curv.Loss {
	m := f.Model
	l := curv.Loss{EW: make([]float64, len(f.Alpha)), ED: make([]float64, len(f.Beta)), W: m.W(), N: m.N, Comb: Comb(m.Net.Hidden())}
	m.DataLoss(f.Beta, l.ED, make([]float64, m.NumWeights()))
	m.WeightLoss(l.EW)
	return l
}

// Comb is the paper's symmetry term sum_l (ln M_l! + M_l ln 2) of a network
// with hidden layer sizes M_l.
func Comb(hidden []int) float64 {
	s := 0.0
	for _, m := range hidden {
		lg, _ := math.Lgamma(float64(m) + 1)
		s += lg + float64(m)*math.Ln2
	}
	return s
}

// hyperStepper moves the hyperparameters at one epoch.
type hyperStepper struct {
	m    *Model
	s    Settings
	adam *nn.Adam
	logs []float64 // ln alpha then ln beta
	grad []float64
}

func newHyperStepper(m *Model, s Settings) *hyperStepper {
	n := len(m.Alphas) + len(m.BetaNames)
	return &hyperStepper{m: m, s: s, adam: nn.NewAdam(n, &nn.AdamSettings{LR: s.Hyper.LR}), logs: make([]float64, n), grad: make([]float64, n)}
}

// step returns E_hyp before the move and whether A was positive definite.
// With tied set, all alphas move as one and all betas as one: the gradient
// along the tied direction is the sum of the groups' gradients, and MacKay's
// update pools gamma, E_w and E_D over the groups.
func (h *hyperStepper) step(f *Fit, tied bool) (float64, bool) {
	f.Hyper.Steps++
	l, c, err := f.evidence(h.s.Curvature, false)
	if err != nil {
		f.Hyper.NotPD++
		return 0, false
	}
	if l.OccamArgAlpha != nil && !l.OccamOK { // only the dense A has the Occam factors here
		f.Hyper.OccamBad++
	}
	nA := len(f.Alpha)
	var alpha, beta []float64
	switch {
	case h.s.Updater == UpdaterMacKay && tied:
		alpha = fillN(nA, floats.Sum(l.GammaAlpha)/(2*floats.Sum(c.EW)))
		nTot, gTot, eTot := 0.0, 0.0, 0.0
		for t, n := range c.N {
			if f.Inferred(t) {
				nTot, gTot, eTot = nTot+float64(n), gTot+l.GammaBeta[t], eTot+c.ED[t]
			}
		}
		beta = fillN(len(f.Beta), (nTot-gTot)/(2*eTot))
	case h.s.Updater == UpdaterMacKay:
		alpha, beta = l.MacKay(c)
	default:
		ga, gb := floats.Sum(l.GradLogAlpha), 0.0
		for t, g := range l.GradLogBeta {
			if f.Inferred(t) {
				gb += g
			}
		}
		for i, a := range f.Alpha {
			h.logs[i] = math.Log(a)
			h.grad[i] = l.GradLogAlpha[i]
			if tied {
				h.grad[i] = ga
			}
		}
		for t, b := range f.Beta {
			h.logs[nA+t] = math.Log(b)
			h.grad[nA+t] = l.GradLogBeta[t]
			if tied {
				h.grad[nA+t] = gb
			}
			if !f.Inferred(t) {
				h.grad[nA+t] = 0
			}
		}
		h.adam.Step(h.logs, h.grad)
		alpha, beta = make([]float64, nA), make([]float64, len(f.Beta))
		for i := range alpha {
			alpha[i] = math.Exp(h.logs[i])
		}
		for t := range beta {
			beta[t] = math.Exp(h.logs[nA+t])
		}
	}
	f.holdKnown(beta)
	for _, v := range append(append([]float64(nil), alpha...), beta...) {
		if !(v >= MinHyper && v <= MaxHyper) {
			f.Hyper.Rejected++
			return l.EHyp, true
		}
	}
	copy(f.Alpha, alpha)
	copy(f.Beta, beta)
	return l.EHyp, true
}

// evidence evaluates the evidence at the current weights and
// hyperparameters with A under kind: the dense kind through curv.NewLaplace
// (H_t from Settings.Hessian, Occam factors included), the others through
// curv.Compute from the residual Jacobians (the Occam factors only with
// squares): the model's own up to DenseLimit weights, above it computed
// in blocks of points into an array of the step's (system), so that the
// model does not keep the Jacobian program of all its points (about 6 N
// P floats: 10 GB at poisson-holes' 5 x 100 net), and for Diag their
// column squares alone, summed block by block (diagSystem: no N x P
// array). seed varies the stochastic structures between steps.
func (f *Fit) evidence(kind curv.Kind, squares bool) (*curv.Hyper, curv.Loss, error) {
	if kind == curv.Dense {
		c := f.Hessians()
		l, err := curv.NewLaplace(c, f.Alpha, f.Beta)
		if err != nil {
			return nil, curv.Loss{}, err
		}
		return &l.Hyper, c.Loss, nil
	}
	loss := f.loss()
	if kind == curv.Diag && f.Model.NumWeights() > DenseLimit {
		return f.evidenceOf(f.diagSystem(), loss, kind, squares)
	}
	shared := f.Model.NumWeights() <= DenseLimit
	s := f.system(shared)
	if !shared {
		defer dropJacobians(s)
	}
	return f.evidenceOf(s, loss, kind, squares)
}

// dropJacobians drops s's residual Jacobians, a step's own N x P array
// above DenseLimit (1.6 GB at poisson-holes' 5 x 100 net), and runs the
// collector (collect): dead, the array would stay in the heap until the
// collector's next cycle, which the heap's goal (twice the live data,
// the array included) puts a training program's compilation away (it
// took the process from 3.0 to 3.9 GB after a final round).
func dropJacobians(s *curv.System) {
	s.J = nil
	collect()
}

// collect is runtime.GC (a test counts its calls).
var collect = runtime.GC

// evidenceOf is evidence's E_hyp and the rest at the system s, with the
// loss parts loss there, under kind (not Dense).
func (f *Fit) evidenceOf(s *curv.System, loss curv.Loss, kind curv.Kind, squares bool) (*curv.Hyper, curv.Loss, error) {
	tr, err := curv.Compute(s, curv.Options{Kind: kind, Squares: squares, Seed: uint64(f.Hyper.Steps + f.Hyper.FinalRounds + 1)})
	if err != nil {
		return nil, loss, err
	}
	hy := curv.Evidence(tr, f.Alpha, f.Beta, loss)
	return &hy, loss, nil
}

// diagSystem is system for the Diag structure above DenseLimit: the
// column squares of the residual Jacobians in place of them
// (Model.columnSquares), the bits of system(false)'s.
func (f *Fit) diagSystem() *curv.System {
	m := f.Model
	h, err := m.columnSquares(jacobianBlock(m.NumWeights()))
	if err != nil {
		return f.system(false) // the same rows from all points at once
	}
	return &curv.System{P: m.NumWeights(), ColSquares: h, Beta: f.Beta, Alpha: f.Alpha, AlphaOf: m.AlphaOf, Layers: m.Layers()}
}

// system is A at the current weights and hyperparameters for pkg/curv;
// with shared, J is the model's own (GroupJacobians), else a new array
// computed in blocks of points (stackedJacobians: the final dual
// Laplace's, which it overwrites), the training programs of the model and
// of the held-out rounds' fresh points released first (ReleaseTrain).
func (f *Fit) system(shared bool) *curv.System {
	m := f.Model
	var J [][]float64
	if !shared {
		m.ReleaseTrain() // the Jacobian array is larger than it: hold one at a time
		if f.fresh != nil {
			f.fresh.ReleaseTrain()
		}
		var err error
		if J, err = m.stackedJacobians(jacobianBlock(m.NumWeights())); err != nil {
			J = nil // the same rows from all points at once, below
		}
	}
	switch {
	case J == nil && !shared: // a new array all the same: the model's is not to be overwritten
		all := slices.Concat(m.GroupJacobians()...)
		off := 0
		for _, n := range m.N {
			J = append(J, all[off*m.NumWeights():(off+n)*m.NumWeights()])
			off += n
		}
	case J == nil:
		J = m.GroupJacobians()
	}
	return &curv.System{P: m.NumWeights(), J: J, Beta: f.Beta, Alpha: f.Alpha, AlphaOf: m.AlphaOf, Layers: m.Layers()}
}
