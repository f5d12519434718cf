package mcmc

import "math"

// dualAveraging is the step-size adaptation of Hoffman & Gelman (2014,
// Alg. 5) with Stan's t0 = 10, κ = 0.75, µ = ln(10 ε) and a γ per sampler.
type dualAveraging struct {
	mu, target, gamma, sBar, xBar float64
	count                         int
}

const (
	// gammaNUTS is Stan's γ.
	gammaNUTS = 0.05
	// gammaHMC is 0.2 for static HMC. It adapts on one noisy end-point
	// probability per iteration, where NUTS averages over its tree; with
	// γ = 0.05 log ε then wanders by tens of percent per iteration near
	// the end of warm-up, and because acceptance falls steeply with ε the
	// fixed point of E[a] = δ sits at a smaller ε than a(ε) = δ (Jensen):
	// on Gaussians in 7 and 19 dimensions δ = 0.8 gave a mean acceptance
	// of 0.90-0.94 after warm-up. With γ = 0.2 it gave 0.78-0.83, with
	// equal or larger ESS.
	gammaHMC = 0.2
	daT0     = 10
	daKappa  = 0.75
)

func (d *dualAveraging) restart(eps float64) {
	*d = dualAveraging{mu: math.Log(10 * eps), target: d.target, gamma: d.gamma}
}

// update takes the acceptance statistic of the last iteration (capped at
// 1) and returns the next step size exp(x):
//
//	s̄ ← (1-η) s̄ + η (δ - a), η = 1/(t+t0);  x = µ - s̄ √t / γ;
//	x̄ ← t^-κ x + (1 - t^-κ) x̄.
func (d *dualAveraging) update(acc float64) float64 {
	acc = math.Min(acc, 1)
	d.count++
	t := float64(d.count)
	eta := 1 / (t + daT0)
	d.sBar = (1-eta)*d.sBar + eta*(d.target-acc)
	x := d.mu - d.sBar*math.Sqrt(t)/d.gamma
	xEta := math.Pow(t, -daKappa)
	d.xBar = xEta*x + (1-xEta)*d.xBar
	return math.Exp(x)
}

// final returns the adapted step size exp(x̄).
func (d *dualAveraging) final() float64 { return math.Exp(d.xBar) }

// metricWindows returns where Stan's metric-adaptation windows start (the
// initial buffer, 75 iterations) and end (exclusive iteration indices; each
// window starts where the previous one ends: 25, 50, 100, ... iterations,
// the last stretched to the terminal buffer of 50) for a warm-up of n
// iterations. A warm-up shorter than 150 is split 15%/75%/10%; below 20 it
// has no windows.
func metricWindows(n int) (start int, ends []int) {
	if n < 20 {
		return n, nil
	}
	initBuf, termBuf, base := 75, 50, 25
	if initBuf+termBuf+base > n {
		initBuf = n * 15 / 100
		termBuf = n / 10
		base = n - initBuf - termBuf
	}
	last := n - termBuf
	size, end := base, initBuf+base
	for {
		if end+2*size > last {
			end = last
		}
		ends = append(ends, end)
		if end == last {
			return initBuf, ends
		}
		size *= 2
		end += size
	}
}
