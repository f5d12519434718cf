package mcmc

import "math"

// The no-U-turn sampler as Stan runs it (base_nuts; Hoffman & Gelman 2014,
// Betancourt 2017): the trajectory doubles in a random direction of time
// until its ends turn back on each other, a new subtree diverges, or the
// depth reaches MaxDepth; the draw is taken from the whole trajectory with
// probabilities ∝ exp(-H) (multinomial sampling: uniform within a subtree,
// biased towards the newer half between subtrees), which keeps exp(-H)
// invariant.

// edge is the momentum p and velocity p♯ = M⁻¹ p at one end of a
// (sub)trajectory: what the no-U-turn criterion reads there.
type edge struct{ p, s []float64 }

func newEdge(dim int) edge { return edge{make([]float64, dim), make([]float64, dim)} }

func (e *edge) set(f *edge) {
	copy(e.p, f.p)
	copy(e.s, f.s)
}

// level holds the buffers of one level of the recursion: subtrees of
// depth d use levels[d], so building allocates nothing.
type level struct {
	propFinal         point // the proposal of the second half
	initEnd, finalBeg edge  // the inner ends of the two halves
	rhoInit, rhoFinal []float64
}

// tree holds NUTS's buffers.
type tree struct {
	levels              []level
	fwd, bck            point // the two ends of the trajectory
	sample, propose     point
	fwdEdge, bckEdge    edge // outermost ends
	newBeg, newEnd      edge // ends of the new subtree
	rho, rhoOld, rhoSub []float64
	ext                 []float64
	h0, sumAccept       float64
	nLeapfrog           int
	divergent           bool
}

func newTree(dim, maxDepth int) *tree {
	t := &tree{
		levels: make([]level, maxDepth),
		fwd:    newPoint(dim), bck: newPoint(dim), sample: newPoint(dim), propose: newPoint(dim),
		fwdEdge: newEdge(dim), bckEdge: newEdge(dim), newBeg: newEdge(dim), newEnd: newEdge(dim),
		rho: make([]float64, dim), rhoOld: make([]float64, dim), rhoSub: make([]float64, dim),
		ext: make([]float64, dim),
	}
	for d := range t.levels {
		t.levels[d] = level{propFinal: newPoint(dim), initEnd: newEdge(dim), finalBeg: newEdge(dim),
			rhoInit: make([]float64, dim), rhoFinal: make([]float64, dim)}
	}
	return t
}

// noUTurn is the generalized no-U-turn criterion (Betancourt 2017): the
// trajectory with summed momentum rho and end velocities sMinus, sPlus
// still expands at both ends.
func noUTurn(sMinus, sPlus, rho []float64) bool {
	var a, b float64
	for i, r := range rho {
		a += sMinus[i] * r
		b += sPlus[i] * r
	}
	return a > 0 && b > 0
}

// sum writes a + b into dst.
func sum(dst, a, b []float64) []float64 {
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
	return dst
}

// logAddExp returns ln(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// nuts is one NUTS iteration from ch.z.
func (ch *chain) nuts() transitionStats {
	t := ch.tree
	ch.m.draw(ch.rng, ch.z.p)
	t.h0 = ch.hamiltonian(&ch.z)
	t.fwd.set(&ch.z)
	t.bck.set(&ch.z)
	t.sample.set(&ch.z)
	copy(t.fwdEdge.p, ch.z.p)
	ch.m.sharp(t.fwdEdge.s, ch.z.p)
	t.bckEdge.set(&t.fwdEdge)
	copy(t.rho, ch.z.p)
	t.sumAccept, t.nLeapfrog, t.divergent = 0, 0, false
	logW := 0.0 // ln sum exp(H0 - H) over the trajectory: the start has weight 1

	depth := 0
	for depth < ch.cfg.maxDepth {
		clear(t.rhoSub)
		logWSub := math.Inf(-1)
		forward := ch.rng.Float64() > 0.5
		var ok bool
		if forward {
			ch.prop.set(&t.fwd)
			ok = ch.build(depth, 1, &t.propose, &t.newBeg, &t.newEnd, t.rhoSub, &logWSub)
			t.fwd.set(&ch.prop)
		} else {
			ch.prop.set(&t.bck)
			ok = ch.build(depth, -1, &t.propose, &t.newBeg, &t.newEnd, t.rhoSub, &logWSub)
			t.bck.set(&ch.prop)
		}
		if !ok {
			break
		}
		depth++
		// Biased progressive sampling: move to the new subtree with
		// probability min(1, W_new / W_old).
		if ch.cfg.alwaysNew || logWSub > logW || ch.rng.Float64() < math.Exp(logWSub-logW) {
			t.sample.set(&t.propose)
		}
		logW = logAddExp(logW, logWSub)

		copy(t.rhoOld, t.rho)
		sum(t.rho, t.rhoOld, t.rhoSub)
		// The whole trajectory, and each part extended by the first point
		// of the other (Stan's extra checks, which catch U-turns that the
		// two halves hide from each other).
		var cont bool
		if forward {
			cont = noUTurn(t.bckEdge.s, t.newEnd.s, t.rho) &&
				noUTurn(t.bckEdge.s, t.newBeg.s, sum(t.ext, t.rhoOld, t.newBeg.p)) &&
				noUTurn(t.fwdEdge.s, t.newEnd.s, sum(t.ext, t.rhoSub, t.fwdEdge.p))
			t.fwdEdge.set(&t.newEnd)
		} else {
			cont = noUTurn(t.newEnd.s, t.fwdEdge.s, t.rho) &&
				noUTurn(t.newBeg.s, t.fwdEdge.s, sum(t.ext, t.rhoOld, t.newBeg.p)) &&
				noUTurn(t.newEnd.s, t.bckEdge.s, sum(t.ext, t.rhoSub, t.bckEdge.p))
			t.bckEdge.set(&t.newEnd)
		}
		if !cont {
			break
		}
	}
	ch.z.set(&t.sample)
	return transitionStats{
		accept:    t.sumAccept / float64(t.nLeapfrog),
		depth:     depth,
		leapfrog:  t.nLeapfrog,
		divergent: t.divergent,
		energy:    ch.hamiltonian(&ch.z),
	}
}

// build extends the trajectory from ch.prop by 2^depth leapfrog steps in
// direction dir, leaving ch.prop at the new end. It writes the subtree's
// proposal into prop, its first and last points' edges into beg and end,
// adds its momenta to rho and its weights to *logW, and reports whether
// the subtree is valid: no divergence and no U-turn within it.
func (ch *chain) build(depth int, dir float64, prop *point, beg, end *edge, rho []float64, logW *float64) bool {
	t := ch.tree
	if depth == 0 {
		ch.leapfrog(&ch.prop, dir*ch.eps)
		t.nLeapfrog++
		h := ch.hamiltonian(&ch.prop)
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		if h-t.h0 > divergenceLimit {
			t.divergent = true
		}
		*logW = logAddExp(*logW, t.h0-h)
		t.sumAccept += math.Min(1, math.Exp(t.h0-h))
		prop.set(&ch.prop)
		copy(beg.p, ch.prop.p)
		copy(beg.s, ch.v) // hamiltonian left M⁻¹ p in ch.v
		end.set(beg)
		for i, p := range ch.prop.p {
			rho[i] += p
		}
		return !t.divergent
	}
	l := &t.levels[depth]
	clear(l.rhoInit)
	logWInit := math.Inf(-1)
	if !ch.build(depth-1, dir, prop, beg, &l.initEnd, l.rhoInit, &logWInit) {
		return false
	}
	clear(l.rhoFinal)
	logWFinal := math.Inf(-1)
	if !ch.build(depth-1, dir, &l.propFinal, &l.finalBeg, end, l.rhoFinal, &logWFinal) {
		return false
	}
	// Uniform (multinomial) choice between the two halves.
	logWSub := logAddExp(logWInit, logWFinal)
	*logW = logAddExp(*logW, logWSub)
	if ch.rng.Float64() < math.Exp(logWFinal-logWSub) {
		prop.set(&l.propFinal)
	}
	// The two halves, each extended by the first point of the other, then
	// the whole subtree.
	ok := noUTurn(beg.s, l.finalBeg.s, sum(t.ext, l.rhoInit, l.finalBeg.p)) &&
		noUTurn(l.initEnd.s, end.s, sum(t.ext, l.rhoFinal, l.initEnd.p))
	sub := sum(l.rhoInit, l.rhoInit, l.rhoFinal) // rhoInit is not needed any more
	for i, r := range sub {
		rho[i] += r
	}
	return ok && noUTurn(beg.s, end.s, sub)
}
