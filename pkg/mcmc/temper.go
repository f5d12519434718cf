package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
)

// tempered is one chain run as parallel tempering: a replica per
// temperature (reps[0] at T = 1 is the chain whose draws are kept) and
// the random stream of the exchanges.
type tempered struct {
	reps []*chain
	rng  *rand.Rand
	// tried and swapped count the proposed and accepted exchanges per
	// adjacent pair during sampling.
	tried, swapped []int
}

// newTempered builds chain id's replicas: the T = 1 replica is the chain
// an untempered run would make (same stream, same start); replica k draws
// from stream id + k 2^32, the exchanges from id + 2^62.
func newTempered(id int, newDensity func() LogDensity, x0 []float64, cfg *config) (*tempered, error) {
	t := &tempered{rng: rand.New(rand.NewPCG(cfg.seed, uint64(id)|1<<62)),
		tried: make([]int, len(cfg.temps)-1), swapped: make([]int, len(cfg.temps)-1)}
	for k, temp := range cfg.temps {
		f := newDensity()
		if f == nil {
			return nil, errNilDensity(id)
		}
		if k == 0 {
			t.reps = append(t.reps, newChain(id, f, x0, cfg))
			continue
		}
		ch := newChainRNG(id, rand.New(rand.NewPCG(cfg.seed, uint64(id)+uint64(k)<<32)), temperedDensity(f, temp), x0, cfg)
		ch.temp = temp
		t.reps = append(t.reps, ch)
	}
	return t, nil
}

// temperedDensity is ln p / T and its gradient.
func temperedDensity(f LogDensity, temp float64) LogDensity {
	return func(x, grad []float64) float64 {
		lp := f(x, grad)
		for i := range grad {
			grad[i] /= temp
		}
		return lp / temp
	}
}

// run runs every replica's warm-up and sampling in step, proposing one
// exchange after each iteration, and writes the cold replica's draws into
// r's slot of the chain. The chain's gradients count every replica's.
func (t *tempered) run(ctx context.Context, r *Result) error {
	cold := t.reps[0]
	cfg, c := cold.cfg, cold.id
	for _, ch := range t.reps {
		if err := ch.start(); err != nil {
			return err
		}
	}
	total := cfg.warmup + cfg.samples*cfg.thin
	progress := progressOf(cfg, c, total)
	out := &r.Chains[c]
	// Each replica's counts: the cold one's are the chain's, the hot
	// ones' are not kept.
	outs := make([]*Chain, len(t.reps))
	warmers := make([]*warmer, len(t.reps))
	for k, ch := range t.reps {
		outs[k], warmers[k] = new(Chain), ch.newWarmer()
	}
	outs[0] = out
	for it := 0; it < cfg.warmup; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, w := range warmers {
			if err := w.step(it, outs[k]); err != nil {
				return err
			}
		}
		t.exchange(false)
		progress(it + 1)
	}
	for k, w := range warmers {
		w.finish(outs[k])
	}
	kp := cold.newKeeper(out)
	for i := 0; i < cfg.samples*cfg.thin; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := cold.transition()
		for _, ch := range t.reps[1:] {
			ch.transition()
		}
		t.exchange(true)
		kp.keep(i, st)
		progress(cfg.warmup + i + 1)
	}
	kp.done(r)
	for k, ch := range t.reps[1:] {
		out.Gradients += ch.grads
		out.WarmupGradients += outs[k+1].WarmupGradients
	}
	out.SwapAccept = make([]float64, len(t.tried))
	for j, n := range t.tried {
		if n > 0 {
			out.SwapAccept[j] = float64(t.swapped[j]) / float64(n)
		}
	}
	return nil
}

// exchange proposes to swap the states of a random pair of adjacent
// replicas j, j+1, accepted with probability
// min(1, exp((1/T_j - 1/T_j+1) (ln p_j+1 - ln p_j))), which leaves each
// replica's density p^(1/T) invariant. A state keeps its position and
// ln p; its potential and gradient are rescaled to the new temperature.
func (t *tempered) exchange(count bool) {
	j := t.rng.IntN(len(t.reps) - 1)
	a, b := t.reps[j], t.reps[j+1]
	lpA, lpB := -a.z.u*a.temp, -b.z.u*b.temp
	logR := (1/a.temp - 1/b.temp) * (lpB - lpA)
	accept := logR >= 0 || t.rng.Float64() < math.Exp(logR)
	if count {
		t.tried[j]++
	}
	if !accept || math.IsInf(lpA, 0) || math.IsInf(lpB, 0) {
		return
	}
	if count {
		t.swapped[j]++
	}
	a.z, b.z = b.z, a.z
	rescale(&a.z, b.temp/a.temp)
	rescale(&b.z, a.temp/b.temp)
}

// rescale multiplies a state's potential and gradient by s: the state of
// a replica at temperature T moved to one at T / s.
func rescale(z *point, s float64) {
	z.u *= s
	for i := range z.g {
		z.g[i] *= s
	}
}
