package band

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// ResidualCheck returns, per beta group of f, the rms residual of f's
// network at its training points and at the points of fresh, f's problem
// drawn anew (FreshDrawOf). beta = 1/rms^2 at the training points is what
// the evidence sees; a fresh rms several times larger says the network fits
// its residuals where they are evaluated and not between, and that the
// 2-sigma band is overconfident by about that factor (docs/results/coverage.md).
func ResidualCheck(f *bayes.Fit, fresh FreshDraw) (train, held []float64, err error) {
	held, err = freshRMS(f, fresh)
	if err != nil {
		return nil, nil, err
	}
	return f.Model.GroupRMS(f.Beta), held, nil
}

// freshRMS is the rms residual of each beta group at the points of fresh.
func freshRMS(f *bayes.Fit, fresh FreshDraw) ([]float64, error) {
	m2, err := fresh.model(f)
	if err != nil {
		return nil, err
	}
	return m2.GroupRMS(f.Beta), nil
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
func HeldOut(f *bayes.Fit, fresh FreshDraw) (*bayes.Fit, error) {
	held, err := freshRMS(f, fresh)
	if err != nil {
		return nil, err
	}
	return heldOut(f, held)
}

// heldOut is HeldOut given the rms residual of each beta group at the
// fresh points.
func heldOut(f *bayes.Fit, held []float64) (*bayes.Fit, error) {
	beta, err := heldOutBetas(f, held)
	if err != nil {
		return nil, err
	}
	return (&Band{Method: "heldout", Beta: beta}).On(f)
}

// heldOutBetas are the held-out band's betas given the rms residual of
// each beta group at the fresh points.
func heldOutBetas(f *bayes.Fit, held []float64) ([]float64, error) {
	if f.Laplace == nil {
		return nil, fmt.Errorf("held-out band: the fit has no Laplace approximation (status %s)", f.Status)
	}
	beta := slices.Clone(f.Beta)
	for t, h := range held {
		if f.Inferred(t) && h > 0 {
			beta[t] = math.Min(beta[t], 1/(h*h))
		}
	}
	return beta, nil
}
