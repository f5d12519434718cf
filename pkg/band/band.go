package band

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// Band is one band of a fit as a value: the betas whose Laplace
// approximation gives its sigma (nil: the fit's own A), a factor per output
// and an optional local widening. A record keeps it whole (pkg/record), so
// a fit restored from its record predicts the band it was built with,
// without the checks that sized it.
type Band struct {
	// Method is the name of the method that built it (Methods).
	Method string `json:"method"`
	// Beta are the betas of the band's A, one per beta group of the fit;
	// nil for the fit's own A (its betas and Laplace approximation).
	Beta []float64 `json:"beta,omitempty"`
	// Scale multiplies output k's sigma (Problem.OutputNames; the first
	// output's also every other quantity's); nil for no factor.
	Scale []float64 `json:"scale,omitempty"`
	// Local widens sigma where a term's fresh residuals peak (nil: none).
	Local *Local `json:"local,omitempty"`

	laplace *curv.Laplace // A at Beta, for the fit at
	at      *bayes.Fit
}

// On returns a copy of f whose Predict, PredictOutput(s) and
// PredictQuantity give the band (bayes.Fit.WithOutputBand). Only the
// copy's predictions are meaningful: it must not be trained or ranked. The
// error says f has no Laplace approximation, the band's betas do not fit
// f's beta groups, or A at them does not factorize.
func (b *Band) On(f *bayes.Fit) (*bayes.Fit, error) {
	if f.Laplace == nil {
		return nil, fmt.Errorf("%s band: the fit has no Laplace approximation (status %s)", b.Method, f.Status)
	}
	beta, l := f.Beta, f.Laplace
	if b.Beta != nil {
		if len(b.Beta) != len(f.Beta) {
			return nil, fmt.Errorf("%s band: %d betas for a fit of %d beta groups; the band belongs to another fit", b.Method, len(b.Beta), len(f.Beta))
		}
		beta = b.Beta
		if b.at != f || b.laplace == nil {
			var err error
			if l, err = f.LaplaceAt(b.Beta); err != nil {
				return nil, fmt.Errorf("%s band: %w", b.Method, err)
			}
			b.laplace, b.at = l, f
		}
		l = b.laplace
	}
	return f.WithOutputBand(slices.Clone(beta), l, b.widen), nil
}

// Sigma is each output's sigma of the band at points (Problem.OutputNames
// order), with On's errors and Predict's.
func (b *Band) Sigma(f *bayes.Fit, points [][]float64) ([][]float64, error) {
	g, err := b.On(f)
	if err != nil {
		return nil, err
	}
	_, sigma, err := g.PredictOutputs(points)
	return sigma, err
}

// widen applies the band's local widening and output k's factor to sigma
// at points.
func (b *Band) widen(k int, points [][]float64, sigma []float64) {
	b.Local.apply(points, sigma)
	if k >= len(b.Scale) {
		return
	}
	if s := b.Scale[k]; s > 0 && s != 1 {
		for i := range sigma {
			sigma[i] *= s
		}
	}
}

// finite reports whether every number of b is finite (a record holds no
// other).
func (b *Band) finite() bool {
	ok := func(xs []float64) bool {
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
		return true
	}
	if !ok(b.Beta) || !ok(b.Scale) {
		return false
	}
	if b.Local != nil {
		if !ok(b.Local.Span) {
			return false
		}
		for _, t := range b.Local.Terms {
			if !ok(t.Sq) || !ok([]float64{t.MS}) {
				return false
			}
			for _, p := range t.Points {
				if !ok(p) {
					return false
				}
			}
		}
	}
	return true
}

// Method is a way to build a band from a fit's check at fresh points: its
// Name (a record's key for the band and its scores) and Build, which
// returns the band or an error saying why there is none (the band is then
// left out).
type Method struct {
	Name  string
	Build func(c *Check) (*Band, error)
}

// methods are the registered band methods, in the order a record lists
// their bands; methodsMu guards them (Register may run beside Assess).
var (
	methodsMu sync.RWMutex
	methods   = []Method{
		{Name: "heldout", Build: buildHeldOut},
		{Name: "calibrated", Build: buildCalibrated},
	}
)

// Methods returns the registered band methods: the held-out band
// ("heldout", HeldOut) and the calibrated one ("calibrated", Calibrated),
// then those added by Register. Assess builds each.
func Methods() []Method {
	methodsMu.RLock()
	defer methodsMu.RUnlock()
	return slices.Clone(methods)
}

// Register adds a band method, so that Assess builds its band and a record
// stores, scores and predicts it; remove takes it out again. An error names
// a method without a name or a Build, or a name already registered.
func Register(m Method) (remove func(), err error) {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	switch {
	case m.Name == "" || m.Build == nil:
		return nil, fmt.Errorf("band: Register: a method needs a Name and a Build")
	case slices.ContainsFunc(methods, func(o Method) bool { return o.Name == m.Name }):
		return nil, fmt.Errorf("band: Register: a method %q is registered already; choose another name", m.Name)
	}
	methods = append(methods, m)
	return func() {
		methodsMu.Lock()
		defer methodsMu.Unlock()
		methods = slices.DeleteFunc(methods, func(o Method) bool { return o.Name == m.Name })
	}, nil
}

// Check is what every band method reads of a fit at one fresh draw of its
// problem, computed once by Assess: never the exact solution.
type Check struct {
	Fit   *bayes.Fit
	Draw  FreshDraw
	Model *bayes.Model // Fit on the draw's points (bayes.Fit.ModelOn)
	// Residuals are each term's residuals at the draw's points.
	Residuals [][]float64
	// Train and Fresh are each beta group's rms residual at the training
	// points and at the draw's (ResidualCheck).
	Train, Fresh []float64

	estimated []float64 // the error estimate's scales (estimatedScales), nil where it does not apply
	agree     float64   // its halves' disagreement
	meas      []newMeasurement
	widening  *widening // the calibrated band's, for its warnings
}

// NewCheck is the check of f at fresh (see Check); the error is that of
// building f's model on fresh's points.
func NewCheck(f *bayes.Fit, fresh FreshDraw) (*Check, error) {
	m2, err := fresh.model(f)
	if err != nil {
		return nil, err
	}
	c := &Check{Fit: f, Draw: fresh, Model: m2, Residuals: m2.Residuals(), Train: f.Model.GroupRMS(f.Beta), Fresh: m2.GroupRMS(f.Beta)}
	m2.ReleaseTrain() // kept for its points: its program would sit beside a band's Laplace
	c.estimated, c.agree, _ = estimatedScales(f, fresh)
	c.meas = newMeasurements(f, m2, c.Residuals, fresh.extra)
	return c, nil
}

// buildHeldOut is the held-out band (HeldOut) of c's fit.
func buildHeldOut(c *Check) (*Band, error) {
	beta, err := heldOutBetas(c.Fit, c.Fresh)
	if err != nil {
		return nil, err
	}
	return &Band{Method: "heldout", Beta: beta}, nil
}

// buildCalibrated is the calibrated band (Calibrated) of c's fit; it keeps
// its widening in c for the warnings.
func buildCalibrated(c *Check) (*Band, error) {
	f := c.Fit
	beta, l, w, err := calibration(f, c.estimated, c.Model, c.meas, c.Residuals, c.Train, c.Fresh)
	if err != nil {
		return nil, err
	}
	c.widening = w
	b := &Band{Method: "calibrated", Local: w.local}
	if l != f.Laplace {
		b.Beta, b.laplace, b.at = beta, l, f
	}
	for k := range f.Model.Problem.OutputNames() {
		b.Scale = append(b.Scale, w.factor(k))
	}
	return b, nil
}
