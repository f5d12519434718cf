package bayes

import "slices"

// ModelCopy returns a Model of its own, compiled on a copy of f's network
// at f's weights and unknowns, with copies of f's alphas and betas: what a
// posterior density needs to run concurrently with others (pkg/posterior),
// and a check that must leave f's own untouched (pkg/band's K-fold check).
// It panics if f has no Model or if the Model cannot be rebuilt (a Fit
// from Train always can).
func (f *Fit) ModelCopy() (cm *Model, alpha, beta []float64) {
	if f == nil || f.Model == nil {
		panic("bayes: ModelCopy: the fit has no Model")
	}
	m := f.Model
	cm, err := m.sibling(m.Problem, m.BetaNames, m.TermGroup)
	if err != nil {
		panic("bayes: ModelCopy: " + err.Error())
	}
	return cm, slices.Clone(f.Alpha), slices.Clone(f.Beta)
}
