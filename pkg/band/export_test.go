package band

import (
	"math"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// Internals the external tests (package band_test) check.
var (
	CalibratedBetas        = calibratedBetas
	Overconfident          = overconfident
	OverconfidenceWarnings = overconfidenceWarnings
	IsValueResidual        = isValueResidual
	GateRMS                = gateRMS
	CalibrationBase        = calibrationBase
	CalibratedLaplace      = calibratedLaplace
	HeldOutRounds          = heldOutRounds
	ValueQ95               = valueQ95
	ValueCheck             = valueCheck
	HeldOutAt              = heldOut
	FreshRMS               = freshRMS
	EstimatedScales        = estimatedScales
)

// WithoutEstimate is d without the redraws the error estimate reads, so
// that the calibrated band and the warnings come from the residual and
// value checks alone (the tests of those checks).
func WithoutEstimate(d FreshDraw) FreshDraw {
	d.extra = nil
	return d
}

// Widening is the calibrated band's widening of sigma: Local (nil-safe)
// then the value check's factor Scale.
type Widening struct {
	Scale float64
	Local func(points [][]float64, sigma []float64)
}

// CalibratedWidening is the widening of f's calibrated band on fresh by
// the residual and value checks (the error estimate left out).
func CalibratedWidening(f *bayes.Fit, fresh FreshDraw) (Widening, error) {
	m2, err := fresh.model(f)
	if err != nil {
		return Widening{}, err
	}
	res := m2.Residuals()
	_, _, w, err := calibration(f, nil, m2, newMeasurements(f, m2, res, fresh.extra), res, f.Model.GroupRMS(f.Beta), m2.GroupRMS(f.Beta))
	if err != nil {
		return Widening{}, err
	}
	return Widening{Scale: w.scale, Local: w.local.apply}, nil
}

// NewWidening is the calibrated band's widening of outputs with the value
// check's factors scale (pooled) and scales (per output), no local one.
func NewWidening(scale float64, scales []float64) func(k int, points [][]float64, sigma []float64) {
	return (&widening{scale: scale, scales: scales}).applyOutput
}

// SandwichValued is the sandwich band (Sandwich with prior) through the
// calibrated band's value check: the sandwich's sigma in place of the
// Laplace sigma of the calibrated band. mode is how B takes the fresh
// residuals (temper): "" as they are.
func SandwichValued(f *bayes.Fit, fresh FreshDraw, prior SandwichPrior, mode string) (*bayes.Fit, error) {
	m2, err := fresh.model(f)
	if err != nil {
		return nil, err
	}
	sq, jac, scale := freshResiduals(f, m2)
	if mode != "" {
		temper(f, m2, sq, mode)
	}
	l, err := sandwichLaplace(f, sandwichB(f, sq, jac, m2.TermGroup, scale, prior))
	if err != nil {
		return nil, err
	}
	res := m2.Residuals()
	train, held := f.Model.GroupRMS(f.Beta), m2.GroupRMS(f.Beta)
	_, at := overconfident(f.Inferred, train, held)
	w := &widening{}
	w.scale, w.scales = valueCheck(f.WithOutputBand(f.Beta, l, w.applyOutput), m2, res, at < 0 && heldOutAgrees(f, held))
	return f.WithOutputBand(f.Beta, l, w.applyOutput), nil
}

// temper replaces each fresh residual r_i of group t (res, of f's model
// on the fresh points) by one sized by the rms s_t = 1/sqrt(beta_t) beta
// states: "stated" s_t (the fresh Jacobians alone), "geometric"
// sqrt(|r_i| s_t) (the geometric mean of the two squares), "shape"
// r_i s_t / rms_t (the residuals' shape at beta's size).
func temper(f *bayes.Fit, fresh *bayes.Model, res [][]float64, mode string) {
	rms := fresh.GroupRMS(f.Beta)
	for k, r := range res {
		t := fresh.TermGroup[k]
		st := 1 / math.Sqrt(f.Beta[t])
		for i, ri := range r {
			switch mode {
			case "stated":
				r[i] = st
			case "geometric":
				r[i] = math.Sqrt(math.Abs(ri) * st)
			case "shape":
				r[i] = ri * st / rms[t]
			default:
				panic("temper: mode " + mode)
			}
		}
	}
}
