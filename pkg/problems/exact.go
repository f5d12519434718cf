package problems

import "math"

// RegressionCurve is the one-dimensional regression target of the paper,
//
//	f(x) = x² cos²(4x).
func RegressionCurve(x float64) float64 {
	c := math.Cos(4 * x)
	return x * x * c * c
}

// HeatExact is the exact solution of the heat equation
//
//	u_t = κ u_xx,  x ∈ [0, 1], t ≥ 0,
//	u(0, t) = u(1, t) = 0,  u(x, 0) = sin(πx),
//
// given by u(x, t) = sin(πx) exp(−κπ²t).
func HeatExact(x, t, kappa float64) float64 {
	return math.Sin(math.Pi*x) * math.Exp(-kappa*math.Pi*math.Pi*t)
}

// WaveExact is the exact solution of the wave equation with unit speed
//
//	u_tt = u_xx,  x ∈ [0, 1], t ≥ 0,
//	u(0, t) = u(1, t) = 0,
//	u(x, 0) = sin(πx) + ½ sin(2πx),  u_t(x, 0) = 0,
//
// given by u(x, t) = sin(πx) cos(πt) + ½ sin(2πx) cos(2πt).
func WaveExact(x, t float64) float64 {
	return math.Sin(math.Pi*x)*math.Cos(math.Pi*t) +
		0.5*math.Sin(2*math.Pi*x)*math.Cos(2*math.Pi*t)
}
