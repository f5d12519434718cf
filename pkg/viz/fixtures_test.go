package viz_test

import (
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// Deterministic data shaped like the paper's studies, shared by the golden
// tests, the chart tests and the examples. Randomness comes from a seeded
// PCG, whose stream is the same on every platform.

func linspace(a, b float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return v
}

func heatExact(x, t float64) float64 {
	const kappa = 0.1
	return math.Sin(math.Pi*x) * math.Exp(-kappa*math.Pi*math.Pi*t)
}

func waveExact(x, t float64) float64 {
	return math.Sin(math.Pi*x)*math.Cos(math.Pi*t) + 0.5*math.Sin(2*math.Pi*x)*math.Cos(2*math.Pi*t)
}

// heatSlices is the heat equation at five times with a slightly wrong
// prediction and a sigma that grows with t.
func heatSlices() []viz.Slice {
	var ss []viz.Slice
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		x := linspace(0, 1, 41)
		s := viz.Slice{T: t, X: x}
		for _, xi := range x {
			u := heatExact(xi, t)
			s.Exact = append(s.Exact, u)
			s.Pred = append(s.Pred, u+0.015*math.Sin(3*math.Pi*xi+t))
			s.Sigma = append(s.Sigma, 0.01+0.02*t*math.Sin(math.Pi*xi))
		}
		ss = append(ss, s)
	}
	return ss
}

// waveSlices is the wave equation with an error that sometimes leaves the
// 2-sigma band.
func waveSlices() []viz.Slice {
	var ss []viz.Slice
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		x := linspace(0, 1, 51)
		s := viz.Slice{T: t, X: x}
		for _, xi := range x {
			u := waveExact(xi, t)
			s.Exact = append(s.Exact, u)
			s.Pred = append(s.Pred, u-0.02*math.Sin(5*xi+3*t)*math.Sin(math.Pi*xi))
			s.Sigma = append(s.Sigma, 0.003+0.005*math.Sin(math.Pi*xi))
		}
		ss = append(ss, s)
	}
	return ss
}

// trainingHistory is a wave-equation-like run with four α and two β.
func trainingHistory() viz.History {
	var h viz.History
	h.ET.Name = "E_T"
	for e := 0; e <= 20000; e += 100 {
		h.ET.Epochs = append(h.ET.Epochs, e)
		h.ET.Values = append(h.ET.Values, 40*math.Exp(-float64(e)/2500)+0.3+0.05*math.Sin(float64(e)/700))
	}
	h.Alpha = make([]viz.Series, 4)
	h.Beta = []viz.Series{{Name: "β_q"}, {Name: "β_b"}}
	for e := 5000; e <= 20000; e += 250 {
		s := float64(e-5000) / 15000
		h.EHyp.Epochs = append(h.EHyp.Epochs, e)
		h.EHyp.Values = append(h.EHyp.Values, -169+60*math.Exp(-6*s))
		h.LogEvidence.Epochs = append(h.LogEvidence.Epochs, e)
		h.LogEvidence.Values = append(h.LogEvidence.Values, 169-60*math.Exp(-6*s)-9*math.Exp(-3*s))
		for i := range h.Alpha {
			h.Alpha[i].Epochs = append(h.Alpha[i].Epochs, e)
			h.Alpha[i].Values = append(h.Alpha[i].Values, 0.01*math.Pow(10, (1+0.3*float64(i))*(1-math.Exp(-4*s))))
		}
		for i := range h.Beta {
			h.Beta[i].Epochs = append(h.Beta[i].Epochs, e)
			h.Beta[i].Values = append(h.Beta[i].Values, 200*(1+float64(i))*(1+0.5*s))
		}
	}
	return h
}

// heatHistory is a heat-equation-like run with one α and one β: hyperparameter
// steps from epoch 2500, E_hyp falling through 0 to about -280 and β rising
// to 5000 (the ticks "2500", "0", "-250" and "1000", not "2500.00" or "1e+03").
func heatHistory() viz.History {
	var h viz.History
	h.ET.Name, h.EHyp.Name = "E_T", "E_hyp"
	h.Alpha, h.Beta = make([]viz.Series, 1), make([]viz.Series, 1)
	for e := 25; e <= 7500; e += 25 {
		s := float64(e) / 7500
		h.ET.Epochs = append(h.ET.Epochs, e)
		h.ET.Values = append(h.ET.Values, 8*math.Exp(-9*s)+0.5*math.Pow(10, 2*max(0, s-0.33)))
		alpha, beta := 0.01, 1.0
		if e >= 2500 {
			r := float64(e-2500) / 5000
			alpha, beta = 0.01*math.Pow(50, math.Min(1, 2*r)), math.Pow(5000, r)
			h.EHyp.Epochs = append(h.EHyp.Epochs, e)
			h.EHyp.Values = append(h.EHyp.Values, 30-310*r*(2-r))
		}
		h.Alpha[0].Epochs, h.Alpha[0].Values = append(h.Alpha[0].Epochs, e), append(h.Alpha[0].Values, alpha)
		h.Beta[0].Epochs, h.Beta[0].Values = append(h.Beta[0].Epochs, e), append(h.Beta[0].Values, beta)
	}
	return h
}

// heatPoints are 50 interior (equation) and 50 boundary points of the heat
// problem on [0,1] x [0,1], plus 10 data points.
func heatPoints() []viz.PointSet {
	rng := rand.New(rand.NewPCG(1, 2))
	eq := viz.PointSet{Name: "equation"}
	bd := viz.PointSet{Name: "boundary"}
	data := viz.PointSet{Name: "data"}
	for range 50 {
		eq.X = append(eq.X, rng.Float64())
		eq.Y = append(eq.Y, rng.Float64())
	}
	for i := range 50 {
		switch i % 3 {
		case 0:
			bd.X, bd.Y = append(bd.X, 0), append(bd.Y, rng.Float64())
		case 1:
			bd.X, bd.Y = append(bd.X, 1), append(bd.Y, rng.Float64())
		default:
			bd.X, bd.Y = append(bd.X, rng.Float64()), append(bd.Y, 0)
		}
	}
	for range 10 {
		data.X = append(data.X, 0.2+0.6*rng.Float64())
		data.Y = append(data.Y, 0.5)
	}
	return []viz.PointSet{eq, bd, data}
}

// ensembleLogZ returns n log evidences and relative L2 errors that are
// anti-correlated, like a good ensemble.
func ensembleLogZ(n int) (logZ, relErr []float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range n {
		e := math.Pow(10, -2.3+1.3*rng.Float64())
		relErr = append(relErr, e)
		logZ = append(logZ, 160-18*(math.Log10(e)+2.3)+6*rng.NormFloat64())
	}
	return logZ, relErr
}

// heatField is u(x, t) of the heat equation on a 41 x 31 grid.
func heatField() viz.Field {
	f := viz.Field{X: linspace(0, 1, 41), Y: linspace(0, 1, 31)}
	for _, t := range f.Y {
		for _, x := range f.X {
			f.Z = append(f.Z, heatExact(x, t))
		}
	}
	return f
}

// regression is the paper's curve u(x) = x² cos²(4x) with 24 noisy points
// and two posterior predictives whose bands widen away from the data.
func regression() viz.Comparison {
	rng := rand.New(rand.NewPCG(5, 6))
	u := func(x float64) float64 { c := math.Cos(4 * x); return x * x * c * c }
	var c viz.Comparison
	for i := range 24 {
		lo := -0.8
		if i >= 12 {
			lo = 0.3
		}
		x := lo + 0.5*rng.Float64()
		c.DataX = append(c.DataX, x)
		c.DataY = append(c.DataY, u(x)+math.Sqrt(0.0025)*rng.NormFloat64())
	}
	c.X = linspace(-1, 1, 81)
	laplace := viz.Band{Name: "Laplace (evidence)"}
	hmc := viz.Band{Name: "HMC"}
	for _, x := range c.X {
		c.True = append(c.True, u(x))
		gap := math.Exp(-math.Pow((math.Abs(x)-0.55)/0.25, 2))
		sig := 0.02 + 0.12*(1-gap)
		laplace.Mean = append(laplace.Mean, u(x)+0.03*math.Sin(6*x))
		laplace.Sigma = append(laplace.Sigma, sig)
		hmc.Mean = append(hmc.Mean, u(x)+0.04*math.Sin(5*x+1))
		hmc.Sigma = append(hmc.Sigma, 1.2*sig)
	}
	c.Fits = []viz.Band{laplace, hmc}
	return c
}

// hiddenSweep is the log evidence of eight members for five widths.
func hiddenSweep() []viz.HiddenEvidence {
	rng := rand.New(rand.NewPCG(7, 8))
	var gs []viz.HiddenEvidence
	for _, h := range []int{4, 6, 8, 10, 12} {
		g := viz.HiddenEvidence{Hidden: h}
		peak := 160 - 0.8*float64((h-8)*(h-8))
		for range 8 {
			g.LogZ = append(g.LogZ, peak+4*rng.NormFloat64())
		}
		gs = append(gs, g)
	}
	return gs
}
