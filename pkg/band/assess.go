package band

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// Assessment is what the bands say of a fit at one fresh draw of its
// problem, all a record keeps of them (pkg/record): the residual check,
// every registered method's band (Methods), the warnings.
type Assessment struct {
	// Train and Fresh are each beta group's rms residual at the training
	// points and at the fresh ones (ResidualCheck).
	Train, Fresh []float64
	// Bands are the bands of the registered methods, in their order; a
	// method whose band could not be built (its A does not factorize) is
	// left out.
	Bands []*Band
	// Warnings are the paper band's warning, then those of the calibrated
	// band: each output whose calibrated band a direct check still finds
	// far off (disagreementWarnings: "the calibrated band of u is likely
	// overconfident"), each output whose checks disagree or whose
	// equation's residuals peak where no check reads the errors
	// (interiorWarnings: "... likely overconfident away from its
	// conditions", "... unchecked where its equation is violated most"),
	// each output the K-fold check sized beneath the measurements' noise
	// (kfoldTailWarnings: "... unchecked beyond its rms"), and each output
	// no check could calibrate, whose stated condition the fit leaves
	// unmet, or which only its conditions check on a problem whose
	// measurements fix it inside (uncalibratedWarnings: "band
	// uncalibrated for u", with the reason);
	// then, on an inverse problem, each unknown whose interval is likely
	// unreliable (unknownWarnings).
	// The paper band's warning, when the error estimate applies
	// (estimatedScales), says the band is likely overconfident or too
	// wide when the estimated errors' q95 in sigma is above
	// ValueOverconfident or below ValueNarrow (estimateWarnings).
	// Otherwise it is the overconfidence warning when a residual ratio
	// exceeds OverconfidentRatio, or else when the measurement check would
	// widen the paper's band by more than ValueOverconfident / 2
	// (measurementWarning); else the too-wide warning when every other
	// check says the band is far wider than the errors it can see
	// (tooWideWarning); else the overconfidence warning when the value
	// check's q95 exceeds ValueOverconfident; none when none does.
	Warnings []string
	// Estimated is, per output, the factor by which the error estimate
	// scales the paper's band into the calibrated one (estimatedScales);
	// nil when the estimate does not apply and the calibrated band comes
	// from the residual and value checks.
	Estimated []float64
	fit       *bayes.Fit
}

// Band is the band of the named method, nil when there is none.
func (a *Assessment) Band(method string) *Band {
	for _, b := range a.Bands {
		if b.Method == method {
			return b
		}
	}
	return nil
}

// Predictor is the named method's band on the assessed fit (Band.On): a
// copy of the fit whose Predict gives the band. The error says the
// assessment has no band of that method, or Band.On's.
func (a *Assessment) Predictor(method string) (*bayes.Fit, error) {
	b := a.Band(method)
	if b == nil {
		return nil, fmt.Errorf("band: the assessment has no %s band (its methods' bands: %d)", method, len(a.Bands))
	}
	return b.On(a.fit)
}

// Assess computes f's residual check, the band of every registered method
// (Methods) and the warnings at the points of fresh, f's problem drawn
// anew. The error is that of building f's model on fresh's points.
func Assess(f *bayes.Fit, fresh FreshDraw) (*Assessment, error) {
	c, err := NewCheck(f, fresh)
	if err != nil {
		return nil, err
	}
	a := &Assessment{Train: c.Train, Fresh: c.Fresh, Estimated: c.estimated, fit: f}
	var cal *bayes.Fit
	for _, m := range Methods() {
		b, err := m.Build(c)
		if err != nil || !b.finite() {
			continue
		}
		b.Method = m.Name
		a.Bands = append(a.Bands, b)
		if m.Name == "calibrated" {
			cal, _ = b.On(f)
		}
	}
	m2, res, meas := c.Model, c.Residuals, c.meas
	// the paper's band and the calibrated one at the conditions' fresh
	// points, each predicted once and read by every check of it
	paperZ := valueZ(f, m2, res)
	var calZ [][]float64
	if cal != nil {
		calZ = valueZ(cal, m2, res)
	}
	names := f.Model.Problem.OutputNames()
	a.Warnings = paperWarnings(f, a, paperZ, meas)
	a.Warnings = append(a.Warnings, disagreementWarnings(calZ, names, a.Estimated != nil)...)
	checks := checksOf(paperZ, a.Estimated != nil, c.widening)
	ref, _ := gateRMS(f, a.Train)
	if ratio, at := overconfident(f.Inferred, ref, a.Fresh); at >= 0 {
		peak, term := equationPeak(f, m2, res)
		a.Warnings = append(a.Warnings, interiorWarnings(calZ, names, checks, ratio, f.Model.BetaNames[at], peak, term)...)
	}
	a.Warnings = append(a.Warnings, kfoldTailWarnings(names, checks)...)
	a.Warnings = append(a.Warnings, uncalibratedWarnings(f, checks, c.agree, meas)...)
	a.Warnings = append(a.Warnings, unknownWarnings(f, cal, a.Train, a.Fresh)...)
	return a, nil
}

// paperWarnings is the warning of the paper's band (see
// Assessment.Warnings): the error estimate's when it applies, else the
// first of the residual ratio's, the measurement check's, the too-wide and
// the value check's (the last two from z, the paper band's valueZ).
func paperWarnings(f *bayes.Fit, a *Assessment, z [][]float64, meas []newMeasurement) []string {
	if a.Estimated != nil { // the estimate reads more than the checks below
		return estimateWarnings(a.Estimated, f.Model.Problem.OutputNames())
	}
	ref, what := gateRMS(f, a.Train)
	ws := overconfidenceWarnings(f.Model.BetaNames, f.Inferred, ref, a.Fresh, what)
	if ws == nil { // the ratios say nothing: what errors can be seen
		ws = measurementWarning(f, meas)
	}
	if ws == nil {
		ws = tooWideWarning(f, z, a.Fresh)
	}
	if ws == nil {
		ws = valueWarning(z)
	}
	return ws
}

// checksOf is what read each output's errors for f's calibrated band,
// whose widening is w (nil when the band could not be built: then only
// the value check's points count), z the paper band's valueZ.
func checksOf(z [][]float64, estimated bool, w *widening) checked {
	c := checked{estimated: estimated, value: make([]int, len(z)), measured: make([]bool, len(z)),
		kfold: make([]kfold, len(z)), scale: make([]float64, len(z))}
	for k, zk := range z {
		c.value[k], c.scale[k] = len(zk), 1
		if w == nil {
			continue
		}
		c.measured[k] = k < len(w.measured) && w.measured[k] > 0
		if k < len(w.kfold) {
			c.kfold[k], c.scale[k] = w.kfold[k], w.valueScale(k)
		}
	}
	return c
}

// AssessFresh is Assess at the problem's own fresh draw (FreshDrawOf):
// what a record of f holds. The error says the problem has no fresh points
// or the model could not be built on them.
func AssessFresh(f *bayes.Fit) (*Assessment, error) {
	d, err := FreshDrawOf(f.Model.Problem)
	if err != nil {
		return nil, err
	}
	return Assess(f, d)
}
