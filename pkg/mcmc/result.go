package mcmc

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Result holds the draws of a run and what the sampler did.
type Result struct {
	Sampler Sampler
	Metric  Metric
	// Draws holds one slice per chain, row-major Samples x Dim: draw i of
	// chain c is Draws[c][i*Dim : (i+1)*Dim].
	Draws [][]float64
	// LogDensity holds ln p of each kept draw, per chain.
	LogDensity [][]float64
	// Chains holds what each chain did.
	Chains []Chain

	dim, n int
}

// Chain is what one chain did: per kept draw (Stan's sampler
// diagnostics), and over the chain.
type Chain struct {
	// AcceptStat is Stan's accept_stat__: for NUTS the mean of min(1,
	// exp(H0 - H)) over the trajectory's points, for HMC the Metropolis
	// probability of the end point (0 when divergent). Warm-up drives its
	// mean to TargetAccept.
	AcceptStat []float64
	// TreeDepth is the NUTS tree depth (the trajectory has up to
	// 2^depth leapfrog steps; MaxDepth means it was cut); 0 for HMC.
	TreeDepth []int
	// Leapfrog is the number of leapfrog steps (gradients).
	Leapfrog []int
	// Divergent marks transitions whose energy error exceeded 1000 (or
	// that reached a zero density): the sampler could not follow the
	// trajectory, and the draws may miss part of the posterior.
	Divergent []bool
	// Energy is the Hamiltonian H = -ln p + p^T M⁻¹ p / 2 at the draw.
	Energy []float64

	// StepSize is the leapfrog step after warm-up.
	StepSize float64
	// InvMetric is the inverse metric after warm-up: its diagonal (Diag,
	// Unit) or the dense matrix, row-major (Dense).
	InvMetric []float64
	// WarmupDivergent counts divergences during warm-up, where a few while
	// the step size is tuned are harmless; ThinnedDivergent those of
	// iterations that Thin dropped.
	WarmupDivergent, ThinnedDivergent int
	// Gradients counts evaluations of the LogDensity, warm-up included
	// (with Temperatures, every replica's); WarmupGradients those of
	// warm-up.
	Gradients, WarmupGradients int
	// SwapAccept is, with Temperatures, the fraction of the exchanges
	// proposed between replicas k and k+1 after warm-up that were
	// accepted: near 0 a pair does not exchange, and the ladder needs a
	// temperature between them.
	SwapAccept []float64
}

// Divergences returns the number of divergent kept draws.
func (c *Chain) Divergences() int {
	n := 0
	for _, d := range c.Divergent {
		if d {
			n++
		}
	}
	return n
}

// MeanAccept returns the mean of AcceptStat.
func (c *Chain) MeanAccept() float64 { return meanOf(c.AcceptStat) }

// EBFMI returns the E-BFMI of the chain's energies (see EBFMI).
func (c *Chain) EBFMI() float64 { return EBFMI(c.Energy) }

// MeanTreeDepth returns the mean NUTS tree depth.
func (c *Chain) MeanTreeDepth() float64 {
	var s float64
	for _, d := range c.TreeDepth {
		s += float64(d)
	}
	return s / float64(len(c.TreeDepth))
}

// AtMaxDepth returns the number of draws whose tree reached depth d.
func (c *Chain) AtMaxDepth(d int) int {
	n := 0
	for _, x := range c.TreeDepth {
		if x >= d {
			n++
		}
	}
	return n
}

func meanOf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Dim returns the dimension of the sampled space.
func (r *Result) Dim() int { return r.dim }

// Len returns the number of draws kept per chain.
func (r *Result) Len() int { return r.n }

// Divergences returns the number of divergent kept draws over all chains.
func (r *Result) Divergences() int {
	n := 0
	for i := range r.Chains {
		n += r.Chains[i].Divergences()
	}
	return n
}

// Gradients returns the evaluations of the LogDensity over all chains,
// warm-up included.
func (r *Result) Gradients() int {
	n := 0
	for i := range r.Chains {
		n += r.Chains[i].Gradients
	}
	return n
}

// Sample returns draw i of chain c as a view into Draws, not a copy.
// It panics if c or i is out of range.
func (r *Result) Sample(c, i int) []float64 {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("mcmc: draw index %d out of range [0,%d)", i, r.n))
	}
	return r.Draws[c][i*r.dim : (i+1)*r.dim : (i+1)*r.dim]
}

// Mean returns the mean of all draws of all chains.
func (r *Result) Mean() []float64 {
	m := make([]float64, r.dim)
	for _, d := range r.Draws {
		for i := 0; i < r.n; i++ {
			for j, v := range d[i*r.dim : (i+1)*r.dim] {
				m[j] += v
			}
		}
	}
	inv := 1 / float64(len(r.Draws)*r.n)
	for j := range m {
		m[j] *= inv
	}
	return m
}

// Cov returns the sample covariance of all draws of all chains (N-1
// denominator; NaN if there is one draw).
func (r *Result) Cov() *mat.SymDense {
	cov := mat.NewSymDense(r.dim, nil)
	all := mat.NewDense(len(r.Draws)*r.n, r.dim, slices.Concat(r.Draws...))
	stat.CovarianceMatrix(cov, all, nil)
	return cov
}

// Trace copies coordinate j of every chain into dst (one slice per chain,
// reused when long enough) and returns it: the input of the diagnostics.
func (r *Result) Trace(dst [][]float64, j int) [][]float64 {
	if dst == nil {
		dst = make([][]float64, len(r.Draws))
	}
	for c, d := range r.Draws {
		if cap(dst[c]) < r.n {
			dst[c] = make([]float64, r.n)
		}
		dst[c] = dst[c][:r.n]
		for i := range dst[c] {
			dst[c][i] = d[i*r.dim+j]
		}
	}
	return dst
}

// Summaries returns the Summary of each coordinate.
func (r *Result) Summaries() []Summary {
	out := make([]Summary, r.dim)
	var tr [][]float64
	for j := range out {
		tr = r.Trace(tr, j)
		out[j] = Summarize(tr)
	}
	return out
}

// Predictive evaluates f on every draw of every chain, in order, and
// summarizes its nOut outputs. f must write nOut values into out and must
// not keep x or out. Predictive stores every value: it needs
// 8*nOut*Chains*Len bytes. It panics if nOut < 1.
func (r *Result) Predictive(nOut int, f func(x, out []float64)) []Summary {
	if nOut < 1 {
		panic("mcmc: Predictive needs nOut >= 1")
	}
	nc := len(r.Draws)
	// vals[o][c] is the trace of output o in chain c.
	flat := make([]float64, nOut*nc*r.n)
	vals := make([][][]float64, nOut)
	for o := range vals {
		vals[o] = make([][]float64, nc)
		for c := range vals[o] {
			off := (o*nc + c) * r.n
			vals[o][c] = flat[off : off+r.n : off+r.n]
		}
	}
	out := make([]float64, nOut)
	for c := 0; c < nc; c++ {
		for i := 0; i < r.n; i++ {
			f(r.Sample(c, i), out)
			for o, v := range out {
				vals[o][c][i] = v
			}
		}
	}
	s := make([]Summary, nOut)
	for o, ch := range vals {
		s[o] = Summarize(ch)
	}
	return s
}
