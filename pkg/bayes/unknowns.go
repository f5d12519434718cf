package bayes

import (
	"math"

	"github.com/evidence-pinn/bpinn/pkg/score"
)

// Unknowns returns the fit's unknown coefficients with their Laplace
// marginals (SD and interval NaN without a Laplace approximation), in the
// problem's order; nil for a forward problem.
func (f *Fit) Unknowns() []score.Unknown {
	m := f.Model
	us := m.Problem.Unknowns
	if len(us) == 0 {
		return nil
	}
	nw := m.Net.NumWeights()
	out := make([]score.Unknown, len(us))
	for k, u := range us {
		sd := math.NaN()
		if f.Laplace != nil {
			sd = math.Sqrt(f.Laplace.AInv.At(nw+k, nw+k))
		}
		out[k] = score.NewUnknown(u, m.Theta[nw+k], sd)
	}
	return out
}
