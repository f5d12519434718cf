package bayes

import (
	"fmt"
	"math"
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
// 2-sigma band is overconfident by about that factor (docs/results.md,
// section 5).
func (f *Fit) ResidualCheck(fresh *pde.Problem) (train, held []float64, err error) {
	m := f.Model
	m2, err := NewModel(fresh, m.Net, f.Settings.AlphaMode, f.Settings.BetaMode)
	if err != nil {
		return nil, nil, fmt.Errorf("fresh points: %w", err)
	}
	if len(m2.N) != len(m.N) {
		return nil, nil, fmt.Errorf("fresh points: %d beta groups, the fit has %d", len(m2.N), len(m.N))
	}
	return groupRMS(m, f.Beta), groupRMS(m2, f.Beta), nil
}

// groupRMS is sqrt(2 E_D^t / N_t) per beta group at m's current weights.
func groupRMS(m *Model, beta []float64) []float64 {
	ed := make([]float64, len(beta))
	m.DataLoss(beta, ed, make([]float64, m.NumWeights()))
	for k := range ed {
		ed[k] = math.Sqrt(2 * ed[k] / float64(m.N[k]))
	}
	return ed
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
