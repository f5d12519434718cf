// Package score measures a fit's answers against the truth: the errors of
// a prediction on a problem's grid against its exact or reference
// solution (relative L2, MSE, max error, the coverage of the 2σ band,
// PINNacle's joint L2RE over the fields of a system) and an unknown
// coefficient's estimate and 95 % interval against its true value, with
// the coverage of such intervals over repeated draws of the data. An
// unknown is inferred on its own scale (ln of the value for a Positive
// one: UnknownScale), where its Laplace marginal is Gaussian, and reported
// on the natural one (UnknownNatural).
//
// It knows no network: a prediction is any function of points
// (bayes.Fit.PredictOutput), and Fit.GridErrors and Fit.Unknowns fill
// its types from a fit; pkg/record adds the other bands' coverage and q95.
package score

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Errors of a fit on a grid against the exact solution, NaN where
// undefined. bayes.Fit.GridErrors fills the paper band's fields;
// record.ErrorsOf fills them all, the other bands' included (what a
// record's "errors" holds).
type Errors struct {
	RelL2      float64
	MSE        float64
	MaxAbs     float64
	Coverage2S float64 // fraction of grid points with |u - u*| <= 2 sigma, of those with sigma > 0
	GridN      int     // grid points used
	// Q95 is the 95 % quantile over the grid of |u - u*| / sigma for the
	// paper's band (1.96 for a calibrated Gaussian band).
	Q95 float64
	// Bands are the other bands' errors by method name (pkg/band's
	// Methods: "heldout", "calibrated", ...); nil when there are none.
	Bands map[string]Band
	// The held-out band's coverage and sigma ratio, and the calibrated
	// band's coverage, q95 and sigma ratio: Bands["heldout"] and
	// Bands["calibrated"] under the names records have always had.
	Coverage2SHeldOut, SigmaRatioHeldOut                      float64
	Coverage2SCalibrated, Q95Calibrated, SigmaRatioCalibrated float64
	// Outputs holds each output's errors for a problem of several outputs
	// (Problem.Outputs), whose other fields are then over all outputs
	// (RelL2 is PINNacle's joint L2RE, ||Y - Y*||_F / ||Y*||_F); nil for
	// one.
	Outputs map[string]Errors
}

// Predictor gives the mean and the band's sigma (nil without a band) of
// the named output of a problem at points; "" is the first output.
// bayes.Fit.PredictOutput is one.
type Predictor func(output string, points [][]float64) (mean, sigma []float64, err error)

// OnGrid evaluates predict on p's n x n grid (Problem.Grid) against p's
// exact solution: the errors and the band's coverage. With several
// outputs, the errors are over all of them and Outputs holds each
// output's. A problem without an exact solution, or an exact solution or
// a mean that is not finite, is an error naming the point; so is n < 1.
func OnGrid(p *pde.Problem, n int, predict Predictor) (Errors, error) {
	if n < 1 {
		return Errors{}, fmt.Errorf("problem %q: a grid of %d points a side; give at least 1", p.Name, n)
	}
	if len(p.OutputNames()) > 1 {
		return onGridOutputs(p, n, predict)
	}
	pts, exacts, err := p.GridOutputs(n)
	if err != nil {
		return Errors{}, err
	}
	if exacts == nil {
		return Errors{}, fmt.Errorf("problem %q has no exact solution", p.Name)
	}
	exact := exacts[0]
	if k := slices.IndexFunc(exact, notFinite); k >= 0 {
		return Errors{}, fmt.Errorf("problem %q: the exact solution at %v is %v", p.Name, pts[k], exact[k])
	}
	mean, sigma, err := predict("", pts)
	if err != nil {
		return Errors{}, err
	}
	if k := slices.IndexFunc(mean, notFinite); k >= 0 {
		return Errors{}, fmt.Errorf("problem %q: the fit's mean at %v is %v", p.Name, pts[k], mean[k])
	}
	return Compute(mean, sigma, exact), nil
}

// onGridOutputs is OnGrid for a problem of several outputs: the errors
// over all outputs, and each output's in Outputs.
func onGridOutputs(p *pde.Problem, n int, predict Predictor) (Errors, error) {
	pts, exact, err := p.GridOutputs(n)
	if err != nil {
		return Errors{}, err
	}
	if exact == nil {
		return Errors{}, fmt.Errorf("problem %q has no exact solution", p.Name)
	}
	names := p.OutputNames()
	var allMean, allSigma, allExact []float64
	per := make(map[string]Errors, len(names))
	for k, name := range names {
		if i := slices.IndexFunc(exact[k], notFinite); i >= 0 {
			return Errors{}, fmt.Errorf("problem %q: the exact %s at %v is %v", p.Name, name, pts[i], exact[k][i])
		}
		mean, sigma, err := predict(name, pts)
		if err != nil {
			return Errors{}, err
		}
		if i := slices.IndexFunc(mean, notFinite); i >= 0 {
			return Errors{}, fmt.Errorf("problem %q: the fit's mean of %s at %v is %v", p.Name, name, pts[i], mean[i])
		}
		per[name] = Compute(mean, sigma, exact[k])
		allMean, allExact = append(allMean, mean...), append(allExact, exact[k]...)
		if sigma != nil {
			allSigma = append(allSigma, sigma...)
		}
	}
	if len(allSigma) != len(allMean) {
		allSigma = nil
	}
	e := Compute(allMean, allSigma, allExact)
	e.GridN = len(pts)
	e.Outputs = per
	return e, nil
}

// Compute compares predictions (with optional sigma) with the truth. The
// band is scored where the output depends on the weights (sigma above 0):
// at a point that a hard constraint (pde.Transform) fixes, sigma is 0 and
// the error is the reference's own, which no band can cover. Compute
// panics with a LengthError when exact, or a non-nil sigma, is not as long
// as mean: a programmer's mistake, not a property of the fit.
func Compute(mean, sigma, exact []float64) Errors {
	if len(exact) != len(mean) || sigma != nil && len(sigma) != len(mean) {
		panic(LengthError{Mean: len(mean), Sigma: len(sigma), Exact: len(exact)})
	}
	var num, den, maxAbs float64
	covered, banded := 0, 0
	for i, u := range mean {
		d := u - exact[i]
		num += d * d
		den += exact[i] * exact[i]
		maxAbs = math.Max(maxAbs, math.Abs(d))
		if sigma != nil && sigma[i] != 0 {
			banded++
			if math.Abs(d) <= 2*sigma[i] {
				covered++
			}
		}
	}
	nan := math.NaN()
	e := Errors{RelL2: math.Sqrt(num / den), MSE: num / float64(len(mean)), MaxAbs: maxAbs, GridN: len(mean),
		Q95: nan, Coverage2SHeldOut: nan, SigmaRatioHeldOut: nan, Coverage2SCalibrated: nan, Q95Calibrated: nan, SigmaRatioCalibrated: nan}
	if sigma != nil {
		e.Coverage2S = float64(covered) / float64(banded)
	}
	return e
}

func notFinite(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// LengthError is Compute's panic value: the lengths of its slices differ.
type LengthError struct{ Mean, Sigma, Exact int }

// Error says which lengths differ.
func (e LengthError) Error() string {
	return fmt.Sprintf("score: %d predictions, %d sigmas and %d exact values: give one of each per point (sigma may be nil)", e.Mean, e.Sigma, e.Exact)
}

// Band is how another band of a fit does on the grid: its coverage of
// the 2-sigma band, its q95 of |u - u*| / sigma, and its sigma over the
// paper band's, median over the points (NaN where undefined).
type Band struct {
	Coverage2S, Q95, SigmaRatio float64
}

// BandOf scores sigma, a band around mean, against exact; base is the
// paper band's sigma at the same points.
func BandOf(mean, sigma, base, exact []float64) Band {
	return Band{Coverage2S: Compute(mean, sigma, exact).Coverage2S, Q95: QuantileZ(mean, sigma, exact, 0.95), SigmaRatio: MedianRatio(sigma, base)}
}

// MedianRatio is the median of s[i]/base[i] over the points where it is
// finite; NaN when there is none.
func MedianRatio(s, base []float64) float64 {
	var ratio []float64
	for i := range s {
		if q := s[i] / base[i]; !math.IsNaN(q) && !math.IsInf(q, 0) { // sigma 0: no ratio
			ratio = append(ratio, q)
		}
	}
	if len(ratio) == 0 {
		return math.NaN()
	}
	slices.Sort(ratio)
	return ratio[len(ratio)/2]
}
