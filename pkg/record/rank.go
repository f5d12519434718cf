package record

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Ranked is one ensemble member for ranking.
type Ranked struct {
	Seed        uint64
	LogEvidence float64 // NaN when undefined
	Error       float64 // true relative L2 error (NaN when unknown)
}

// Rank sorts members by decreasing log evidence (undefined evidence last,
// ties by seed) and returns the order.
func Rank(ms []Ranked) []Ranked {
	out := append([]Ranked(nil), ms...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		an, bn := math.IsNaN(a.LogEvidence), math.IsNaN(b.LogEvidence)
		if an != bn {
			return bn
		}
		if !an && a.LogEvidence != b.LogEvidence {
			return a.LogEvidence > b.LogEvidence
		}
		return a.Seed < b.Seed
	})
	return out
}

// Spearman is the rank correlation of x and y over the pairs where both are
// finite (average ranks for ties); NaN with fewer than 3 pairs.
func Spearman(x, y []float64) float64 {
	var xs, ys []float64
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsInf(x[i], 0) && !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	if len(xs) < 3 {
		return math.NaN()
	}
	// Pearson's correlation of the ranks (NaN when a side is constant).
	return stat.Correlation(ranks(xs), ranks(ys), nil)
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}
