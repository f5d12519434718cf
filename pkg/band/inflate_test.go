package band

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Local widens sigma by sqrt(ratio) exactly where the rms of a
// term's LocalNeighbours fresh residuals nearest a point exceeds LocalRatio
// times the term's rms (the nearest found by sorting all distances here),
// and leaves it elsewhere.
func TestLocalInflation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var pts [][]float64
	var sq []float64
	ms := 0.0
	for i := 0; i < 400; i++ {
		x := []float64{rng.Float64(), 2 * rng.Float64()}
		r := 0.01 * rng.NormFloat64()
		if math.Abs(x[0]-0.5) < 0.05 { // a shock: the equation violated along x = 0.5
			r *= 30
		}
		pts, sq = append(pts, x), append(sq, r*r)
		ms += r * r / 400
	}
	unit := make([][]float64, len(pts)) // the term keeps its points in the unit box
	for j, y := range pts {
		unit[j] = []float64{y[0], y[1] / 2}
	}
	li := &Local{Span: []float64{1, 2}, Terms: []LocalTerm{{Points: unit, Sq: sq, MS: ms}}}
	probe := [][]float64{{0.5, 1}, {0.52, 0.3}, {0.1, 1}, {0.9, 1.9}, {0.45, 1.5}}
	sigma := []float64{1, 1, 1, 1, 1}
	li.apply(probe, sigma)
	widened := 0
	for i, x := range probe {
		idx := make([]int, len(pts))
		d := make([]float64, len(pts))
		for j, y := range pts {
			idx[j], d[j] = j, math.Pow(x[0]-y[0], 2)+math.Pow((x[1]-y[1])/2, 2)
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
		local := 0.0
		for _, j := range idx[:LocalNeighbours] {
			local += sq[j] / LocalNeighbours
		}
		want := 1.0
		if ratio := math.Sqrt(local / ms); ratio > LocalRatio {
			want, widened = math.Sqrt(ratio), widened+1
		}
		if math.Abs(sigma[i]-want) > 1e-12 {
			t.Errorf("at %v: sigma x%g, want x%g", x, sigma[i], want)
		}
	}
	if widened < 2 || widened == len(probe) {
		t.Errorf("%d of %d probes widened: want those at the shock only", widened, len(probe))
	}
	var none *Local
	s := []float64{2}
	if none.apply(probe[:1], s); s[0] != 2 {
		t.Errorf("no inflation changed sigma to %g", s[0])
	}
}
