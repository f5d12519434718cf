package band

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// AssessAndScore is all a record holds of f's bands, gathered in one
// place: f's assessment at its problem's fresh points (AssessFresh; nil
// without them) and its errors on the grid of gridN with every band of
// the assessment scored (GridErrors; nil when they are undefined: gridN
// below 1, no exact solution, a prediction that is not finite).
func AssessAndScore(f *bayes.Fit, gridN int) (*Assessment, *score.Errors) {
	a, _ := AssessFresh(f) // nil without fresh points: no band
	if gridN < 1 {
		return a, nil
	}
	e, err := GridErrors(f, a, gridN)
	if err != nil {
		return a, nil
	}
	return a, &e
}

// GridErrors is f's errors against the exact solution on the grid of
// gridN (gridN x gridN points for two inputs, 2 gridN for one; the
// problem's TestPoints where it has them), with q95 and, when a (f's
// assessment) is not nil, each of its bands scored (score.BandOf) under
// its method in Errors.Bands: the same Jacobian of each block for every
// band, another A. With several outputs they are over all outputs (RelL2
// is PINNacle's joint L2RE) and Outputs holds each output's. NaN where
// undefined (no Laplace approximation). An error when the problem has no
// exact solution, more than two inputs and no TestPoints, or a prediction
// that is not finite.
func GridErrors(f *bayes.Fit, a *Assessment, gridN int) (score.Errors, error) {
	p := f.Model.Problem
	switch {
	case !p.HasExact():
		return score.Errors{}, fmt.Errorf("problem %q has no exact solution", p.Name)
	case p.Dim() > 2 && p.TestPoints == nil:
		return score.Errors{}, fmt.Errorf("problem %q: %d inputs and no TestPoints; grid errors are for 1 or 2", p.Name, p.Dim())
	}
	n := gridN
	if p.Dim() == 1 {
		n = 2 * gridN
	}
	pts, exact, err := p.GridOutputs(n)
	if err != nil {
		return score.Errors{}, err
	}
	// The other bands: the same Jacobian, another A. A band whose A does
	// not factorize is left out.
	var others []namedFit
	if a != nil && f.Laplace != nil {
		for _, b := range a.Bands {
			if g, err := b.On(f); err == nil {
				others = append(others, namedFit{b.Method, g})
			}
		}
	}
	names := p.OutputNames()
	var all gridBands
	per := make(map[string]score.Errors, len(names))
	for k, name := range names {
		b, err := outputBands(f, others, name, pts, exact[k])
		if err != nil {
			return score.Errors{}, err
		}
		if len(names) == 1 {
			return b.errors(), nil
		}
		per[name] = b.errors()
		all = all.join(b, k == 0)
	}
	e := all.errors()
	e.GridN = len(pts)
	e.Outputs = per
	return e, nil
}

// namedFit is a fit that predicts the band of the named method
// (band.Band.On).
type namedFit struct {
	method string
	fit    *bayes.Fit
}

// gridBands are one output's (or every output's, joined) mean, exact
// values and bands on the grid: the paper's sigma and each other band's,
// by method, in the assessment's order (a band either lacks is dropped
// when joined).
type gridBands struct {
	mean, exact, sigma []float64
	methods            []string
	others             [][]float64
}

// outputBands is the named output's gridBands at pts.
func outputBands(f *bayes.Fit, others []namedFit, name string, pts [][]float64, exact []float64) (gridBands, error) {
	b := gridBands{mean: make([]float64, len(pts)), exact: exact}
	if f.Laplace != nil {
		b.sigma = make([]float64, len(pts))
		for _, o := range others {
			b.methods, b.others = append(b.methods, o.method), append(b.others, make([]float64, len(pts)))
		}
	}
	// the same Jacobian for every band, block by block
	// (bayes.JacobianBlockValues), and each A's sigmas once a block: bands
	// of the same A (the fit's own, a calibrated band that only scales it)
	// share them
	err := f.JacobianOutputBlocks(name, pts, func(lo int, mean, J []float64) error {
		copy(b.mean[lo:], mean)
		if J == nil {
			return nil
		}
		done := map[*curv.Laplace][]float64{}
		sigmas := func(l *curv.Laplace) []float64 {
			if _, ok := done[l]; !ok {
				done[l] = l.Sigmas(J, len(mean))
			}
			return done[l]
		}
		copy(b.sigma[lo:], sigmas(f.Laplace))
		for i, o := range others {
			copy(b.others[i][lo:], sigmas(o.fit.Laplace))
		}
		return nil
	})
	if err != nil {
		return gridBands{}, err
	}
	for i, o := range others {
		o.fit.WidenOutput(name, pts, b.others[i])
	}
	return b, nil
}

// join appends c's values to b's; a band that either lacks is dropped.
func (b gridBands) join(c gridBands, first bool) gridBands {
	cat := func(x, y []float64) []float64 {
		if (x == nil && !first) || y == nil {
			return nil
		}
		return append(slices.Clone(x), y...)
	}
	out := gridBands{mean: cat(b.mean, c.mean), exact: cat(b.exact, c.exact), sigma: cat(b.sigma, c.sigma)}
	for i, m := range c.methods {
		var prev []float64
		if j := slices.Index(b.methods, m); j >= 0 {
			prev = b.others[j]
		}
		if s := cat(prev, c.others[i]); s != nil {
			out.methods, out.others = append(out.methods, m), append(out.others, s)
		}
	}
	return out
}

// errors are the errors of b, NaN where undefined.
func (b gridBands) errors() score.Errors {
	e := score.Compute(b.mean, b.sigma, b.exact)
	if b.sigma == nil || math.IsNaN(e.MSE) || math.IsInf(e.MSE, 0) {
		e.Coverage2S = math.NaN()
		return e
	}
	e.Q95 = score.QuantileZ(b.mean, b.sigma, b.exact, 0.95)
	for i, m := range b.methods {
		if e.Bands == nil {
			e.Bands = make(map[string]score.Band, len(b.methods))
		}
		e.Bands[m] = score.BandOf(b.mean, b.others[i], b.sigma, b.exact)
	}
	if h, ok := e.Bands["heldout"]; ok {
		e.Coverage2SHeldOut, e.SigmaRatioHeldOut = h.Coverage2S, h.SigmaRatio
	}
	if c, ok := e.Bands["calibrated"]; ok {
		e.Coverage2SCalibrated, e.Q95Calibrated, e.SigmaRatioCalibrated = c.Coverage2S, c.Q95, c.SigmaRatio
	}
	return e
}
