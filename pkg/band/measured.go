package band

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// MeasuredMin is the fewest new measurements of one output (ones the fit
// was not trained on) the measurement check reads: with fewer than 200,
// under ten lie beyond the 95 % quantile it sets.
const MeasuredMin = 200

// measuredCap bounds the new measurements of one term the check reads
// (whole draws, in order, until it holds this many): its density and
// neighbours cost n^2, and burgers-identify draws 2000 at each of eight.
const measuredCap = 4000

// newMeasurement is one draw's measurements of one Measured term at
// points the fit was not trained on: the term, its points and targets,
// and the fit's residuals there.
type newMeasurement struct {
	term          int
	points        [][]float64
	target, resid []float64
}

// newMeasurements reads the measurements the fit was not trained on, once
// for every band that checks them: at the fresh draw (fresh, f's model on
// it, with residuals res) and at the redraws, in order, each Measured
// term's point set once (the training one and repeats left out: the
// paper's problems draw new data at every draw, a user's Problem.Sample
// only at its fresh draw, WithData never), until measuredCap of a term
// are read. Nil for a problem without measurements.
func newMeasurements(f *bayes.Fit, fresh *bayes.Model, res [][]float64, redraws []*pde.Problem) []newMeasurement {
	train := f.Model.Problem
	if !hasMeasurements(train) {
		return nil
	}
	read := make([]int, len(train.Terms))
	seen := make([][][][]float64, len(train.Terms)) // per term, the point sets read
	for k, t := range train.Terms {
		seen[k] = [][][]float64{t.Points}
	}
	var out []newMeasurement
	add := func(m *bayes.Model, r [][]float64) { // r nil: computed when needed
		for k, t := range m.Problem.Terms {
			if !t.Measured || len(t.Points) == 0 || read[k] >= measuredCap || slices.ContainsFunc(seen[k], func(s [][]float64) bool { return samePoints(s, t.Points) }) {
				continue
			}
			seen[k] = append(seen[k], t.Points)
			if r == nil {
				r = m.Residuals()
			}
			read[k] += len(t.Points)
			out = append(out, newMeasurement{term: k, points: t.Points, target: t.Target, resid: r[k]})
		}
	}
	add(fresh, res)
	for _, q := range redraws {
		if m, err := f.ModelOn(q); err == nil {
			add(m, nil)
		}
	}
	return out
}

// hasMeasurements reports whether q has a Measured term.
func hasMeasurements(q *pde.Problem) bool {
	return slices.ContainsFunc(q.Terms, func(t pde.Term) bool { return t.Measured })
}

// measurementFactors is the measurement check of the calibrated band:
// per output, the factor (at least 1; 0 where the check does not apply)
// by which band g widens for the errors it can see at new measurements.
// At a measurement y = u* + noise that the fit was not trained on
// (newMeasurements), the
// residual r = u - y is the error plus noise, so with n the noise's
// standard deviation the band meets its target there when 95 % of
// |r| / sqrt(c^2 sigma^2 + n^2) lie within 2; c is the smallest such
// factor, at least MeasuredMin measurements of an output. Three choices
// make it the grid's target and not the data's (docs/calibration.md):
//   - n is the noise the new measurements show by neighbour differences
//     (neighbourNoise), not the one the fit states: a beta inferred from
//     the training misfit holds the model's error too (Burgers: 2-16
//     times the data's 0.02), which explains errors away; and with the
//     stated noise itself the deconvolution, which takes the errors for
//     Gaussian, reads errors near the noise's size that are systematic
//     (an inferred viscosity off by 2) as a band too narrow and widened
//     4 of 10 burgers-inverse bands that met both targets to q95 1.2-1.4.
//     The difference estimate, above the stated noise by the error's
//     change between neighbours, leaves them.
//   - the quantile weighs each measurement by the inverse of the
//     measurements' density (densityWeights), so that measurements
//     crowded where the solution is hard (Burgers' data: half within
//     0.2 of the shock) count as the domain's share of them, not as
//     theirs.
//   - it widens only when the weighted q95 at c = 1 exceeds 2 by more
//     than two standard errors of that quantile (quantileSE): near the
//     noise, a q95 a little above 2 asks for a large c (sigma enters
//     beside n), and pure noise reaches 2.1 by chance (burgers-wide).
//
// It widens only: errors near or below the noise cannot show that a band
// is too wide. meas are the measurements newMeasurements read for g's
// fit, whose problem, outputs and terms are g's.
func measurementFactors(g *bayes.Fit, meas []newMeasurement) []float64 {
	type pooled struct {
		pts     [][]float64
		r, s, n []float64
	}
	train := g.Model.Problem
	terms := make([]pooled, len(train.Terms)) // each measured term's new measurements
	for _, e := range meas {
		u, s, err := g.PredictOutput(train.Terms[e.term].Output, e.points)
		if err != nil || len(s) != len(u) || !isValueResidual(e.resid, u, e.target) {
			continue
		}
		t := &terms[e.term]
		for i, r := range e.resid {
			if s[i] > 0 && !math.IsInf(s[i], 0) && !math.IsNaN(r) {
				t.pts, t.r, t.s = append(t.pts, e.points[i]), append(t.r, r), append(t.s, s[i])
			}
		}
	}
	outs := make([]pooled, len(train.OutputNames()))
	for k, t := range terms {
		if len(t.r) == 0 {
			continue
		}
		n := neighbourNoise(t.pts, t.r, train.Lo, train.Hi)
		o := &outs[g.Model.TermOutput[k]]
		o.pts, o.r, o.s = append(o.pts, t.pts...), append(o.r, t.r...), append(o.s, t.s...)
		for range t.r {
			o.n = append(o.n, n)
		}
	}
	factors := make([]float64, len(outs))
	for k, o := range outs {
		if len(o.r) < MeasuredMin {
			continue
		}
		w := densityWeights(o.pts, train.Lo, train.Hi)
		q95 := func(c float64) float64 {
			z := make([]float64, len(o.r))
			for i, r := range o.r {
				z[i] = math.Abs(r) / math.Hypot(c*o.s[i], o.n[i])
			}
			return weightedQuantile(z, w, 0.95)
		}
		factors[k] = 1
		if !(q95(1) > 2+2*quantileSE(w)) { // within what noise alone would show
			continue
		}
		lo, hi := 1.0, 2.0
		for q95(hi) > 2 && hi < 1e6 {
			lo, hi = hi, 2*hi
		}
		for range 40 {
			if c := (lo + hi) / 2; q95(c) > 2 {
				lo = c
			} else {
				hi = c
			}
		}
		factors[k] = hi
	}
	return factors
}

// samePoints reports whether a and b hold the same points.
func samePoints(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, slices.Equal[[]float64])
}

// neighbourNoise is the standard deviation of the noise in residuals r at
// pts that neighbour differences show: the median of |r_i - r_j| over
// each point and its nearest neighbour (in the box lo-hi scaled to the
// unit box), over 0.6745 sqrt(2), the median of |N(0, 2 n^2)| / n. Where
// the error changes between neighbours it overstates n; the median keeps
// the few pairs across a steep error (a shock) from moving it. +Inf with
// fewer than two points.
func neighbourNoise(pts [][]float64, r []float64, lo, hi []float64) float64 {
	if len(pts) < 2 {
		return math.Inf(1)
	}
	d := make([]float64, len(pts))
	for i, a := range pts {
		best, at := math.Inf(1), -1
		for j, b := range pts {
			if dist := unitDist2(a, b, lo, hi); j != i && dist < best {
				best, at = dist, j
			}
		}
		d[i] = math.Abs(r[i] - r[at])
	}
	return score.Quantile(d, 0.5) / (0.6745 * math.Sqrt2)
}

// unitDist2 is the squared distance of a and b in the box lo-hi scaled to
// the unit box (a side of zero length left unscaled).
func unitDist2(a, b, lo, hi []float64) float64 {
	s := 0.0
	for k := range a {
		v := a[k] - b[k]
		if k < len(lo) && k < len(hi) && hi[k] > lo[k] {
			v /= hi[k] - lo[k]
		}
		s += v * v
	}
	return s
}

// densityWeights is 1 over the points' density at each point, by a
// Gaussian kernel estimate with Scott's bandwidth, sd n^(-1/(d+4)), per
// coordinate: weights that make a quantile over the points one over the
// region they span. A coordinate that does not vary (points on a face)
// is left out.
func densityWeights(pts [][]float64, lo, hi []float64) []float64 {
	n := len(pts)
	if n == 0 {
		return nil
	}
	d := len(pts[0])
	h := make([]float64, d)
	for k := range h {
		var s, s2 float64
		for _, x := range pts {
			s += x[k]
			s2 += x[k] * x[k]
		}
		mean := s / float64(n)
		h[k] = math.Sqrt(math.Max(s2/float64(n)-mean*mean, 0)) * math.Pow(float64(n), -1/float64(d+4))
	}
	w := make([]float64, n)
	for i, a := range pts {
		dens := 0.0
		for _, b := range pts {
			e := 0.0
			for k, hk := range h {
				if hk > 0 {
					v := (a[k] - b[k]) / hk
					e += v * v
				}
			}
			dens += math.Exp(-e / 2)
		}
		w[i] = 1 / dens // dens >= 1: the point itself
	}
	return w
}

// weightedQuantile is the smallest z_i at which the weights of the z at
// or below it exceed q of their sum: with equal weights, Quantile.
func weightedQuantile(z, w []float64, q float64) float64 {
	idx := make([]int, len(z))
	total := 0.0
	for i := range idx {
		idx[i] = i
		total += w[i]
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(z[a], z[b]) })
	acc := 0.0
	for _, i := range idx {
		if acc += w[i]; acc > q*total {
			return z[i]
		}
	}
	return z[idx[len(idx)-1]]
}

// quantileSE is the standard error of the 95 % quantile of |z|, z
// standard normal, from a sample with weights w: sqrt(0.95 * 0.05 /
// n_eff) over the density of |z| there, 2 phi(1.96), with n_eff =
// (sum w)^2 / sum w^2 (Kish's effective size).
func quantileSE(w []float64) float64 {
	var s, s2 float64
	for _, v := range w {
		s += v
		s2 += v * v
	}
	neff := s * s / s2
	return math.Sqrt(0.95*0.05/neff) / (2 * math.Exp(-1.96*1.96/2) / math.Sqrt(2*math.Pi))
}

// measurementWarning is the record's warning when the paper's band (f)
// misses the errors at new measurements: the measurement check would
// widen it by more than ValueOverconfident / 2 for some output, the
// factor at which the value check's q95 would warn; nil otherwise.
func measurementWarning(f *bayes.Fit, meas []newMeasurement) []string {
	names := f.Model.Problem.OutputNames()
	for k, c := range measurementFactors(f, meas) {
		if c > ValueOverconfident/2 {
			return []string{fmt.Sprintf("the 2-sigma band is likely overconfident: at new measurements of %s, 95 %% of the errors lie within 2 sigma only with sigma %.2g times wider (above %g); use the calibrated band",
				names[k], c, ValueOverconfident/2)}
		}
	}
	return nil
}
