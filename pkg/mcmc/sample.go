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
	runs := make([]func() error, cfg.chains)
	for c := range runs {
		if cfg.temps != nil {
			t, err := newTempered(c, newDensity, x0, cfg)
			if err != nil {
				return nil, err
			}
			runs[c] = func() error { return t.run(ctx, r) }
			continue
		}
		f := newDensity()
		if f == nil {
			return nil, errNilDensity(c)
		}
		ch := newChain(c, f, x0, cfg)
		runs[c] = func() error { return ch.run(ctx, r) }
	}
	errs := make([]error, cfg.chains)
	var wg sync.WaitGroup
	for c, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = run()
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
	// temp is the temperature T of a tempered replica, which samples
	// p^(1/T) (1 otherwise): its f is ln p / T, its z.u -ln p / T.
	temp float64

	z    point     // the current state
	prop point     // HMC's proposal
	v    []float64 // velocity buffer
	tree *tree     // NUTS's buffers
}

func newChain(id int, f LogDensity, x0 []float64, cfg *config) *chain {
	return newChainRNG(id, rand.New(rand.NewPCG(cfg.seed, uint64(id))), f, x0, cfg)
}

// newChainRNG is newChain with its own random stream.
func newChainRNG(id int, rng *rand.Rand, f LogDensity, x0 []float64, cfg *config) *chain {
	dim := len(x0)
	ch := &chain{
		id: id, f: f, cfg: cfg, temp: 1,
		rng:  rng,
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

func errNilDensity(c int) error {
	return fmt.Errorf("mcmc: newDensity returned nil for chain %d", c)
}

// start evaluates the density at the chain's start and finds the first
// step size unless one is given.
func (ch *chain) start() error {
	ch.potential(&ch.z)
	if math.IsInf(ch.z.u, 1) {
		return fmt.Errorf("mcmc: chain %d: ln p is not finite at the start; start where the density is positive (lower Jitter?)", ch.id)
	}
	ch.eps = ch.cfg.step
	if ch.eps == 0 {
		ch.eps = 1
		return ch.initStepSize()
	}
	return nil
}

// progressOf reports chain c's progress to cfg.progress about 100 times.
func progressOf(cfg *config, c, total int) func(done int) {
	every := max(1, total/100)
	return func(done int) {
		if cfg.progress != nil && (done%every == 0 || done == total) {
			cfg.progress(c, done, total)
		}
	}
}

// run runs warm-up and sampling and writes the chain's slot of r.
func (ch *chain) run(ctx context.Context, r *Result) error {
	cfg, c := ch.cfg, ch.id
	if err := ch.start(); err != nil {
		return err
	}
	progress := progressOf(cfg, c, cfg.warmup+cfg.samples*cfg.thin)
	out := &r.Chains[c]
	if err := ch.warmup(ctx, out, progress); err != nil {
		return err
	}
	return ch.sample(ctx, r, out, progress)
}

// warmup runs Stan's windowed adaptation: the step by dual averaging, the
// metric from the draws of each window.
func (ch *chain) warmup(ctx context.Context, out *Chain, progress func(done int)) error {
	w := ch.newWarmer()
	for it := 0; it < ch.cfg.warmup; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.step(it, out); err != nil {
			return err
		}
		progress(it + 1)
	}
	w.finish(out)
	return nil
}

// warmer is the state of a chain's warm-up between its iterations: the
// dual averaging of the step and the metric's current window.
type warmer struct {
	ch     *chain
	da     dualAveraging
	start  int
	ends   []int
	window []float64 // the draws of the current window, row-major
	// restep: after a metric window the step is found anew for the new
	// metric, unless the user fixed it.
	restep bool
}

func (ch *chain) newWarmer() *warmer {
	cfg := ch.cfg
	w := &warmer{ch: ch, da: dualAveraging{target: cfg.target, gamma: gammaNUTS}, restep: cfg.adaptStep || cfg.step == 0}
	if cfg.sampler == HMC {
		w.da.gamma = gammaHMC
	}
	w.da.restart(ch.eps)
	if cfg.metric != Unit {
		w.start, w.ends = metricWindows(cfg.warmup)
	}
	return w
}

// step runs warm-up iteration it.
func (w *warmer) step(it int, out *Chain) error {
	ch := w.ch
	st := ch.transition()
	if st.divergent {
		out.WarmupDivergent++
	}
	if ch.cfg.adaptStep {
		ch.eps = w.da.update(st.accept)
	}
	if len(w.ends) > 0 && it >= w.start {
		dim := len(ch.z.q)
		w.window = append(w.window, ch.z.q...)
		if it+1 == w.ends[0] {
			ch.m.set(w.window, len(w.window)/dim)
			w.window, w.ends = w.window[:0], w.ends[1:]
			if w.restep {
				if err := ch.initStepSize(); err != nil {
					return err
				}
			}
			w.da.restart(ch.eps)
		}
	}
	return nil
}

// finish sets the step size that warm-up adapted.
func (w *warmer) finish(out *Chain) {
	ch := w.ch
	if ch.cfg.adaptStep && ch.cfg.warmup > 0 {
		ch.eps = w.da.final()
	}
	out.WarmupGradients = ch.grads
}

// sample draws the samples, keeping every thin-th, and writes the chain's
// slot of r.
func (ch *chain) sample(ctx context.Context, r *Result, out *Chain, progress func(done int)) error {
	cfg := ch.cfg
	k := ch.newKeeper(out)
	for i := 0; i < cfg.samples*cfg.thin; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		k.keep(i, ch.transition())
		progress(cfg.warmup + i + 1)
	}
	k.done(r)
	return nil
}

// keeper records a chain's kept draws and their statistics.
type keeper struct {
	ch        *chain
	out       *Chain
	draws, lp []float64
}

func (ch *chain) newKeeper(out *Chain) *keeper {
	n := ch.cfg.samples
	out.AcceptStat = make([]float64, n)
	out.TreeDepth = make([]int, n)
	out.Leapfrog = make([]int, n)
	out.Divergent = make([]bool, n)
	out.Energy = make([]float64, n)
	return &keeper{ch: ch, out: out, draws: make([]float64, n*len(ch.z.q)), lp: make([]float64, n)}
}

// keep records the chain's state after sampling iteration k, whose
// transition was st, if k is kept.
func (kp *keeper) keep(k int, st transitionStats) {
	ch, out, dim := kp.ch, kp.out, len(kp.ch.z.q)
	if (k+1)%ch.cfg.thin != 0 {
		if st.divergent {
			out.ThinnedDivergent++
		}
		return
	}
	i := k / ch.cfg.thin
	copy(kp.draws[i*dim:(i+1)*dim], ch.z.q)
	kp.lp[i] = -ch.z.u * ch.temp
	out.AcceptStat[i], out.TreeDepth[i], out.Leapfrog[i] = st.accept, st.depth, st.leapfrog
	out.Divergent[i], out.Energy[i] = st.divergent, st.energy
}

// done writes the chain's draws and final state into r.
func (kp *keeper) done(r *Result) {
	ch, out := kp.ch, kp.out
	r.Draws[ch.id], r.LogDensity[ch.id] = kp.draws, kp.lp
	out.StepSize = ch.eps
	out.InvMetric = ch.m.inv
	out.Gradients = ch.grads
}
