package bayes

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// ResidualRMS is one beta group's rms residual at the training points and
// at fresh points of the same kinds (Problem.Fresh).
type ResidualRMS struct {
	Train *float64 `json:"train"`
	Fresh *float64 `json:"fresh"`
}

// ResidualCheck returns, per beta group of f, the rms residual of f's
// network at its training points and at the points of fresh, a problem with
// the same terms drawn anew. beta = 1/rms^2 at the training points is what
// the evidence sees; a fresh rms several times larger says the network fits
// its residuals where they are evaluated and not between, and that the
// 2-sigma band is overconfident by about that factor (docs/results/coverage.md).
func (f *Fit) ResidualCheck(fresh *pde.Problem) (train, held []float64, err error) {
	held, err = f.freshRMS(fresh)
	if err != nil {
		return nil, nil, err
	}
	return groupRMS(f.Model, f.Beta), held, nil
}

// freshRMS is the rms residual of each beta group at the points of fresh.
func (f *Fit) freshRMS(fresh *pde.Problem) ([]float64, error) {
	m2, err := f.freshModel(fresh)
	if err != nil {
		return nil, err
	}
	return groupRMS(m2, f.Beta), nil
}

// freshModel is f's model at its weights on the points of fresh.
func (f *Fit) freshModel(fresh *pde.Problem) (*Model, error) {
	m := f.Model
	m2, err := m.sibling(fresh, f.Settings.AlphaMode, f.Settings.BetaMode)
	if err != nil {
		return nil, fmt.Errorf("fresh points: %w", err)
	}
	if len(m2.N) != len(m.N) {
		return nil, fmt.Errorf("fresh points: %d beta groups, the fit has %d", len(m2.N), len(m.N))
	}
	return m2, nil
}

// HeldOut returns a copy of f whose Laplace approximation takes, for each
// inferred beta group, the precision of its residuals at the points of
// fresh, beta_t = 1/rms_fresh^2, where that is below the fitted beta (a
// known-noise beta and a smaller fitted one are kept). Its Predict and
// GridErrors give the band of a network judged by how it does between its
// training points. On the selected fits of the paper's heat, wave and
// Burgers it covers 0.996-1.000 of the grid with sigma 2.9-19x wider, where
// the evidence's band covers 0.54-0.75; on wave-full both cover about 0.87
// (docs/results/coverage.md). This is not the paper's method. Only the
// copy's predictions are meaningful: its log evidence is that of the
// held-out betas, and it shares f's model, alpha and history, so it must
// not be trained or ranked.
func (f *Fit) HeldOut(fresh *pde.Problem) (*Fit, error) {
	held, err := f.freshRMS(fresh)
	if err != nil {
		return nil, err
	}
	l, beta, err := f.heldOutLaplace(held)
	if err != nil {
		return nil, err
	}
	g := *f
	g.Beta, g.Laplace = beta, l
	return &g, nil
}

// heldOutLaplace is HeldOut's Laplace approximation and betas, given the
// rms residual of each beta group at the fresh points.
func (f *Fit) heldOutLaplace(held []float64) (*Laplace, []float64, error) {
	if f.Laplace == nil {
		return nil, nil, fmt.Errorf("held-out band: the fit has no Laplace approximation (status %s)", f.Status)
	}
	beta := slices.Clone(f.Beta)
	for t, h := range held {
		if f.inferred(t) && h > 0 {
			beta[t] = math.Min(beta[t], 1/(h*h))
		}
	}
	l, err := NewLaplace(f.Curvature(), f.Alpha, beta)
	if err != nil {
		return nil, nil, fmt.Errorf("held-out band: %w", err)
	}
	return l, beta, nil
}

// groupRMS is sqrt(2 E_D^t / N_t) per beta group at m's current weights.
func groupRMS(m *Model, beta []float64) []float64 {
	ed := make([]float64, len(beta))
	m.DataLoss(beta, ed, make([]float64, m.NumWeights()))
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

// ResidualLine lists each beta group's rms residual at the training and at
// fresh points and their ratio, e.g. "pde 0.034 -> 1.28 (x37), ..."; "" when
// the record has no residual check.
func (r *Result) ResidualLine() string {
	if len(r.ResidualRMS) == 0 {
		return ""
	}
	var parts []string
	for _, n := range r.BetaNames {
		c := r.ResidualRMS[n]
		s := fmt.Sprintf("%s %s -> %s", strings.TrimPrefix(n, "beta_"), fmtNum(Val(c.Train), "%.3g"), fmtNum(Val(c.Fresh), "%.3g"))
		if c.Train != nil && c.Fresh != nil && *c.Train > 0 {
			s += fmt.Sprintf(" (x%.2g)", *c.Fresh / *c.Train)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
