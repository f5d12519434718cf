package record

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Restore rebuilds the fit that r records, on the problem p it was trained
// on: the network at r's weights, its alphas and betas, its settings, its
// history, and the Laplace approximation at those weights. The Laplace
// approximation is a function of the weights, the hyperparameters and the
// data alone, so the restored fit predicts the same means and bands as the
// fit that wrote r. A program that did not train the fit can thus draw it
// from a results file: a notebook cell (GoNB runs every cell as a new
// program), or a report over an earlier run.
//
// A diverged fit is restored without a Laplace approximation, as it was
// trained; so is one whose A was not positive definite.
//
// Restore returns an error when r is nil, when r cannot come from p (another problem,
// other parameters, other training points or targets: build p with the
// options and data seed of the run), when r has no weights (they were not
// finite), or when the recomputed log evidence differs from the recorded
// one (a record written by another version of this package).
func Restore(p *pde.Problem, r *Result) (*bayes.Fit, error) {
	if r == nil { // as BestResult returns for fits without evidence
		return nil, errors.New("record: Restore: no result (no fit has a defined log evidence?)")
	}
	fail := func(format string, a ...any) (*bayes.Fit, error) {
		return nil, fmt.Errorf("record: Restore: seed %d: %s", r.Seed, fmt.Sprintf(format, a...))
	}
	if r.Problem != p.Name {
		return fail("a fit of problem %q, not %q", r.Problem, p.Name)
	}
	if err := sameData(p, r); err != nil {
		return fail("%v: build the problem with the options and data seed of the run", err)
	}
	if r.Weights == nil {
		return fail("no weights in the record (status %s: they were not finite)", r.Status)
	}
	status, err := bayes.ParseStatus(r.Status)
	if err != nil {
		return fail("%v", err)
	}
	s, err := r.settings()
	if err != nil {
		return fail("%v", err)
	}
	m, err := bayes.NewModel(p, r.Weights.Clone(), s.AlphaMode, s.BetaMode)
	if err != nil {
		return fail("%v", err)
	}
	if err := setUnknowns(m, r.Unknowns); err != nil {
		return fail("%v", err)
	}
	alphaNames := make([]string, len(m.Alphas))
	for i, g := range m.Alphas {
		alphaNames[i] = g.Name
	}
	alpha, err := hyperValues("alpha", alphaNames, r.AlphaNames, r.Alpha)
	if err != nil {
		return fail("%v", err)
	}
	beta, err := hyperValues("beta", m.BetaNames, r.BetaNames, r.Beta)
	if err != nil {
		return fail("%v", err)
	}
	// E_w, E_D and the Laplace approximation at the recorded weights; a
	// diverged fit has none, as trained
	f := bayes.FitAt(m, s, alpha, beta, status != bayes.StatusDiverged)
	f.Status, f.Reason, f.Epochs, f.Hyper, f.Seconds = status, r.Reason, r.Epochs, r.Hyper, r.Seconds
	f.History = make([]bayes.HistoryPoint, len(r.History))
	for i, h := range r.History {
		f.History[i] = bayes.HistoryPoint{Epoch: h.Epoch, ET: Val(h.ET), Alpha: slices.Clone(h.Alpha), Beta: slices.Clone(h.Beta)}
		if h.EHyp != nil { // nil: no hyperparameter step yet, which Train records as 0
			f.History[i].EHyp = *h.EHyp
		}
	}
	if pr := r.Polish; pr != nil {
		f.Polish = &nn.PolishResult{F0: Val(pr.F0), F: Val(pr.F), Iterations: pr.Iterations, Evals: pr.Evals, Status: pr.Status}
	}
	if status == bayes.StatusDiverged {
		return f, nil
	}
	f.Warnings = slices.Clone(r.Warnings)
	if status == bayes.StatusNotPD {
		f.Laplace = nil
	}
	if want := r.LogEvidence; want != nil {
		got := math.NaN()
		if f.Laplace != nil && f.Laplace.OccamOK {
			got = f.Laplace.LogEvidence
		}
		if !(math.Abs(got-*want) <= 1e-9*math.Max(1, math.Abs(*want))) {
			return fail("the recomputed log evidence %v differs from the recorded %v: the record comes from another version of the code", got, *want)
		}
	}
	return f, nil
}

// settings returns the resolved Settings r was trained with: every field
// RunConfig.Settings records, and the network and hyperparameter layout
// from r's own columns.
func (r *Result) settings() (bayes.Settings, error) {
	s, err := readSettings(r.RunConfig.Settings)
	if err != nil {
		return s, err
	}
	s.Seed = r.Seed
	if n := len(r.Architecture); n >= 2 {
		s.Hidden = slices.Clone(r.Architecture[1 : n-1])
	}
	s.Activation, s.Hessian = nn.Activation(r.Activation), bayes.HessianKind(r.Hessian)
	s.AlphaMode, s.BetaMode = nn.AlphaMode(r.AlphaMode), pde.BetaMode(r.BetaMode)
	return s, nil
}

// HeldBetas reports, for each of r's BetaNames, whether the fit held that
// beta at a known noise (Settings.KnownNoise: 1/std^2) instead of inferring
// it; all false when r records no settings.
func (r *Result) HeldBetas() []bool {
	held := make([]bool, len(r.BetaNames))
	s, err := r.settings()
	if err != nil {
		return held
	}
	for t, b := range s.KnownBetas(r.BetaNames) {
		held[t] = !math.IsNaN(b)
	}
	return held
}

// sameData reports how r's problem differs from p: parameters, terms,
// points or targets.
func sameData(p *pde.Problem, r *Result) error {
	if !maps.Equal(p.Params, r.Params) {
		return fmt.Errorf("parameters %v, the run's %v", p.Params, r.Params)
	}
	if len(p.Terms) != len(r.Terms) {
		return fmt.Errorf("%d loss terms, the run's %d", len(p.Terms), len(r.Terms))
	}
	for i, t := range p.Terms {
		rt := r.Terms[i]
		if t.Name != rt.Name {
			return fmt.Errorf("term %d is %q, the run's %q", i, t.Name, rt.Name)
		}
		if !slices.EqualFunc(t.Points, rt.Points, slices.Equal) || !slices.Equal(t.Target, rt.Target) {
			return fmt.Errorf("term %q has other points or targets than the run's", t.Name)
		}
	}
	return nil
}

// hyperValues returns the recorded values of the named hyperparameters in
// the model's order.
func hyperValues(kind string, names, recorded []string, values map[string]*float64) ([]float64, error) {
	if !slices.Equal(names, recorded) {
		return nil, fmt.Errorf("%s groups %v, the run's %v", kind, names, recorded)
	}
	out := make([]float64, len(names))
	for i, n := range names {
		v := values[n]
		if v == nil {
			return nil, fmt.Errorf("%s %s is not finite in the record", kind, n)
		}
		out[i] = *v
	}
	return out, nil
}

// BestResult returns the result of highest log evidence, ties broken by the
// lower seed (the order of Summarize), or nil when no result has a defined
// log evidence. It points into rs.
func BestResult(rs []Result) *Result {
	var best *Result
	for i := range rs {
		r := &rs[i]
		if r.LogEvidence == nil {
			continue
		}
		if best == nil || *r.LogEvidence > *best.LogEvidence || *r.LogEvidence == *best.LogEvidence && r.Seed < best.Seed {
			best = r
		}
	}
	return best
}
