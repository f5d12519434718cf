package problems

import (
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

// sampler draws training points from the data seed's stream, by
// independent uniform draws or by Latin hypercube sampling (lhs).
type sampler struct {
	rng  *rand.Rand
	lhs  bool
	name pde.Sampler
}

// strata returns n values in [lo, hi], one uniform in each of n equal
// pieces, in a random order.
func (s sampler) strata(n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i, k := range s.rng.Perm(n) {
		v[i] = lo + (hi-lo)*(float64(k)+s.rng.Float64())/float64(n)
	}
	return v
}

// line returns n values in [lo, hi]: independent uniform draws, or one in
// each of n equal pieces.
func (s sampler) line(n int, lo, hi float64) []float64 {
	if s.lhs {
		return s.strata(n, lo, hi)
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = uniform(s.rng, lo, hi)
	}
	return v
}

// box returns n points in the box [lo, hi]: independent uniform draws
// (coordinates of a point drawn in turn), or a Latin hypercube.
func (s sampler) box(n int, lo, hi []float64) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, len(lo))
	}
	if s.lhs {
		for d := range lo {
			for i, v := range s.strata(n, lo[d], hi[d]) {
				pts[i][d] = v
			}
		}
		return pts
	}
	for _, p := range pts {
		for d := range p {
			p[d] = uniform(s.rng, lo[d], hi[d])
		}
	}
	return pts
}

// boundary returns n points on the edges x=lo0, x=hi0 and t=lo1 of a 2-D
// box with the exact value g. Uniform picks an edge with probability 1/3
// per point and a uniform position on it; lhs stratifies the three edges
// laid end to end (each counted as length 1), so each edge gets n/3 points
// (up to two) spread along it.
func (s sampler) boundary(n int, lo, hi []float64, g func(x, t float64) float64) ([][]float64, []float64) {
	pts := make([][]float64, n)
	tgt := make([]float64, n)
	var along []float64
	if s.lhs {
		along = s.strata(n, 0, 3)
	}
	for i := range pts {
		var edge int
		var f float64 // position along the edge, in [0, 1)
		if s.lhs {
			e := math.Min(math.Floor(along[i]), 2)
			edge, f = int(e), along[i]-e
		} else {
			edge = s.rng.IntN(3)
		}
		var x, t float64
		switch edge {
		case 0:
			x, t = lo[0], s.pos(f, lo[1], hi[1])
		case 1:
			x, t = hi[0], s.pos(f, lo[1], hi[1])
		default:
			x, t = s.pos(f, lo[0], hi[0]), lo[1]
		}
		pts[i] = []float64{x, t}
		tgt[i] = g(x, t)
	}
	return pts, tgt
}

// pos maps a stratified fraction f to [lo, hi], or draws uniformly.
func (s sampler) pos(f, lo, hi float64) float64 {
	if s.lhs {
		return lo + (hi-lo)*f
	}
	return uniform(s.rng, lo, hi)
}
