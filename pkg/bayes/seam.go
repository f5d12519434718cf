package bayes

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// This file holds what the packages built on a fit use (pkg/band's
// bands, pkg/record's records): the fit's model on other points, its
// Laplace approximation at other betas, a copy with another band, and a fit
// rebuilt from its parts.

// ModelOn returns f's model at f's weights and unknowns on the points of
// q, a problem with the same terms drawn anew (usually Problem.Fresh's):
// the residuals f's network leaves between its training points.
// A q of another problem (another name, other inputs, or terms of other
// names or groups) is an error: its residuals would size the bands of a problem
// the fit never saw.
func (f *Fit) ModelOn(q *pde.Problem) (*Model, error) {
	m := f.Model
	if err := f.checkDraw(q); err != nil {
		return nil, err
	}
	m2, err := m.sibling(q, m.BetaNames, m.TermGroup)
	if err != nil {
		return nil, fmt.Errorf("fresh points: %w", err)
	}
	return m2, nil
}

// ModelOnNet is ModelOn with the network net in place of f's: the model
// of q (a draw of f's problem, checked as ModelOn checks it) on net at
// net's own weights, the unknowns at their starting values, with f's
// alpha mode and beta groups, not worked out again. net reads the
// problem's inputs and writes its outputs; the model runs on the calling
// goroutine. pkg/band's error estimate builds it on a widened copy of f's
// network.
func (f *Fit) ModelOnNet(q *pde.Problem, net *nn.MLP) (*Model, error) {
	m := f.Model
	if err := f.checkDraw(q); err != nil {
		return nil, err
	}
	m2, err := newModel(q, net, m.alphaMode, m.BetaNames, m.TermGroup)
	if err != nil {
		return nil, fmt.Errorf("fresh points: %w", err)
	}
	return m2, nil
}

// checkDraw checks q as a draw of f's problem: its terms f's (sameTerms)
// and its points, targets and values valid (pde.Problem.Validate), so
// that a model of q is built from checked data.
func (f *Fit) checkDraw(q *pde.Problem) error {
	if err := sameTerms(f.Model.Problem, q); err != nil {
		return fmt.Errorf("fresh points: %w", err)
	}
	if err := q.Validate(); err != nil {
		return fmt.Errorf("fresh points: %w", err)
	}
	return nil
}

// sameTerms checks that q is a draw of p: the same name, inputs and terms
// (names and groups, in order; their numbers of points may differ).
func sameTerms(p, q *pde.Problem) error {
	const fix = "pass a fresh draw of the fit's own problem (its Fresh())"
	switch {
	case q == nil:
		return fmt.Errorf("no problem; %s", fix)
	case q.Name != p.Name:
		return fmt.Errorf("a draw of problem %q, the fit's is %q; %s", q.Name, p.Name, fix)
	case !slices.Equal(p.Inputs, q.Inputs):
		return fmt.Errorf("problem %q has inputs %v, the fit's %q has %v; %s", q.Name, q.Inputs, p.Name, p.Inputs, fix)
	case len(p.Terms) != len(q.Terms):
		return fmt.Errorf("problem %q has %d terms, the fit's %q has %d; %s", q.Name, len(q.Terms), p.Name, len(p.Terms), fix)
	}
	for i, t := range q.Terms {
		w := p.Terms[i]
		if t.Name != w.Name || t.Group != w.Group {
			return fmt.Errorf("problem %q term %d is %q (group %q), the fit's %q has %q (group %q); %s",
				q.Name, i, t.Name, t.Group, p.Name, w.Name, w.Group, fix)
		}
	}
	return nil
}

// GroupRMS is each beta group's rms residual sqrt(2 E_D^t / N_t) at m's
// current weights (beta only sizes the groups: E_D^t does not depend on
// it).
func (m *Model) GroupRMS(beta []float64) []float64 {
	ed := make([]float64, len(beta))
	m.runED(beta, ed) // no gradient: E_D alone
	return rmsFromED(ed, m.N)
}

// rmsFromED is sqrt(2 E_D^t / N_t) per beta group, from E_D already computed.
func rmsFromED(ed []float64, n []int) []float64 {
	out := make([]float64, len(ed))
	for k, e := range ed {
		out[k] = math.Sqrt(2 * e / float64(n[k]))
	}
	return out
}

// AtClamp reports whether a hyperparameter value is held at the clamp,
// MinHyper or MaxHyper, rather than at a fixed point of the evidence.
func AtClamp(v float64) bool { return v <= MinHyper || v >= MaxHyper }

// LaplaceAt is the Laplace approximation at f's weights and alphas with
// the betas beta, in the structure of f's own (dense up to DenseLimit
// weights, else dual): the posterior another precision of the residuals
// gives (the bands of pkg/band). At f's own betas it is f.Laplace itself,
// which is what it would compute again (a held-out band whose fresh
// points ask for no lower beta: minutes at 4 x 10^4 weights).
func (f *Fit) LaplaceAt(beta []float64) (*curv.Laplace, error) {
	if f.Laplace != nil && slices.Equal(beta, f.Beta) {
		return f.Laplace, nil
	}
	kind, why := f.laplaceKind()
	if why != "" {
		return nil, errors.New(why)
	}
	l, _, err := f.laplace(kind, beta)
	return l, err
}

// WithBand returns a copy of f whose Predict gives another band around the
// same mean: the Laplace approximation l, at betas beta, and then widen,
// if not nil, applied to every sigma it predicts at its points. Only the
// copy's predictions are meaningful: its log evidence is that of beta, and
// it shares f's model, alphas and history, so it must not be trained or
// ranked.
func (f *Fit) WithBand(beta []float64, l *curv.Laplace, widen func(points [][]float64, sigma []float64)) *Fit {
	g := *f
	g.Beta, g.Laplace, g.widening, g.widenOutput = beta, l, widen, nil
	return &g
}

// WithOutputBand is WithBand with a widening per output of the problem:
// widen(k, points, sigma) for output k (Problem.OutputNames), and
// widen(0, ...) for the first output and every other quantity
// (PredictQuantity).
func (f *Fit) WithOutputBand(beta []float64, l *curv.Laplace, widen func(k int, points [][]float64, sigma []float64)) *Fit {
	g := f.WithBand(beta, l, func(points [][]float64, sigma []float64) { widen(0, points, sigma) })
	g.widenOutput = widen
	return g
}

// Jacobian returns u at points and, when f has a Laplace approximation,
// its Jacobian with respect to the parameters there (n x P, row-major; nil
// otherwise): with Laplace.Sigmas and Widen, the bands of several copies
// of f (WithBand) from one Jacobian.
func (f *Fit) Jacobian(points [][]float64) (mean, J []float64, err error) {
	return f.meanJacobian(points, output)
}

// FitAt is the fit of m, at its current weights and unknowns, with the
// resolved settings s and the hyperparameters alpha and beta, as Train
// leaves it apart from history and timing: the betas s.KnownNoise holds,
// and, with laplace, E_W, E_D and the Laplace approximation there, with
// the status they give (not positive definite, Occam invalid, more weights
// than DenseLimit). Without laplace (a diverged fit has none) E_W and E_D
// are zero. pkg/record's Restore rebuilds a recorded fit with it.
func FitAt(m *Model, s Settings, alpha, beta []float64, laplace bool) *Fit {
	s.resolved = true
	f := &Fit{Model: m, Settings: s, Alpha: alpha, Beta: beta, Status: StatusOK,
		EW: make([]float64, len(alpha)), ED: make([]float64, len(beta))}
	f.known = s.KnownBetas(m.BetaNames)
	if laplace {
		f.finish()
	}
	return f
}

// BalancedBetas are starting betas for m at its current weights: each
// balanced beta group's in proportion to 1 / ms_t, ms_t the group's mean
// squared residual, scaled so that their geometric mean is beta0; so each
// group's loss beta_t E_D^t starts at the same multiple of its N_t / 2,
// as MacKay's beta = (N_t - gamma_t) / 2 E_D^t would put it before any
// weight is determined (gamma 0), whatever the units of its residual. The
// balanced groups are the inferred ones (inferred(t) true) of equations and
// conditions; a group of measurements alone (Term.Measured) keeps beta0:
// its residual at initialization is the signal, which says nothing of the
// noise its beta stands for (balanced, notebook 07's reaction started its
// 20 measurements 1e4 times its equation and settled on a line through
// them). A group's mean square is read at least at U^2, U the solution's
// scale as its conditions and measurements state it (StatedScale): at the
// initial weights the net is near 0, where an equation without a source
// and a homogeneous condition (u = 0) have residuals that vanish, and
// balanced by those alone they would start with betas so large that the
// fit settles on u = 0 and ignores the conditions with values (PINNacle's
// Burgers1D: its initial condition, docs/results/defaults.md). A group
// whose residual is below 1e-8 of the largest mean square is read at that
// floor too; each beta is clamped to [MinHyper, MaxHyper], and a group not
// inferred gets beta0 (Train holds its known beta instead).
func (m *Model) BalancedBetas(beta0 float64, inferred func(int) bool) []float64 {
	rms := m.GroupRMS(make([]float64, len(m.BetaNames)))
	measured := make([]bool, len(rms))
	for t := range measured {
		measured[t] = true
	}
	for k, tm := range m.Problem.Terms {
		measured[m.TermGroup[k]] = measured[m.TermGroup[k]] && tm.Measured
	}
	u := StatedScale(m.Problem)
	floor := u * u
	for _, r := range rms {
		floor = math.Max(floor, 1e-8*r*r)
	}
	beta := fillN(len(rms), beta0)
	balanced := func(t int) bool { return inferred(t) && !measured[t] }
	logSum, n := 0.0, 0
	for t, r := range rms {
		if balanced(t) {
			beta[t] = 1 / math.Max(r*r, floor)
			logSum += math.Log(beta[t])
			n++
		}
	}
	if n == 0 || floor == 0 { // every residual 0: nothing to balance
		return fillN(len(rms), beta0)
	}
	scale := beta0 / math.Exp(logSum/float64(n))
	for t := range beta {
		if balanced(t) {
			beta[t] = math.Min(math.Max(beta[t]*scale, MinHyper), MaxHyper)
		}
	}
	return beta
}

// StatedScale is the scale of p's solution that its conditions on values
// and its measurements state (Problem.OutputValues): the largest rms of
// any field's values, 0 when none are stated or all are 0.
func StatedScale(p *pde.Problem) float64 {
	u := 0.0
	for _, v := range p.OutputValues() {
		u = math.Max(u, rms(v))
	}
	return u
}
