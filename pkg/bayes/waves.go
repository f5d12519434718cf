package bayes

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The waves a problem's own values ask for. A condition or measurement
// that oscillates with many periods across the box (heat2d-ms's initial
// sin(20 pi x)) is beyond a small tanh network at the start of training:
// its units are smooth across the box, Adam reaches such a field slowly if
// ever, and the evidence meanwhile explains the values as noise and
// settles on a field that ignores them. Fixed features sin and cos of the
// frequency the values show (nn.Wave) put the oscillation within one
// layer's reach. The frequency is read from the values alone, along each
// input: what a smooth fit of them leaves (a polynomial of low degree in
// that input times one in the others), projected on sin and cos of each
// frequency times that smooth modulation, explains most of it at the
// frequency the values oscillate with.
const (
	// WaveMinPeriods is the fewest periods across the span of a term's
	// points along an input for which a wave is added: one or two a tanh
	// network holds from the start.
	WaveMinPeriods = 3.0
	// WaveShare is the least share of what the smooth fit leaves that one
	// frequency must explain: noise spreads over every frequency, a real
	// oscillation concentrates in one.
	WaveShare = 0.5
	// WaveMax is the most waves per input.
	WaveMax = 4

	waveMaxPeriods = 64.0 // the scan's top, within the points' reach below
	waveStep       = 0.25 // the scan's step in periods across the span
	waveMaxPoints  = 1000 // a term's points read, evenly through them
	waveDegree     = 4    // the smooth fit's degree in the scanned input
	waveModulation = 3    // the modulation's total degree in the others
)

// ProblemWaves returns the waves of net's mapped inputs that p's
// conditions on values and its measurements ask for (see WaveMinPeriods,
// WaveShare), then those its equations carry from their oscillations
// into other inputs (equationWaves); nil when none oscillates. p must be
// drawn.
func ProblemWaves(net *nn.MLP, p *pde.Problem) []nn.Wave {
	var waves []nn.Wave
	var seeds []seed
	for _, t := range p.Terms {
		k := p.OutputIndex(t.Output)
		if k < 0 || !t.GivesValues() || len(t.Points) < 8*waveDegree {
			continue
		}
		v, ok := p.Values(t)
		if !ok || !allFinite(v) || slices.Min(v) == slices.Max(v) {
			continue
		}
		n := min(len(t.Points), waveMaxPoints)
		z, vals := make([][]float64, n), make([]float64, n)
		for r := range z { // evenly through the term's points, which may be ordered
			at := r * len(t.Points) / n
			z[r], vals[r] = net.MapInput(t.Points[at]), v[at]
		}
		for i := range net.Sizes[0] {
			for _, omega := range termWaves(z, vals, i, conditionWaves) {
				waves = addWave(waves, nn.Wave{Input: i, Omega: omega})
				seeds = addSeed(seeds, seed{nn.Wave{Input: i, Omega: omega}, k})
			}
			for _, omega := range termWaves(z, vals, i, seedWaves) {
				seeds = addSeed(seeds, seed{nn.Wave{Input: i, Omega: omega}, k})
			}
		}
	}
	for _, w := range equationWaves(net, p, seeds) {
		waves = addWave(waves, w)
	}
	return waves
}

// addWave appends w unless waves hold one of its input within 5 % of its
// frequency, or WaveMax of its input already.
func addWave(waves []nn.Wave, w nn.Wave) []nn.Wave {
	count := 0
	for _, o := range waves {
		if o.Input != w.Input {
			continue
		}
		if count++; math.Abs(o.Omega-w.Omega) <= 0.05*o.Omega || count >= WaveMax {
			return waves
		}
	}
	return append(waves, w)
}

// waveScan is what termWaves looks for: oscillations of from to to
// periods across the values' span that explain at least share of what
// their smooth fit leaves. Joint reads each frequency's share with the
// smooth fit refitted beside it: below a few periods a polynomial takes
// part of a wave and what it leaves oscillates faster.
type waveScan struct {
	from, to, share float64
	joint           bool
}

var (
	// conditionWaves are the oscillations that get a wave of their own.
	conditionWaves = waveScan{from: WaveMinPeriods, to: waveMaxPeriods, share: WaveShare}
	// seedWaves are those too slow for one that the equations may carry
	// into another input (equationWaves): a share that a bump's wiggles
	// (0.89 for 1/(1 + 100 (x - 0.5)^2)) do not reach.
	seedWaves = waveScan{from: DispersionSeedPeriods, to: WaveMinPeriods, share: DispersionSeedShare, joint: true}
)

// termWaves returns the frequencies (in z's units) with which the values
// v at points z oscillate along input i as ws says, strongest first.
func termWaves(z [][]float64, v []float64, i int, ws waveScan) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range z {
		lo, hi = min(lo, x[i]), max(hi, x[i])
	}
	span := hi - lo
	if !(span > 1e-9) {
		return nil
	}
	top := min(ws.to, float64(len(z))/8) // periods the points resolve
	others := smoothBasis(z, i)
	smooth := withPowers(others, z, i, lo, span)
	rest := residual(smooth, v)
	var out []float64
	for len(out) < WaveMax {
		best, share := 0.0, 0.0
		scan := func(from, to, step float64) {
			for c := from; c <= to; c += step {
				omega := 2 * math.Pi * c / span
				basis := waveBasis(others, z, i, omega)
				if ws.joint {
					basis = besides(smooth, basis)
				}
				if s := explained(basis, rest); s > share {
					best, share = omega, s
				}
			}
		}
		scan(ws.from, top, waveStep)
		if share < ws.share {
			break
		}
		c := best * span / (2 * math.Pi) // refined between the scan's neighbours
		scan(c-waveStep, c+waveStep, waveStep/10)
		if best*span/(2*math.Pi) < ws.from { // refined below: a bump's wiggles, not an oscillation
			break
		}
		out = append(out, best)
		rest = residual(waveBasis(others, z, i, best), rest)
	}
	return out
}

// smoothBasis is, per point, the monomials of total degree at most
// waveModulation in the other inputs (those that vary): the modulation a
// wave along input i may have, a wall's values included (a product of the
// other inputs, as sinh(3 pi x) sin(2 pi y) on wave2d-ms's walls).
func smoothBasis(z [][]float64, i int) [][]float64 {
	var others []int
	for j := range z[0] {
		if j != i && varies(z, j) {
			others = append(others, j)
		}
	}
	b := make([][]float64, len(z))
	for r, x := range z {
		b[r] = monomials(x, others, waveModulation)
	}
	return b
}

// monomials are the products of x's inputs at idx of total degree at
// most deg, 1 first.
func monomials(x []float64, idx []int, deg int) []float64 {
	out := []float64{1}
	if deg == 0 || len(idx) == 0 {
		return out
	}
	for k, j := range idx { // x_j times every monomial of degree < deg in x_j and the inputs after it
		for _, m := range monomials(x, idx[k:], deg-1) {
			out = append(out, x[j]*m)
		}
	}
	return out
}

// varies reports whether input j takes more than one value over z.
func varies(z [][]float64, j int) bool {
	for _, x := range z {
		if math.Abs(x[j]-z[0][j]) > 1e-9 {
			return true
		}
	}
	return false
}

// allFinite reports whether every value of v is a finite number.
func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// withPowers is basis times 1, s, ..., s^waveDegree, s input i rescaled
// to [-1, 1] over its span from lo.
func withPowers(basis, z [][]float64, i int, lo, span float64) [][]float64 {
	out := make([][]float64, len(z))
	for r, x := range z {
		s := 2*(x[i]-lo)/span - 1
		p := 1.0
		for range waveDegree + 1 {
			for _, b := range basis[r] {
				out[r] = append(out[r], b*p)
			}
			p *= s
		}
	}
	return out
}

// besides is, per point, a's columns then b's.
func besides(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for r := range a {
		out[r] = slices.Concat(a[r], b[r])
	}
	return out
}

// waveBasis is basis times sin and cos of omega times input i.
func waveBasis(basis, z [][]float64, i int, omega float64) [][]float64 {
	out := make([][]float64, len(z))
	for r, x := range z {
		s, c := math.Sincos(omega * x[i])
		for _, b := range basis[r] {
			out[r] = append(out[r], b*s, b*c)
		}
	}
	return out
}

// fitOf is the least-squares fit of v by the columns of basis (rows per
// point), nil when it cannot be solved.
func fitOf(basis [][]float64, v []float64) []float64 {
	n, m := len(basis), len(basis[0])
	if n < 2*m {
		return nil
	}
	A := mat.NewDense(n, m, nil)
	for r, row := range basis {
		A.SetRow(r, row)
	}
	var qr mat.QR
	qr.Factorize(A)
	var x, fit mat.VecDense
	if err := qr.SolveVecTo(&x, false, mat.NewVecDense(n, slices.Clone(v))); err != nil {
		return nil // singular to working precision: its fit is rounding
	}
	fit.MulVec(A, &x)
	return fit.RawVector().Data
}

// residual is v less its least-squares fit by basis (v where none).
func residual(basis [][]float64, v []float64) []float64 {
	out := slices.Clone(v)
	if fit := fitOf(basis, v); fit != nil {
		for r := range out {
			out[r] -= fit[r]
		}
	}
	return out
}

// explained is the share of v's sum of squares that its least-squares fit
// by basis holds (0 for v = 0).
func explained(basis [][]float64, v []float64) float64 {
	ss := 0.0
	for _, x := range v {
		ss += x * x
	}
	fit := fitOf(basis, v)
	if !(ss > 0) || fit == nil {
		return 0
	}
	fs := 0.0
	for _, x := range fit {
		fs += x * x
	}
	return fs / ss
}
