package band

import (
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
)

// Widening is the calibrated band's widening of sigma: Local (nil-safe)
// then the value check's factor Scale.
type Widening struct {
	Scale float64
	Local func(points [][]float64, sigma []float64)
}

// CalibratedWidening is the widening of f's calibrated band on fresh.
func CalibratedWidening(f *bayes.Fit, fresh FreshDraw) (Widening, error) {
	m2, err := fresh.model(f)
	if err != nil {
		return Widening{}, err
	}
	_, _, w, err := calibration(f, m2, m2.Residuals(), f.Model.GroupRMS(f.Beta), m2.GroupRMS(f.Beta))
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
