package band

import (
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// LocalRatio is the local residual ratio above which the calibrated band
// widens locally: where a term's rms residual over its LocalNeighbours
// fresh points nearest a point exceeds LocalRatio times its rms over all
// its fresh points, sigma there is multiplied by the square root of that
// ratio (the precision divided by it, as the calibrated betas divide it by
// rho_t globally). A network whose equation is violated in one place (at
// Burgers' shock) errs there, between its training points, more than one
// beta per group can say. Chosen from docs/results/coverage.md: on the
// heat and wave fits the ratio stays below 1.5 everywhere, at Burgers'
// shock it reaches 2.7-3. A term of at most LocalRatio^2 LocalNeighbours
// = 80 points cannot reach it (the mean square of its LocalNeighbours
// largest residuals is at most N/LocalNeighbours times the term's): the
// widening acts on terms large enough for 20 points to be local.
const LocalRatio = 2.0

// LocalNeighbours is the number of a term's fresh points nearest a point
// whose residuals make the local rms of LocalRatio.
const LocalNeighbours = 20

// Local is the local widening of the calibrated band (a Band's): the
// fresh residuals of every term of an inferred beta group that peaks
// somewhere, with their points; a record keeps it whole, so a restored band
// widens where the fit's did.
type Local struct {
	Span  []float64   `json:"span"` // Hi - Lo per input: distances are taken in the unit box
	Terms []LocalTerm `json:"terms"`
}

// LocalTerm is one term's fresh points (scaled to the unit box), squared
// residuals and their mean.
type LocalTerm struct {
	Points [][]float64 `json:"points"`
	Sq     []float64   `json:"sq"`
	MS     float64     `json:"ms"`
}

// newLocalInflation keeps the terms of m (a model on fresh points, with
// residuals res) that use accepts (by index); nil when none has residuals
// to compare.
func newLocalInflation(m *bayes.Model, res [][]float64, use func(term int) bool) *Local {
	p := m.Problem
	li := &Local{Span: make([]float64, p.Dim())}
	for a := range li.Span {
		if li.Span[a] = p.Hi[a] - p.Lo[a]; !(li.Span[a] > 0) {
			return nil // a degenerate box: no distances to scale
		}
	}
	for k, res := range res {
		if !use(k) || len(res) <= LocalNeighbours {
			continue // too few points for a local rms that differs from the global one
		}
		t := LocalTerm{Points: make([][]float64, len(res)), Sq: make([]float64, len(res))}
		for i, r := range res {
			t.Sq[i] = r * r
			t.MS += r * r / float64(len(res))
			t.Points[i] = make([]float64, len(li.Span))
			for a, s := range li.Span { // in the unit box
				t.Points[i][a] = p.Terms[k].Points[i][a] / s
			}
		}
		// No point can widen when even the LocalNeighbours largest residuals
		// have a mean square within LocalRatio^2 times the term's (a term
		// with residuals spread evenly): leave the term out.
		top := slices.Clone(t.Sq)
		slices.Sort(top)
		peak := 0.0
		for _, v := range top[len(top)-LocalNeighbours:] {
			peak += v / LocalNeighbours
		}
		if t.MS > 0 && !math.IsInf(t.MS, 0) && !math.IsNaN(t.MS) && peak > LocalRatio*LocalRatio*t.MS {
			li.Terms = append(li.Terms, t)
		}
	}
	if len(li.Terms) == 0 {
		return nil
	}
	return li
}

// apply multiplies sigma[i] by the local factor at points[i].
func (li *Local) apply(points [][]float64, sigma []float64) {
	if li == nil {
		return
	}
	nd := make([]float64, LocalNeighbours) // the nearest distances, ascending
	nv := make([]float64, LocalNeighbours) // and their squared residuals
	x := make([]float64, len(li.Span))     // a point in the unit box
	for i, pt := range points {
		for a, s := range li.Span {
			x[a] = pt[a] / s
		}
		worst := 0.0
		for _, t := range li.Terms {
			worst = math.Max(worst, localMS(t, x, nd, nv)/t.MS)
		}
		if ratio := math.Sqrt(worst); ratio > LocalRatio {
			sigma[i] *= math.Sqrt(ratio)
		}
	}
}

// peak is the largest local rms ratio of li's terms at their own fresh
// points (the square root of the mean square of a point's LocalNeighbours
// nearest residuals over the term's): above LocalRatio, apply widens
// there. 0 for a nil Local.
func (li *Local) peak() float64 {
	if li == nil {
		return 0
	}
	nd := make([]float64, LocalNeighbours)
	nv := make([]float64, LocalNeighbours)
	worst := 0.0
	for _, t := range li.Terms {
		for _, x := range t.Points {
			worst = math.Max(worst, localMS(t, x, nd, nv)/t.MS)
		}
	}
	return math.Sqrt(worst)
}

// localMS is the mean squared residual of t's LocalNeighbours fresh points
// nearest x, both in the unit box (an insertion into the sorted nd, nv: few
// points displace the current nearest once the first have been seen).
func localMS(t LocalTerm, x []float64, nd, nv []float64) float64 {
	K := len(nd)
	n := 0
	for j, y := range t.Points {
		d := 0.0
		for a, xa := range x {
			v := xa - y[a]
			d += v * v
		}
		if n == K && d >= nd[K-1] {
			continue
		}
		at := min(n, K-1)
		for at > 0 && nd[at-1] > d {
			nd[at], nv[at] = nd[at-1], nv[at-1]
			at--
		}
		nd[at], nv[at] = d, t.Sq[j]
		n = min(n+1, K)
	}
	s := 0.0
	for _, v := range nv[:n] {
		s += v
	}
	return s / float64(n)
}
