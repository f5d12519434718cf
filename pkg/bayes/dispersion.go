package bayes

import (
	"cmp"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The waves an equation carries. A condition's values may oscillate too
// slowly along one input for a wave of their own, yet an equation of
// waves carries that oscillation into another input at a frequency the
// equation sets: wave1d's initial values sin(pi x) + 0.5 sin(4 pi x) have
// two periods of the second across x, and u_tt = 4 u_xx turns 4 pi in x
// into 8 pi in t, four periods over t in [0, 1] that no condition shows.
// A tanh network does not find them: from balanced betas the evidence
// settles on u = 0, which meets the equation, the rate and the walls
// exactly. The frequency is the equation's dispersion: the omega at which
// a travelling wave A sin(k x_i + s omega x_j), s = +1 or -1, solves the
// equation (its residual less the residual at u = 0 vanishes at every
// point). Diffusion and Laplace's equation have no such real omega, a
// nonlinear equation none at the amplitude A the conditions state, and an
// equation whose coefficients vary keeps a residual: they ask for none.
const (
	// DispersionSeedPeriods is the fewest periods of a condition's
	// oscillation along an input that the equations may carry into
	// another: from there up to WaveMinPeriods it gets no wave of its own.
	DispersionSeedPeriods = 1.5
	// DispersionSeedShare is the least share of what the smooth fit of
	// the values leaves that such an oscillation must explain: a wave
	// the values hold nearly alone.
	DispersionSeedShare = 0.99
	// DispersionTol is the most a root's rms residual may be against the
	// median over the scan's frequencies: an exact solution leaves
	// rounding, an equation without one a share of order one.
	DispersionTol = 1e-6

	dispersionPoints = 256 // an equation's points read
)

// seed is a condition's oscillation, a frequency of net's mapped input,
// in output k.
type seed struct {
	wave nn.Wave
	k    int
}

// addSeed appends s unless seeds hold one of its input and output within
// 5 % of its frequency.
func addSeed(seeds []seed, s seed) []seed {
	for _, o := range seeds {
		if o.k == s.k && o.wave.Input == s.wave.Input && math.Abs(o.wave.Omega-s.wave.Omega) <= 0.05*o.wave.Omega {
			return seeds
		}
	}
	return append(seeds, s)
}

// equationWaves returns the waves of net's mapped inputs that p's
// equations carry from the seeds (above): along each other input j the
// frequency at which a travelling wave with the seed's solves an
// equation, where it has at least WaveMinPeriods and at most
// waveMaxPeriods across the box along j.
func equationWaves(net *nn.MLP, p *pde.Problem, seeds []seed) []nn.Wave {
	if len(seeds) == 0 {
		return nil
	}
	lo, hi := problemBox(p)
	amp := cmp.Or(StatedScale(p), 1)
	var waves []nn.Wave
	for _, t := range p.Terms {
		if t.GivesValues() || t.Target != nil || t.Pairs != nil || len(t.Fields) > 0 || len(t.Points) == 0 {
			continue
		}
		t.Points = t.Points[:min(len(t.Points), dispersionPoints)]
		zero, ok := trialResidual(p, t, 0, nil)
		if !ok {
			continue // the term reads what a trial field has not (an unknown)
		}
		for _, s := range seeds {
			k := s.wave.Omega / inScale(net, s.wave.Input)
			for j := range p.Dim() {
				span := hi[j] - lo[j]
				if j == s.wave.Input || !(span > 0) || !varies(t.Points, j) {
					continue
				}
				for _, sign := range []float64{1, -1} {
					residual := func(omega float64) float64 {
						r, ok := trialResidual(p, t, s.k, func(c []*ad.Node) *ad.Node {
							return ad.Scale(ad.Sin(ad.Add(ad.Scale(c[s.wave.Input], k), ad.Scale(c[j], sign*omega))), amp)
						})
						if !ok {
							return math.NaN()
						}
						for i := range r {
							r[i] -= zero[i]
						}
						return rms(r)
					}
					if omega, ok := dispersion(residual, span); ok {
						waves = addWave(waves, nn.Wave{Input: j, Omega: omega * inScale(net, j)})
					}
				}
			}
		}
	}
	return waves
}

// dispersion is the frequency omega in [WaveMinPeriods, waveMaxPeriods]
// periods across span at which residual(omega) vanishes (DispersionTol),
// scanned by waveStep periods and refined by golden sections between the
// scan's neighbours of its least value.
func dispersion(residual func(omega float64) float64, span float64) (float64, bool) {
	at := func(c float64) float64 { return 2 * math.Pi * c / span }
	var cs, rs []float64
	for c := WaveMinPeriods - waveStep; c <= waveMaxPeriods; c += waveStep {
		r := residual(at(c))
		if math.IsNaN(r) {
			return 0, false
		}
		cs, rs = append(cs, c), append(rs, r)
	}
	best := 0
	for i, r := range rs {
		if r < rs[best] {
			best = i
		}
	}
	median := slices.Clone(rs)
	slices.Sort(median)
	scale := median[len(median)/2]
	a, b := cs[max(best-1, 0)], cs[min(best+1, len(cs)-1)]
	const g = 0.6180339887498949
	for range 40 {
		c1, c2 := b-g*(b-a), a+g*(b-a)
		if residual(at(c1)) < residual(at(c2)) {
			b = c2
		} else {
			a = c1
		}
	}
	c := (a + b) / 2
	if c < WaveMinPeriods || c > waveMaxPeriods || !(residual(at(c)) <= DispersionTol*scale) {
		return 0, false
	}
	return at(c), true
}

// trialResidual is the residual of term t of p (at t's points) for the
// field that wave makes of the input columns in output k, the others 0
// (wave nil: 0 everywhere); ok false when it cannot be built or is not
// finite.
func trialResidual(p *pde.Problem, t pde.Term, k int, wave func(cols []*ad.Node) *ad.Node) ([]float64, bool) {
	q := *p
	q.Terms = []pde.Term{t}
	r, err := q.TrialResidual(0, func(cols []*ad.Node) []*ad.Node {
		g, n := cols[0].Graph(), cols[0].Shape().Rows
		out := make([]*ad.Node, len(q.OutputNames()))
		for o := range out {
			out[o] = g.Fill(n, 1, 0)
		}
		if wave != nil {
			out[k] = wave(cols)
		}
		return out
	})
	return r, err == nil && allFinite(r)
}

// inScale is the factor by which net's map divides input i (1 unmapped).
func inScale(net *nn.MLP, i int) float64 {
	if net.InScale == nil {
		return 1
	}
	return net.InScale[i]
}
