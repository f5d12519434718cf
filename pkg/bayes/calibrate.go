package bayes

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// FreshDraw is what the calibrated band sees of a problem's fresh draw
// (Problem.Fresh): its domain, inputs and terms (points, measured targets,
// residuals), never the exact solution. NewFreshDraw copies these out of a
// problem and drops Exact, Fresh and Redraw, so a band computed from a
// FreshDraw cannot evaluate the solution it is judged against.
type FreshDraw struct {
	p *pde.Problem // a copy with Exact, Fresh and Redraw nil
}

// NewFreshDraw keeps what the calibrated band may use of q, a problem drawn
// anew (usually p.Fresh()): everything but its exact solution.
func NewFreshDraw(q *pde.Problem) (FreshDraw, error) {
	if q == nil {
		return FreshDraw{}, fmt.Errorf("fresh draw: no problem; pass the problem's Fresh() draw")
	}
	c := *q
	c.Exact, c.Fresh, c.Redraw = nil, nil, nil
	c.Terms = slices.Clone(q.Terms)
	c.Params = nil
	return FreshDraw{p: &c}, nil
}

// problem is the draw as a problem without an exact solution; an error for
// the zero FreshDraw or one that would carry an exact solution.
func (d FreshDraw) problem() (*pde.Problem, error) {
	switch {
	case d.p == nil:
		return nil, fmt.Errorf("calibrated band: no fresh points; make them with bayes.NewFreshDraw(p.Fresh())")
	case d.p.Exact != nil || d.p.Fresh != nil:
		return nil, fmt.Errorf("calibrated band: the fresh draw carries an exact solution; make it with bayes.NewFreshDraw")
	}
	return d.p, nil
}

// Calibrated returns a copy of f whose Predict gives the calibrated band:
// A rebuilt at w_MP with each inferred beta group's precision replaced by
// the geometric mean of the evidence's beta (the residuals at the training
// points, which the fit has driven down there) and the held-out precision
// 1/rms^2 of the same network's residuals at the fresh points (which
// overstate the solution error they cause): beta_cal = sqrt(beta /
// rms_fresh^2), used only where it is below beta. Known-noise betas are
// kept. The evidence's band and the held-out band bracket the error on
// every study measured (docs/results.md, section 5); their geometric mean
// is the band that covered 0.92-0.96 of the grid on the selected heat,
// wave and Burgers fits. It uses the fit's network, hyperparameters and
// Hessians and the fresh draw's points and measurements; it has no access
// to an exact solution. As with HeldOut, only the copy's predictions are
// meaningful: it must not be trained or ranked.
func (f *Fit) Calibrated(fresh FreshDraw) (*Fit, error) {
	q, err := fresh.problem()
	if err != nil {
		return nil, err
	}
	held, err := f.freshRMS(q)
	if err != nil {
		return nil, err
	}
	l, beta, err := f.calibratedLaplace(held)
	if err != nil {
		return nil, err
	}
	g := *f
	g.Beta, g.Laplace = beta, l
	return &g, nil
}

// calibratedLaplace is Calibrated's Laplace approximation and betas, given
// the rms residual of each beta group at the fresh points.
func (f *Fit) calibratedLaplace(held []float64) (*Laplace, []float64, error) {
	if f.Laplace == nil {
		return nil, nil, fmt.Errorf("calibrated band: the fit has no Laplace approximation (status %s)", f.Status)
	}
	beta := calibratedBetas(f.Beta, f.inferred, held)
	l, err := NewLaplace(f.Curvature(), f.Alpha, beta)
	if err != nil {
		return nil, nil, fmt.Errorf("calibrated band: %w", err)
	}
	return l, beta, nil
}

// calibratedBetas is sqrt(beta_t / held_t^2) for each inferred group whose
// fresh rms held_t says a precision below beta_t; other betas are kept.
func calibratedBetas(beta []float64, inferred func(int) bool, held []float64) []float64 {
	out := slices.Clone(beta)
	for t, h := range held {
		if inferred(t) && h > 0 {
			out[t] = math.Min(beta[t], math.Sqrt(beta[t])/h)
		}
	}
	return out
}

// OverconfidentRatio is the fresh-to-training rms residual ratio of an
// inferred beta group above which a fit's record warns that the paper's
// 2-sigma band is likely overconfident (chosen from the ensembles of
// docs/results.md, section 5).
const OverconfidentRatio = 2.0

// overconfidenceWarnings returns the record's warning when an inferred beta
// group's residuals at fresh points exceed OverconfidentRatio times those at
// its training points; nil otherwise. Only residuals are used.
func overconfidenceWarnings(names []string, inferred func(int) bool, train, fresh []float64) []string {
	worst, at := 0.0, -1
	for t := range train {
		if q := fresh[t] / train[t]; inferred(t) && q > worst && !math.IsInf(q, 0) {
			worst, at = q, t
		}
	}
	if at < 0 || !(worst > OverconfidentRatio) {
		return nil
	}
	return []string{fmt.Sprintf("the 2-sigma band is likely overconfident: the %s residuals are x%.2g larger at fresh points than at the training points (above %g); use the calibrated band",
		names[at], worst, OverconfidentRatio)}
}
