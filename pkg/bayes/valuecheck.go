package bayes

import (
	"math"
)

// valueCheck is the value check of the calibrated band: the factor by
// which band g widens for the errors it can see at the fresh points of its
// value terms. A value term is a condition on u itself, whose residual is u
// minus its target (pde.DataResidual: a Dirichlet or initial condition);
// at a fresh point of one, the residual is the solution's error, so
// z = |r| / sigma is observable without the exact solution. Widening by
// q95(z) / 2 would put 95 % of those errors within 2 sigma; the factor is
// the geometric mean of that and 1, sqrt(max(1, q95(z) / 2)), and never
// narrows. The two bracket the interior's need as the two precisions of
// calibratedBetas do: where errors travel from the boundary into the domain
// unchanged (wave-full: an initial misfit carried along the
// characteristics, which no ratio of residual rms shows) the full factor is
// right; where diffusion damps them (heat, notebook 07's
// advection-diffusion) the boundary, at which the band is narrowest,
// overstates it and the full factor makes the band too wide (coverage
// 0.993 on advection-diffusion; docs/results.md section 5). Measurements
// (Measured terms) are left out: their residuals carry noise. res is each
// term's residual at the fresh points (fresh's weights are g's).
func (g *Fit) valueCheck(fresh *Model, res [][]float64) float64 {
	var z []float64
	for k, tm := range fresh.Problem.Terms {
		if tm.Measured || len(tm.Points) == 0 {
			continue
		}
		u, s, err := g.Predict(tm.Points) // g's band before this check
		if err != nil || !isValueResidual(res[k], u, tm.Target) {
			continue
		}
		for i, r := range res[k] {
			if q := math.Abs(r) / s[i]; !math.IsNaN(q) {
				z = append(z, q)
			}
		}
	}
	if len(z) == 0 {
		return 1
	}
	return math.Sqrt(math.Max(1, quantileOf(z, 0.95)/2))
}

// isValueResidual reports whether res is u - target (or target - u) at
// every point, target nil meaning 0, to rounding: the residual of a
// condition on the value itself.
func isValueResidual(res, u, target []float64) bool {
	if len(res) != len(u) || target != nil && len(target) != len(u) {
		return false
	}
	for _, sign := range []float64{1, -1} {
		ok := true
		for i, r := range res {
			y := 0.0
			if target != nil {
				y = target[i]
			}
			if math.Abs(sign*(u[i]-y)-r) > 1e-9*(math.Abs(u[i])+math.Abs(y)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
