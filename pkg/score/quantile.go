package score

import (
	"math"
	"slices"
)

// Quantile is the q-quantile of z (the lower order statistic), NaN when z
// is empty: how pkg/band's value check and the records read a band's z-scores.
func Quantile(z []float64, q float64) float64 {
	if len(z) == 0 {
		return math.NaN()
	}
	s := slices.Clone(z)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// QuantileZ is the q-quantile of |mean - exact| / sigma over the points
// with sigma above 0 (the lower order statistic), NaN when there is none:
// a record's q95 of a band for q = 0.95.
func QuantileZ(mean, sigma, exact []float64, q float64) float64 {
	return Quantile(ZScores(mean, sigma, exact), q)
}

// ZScores is |mean - exact| / sigma at each point where sigma is above 0:
// a point that a hard constraint fixes (sigma 0) has no band to score.
func ZScores(mean, sigma, exact []float64) []float64 {
	z := make([]float64, 0, len(mean))
	for i, u := range mean {
		if sigma[i] == 0 {
			continue
		}
		d := math.Abs(u - exact[i])
		if d > 0 {
			d /= sigma[i]
		}
		z = append(z, d)
	}
	return z
}
