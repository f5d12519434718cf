package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Sample draws from the density of LogDensity by the sampler of s (nil:
// Stan's defaults, see Settings). newDensity is called once per chain, on
// the caller's goroutine, so each chain gets its own LogDensity (buffers,
// closure state); the chains then run concurrently. Chain c starts at x0
// plus N(0, Jitter²) noise.
//
// Sample returns an error, and no result, if a setting is invalid, x0 is
// empty, the density is not finite at a chain's start, the step-size
// heuristic finds no step (a flat or improper density), or ctx is done.
// Divergent transitions are not errors: they are counted in the result.
func Sample(ctx context.Context, newDensity func() LogDensity, x0 []float64, s *Settings) (*Result, error) {
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	return run(ctx, newDensity, x0, &cfg)
}

func run(ctx context.Context, newDensity func() LogDensity, x0 []float64, cfg *config) (*Result, error) {
	if len(x0) == 0 {
		return nil, errors.New("mcmc: Sample needs a starting point; x0 is empty")
	}
	if newDensity == nil {
		return nil, errors.New("mcmc: Sample needs a density; newDensity is nil")
	}
	r := &Result{
		Sampler:    cfg.sampler,
		Metric:     cfg.metric,
		Draws:      make([][]float64, cfg.chains),
		LogDensity: make([][]float64, cfg.chains),
		Chains:     make([]Chain, cfg.chains),
		dim:        len(x0),
		n:          cfg.samples,
	}
	chains := make([]*chain, cfg.chains)
	for c := range chains {
		f := newDensity()
		if f == nil {
			return nil, fmt.Errorf("mcmc: newDensity returned nil for chain %d", c)
		}
		chains[c] = newChain(c, f, x0, cfg)
	}
	errs := make([]error, cfg.chains)
	var wg sync.WaitGroup
	for c, ch := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = ch.run(ctx, r)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

// point is a point of phase space: position q, momentum p, the gradient g
// of the potential U = -ln p at q, and U itself.
type point struct {
	q, p, g []float64
	u       float64
}

func (z *point) set(y *point) {
	copy(z.q, y.q)
	copy(z.p, y.p)
	copy(z.g, y.g)
	z.u = y.u
}

// transitionStats describes one iteration.
type transitionStats struct {
	accept    float64 // Stan's accept_stat__
	depth     int     // NUTS tree depth (0 for HMC)
	leapfrog  int     // leapfrog steps (gradient evaluations)
	divergent bool
	energy    float64 // H at the new state
}

// chain is the state of one chain. It owns its RNG and all its buffers, so
// chains share nothing but the read-only config and disjoint result slots.
type chain struct {
	id    int
	f     LogDensity
	cfg   *config
	rng   *rand.Rand
	m     *metric
	eps   float64
	grads int

	z    point     // the current state
	prop point     // HMC's proposal
	v    []float64 // velocity buffer
	tree *tree     // NUTS's buffers
}

func newChain(id int, f LogDensity, x0 []float64, cfg *config) *chain {
	dim := len(x0)
	ch := &chain{
		id: id, f: f, cfg: cfg,
		rng:  rand.New(rand.NewPCG(cfg.seed, uint64(id))),
		m:    newMetric(dim, cfg.metric == Dense),
		z:    newPoint(dim),
		prop: newPoint(dim),
		v:    make([]float64, dim),
	}
	if cfg.sampler == NUTS {
		ch.tree = newTree(dim, cfg.maxDepth)
	}
	for i, v := range x0 {
		ch.z.q[i] = v + cfg.jitter*ch.rng.NormFloat64()
	}
	return ch
}

func newPoint(dim int) point {
	buf := make([]float64, 3*dim)
	return point{q: buf[:dim:dim], p: buf[dim : 2*dim : 2*dim], g: buf[2*dim:]}
}

// potential sets z.u = -ln p(z.q) and z.g its gradient; a non-finite U
// becomes +Inf (zero density).
func (ch *chain) potential(z *point) {
	ch.grads++
	lp := ch.f(z.q, z.g)
	for i, g := range z.g {
		z.g[i] = -g
	}
	z.u = -lp
	if math.IsNaN(z.u) || math.IsInf(z.u, 0) {
		z.u = math.Inf(1)
	}
}

// hamiltonian returns H(z) = U(q) + p^T M⁻¹ p / 2.
func (ch *chain) hamiltonian(z *point) float64 {
	ch.m.sharp(ch.v, z.p)
	var k float64
	for i, p := range z.p {
		k += p * ch.v[i]
	}
	return z.u + k/2
}

// leapfrog advances z by one step of size eps (negative: backwards in
// time): p ← p - ε/2 ∇U; q ← q + ε M⁻¹ p; p ← p - ε/2 ∇U. Where U is
// infinite, it stops with z.u = +Inf.
func (ch *chain) leapfrog(z *point, eps float64) {
	half := eps / 2
	for i, g := range z.g {
		z.p[i] -= half * g
	}
	ch.m.sharp(ch.v, z.p)
	for i, v := range ch.v {
		z.q[i] += eps * v
	}
	ch.potential(z)
	if math.IsInf(z.u, 1) {
		return
	}
	for i, g := range z.g {
		z.p[i] -= half * g
	}
}

// initStepSize is Stan's init_stepsize heuristic: starting from ch.eps, it
// doubles (halves) ε while one leapfrog step from the current state with a
// fresh momentum has H(start) - H(end) above (below) ln 0.8. The state is
// not moved.
func (ch *chain) initStepSize() error {
	logTarget := math.Log(0.8)
	deltaH := func() float64 {
		ch.m.draw(ch.rng, ch.z.p)
		ch.prop.set(&ch.z)
		h0 := ch.hamiltonian(&ch.prop)
		ch.leapfrog(&ch.prop, ch.eps)
		d := h0 - ch.hamiltonian(&ch.prop)
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
			return fmt.Errorf("mcmc: chain %d: the step size heuristic passed 1e7; is the density proper (ln p falling away from its mode)?", ch.id)
		}
		if ch.eps < 1e-300 {
			return fmt.Errorf("mcmc: chain %d: the step size heuristic fell to 0; is ln p finite and smooth near x0?", ch.id)
		}
	}
	return nil
}

// transition runs one iteration of the configured sampler.
func (ch *chain) transition() transitionStats {
	if ch.cfg.sampler == NUTS {
		return ch.nuts()
	}
	return ch.hmc()
}

// stepJitter randomizes each static HMC iteration's step size uniformly in
// ε(1 ± stepJitter), which breaks the near-periodic trajectories a fixed εL
// gives on near-Gaussian targets (Neal 2011, sec. 5.4.2.2). On Gaussians
// with an adapted metric, 0.2 gave up to 3 times the smallest ESS that 0.1
// gave. NUTS needs none: its trajectory lengths vary by themselves.
const stepJitter = 0.2

// hmc is one static HMC iteration: L leapfrog steps from a fresh momentum,
// then a Metropolis test of the end point. A divergent trajectory (energy
// error over 1000, or a zero density on the way) is rejected.
func (ch *chain) hmc() transitionStats {
	eps := ch.eps * (1 + stepJitter*(2*ch.rng.Float64()-1))
	ch.m.draw(ch.rng, ch.z.p)
	h0 := ch.hamiltonian(&ch.z)
	ch.prop.set(&ch.z)
	st := transitionStats{energy: h0}
	for range ch.cfg.leapfrog {
		ch.leapfrog(&ch.prop, eps)
		st.leapfrog++
		if math.IsInf(ch.prop.u, 1) {
			break
		}
	}
	dh := ch.hamiltonian(&ch.prop) - h0
	if math.IsNaN(dh) || dh > divergenceLimit {
		st.divergent = true
		return st
	}
	st.accept = math.Min(1, math.Exp(-dh))
	if st.accept == 1 || ch.rng.Float64() < st.accept {
		ch.z, ch.prop = ch.prop, ch.z
		st.energy = h0 + dh
	}
	return st
}

// run runs warm-up and sampling and writes the chain's slot of r.
func (ch *chain) run(ctx context.Context, r *Result) error {
	cfg, c := ch.cfg, ch.id
	ch.potential(&ch.z)
	if math.IsInf(ch.z.u, 1) {
		return fmt.Errorf("mcmc: chain %d: ln p is not finite at the start; start where the density is positive (lower Jitter?)", c)
	}
	ch.eps = cfg.step
	if ch.eps == 0 {
		ch.eps = 1
		if err := ch.initStepSize(); err != nil {
			return err
		}
	}
	total := cfg.warmup + cfg.samples*cfg.thin
	every := max(1, total/100)
	progress := func(done int) {
		if cfg.progress != nil && (done%every == 0 || done == total) {
			cfg.progress(c, done, total)
		}
	}
	out := &r.Chains[c]
	if err := ch.warmup(ctx, out, progress); err != nil {
		return err
	}
	return ch.sample(ctx, r, out, progress)
}

// warmup runs Stan's windowed adaptation: the step by dual averaging, the
// metric from the draws of each window.
func (ch *chain) warmup(ctx context.Context, out *Chain, progress func(done int)) error {
	cfg, dim := ch.cfg, len(ch.z.q)
	da := dualAveraging{target: cfg.target, gamma: gammaNUTS}
	if cfg.sampler == HMC {
		da.gamma = gammaHMC
	}
	da.restart(ch.eps)
	var (
		start  int
		ends   []int
		window []float64 // the draws of the current window, row-major
	)
	if cfg.metric != Unit {
		start, ends = metricWindows(cfg.warmup)
	}
	// After a metric window the step is found anew for the new metric,
	// unless the user fixed it.
	restep := cfg.adaptStep || cfg.step == 0
	for it := 0; it < cfg.warmup; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := ch.transition()
		if st.divergent {
			out.WarmupDivergent++
		}
		if cfg.adaptStep {
			ch.eps = da.update(st.accept)
		}
		if len(ends) > 0 && it >= start {
			window = append(window, ch.z.q...)
			if it+1 == ends[0] {
				ch.m.set(window, len(window)/dim)
				window, ends = window[:0], ends[1:]
				if restep {
					if err := ch.initStepSize(); err != nil {
						return err
					}
				}
				da.restart(ch.eps)
			}
		}
		progress(it + 1)
	}
	if cfg.adaptStep && cfg.warmup > 0 {
		ch.eps = da.final()
	}
	out.WarmupGradients = ch.grads
	return nil
}

// sample draws the samples, keeping every thin-th, and writes the chain's
// slot of r.
func (ch *chain) sample(ctx context.Context, r *Result, out *Chain, progress func(done int)) error {
	cfg, c, dim := ch.cfg, ch.id, len(ch.z.q)
	n := cfg.samples
	draws := make([]float64, n*dim)
	lp := make([]float64, n)
	out.AcceptStat = make([]float64, n)
	out.TreeDepth = make([]int, n)
	out.Leapfrog = make([]int, n)
	out.Divergent = make([]bool, n)
	out.Energy = make([]float64, n)
	for k := 0; k < n*cfg.thin; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := ch.transition()
		if (k+1)%cfg.thin == 0 {
			i := k / cfg.thin
			copy(draws[i*dim:(i+1)*dim], ch.z.q)
			lp[i] = -ch.z.u
			out.AcceptStat[i], out.TreeDepth[i], out.Leapfrog[i] = st.accept, st.depth, st.leapfrog
			out.Divergent[i], out.Energy[i] = st.divergent, st.energy
		} else if st.divergent {
			out.ThinnedDivergent++
		}
		progress(cfg.warmup + k + 1)
	}
	r.Draws[c], r.LogDensity[c] = draws, lp
	out.StepSize = ch.eps
	out.InvMetric = ch.m.inv
	out.Gradients = ch.grads
	return nil
}
