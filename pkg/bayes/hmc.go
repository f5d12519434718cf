// Hamiltonian (hybrid) Monte Carlo, the reference the paper compares the
// evidence framework with (section "Comparison with Hybrid Monte Carlo").
//
// The sampler knows nothing of networks: it draws from the density
// exp(-U(w)) of any Potential U with a gradient. For a network, U is the
// total loss E_T = sum_i alpha_i E_w^i + sum_t beta_t E_D^t at fixed
// hyperparameters, so exp(-U) is the weight posterior up to a constant.

package bayes

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Potential returns U(w) and writes dU/dw into grad; len(grad) == len(w).
// The sampler draws from the density proportional to exp(-U(w)). A Potential
// may return NaN or ±Inf where the density is zero or undefined; such points
// are rejected (see HMCResult.Divergent). It must not keep w or grad.
type Potential func(w, grad []float64) float64

// HMCSettings holds the settings of HMC. The zero value, like a nil
// *HMCSettings, gives the paper's run (15000 kept samples after 1000 burn-in
// iterations) with Stan's adaptation of the step size and of a diagonal mass
// matrix, on 4 chains.
type HMCSettings struct {
	// Samples is the number of samples kept per chain. If Samples is 0, it
	// is defaulted to 15000 (the paper).
	Samples int
	// BurnIn is the number of warm-up iterations per chain; they adapt the
	// step size and the mass matrix and are then discarded. If BurnIn is 0,
	// it is defaulted to 1000 (the paper). Use NoBurnIn for none.
	BurnIn int
	// NoBurnIn, if true, starts keeping samples at once (BurnIn is ignored):
	// nothing is adapted, the step size is StepSize or the heuristic one.
	NoBurnIn bool
	// Chains is the number of independent chains, each on its own
	// goroutine. If Chains is 0, it is defaulted to 4.
	Chains int
	// Leapfrog is the number of leapfrog steps L per iteration. If Leapfrog
	// is 0, it is defaulted to 20.
	Leapfrog int
	// StepSize is the initial leapfrog step ε. If StepSize is 0, it is found
	// by the doubling/halving heuristic of Hoffman & Gelman (2014, Alg. 4):
	// ε is doubled (halved) until the acceptance probability of one leapfrog
	// step crosses 0.8 (Stan's init_stepsize). Each iteration uses ε times
	// a uniform factor in [0.8, 1.2] (see stepJitter).
	StepSize float64
	// NoStepAdapt, if true, keeps ε fixed: StepSize, or if that is 0 the
	// heuristic's step (found again for each new mass matrix). Otherwise ε
	// is tuned during burn-in by dual averaging (Hoffman & Gelman 2014,
	// Alg. 5, with Stan's t0=10, κ=0.75, µ=ln(10ε), but γ=0.2: see
	// daGamma) and fixed at exp(x̄) after.
	NoStepAdapt bool
	// TargetAccept is the mean acceptance probability δ that dual averaging
	// aims for. If TargetAccept is 0, it is defaulted to 0.8 (Stan).
	TargetAccept float64
	// NoMassAdapt, if true, keeps the identity mass matrix. Otherwise a
	// diagonal inverse mass matrix M⁻¹ is set during burn-in to the
	// regularized variance of the draws, (n/(n+5)) var + 1e-3 (5/(n+5)), in
	// Stan's doubling windows (75 iterations of initial buffer, windows of
	// 25, 50, 100, ..., 50 of terminal buffer; scaled to 15%/75%/10% of a
	// burn-in shorter than 150). It needs BurnIn >= 20.
	NoMassAdapt bool
	// Thin keeps every Thin-th iteration after burn-in, so a chain runs
	// Samples*Thin iterations. If Thin is 0, it is defaulted to 1.
	Thin int
	// Jitter is the standard deviation of the Gaussian noise added to each
	// coordinate of w0 to start each chain. If Jitter is 0, it is defaulted
	// to 0.01; if it is negative, every chain starts exactly at w0.
	Jitter float64
	// Seed seeds the chains: chain c draws from rand.NewPCG(Seed, c), so
	// the same Seed gives the same samples whatever the scheduling.
	Seed uint64
	// Progress, if not nil, is called with the chain index, the number of
	// iterations done and the total (BurnIn + Samples*Thin), at most about
	// 100 times per chain, from the chain's goroutine: it must be safe for
	// concurrent use.
	Progress func(chain, done, total int)
}

// Defaults and constants of the sampler.
const (
	defaultSamples  = 15000
	defaultBurnIn   = 1000
	defaultChains   = 4
	defaultLeapfrog = 20
	defaultTarget   = 0.8
	defaultJitter   = 0.01

	// divergenceLimit is the energy error H(end)-H(start) above which a
	// transition is called divergent (Stan's max_deltaH).
	divergenceLimit = 1000
	// stepJitter randomizes each iteration's step size uniformly in
	// ε(1 ± stepJitter), which breaks the near-periodic trajectories a
	// fixed εL produces on near-Gaussian targets (Neal 2011, sec. 5.4.2.2).
	// On Gaussians with an adapted mass matrix, 0.2 gave up to 3 times the
	// smallest ESS that 0.1 gave.
	stepJitter = 0.2
)

// HMCResult holds the draws of HMC and the state of its adaptation.
type HMCResult struct {
	// Draws holds one slice per chain, row-major Samples x Dim: sample i of
	// chain c is Draws[c][i*Dim : (i+1)*Dim].
	Draws [][]float64
	// U holds the potential U(w) of each kept sample, per chain.
	U [][]float64
	// Accept is, per chain, the mean Metropolis acceptance probability
	// min(1, exp(-ΔH)) over the kept iterations (divergent ones count 0);
	// it is what dual averaging drives to TargetAccept.
	Accept []float64
	// StepSize is, per chain, the leapfrog step ε after adaptation.
	StepSize []float64
	// Divergent counts, per chain, the kept-phase iterations whose energy
	// error exceeded 1000 or whose energy was NaN or ±Inf. They are
	// rejected: the chain stays at its last good state.
	Divergent []int
	// BurnInDivergent counts the divergent transitions during burn-in,
	// per chain; a few while the step size is tuned are harmless.
	BurnInDivergent []int
	// InvMass is, per chain, the diagonal of the inverse mass matrix M⁻¹
	// used after burn-in (all ones without mass adaptation).
	InvMass [][]float64

	dim, n int
}

// Dim returns the dimension of the sampled space.
func (r *HMCResult) Dim() int { return r.dim }

// Len returns the number of samples kept per chain.
func (r *HMCResult) Len() int { return r.n }

// Sample returns sample i of chain c as a view into Draws, not a copy.
// It panics if c or i is out of range.
func (r *HMCResult) Sample(c, i int) []float64 {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("bayes: sample index %d out of range [0,%d)", i, r.n))
	}
	return r.Draws[c][i*r.dim : (i+1)*r.dim : (i+1)*r.dim]
}

// Mean returns the mean of all samples of all chains.
func (r *HMCResult) Mean() []float64 {
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

// Cov returns the sample covariance of all samples of all chains,
// sum (w-m)(w-m)^T / (N-1) with N the total number of samples (NaN if
// N == 1).
func (r *HMCResult) Cov() *mat.SymDense {
	m := r.Mean()
	dim := r.dim
	c := make([]float64, dim*dim)
	x := make([]float64, dim)
	for _, d := range r.Draws {
		for i := 0; i < r.n; i++ {
			for j, v := range d[i*dim : (i+1)*dim] {
				x[j] = v - m[j]
			}
			for j := 0; j < dim; j++ {
				row := c[j*dim : (j+1)*dim]
				xj := x[j]
				for k := j; k < dim; k++ {
					row[k] += xj * x[k]
				}
			}
		}
	}
	inv := 1 / float64(len(r.Draws)*r.n-1)
	for j := 0; j < dim; j++ {
		for k := j; k < dim; k++ {
			c[j*dim+k] *= inv
			c[k*dim+j] = c[j*dim+k]
		}
	}
	return mat.NewSymDense(dim, c)
}

// trace copies coordinate j of every chain into dst (one slice per chain,
// reused when long enough) and returns it.
func (r *HMCResult) trace(dst [][]float64, j int) [][]float64 {
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

// ESS returns the bulk effective sample size of each coordinate over all
// chains (BulkESS: rank-normalized split chains, Geyer's initial monotone
// sequence; Vehtari et al. 2021, as Stan's ess_bulk).
func (r *HMCResult) ESS() []float64 {
	ess := make([]float64, r.dim)
	var tr [][]float64
	for j := range ess {
		tr = r.trace(tr, j)
		ess[j] = BulkESS(tr)
	}
	return ess
}

// RHat returns the rank-normalized split R-hat of each coordinate over all
// chains (RankRHat, Vehtari et al. 2021). Values above 1.01 mean the chains
// have not mixed; NaN means the chains are too short or constant.
func (r *HMCResult) RHat() []float64 {
	rh := make([]float64, r.dim)
	var tr [][]float64
	for j := range rh {
		tr = r.trace(tr, j)
		rh[j] = RankRHat(tr)
	}
	return rh
}

// PredictiveSummary summarizes a vector quantity f(w) over the samples, one
// entry per output.
type PredictiveSummary struct {
	// Mean and Std are the mean and standard deviation (N-1 denominator) of
	// the output over all samples of all chains.
	Mean, Std []float64
	// MCSE is the Monte Carlo standard error of Mean, Std/sqrt(ESS) with
	// the ESS of the mean (ESS, not BulkESS).
	MCSE []float64
	// ESS is the bulk effective sample size (BulkESS).
	ESS []float64
	// RHat is the rank-normalized split R-hat (RankRHat).
	RHat []float64
}

// Predictive evaluates f on every sample of every chain, in order, and
// summarizes its nOut outputs. f must write nOut values into out and must
// not keep w or out. Predictive stores every value: it needs
// 8*nOut*Chains*Len bytes. It panics if nOut < 1.
func (r *HMCResult) Predictive(nOut int, f func(w, out []float64)) PredictiveSummary {
	if nOut < 1 {
		panic("bayes: Predictive needs nOut >= 1")
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
	s := PredictiveSummary{
		Mean: make([]float64, nOut),
		Std:  make([]float64, nOut),
		MCSE: make([]float64, nOut),
		ESS:  make([]float64, nOut),
		RHat: make([]float64, nOut),
	}
	for o, ch := range vals {
		s.Mean[o], s.Std[o] = meanStd(flat[o*nc*r.n : (o+1)*nc*r.n])
		s.MCSE[o] = s.Std[o] / math.Sqrt(ESS(ch))
		s.ESS[o] = BulkESS(ch)
		s.RHat[o] = RankRHat(ch)
	}
	return s
}

// meanStd returns the mean and the standard deviation (N-1 denominator).
func meanStd(x []float64) (m, s float64) {
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}

// hmcConfig is HMCSettings with its defaults applied.
type hmcConfig struct {
	samples, burnIn, chains, leapfrog, thin int
	step, target, jitter                    float64
	adaptStep, adaptMass                    bool
	seed                                    uint64
	progress                                func(chain, done, total int)
}

func (s *HMCSettings) config() (hmcConfig, error) {
	if s == nil {
		s = &HMCSettings{}
	}
	neg := func(field string, v int, def int) error {
		return fmt.Errorf("bayes: HMCSettings.%s is %d; use a positive value, or 0 for the default %d", field, v, def)
	}
	switch {
	case s.Samples < 0:
		return hmcConfig{}, neg("Samples", s.Samples, defaultSamples)
	case s.BurnIn < 0:
		return hmcConfig{}, fmt.Errorf("bayes: HMCSettings.BurnIn is %d; use a positive value, 0 for the default %d, or NoBurnIn for none", s.BurnIn, defaultBurnIn)
	case s.Chains < 0:
		return hmcConfig{}, neg("Chains", s.Chains, defaultChains)
	case s.Leapfrog < 0:
		return hmcConfig{}, neg("Leapfrog", s.Leapfrog, defaultLeapfrog)
	case s.Thin < 0:
		return hmcConfig{}, neg("Thin", s.Thin, 1)
	case !(s.StepSize >= 0) || math.IsInf(s.StepSize, 1):
		return hmcConfig{}, fmt.Errorf("bayes: HMCSettings.StepSize is %g; use a finite positive step, or 0 to find one", s.StepSize)
	case !(s.TargetAccept >= 0 && s.TargetAccept < 1):
		return hmcConfig{}, fmt.Errorf("bayes: HMCSettings.TargetAccept is %g; use a probability in (0,1), or 0 for the default %g", s.TargetAccept, defaultTarget)
	case math.IsNaN(s.Jitter) || math.IsInf(s.Jitter, 0):
		return hmcConfig{}, fmt.Errorf("bayes: HMCSettings.Jitter is %g; use a finite value, 0 for the default %g, or negative for none", s.Jitter, defaultJitter)
	}
	c := hmcConfig{
		samples:   orInt(s.Samples, defaultSamples),
		burnIn:    orInt(s.BurnIn, defaultBurnIn),
		chains:    orInt(s.Chains, defaultChains),
		leapfrog:  orInt(s.Leapfrog, defaultLeapfrog),
		thin:      orInt(s.Thin, 1),
		step:      s.StepSize,
		target:    s.TargetAccept,
		jitter:    s.Jitter,
		adaptStep: !s.NoStepAdapt,
		adaptMass: !s.NoMassAdapt,
		seed:      s.Seed,
		progress:  s.Progress,
	}
	if s.NoBurnIn {
		c.burnIn = 0
	}
	if c.target == 0 {
		c.target = defaultTarget
	}
	switch {
	case c.jitter == 0:
		c.jitter = defaultJitter
	case c.jitter < 0:
		c.jitter = 0
	}
	return c, nil
}

// Sizes returns the chains, samples per chain and burn-in iterations that s
// runs, with the defaults applied (zeros when s is invalid).
func (s *HMCSettings) Sizes() (chains, samples, burnIn int) {
	c, _ := s.config()
	return c.chains, c.samples, c.burnIn
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// HMC draws samples from the density proportional to exp(-U(w)) by
// Hamiltonian Monte Carlo with a diagonal mass matrix M (Neal 2011): each
// iteration draws a momentum p ~ N(0, M), runs L leapfrog steps of
// H(w, p) = U(w) + p^T M⁻¹ p / 2, and accepts the end point with
// probability min(1, exp(H(start) - H(end))).
//
// newU is called once per chain, on the caller's goroutine, so each chain
// gets its own Potential (buffers, closure state); the chains then run
// concurrently. Chain c starts at w0 plus N(0, Jitter²) noise. A nil s
// means all defaults (see HMCSettings).
//
// HMC returns an error, and no result, if a setting is invalid, if w0 is
// empty, if U is not finite at a chain's start, or if the step-size
// heuristic cannot find a step (U flat or improper). Divergent transitions
// are not errors: they are counted in the result.
func HMC(newU func() Potential, w0 []float64, s *HMCSettings) (*HMCResult, error) {
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	if len(w0) == 0 {
		return nil, errors.New("bayes: HMC needs a starting point; w0 is empty")
	}
	if newU == nil {
		return nil, errors.New("bayes: HMC needs a potential; newU is nil")
	}
	dim := len(w0)
	r := &HMCResult{
		Draws:           make([][]float64, cfg.chains),
		U:               make([][]float64, cfg.chains),
		Accept:          make([]float64, cfg.chains),
		StepSize:        make([]float64, cfg.chains),
		Divergent:       make([]int, cfg.chains),
		BurnInDivergent: make([]int, cfg.chains),
		InvMass:         make([][]float64, cfg.chains),
		dim:             dim,
		n:               cfg.samples,
	}
	chains := make([]*chain, cfg.chains)
	for c := range chains {
		u := newU()
		if u == nil {
			return nil, fmt.Errorf("bayes: HMC: newU returned a nil Potential for chain %d", c)
		}
		chains[c] = newChain(c, u, w0, &cfg, r)
	}
	errs := make([]error, cfg.chains)
	var wg sync.WaitGroup
	for c, ch := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = ch.run()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// chain is the state of one chain. It owns its RNG and all its buffers, so
// chains share nothing but the read-only config and disjoint result slots.
type chain struct {
	id  int
	u   Potential
	cfg *hmcConfig
	rng *rand.Rand
	res *HMCResult

	w, g   []float64 // current state and dU/dw there
	uw     float64   // U(w)
	wp, gp []float64 // proposal
	p      []float64 // momentum
	minv   []float64 // diagonal of M⁻¹
	sqrtM  []float64 // sqrt(1/minv), to draw p ~ N(0, M)
	eps    float64

	// Welford accumulators of the current mass-adaptation window.
	wn         int
	wmean, wm2 []float64
}

func newChain(id int, u Potential, w0 []float64, cfg *hmcConfig, r *HMCResult) *chain {
	dim := len(w0)
	buf := make([]float64, 10*dim)
	next := func() []float64 {
		s := buf[:dim:dim]
		buf = buf[dim:]
		return s
	}
	ch := &chain{
		id: id, u: u, cfg: cfg, res: r,
		rng: rand.New(rand.NewPCG(cfg.seed, uint64(id))),
		w:   next(), g: next(), wp: next(), gp: next(), p: next(),
		minv: next(), sqrtM: next(), wmean: next(), wm2: next(),
	}
	for i := range ch.minv {
		ch.minv[i] = 1
		ch.sqrtM[i] = 1
	}
	for i, v := range w0 {
		ch.w[i] = v + cfg.jitter*ch.rng.NormFloat64()
	}
	return ch
}

// leapfrog advances (w, p) by n leapfrog steps of size eps for
// H = U(w) + sum_i minv_i p_i²/2:
//
//	p ← p - ε/2 ∇U(w);  w ← w + ε M⁻¹p;  p ← p - ε/2 ∇U(w)
//
// with the inner half kicks merged. g must hold ∇U(w) on entry; on return
// w, p and g are the end state and leapfrog returns U there. If U becomes
// NaN or ±Inf, leapfrog stops at once and returns that value, leaving w, p
// and g in an intermediate state. It allocates nothing.
func leapfrog(u Potential, w, p, g, minv []float64, eps float64, n int) float64 {
	half := eps / 2
	for i, gi := range g {
		p[i] -= half * gi
	}
	var uw float64
	for step := 0; step < n; step++ {
		for i, mi := range minv {
			w[i] += eps * mi * p[i]
		}
		uw = u(w, g)
		if math.IsNaN(uw) || math.IsInf(uw, 0) {
			return uw
		}
		kick := eps
		if step == n-1 {
			kick = half
		}
		for i, gi := range g {
			p[i] -= kick * gi
		}
	}
	return uw
}

// kinetic returns p^T M⁻¹ p / 2.
func kinetic(p, minv []float64) float64 {
	var k float64
	for i, pi := range p {
		k += minv[i] * pi * pi
	}
	return k / 2
}

// drawMomentum sets p ~ N(0, M) and returns its kinetic energy.
func (ch *chain) drawMomentum() float64 {
	for i, s := range ch.sqrtM {
		ch.p[i] = s * ch.rng.NormFloat64()
	}
	return kinetic(ch.p, ch.minv)
}

// transition runs one HMC iteration with n steps of size eps. It returns
// the acceptance probability min(1, exp(-ΔH)) (0 if divergent) and whether
// the transition diverged; on acceptance the proposal becomes the state.
func (ch *chain) transition(eps float64, n int) (acc float64, divergent bool) {
	h0 := ch.uw + ch.drawMomentum()
	copy(ch.wp, ch.w)
	copy(ch.gp, ch.g)
	up := leapfrog(ch.u, ch.wp, ch.p, ch.gp, ch.minv, eps, n)
	dh := up + kinetic(ch.p, ch.minv) - h0
	if math.IsNaN(dh) || math.IsInf(dh, 0) || dh > divergenceLimit {
		return 0, true
	}
	acc = 1
	if dh > 0 {
		acc = math.Exp(-dh)
	}
	if acc == 1 || ch.rng.Float64() < acc {
		ch.w, ch.wp = ch.wp, ch.w
		ch.g, ch.gp = ch.gp, ch.g
		ch.uw = up
	}
	return acc, false
}

// initStepSize is Stan's init_stepsize heuristic: starting from ch.eps, it
// doubles (halves) ε while one leapfrog step from the current state has
// ΔH = H(start) - H(end) above (below) ln 0.8. The state is not moved.
func (ch *chain) initStepSize() error {
	logTarget := math.Log(0.8)
	deltaH := func() float64 {
		h0 := ch.uw + ch.drawMomentum()
		copy(ch.wp, ch.w)
		copy(ch.gp, ch.g)
		up := leapfrog(ch.u, ch.wp, ch.p, ch.gp, ch.minv, ch.eps, 1)
		d := h0 - up - kinetic(ch.p, ch.minv)
		if math.IsNaN(d) {
			return math.Inf(-1)
		}
		return d
	}
	dir := -1.0
	if deltaH() > logTarget {
		dir = 1
	}
	for range 200 {
		d := deltaH()
		if (dir > 0 && !(d > logTarget)) || (dir < 0 && !(d < logTarget)) {
			return nil
		}
		if dir > 0 {
			ch.eps *= 2
		} else {
			ch.eps /= 2
		}
		if ch.eps > 1e7 {
			return fmt.Errorf("bayes: HMC chain %d: step size heuristic passed 1e7; is exp(-U) proper (U growing away from its minimum)?", ch.id)
		}
		if ch.eps < 1e-300 {
			return fmt.Errorf("bayes: HMC chain %d: step size heuristic fell to 0; is U finite and smooth near w0?", ch.id)
		}
	}
	return nil
}

// dualAveraging is the step-size adaptation of Hoffman & Gelman (2014),
// Alg. 5, with Stan's constants but for γ.
type dualAveraging struct {
	mu, target, sBar, xBar float64
	count                  int
}

const (
	// daGamma is 0.2, not Stan's 0.05. Static HMC adapts on one noisy
	// end-point probability per iteration, where NUTS averages over its
	// tree; with γ = 0.05 log ε then wanders by tens of percent per
	// iteration near the end of burn-in, and because acceptance falls
	// steeply with ε the fixed point of E[a] = δ sits at a smaller ε than
	// a(ε) = δ (Jensen): on Gaussians in 7 and 19 dimensions δ = 0.8 gave
	// a mean acceptance of 0.90-0.94 after burn-in. With γ = 0.2 (the
	// x update is ∝ 1/γ) it gave 0.78-0.83, with equal or larger ESS.
	daGamma = 0.2
	daT0    = 10
	daKappa = 0.75
)

func (d *dualAveraging) restart(eps, target float64) {
	*d = dualAveraging{mu: math.Log(10 * eps), target: target}
}

// update takes the acceptance probability of the last iteration and
// returns the next step size exp(x):
//
//	s̄ ← (1-η) s̄ + η (δ - a), η = 1/(t+t0);  x = µ - s̄ √t / γ;
//	x̄ ← t^-κ x + (1 - t^-κ) x̄.
func (d *dualAveraging) update(acc float64) float64 {
	d.count++
	t := float64(d.count)
	eta := 1 / (t + daT0)
	d.sBar = (1-eta)*d.sBar + eta*(d.target-acc)
	x := d.mu - d.sBar*math.Sqrt(t)/daGamma
	xEta := math.Pow(t, -daKappa)
	d.xBar = xEta*x + (1-xEta)*d.xBar
	return math.Exp(x)
}

// final returns the adapted step size exp(x̄).
func (d *dualAveraging) final() float64 { return math.Exp(d.xBar) }

// massWindows returns where Stan's mass-adaptation windows start (the
// initial buffer) and end (exclusive iteration indices; each window starts
// where the previous one ends) for a burn-in of n iterations, or no windows
// if n < 20.
func massWindows(n int) (start int, ends []int) {
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

// run runs burn-in and sampling and writes the chain's slot of the result.
func (ch *chain) run() error {
	cfg, r, c := ch.cfg, ch.res, ch.id
	dim := len(ch.w)
	ch.uw = ch.u(ch.w, ch.g)
	if math.IsNaN(ch.uw) || math.IsInf(ch.uw, 0) {
		return fmt.Errorf("bayes: HMC chain %d: U is %g at the start; start where the density is positive (lower Jitter?)", c, ch.uw)
	}
	ch.eps = cfg.step
	if ch.eps == 0 {
		ch.eps = 1
		if err := ch.initStepSize(); err != nil {
			return err
		}
	}
	total := cfg.burnIn + cfg.samples*cfg.thin
	every := max(1, total/100)
	progress := func(done int) {
		if cfg.progress != nil && (done%every == 0 || done == total) {
			cfg.progress(c, done, total)
		}
	}

	// Burn-in.
	var da dualAveraging
	da.restart(ch.eps, cfg.target)
	var (
		start   int
		windows []int
	)
	if cfg.adaptMass {
		start, windows = massWindows(cfg.burnIn)
	}
	// After a mass window the step is found anew for the new metric,
	// unless the user fixed it.
	restep := cfg.adaptStep || cfg.step == 0
	for it := 0; it < cfg.burnIn; it++ {
		acc, div := ch.transition(ch.jitteredStep(), cfg.leapfrog)
		if div {
			r.BurnInDivergent[c]++
		}
		if cfg.adaptStep {
			ch.eps = da.update(acc)
		}
		if len(windows) > 0 && it >= start && it < windows[len(windows)-1] {
			ch.welford()
			if it+1 == windows[0] {
				ch.endWindow()
				windows = windows[1:]
				if restep {
					if err := ch.initStepSize(); err != nil {
						return err
					}
				}
				da.restart(ch.eps, cfg.target)
			}
		}
		progress(it + 1)
	}
	if cfg.adaptStep && cfg.burnIn > 0 {
		ch.eps = da.final()
	}

	// Sampling.
	draws := make([]float64, cfg.samples*dim)
	us := make([]float64, cfg.samples)
	var accSum float64
	for k := 0; k < cfg.samples*cfg.thin; k++ {
		acc, div := ch.transition(ch.jitteredStep(), cfg.leapfrog)
		accSum += acc
		if div {
			r.Divergent[c]++
		}
		if (k+1)%cfg.thin == 0 {
			i := k / cfg.thin
			copy(draws[i*dim:(i+1)*dim], ch.w)
			us[i] = ch.uw
		}
		progress(cfg.burnIn + k + 1)
	}
	r.Draws[c] = draws
	r.U[c] = us
	r.Accept[c] = accSum / float64(cfg.samples*cfg.thin)
	r.StepSize[c] = ch.eps
	r.InvMass[c] = ch.minv
	return nil
}

// jitteredStep returns ε u with u uniform on [1-stepJitter, 1+stepJitter).
func (ch *chain) jitteredStep() float64 {
	return ch.eps * (1 + stepJitter*(2*ch.rng.Float64()-1))
}

// welford adds the current state to the window's running mean and M2.
func (ch *chain) welford() {
	ch.wn++
	n := float64(ch.wn)
	for i, v := range ch.w {
		d := v - ch.wmean[i]
		ch.wmean[i] += d / n
		ch.wm2[i] += d * (v - ch.wmean[i])
	}
}

// endWindow sets M⁻¹ to the window's regularized variance,
// (n/(n+5)) var + 1e-3 (5/(n+5)) (Stan), and resets the accumulators.
func (ch *chain) endWindow() {
	n := float64(ch.wn)
	for i := range ch.minv {
		v := ch.wm2[i] / (n - 1)
		ch.minv[i] = n/(n+5)*v + 1e-3*5/(n+5)
		ch.sqrtM[i] = 1 / math.Sqrt(ch.minv[i])
		ch.wmean[i], ch.wm2[i] = 0, 0
	}
	ch.wn = 0
}
