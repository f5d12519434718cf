package problems

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
)

var (
	fdCentral    = &fd.Settings{Formula: fd.Central}
	fdCentral2nd = &fd.Settings{Formula: fd.Central2nd, Step: 1e-3}
)

func TestRegressionCurve(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		x, want float64
	}{
		{0, 0},
		{math.Pi / 8, 0}, // cos(π/2) = 0
		{math.Pi / 4, math.Pi * math.Pi / 16},
		{-math.Pi / 4, math.Pi * math.Pi / 16},
		{1, math.Cos(4) * math.Cos(4)},
		{-0.5, 0.25 * math.Cos(2) * math.Cos(2)},
	} {
		if got := RegressionCurve(test.x); !scalar.EqualWithinAbsOrRel(got, test.want, 1e-15, 1e-15) {
			t.Errorf("RegressionCurve(%g): got %v, want %v", test.x, got, test.want)
		}
	}
}

func TestHeatExact(t *testing.T) {
	t.Parallel()
	for _, kappa := range []float64{0.01, 0.1, 1} {
		rnd := rand.New(rand.NewPCG(1, 1))
		for range 100 {
			x, tt := rnd.Float64(), 0.01+rnd.Float64()
			ut := fd.Derivative(func(s float64) float64 { return HeatExact(x, s, kappa) }, tt, fdCentral)
			uxx := fd.Derivative(func(y float64) float64 { return HeatExact(y, tt, kappa) }, x, fdCentral2nd)
			// Central2nd with h = 1e-3: truncation h²π⁴/12 ≈ 1e-5 of |u|.
			if res := ut - kappa*uxx; math.Abs(res) > 1e-5*kappa*math.Pi*math.Pi {
				t.Errorf("κ=%g: residual u_t − κu_xx at (%g, %g): got %g, want 0", kappa, x, tt, res)
			}
			for _, xb := range []float64{0, 1} {
				if got := HeatExact(xb, tt, kappa); math.Abs(got) > 1e-15 {
					t.Errorf("κ=%g: u(%g, %g): got %g, want 0", kappa, xb, tt, got)
				}
			}
			if got, want := HeatExact(x, 0, kappa), math.Sin(math.Pi*x); got != want {
				t.Errorf("κ=%g: u(%g, 0): got %v, want %v", kappa, x, got, want)
			}
		}
	}
}

func TestWaveExact(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		x, tt := rnd.Float64(), 2*rnd.Float64()
		utt := fd.Derivative(func(s float64) float64 { return WaveExact(x, s) }, tt, fdCentral2nd)
		uxx := fd.Derivative(func(y float64) float64 { return WaveExact(y, tt) }, x, fdCentral2nd)
		// Central2nd with h = 1e-3: truncation h²(2π)⁴/12 ≈ 1.3e-4 on
		// the ½ sin(2πx) mode, against |u_xx| up to ≈ 3π².
		if res := utt - uxx; math.Abs(res) > 1e-4 {
			t.Errorf("residual u_tt − u_xx at (%g, %g): got %g, want 0", x, tt, res)
		}
		for _, xb := range []float64{0, 1} {
			if got := WaveExact(xb, tt); math.Abs(got) > 1e-15 {
				t.Errorf("u(%g, %g): got %g, want 0", xb, tt, got)
			}
		}
		want := math.Sin(math.Pi*x) + 0.5*math.Sin(2*math.Pi*x)
		if got := WaveExact(x, 0); !scalar.EqualWithinAbs(got, want, 1e-15) {
			t.Errorf("u(%g, 0): got %v, want %v", x, got, want)
		}
		if ut := fd.Derivative(func(s float64) float64 { return WaveExact(x, s) }, 0, fdCentral); math.Abs(ut) > 1e-9 {
			t.Errorf("u_t(%g, 0): got %g, want 0", x, ut)
		}
	}
}
