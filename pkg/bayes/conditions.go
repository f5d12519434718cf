package bayes

import (
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// ConditionUnmet is the ratio of a condition's rms misfit to its scale
// (Condition.Ratio) above which a fit warns that the condition is unmet.
// Chosen from measured fits (docs/problems.md, "Reading a fit"): the
// paper's problems fitted with their schedules stay at or below 0.02 on
// every boundary and initial condition, noisy measurements sit at their
// noise-to-signal ratio (0.02 to 0.13), and fits that settled on ignoring
// a condition lie between 0.4 and 1.2.
const ConditionUnmet = 0.25

// Condition is how well a fit meets one condition term: a term with
// values (pde.Problem.Values: its Target, or its value given as text),
// i.e. a boundary or initial value, a flux, or measurements. Misfit is the rms of its residual at its points (of
// u - target for measurements, whose residual may be divided by their
// stated noise); Values the rms of its targets; Scale what Misfit is
// compared with: Values, or where those are below a tenth of the
// solution's rms over every point of the problem (a homogeneous condition,
// u = 0) that rms, Solution (Ratio 0 where the solution is 0 to the
// network's precision, zeroField). A flux's misfit is compared in its own
// units with those. Measurements have Noise too: the noise their values
// show (MeasuredNoise), below which their misfit is no sign of being
// ignored, however large against their values.
type Condition struct {
	Term     string
	Misfit   float64
	Values   float64
	Solution float64 // rms of the term's output over the problem's points
	Scale    float64
	Ratio    float64 // Misfit / Scale; 0 when Scale is 0
	Noise    float64 // measurements: MeasuredNoise of their values; 0 for the other conditions
}

// Conditions returns how well f meets each of its condition terms (terms
// with values: targets, or a value given as text), in the problem's term
// order, from f's weights alone: the exact solution is never read. The
// equation's residual terms, and conditions written as residuals of their
// own (no values), are not among them.
func (f *Fit) Conditions() ([]Condition, error) { return f.conditions(f.Model.Residuals()) }

// conditions is Conditions from the model's residuals res.
func (f *Fit) conditions(res [][]float64) ([]Condition, error) {
	m := f.Model
	p := m.Problem
	var all [][]float64
	for _, t := range p.Terms {
		all = append(all, t.Points...)
	}
	mean := *f // the outputs' means only: no Jacobian, no band
	mean.Laplace = nil
	solution := map[int]float64{} // per output
	var out []Condition
	for k, t := range p.Terms {
		values, ok := p.Values(t)
		if !ok || len(t.Points) == 0 {
			continue
		}
		o := m.TermOutput[k]
		if _, ok := solution[o]; !ok {
			u, _, err := mean.predictOutputAt(o, all)
			if err != nil {
				return nil, err
			}
			solution[o] = rms(u)
		}
		c := Condition{Term: t.Name, Misfit: rms(res[k]), Values: rms(values), Solution: solution[o]}
		if t.Measured {
			u, _, err := mean.predictOutputAt(o, t.Points)
			if err != nil {
				return nil, err
			}
			for i := range u {
				u[i] -= values[i]
			}
			c.Misfit = rms(u)
			c.Noise = m.measuredNoise(k, values)
		}
		c.Scale = c.Values
		if c.Values < c.Solution/10 {
			c.Scale = c.Solution
		}
		if c.Scale > 0 && !(c.Scale == c.Solution && c.Solution <= zeroField*m.outScale(o)) {
			c.Ratio = c.Misfit / c.Scale
		}
		out = append(out, c)
	}
	return out, nil
}

// zeroField is the rms, against the network's output scale, below which
// a field is 0 to the network's precision: a homogeneous condition
// (u = 0) is met there, whatever the ratio of its misfit to the field.
const zeroField = 1e-9

// outScale is the scale the network writes output k in (1 unmapped).
func (m *Model) outScale(k int) float64 {
	if m.Net.OutScale == nil {
		return 1
	}
	return m.Net.OutScale[k]
}

// Unmet reports whether the condition's misfit is above ConditionUnmet of
// its scale and, for measurements, above the noise their values show:
// measurements of noise 0.1 on a field of rms 0.33 (PINNacle's HeatInv)
// are met at a misfit of 0.1, a ratio of 0.3.
func (c Condition) Unmet() bool { return c.Ratio > ConditionUnmet && c.Misfit > c.Noise }

// Warning is the warning of an unmet condition, naming the term and what
// its misfit is compared with.
func (c Condition) Warning() string {
	against := fmt.Sprintf("values of rms %.2g", c.Values)
	if c.Scale != c.Values {
		against = fmt.Sprintf("values of rms %.2g and a solution of rms %.2g", c.Values, c.Solution)
	}
	noise := ""
	if c.Noise > 0 {
		noise = fmt.Sprintf(", and above the noise of %.2g its values show", c.Noise)
	}
	return fmt.Sprintf("condition %q unmet: rms misfit %.2g against %s (ratio %.2g, above %g%s); the fit may have settled on ignoring it",
		c.Term, c.Misfit, against, c.Ratio, ConditionUnmet, noise)
}

// measuredNoise is MeasuredNoise of term k's values, a measured term of
// m's problem, computed on first use: a term's measurements are the same
// at every check of the conditions (a redraw keeps them).
func (m *Model) measuredNoise(k int, values []float64) float64 {
	if m.noise == nil {
		m.noise = make([]float64, len(m.Problem.Terms))
		for i := range m.noise {
			m.noise[i] = math.NaN()
		}
	}
	if math.IsNaN(m.noise[k]) {
		lo, hi := problemBox(m.Problem)
		m.noise[k] = MeasuredNoise(m.Problem.Terms[k].Points, values, lo, hi)
	}
	return m.noise[k]
}

// noiseQueries is how many measurements MeasuredNoise compares with their
// nearest neighbours at most (evenly spaced in their order): enough for a
// noise estimate within a few percent, at a cost linear in their number.
const noiseQueries = 1000

// MeasuredNoise is the noise standard deviation that measured values show
// by themselves, with no fit: the rms difference between a value and that
// of its nearest measured neighbour, over sqrt 2, the distance taken with
// the box [lo, hi] mapped to the unit cube (the whole space when lo is
// nil). Where the neighbours are close against the field's variation it
// estimates the noise; where they are far apart it reads more (the field's
// own variation between them), never less on average. 0 for fewer than
// two points.
func MeasuredNoise(points [][]float64, values, lo, hi []float64) float64 {
	n := len(points)
	if n < 2 {
		return 0
	}
	scale := make([]float64, len(points[0]))
	for i := range scale {
		scale[i] = 1
		if lo != nil && hi[i] > lo[i] {
			scale[i] = 1 / (hi[i] - lo[i])
		}
	}
	q := min(n, noiseQueries)
	sum := 0.0
	for k := range q {
		i := k * n / q
		best, nearest := math.Inf(1), -1
		for j, y := range points {
			if j == i {
				continue
			}
			d := 0.0
			for a, x := range points[i] {
				e := (x - y[a]) * scale[a]
				d += e * e
			}
			if d < best {
				best, nearest = d, j
			}
		}
		diff := values[i] - values[nearest]
		sum += diff * diff
	}
	return math.Sqrt(sum / (2 * float64(q)))
}

// EquationUnmet is the ratio of a term's rms residual at a fit to its rms
// residual at u = 0 (Equation.Ratio) above which the fit is said to
// ignore it: a fit that does nothing for an equation with a source leaves
// the source whole (ratio 1), while fits that meet their equation leave
// a small share of it (below 0.01 on the PINNacle suite's sourced
// equations).
const EquationUnmet = 0.5

// EquationUncancelled is, for an equation without a source written as
// text (pde.Term.Addends), the ratio of its rms residual at a fit to the
// rms of its largest addend there above which the fit is said to ignore
// it: the addends of an equation met cancel (u_tt against 4 u_xx), those
// of one let go do not. On PINNacle's Wave1D the fits that let the
// equation go and fit the conditions alone leave 0.46 and 0.90 of u_tt, a
// fit that holds it 0.08.
const EquationUncancelled = 0.25

// Equation is how well a fit meets a term without values: an equation
// with a source (u_xx + u_yy + u = f), a flux written as a residual, and an
// equation without one written as text. Residual is the rms of its
// residual at the fit; Source its rms at u = 0 (every field 0, through
// the problem's transforms), 0 for an equation u = 0 solves, whose Scale
// is the rms of its largest addend at the fit (pde.Term.Addends); Ratio
// is Residual over Source, or over Scale without a source.
type Equation struct {
	Term                    string
	Residual, Source, Scale float64
	Ratio                   float64
}

// Unmet reports whether the equation's residual is above EquationUnmet
// of its source, or, without a source, above EquationUncancelled of its
// largest addend.
func (e Equation) Unmet() bool {
	if e.Source > 0 {
		return e.Ratio > EquationUnmet
	}
	return e.Ratio > EquationUncancelled
}

// Warning is the warning of an unmet equation, naming the term.
func (e Equation) Warning() string {
	if e.Source > 0 {
		return fmt.Sprintf("equation %q unmet: rms residual %.2g against %.2g at u = 0 (ratio %.2g, above %g); the fit may have settled on ignoring it",
			e.Term, e.Residual, e.Source, e.Ratio, EquationUnmet)
	}
	return fmt.Sprintf("equation %q unmet: rms residual %.2g against %.2g for its largest term (ratio %.2g, above %g): its terms do not cancel; the fit may have settled on ignoring it and fitting the conditions alone",
		e.Term, e.Residual, e.Scale, e.Ratio, EquationUncancelled)
}

// Equations returns how well f meets each term without values whose
// residual at u = 0 is not 0, and each other equation written as text
// (by its addends), in the problem's term order, from f's weights alone.
// A term whose residual reads an unknown coefficient has no residual at
// u = 0 (it depends on the unknown): it is checked by its addends.
func (f *Fit) Equations() []Equation { return f.equations(nil, true) }

// equations is Equations from the model's residuals res (nil: computed
// when a term is checked); those checked by their addends only when
// uncancelled.
func (f *Fit) equations(res [][]float64, uncancelled bool) []Equation {
	m := f.Model
	var out []Equation
	for k, t := range m.Problem.Terms {
		if _, ok := m.Problem.Values(t); ok {
			continue
		}
		e := Equation{Term: t.Name, Source: m.equationSource(k)}
		if !(e.Source > 0) {
			if !uncancelled {
				continue
			}
			if e.Scale = m.equationScale(k); !(e.Scale > 0) {
				continue
			}
		}
		if res == nil {
			res = m.Residuals()
		}
		e.Residual = rms(res[k])
		e.Ratio = e.Residual / max(e.Source, e.Scale)
		out = append(out, e)
	}
	return out
}

// equationSource is the rms residual of term k of m's problem at u = 0
// (pde.Problem.TrialResidual with every field 0), computed on first use;
// 0 where it cannot be built (an unknown read) or is not finite.
func (m *Model) equationSource(k int) float64 {
	if m.source == nil {
		m.source = make([]float64, len(m.Problem.Terms))
		for i := range m.source {
			m.source[i] = math.NaN()
		}
	}
	if math.IsNaN(m.source[k]) {
		m.source[k] = 0
		if r, ok := trialResidual(m.Problem, m.Problem.Terms[k], 0, nil); ok {
			m.source[k] = rms(r)
		}
	}
	return m.source[k]
}

// equationScale is the rms at m's weights of the largest addend of term
// k's equation (pde.Term.Addends) at its points; 0 for a term with fewer
// than two addends or one whose addends cannot be evaluated.
func (m *Model) equationScale(k int) float64 {
	t := m.Problem.Terms[k]
	parts := t.Addends()
	if len(parts) < 2 {
		return 0
	}
	q := *m.Problem
	q.Terms = make([]pde.Term, len(parts))
	for j, r := range parts {
		q.Terms[j] = t
		q.Terms[j].Name, q.Terms[j].Residual = fmt.Sprintf("%s_%d", t.Name, j), r
	}
	addends, err := m.sibling(&q, []string{"addends"}, make([]int, len(parts)))
	if err != nil {
		return 0
	}
	scale := 0.0
	for _, r := range addends.Residuals() {
		if !allFinite(r) {
			return 0
		}
		scale = max(scale, rms(r))
	}
	return scale
}

// unmetTerms returns f's unmet conditions (none, and the error, when
// they cannot be checked) and its unmet equations (with those checked by
// their addends when uncancelled), from one pass of the model's residuals.
func (f *Fit) unmetTerms(uncancelled bool) ([]Condition, []Equation, error) {
	res := f.Model.Residuals()
	cs, err := f.conditions(res)
	var conditions []Condition
	for _, c := range cs {
		if c.Unmet() {
			conditions = append(conditions, c)
		}
	}
	var equations []Equation
	for _, e := range f.equations(res, uncancelled) {
		if e.Unmet() {
			equations = append(equations, e)
		}
	}
	return conditions, equations, err
}

// conditionWarnings is a warning for each unmet condition and equation
// of f.
func (f *Fit) conditionWarnings() []string {
	var w []string
	cs, es, err := f.unmetTerms(true)
	if err != nil {
		w = append(w, fmt.Sprintf("the conditions could not be checked: %v", err))
	}
	for _, c := range cs {
		w = append(w, c.Warning())
	}
	for _, e := range es {
		w = append(w, e.Warning())
	}
	return w
}

// rms is the root mean square of v, 0 when v is empty.
func rms(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s / float64(len(v)))
}
