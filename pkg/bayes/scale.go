package bayes

import (
	"math"
	"reflect"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// resolveScale fills Scale: box without a schedule, none with one. It runs
// before anything fills the schedule, so that it reads the schedule the
// caller gave.
func (s *Settings) resolveScale(*pde.Problem) error {
	if s.Scale == "" {
		s.Scale = ScaleNone
		if reflect.ValueOf(s.Schedule).IsZero() {
			s.Scale = ScaleBox
		}
	}
	_, err := ParseScale(string(s.Scale))
	return err
}

// ScaleMaps sets net's maps for the problem p (drawn: its terms have
// their points): the inputs from p's box (Problem.Lo, Hi, or its domain's
// bounds) to [-1, 1], and each output from the mean (shift) and the
// standard deviation (scale) of the values p's conditions and measurements
// give that field (Problem.OutputValues). A field whose values are all
// equal takes their magnitude as its scale, and one without values, or
// with values all 0, shift 0 and scale 1.
func ScaleMaps(net *nn.MLP, p *pde.Problem) {
	lo, hi := p.Lo, p.Hi
	if lo == nil && p.Domain != nil {
		lo, hi = p.Domain.Bounds()
	}
	if lo != nil {
		net.BoxMap(lo, hi)
	}
	vals := p.OutputValues()
	shift, scale := make([]float64, len(vals)), make([]float64, len(vals))
	for k, v := range vals {
		shift[k], scale[k] = spread(v)
	}
	net.SetOutputMap(shift, scale)
}

// spread returns the mean of v and its standard deviation, or the mean's
// magnitude when that is 0, or 1 when both are (0 and 1 for no values).
func spread(v []float64) (mean, scale float64) {
	if len(v) == 0 {
		return 0, 1
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	switch sd := math.Sqrt(ss / float64(len(v))); {
	case sd > 0:
		return mean, sd
	case mean != 0:
		return mean, math.Abs(mean)
	}
	return 0, 1
}
