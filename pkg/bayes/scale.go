package bayes

import (
	"math"
	"reflect"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// resolveScale fills Scale: auto without a schedule, none with one. It runs
// before anything fills the schedule, so that it reads the schedule the
// caller gave.
func (s *Settings) resolveScale(*pde.Problem) error {
	if s.Scale == "" {
		s.Scale = ScaleNone
		if reflect.ValueOf(s.Schedule).IsZero() {
			s.Scale = ScaleAuto
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
	lo, hi, shift, scale := problemMaps(p)
	if lo != nil {
		net.BoxMap(lo, hi)
	}
	net.SetOutputMap(shift, scale)
}

// AutoMaps sets ScaleMaps' maps only where p is far from unit scale: the
// input map when a side of the box is outside [-Unit, Unit] or narrower
// than 1/Unit, a field's output map when its shift or scale is outside
// [1/Unit, Unit] (a field of values of order one, or 0, keeps shift 0 and
// scale 1). A problem of unit scale gets the network ScaleNone gives, bit
// for bit.
func AutoMaps(net *nn.MLP, p *pde.Problem) {
	lo, hi, shift, scale := problemMaps(p)
	for i := range lo {
		if math.Abs(lo[i]) > Unit || math.Abs(hi[i]) > Unit || hi[i]-lo[i] < 1/Unit {
			net.BoxMap(lo, hi)
			break
		}
	}
	far := false
	for k := range shift {
		if m := max(math.Abs(shift[k]), scale[k]); m > Unit || m < 1/Unit {
			far = true
		} else {
			shift[k], scale[k] = 0, 1
		}
	}
	if far {
		net.SetOutputMap(shift, scale)
	}
}

// Unit is how far from 1 a problem's sizes may be before ScaleAuto maps
// them: a factor of 10 either way.
const Unit = 10

// problemMaps returns the box of p (problemBox) and each field's shift
// and scale.
func problemMaps(p *pde.Problem) (lo, hi, shift, scale []float64) {
	lo, hi = problemBox(p)
	vals := p.OutputValues()
	shift, scale = make([]float64, len(vals)), make([]float64, len(vals))
	for k, v := range vals {
		shift[k], scale[k] = spread(v)
	}
	return lo, hi, shift, scale
}

// problemBox returns the box of p: Lo and Hi, else its domain's bounds
// (nil when it has neither).
func problemBox(p *pde.Problem) (lo, hi []float64) {
	if p.Lo == nil && p.Domain != nil {
		return p.Domain.Bounds()
	}
	return p.Lo, p.Hi
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
