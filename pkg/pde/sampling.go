package pde

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

// Sampler names a scheme that draws points of the unit cube [0,1]^d:
// Uniform, LatinHypercube or Halton. It is pkg/geom's Scheme, so a box and
// a geometric domain fill the cube alike, and Problem.Sampling and
// Draw.Sampler say with one name how the points of a problem were drawn
// wherever it is recorded.
type Sampler = geom.Scheme

// The sampling schemes. Every one gives each point a uniform marginal
// distribution; they differ in how the points of a set relate.
const (
	// Uniform draws every coordinate of every point independently (the
	// paper's "randomly drawn from the uniform distribution").
	Uniform = geom.Uniform
	// LatinHypercube stratifies: n points take one value in each of n
	// equal strata of every coordinate (strata paired by random
	// permutations, the value uniform in its stratum), so the set has no
	// large holes, which a PINN's collocation set needs (Raissi et al. draw
	// theirs by Latin hypercube sampling).
	LatinHypercube = geom.LatinHypercube
	// Halton draws a randomized Halton sequence (a low-discrepancy,
	// quasi-Monte Carlo set): gonum's Owen scrambling with fresh random
	// digit permutations per draw, so every draw is a new set with the
	// sequence's even spread.
	Halton = geom.Halton
)

// Samplers lists the schemes a Sampler can name.
func Samplers() []Sampler { return geom.Schemes() }

// ParseSampler returns the sampler of a name: uniform, lhs or halton.
func ParseSampler(name string) (Sampler, error) { return geom.ParseScheme(name) }

// Draw says how Problem.Sample fills a term: N points of a region drawn by a
// sampler, and the targets (and noise) at them.
type Draw struct {
	Region Region
	N      int
	// Sampler draws the points; "" is the problem's Sampling, and Uniform
	// when that is "" too.
	Sampler Sampler
	// Value, if not nil, gives the term's target at each drawn point:
	// boundary values, initial values, manufactured data.
	Value func(x []float64) float64
	// Fields give the term's Fields at the drawn points, by name: a source
	// f(x) the residual reads with Vars.Field("f").
	Fields map[string]func(x []float64) float64
	// Noise is the standard deviation of Gaussian noise added to Value:
	// measurements. A term with Noise > 0 is Measured: Redraw keeps its
	// points and noise, Fresh draws both anew.
	Noise float64
}

// MaxDraw is the most points a Draw draws: a term's Jacobian has a row
// per point, and a typo in N (1<<40) would exhaust memory before any
// error.
const MaxDraw = 1 << 24

// FreshSeedOffset is added to the seed of a draw for its held-out points
// (Problem.Fresh).
const FreshSeedOffset = 1000

// RedrawSeedStride separates the draws of Problem.Redraw: draw k of seed d
// uses seed d + k*RedrawSeedStride, far from every seed a user types and
// from the fresh points (d + FreshSeedOffset).
const RedrawSeedStride = 1 << 32

// drawStream separates the random streams of the terms of one seed: term i
// draws from PCG(seed, drawStream+i).
const drawStream = 0xd7a3

// Sample returns a copy of p in which every term with a Draw has its Points
// and Target drawn (and on a boundary its normals, on FacePairs its Pairs),
// deterministically from seed, and sets the copy's Fresh (the draw of
// seed + FreshSeedOffset: new points and new noise in every drawn term) and
// Redraw(k) (the draw of seed + k*RedrawSeedStride for the terms that are
// not measured; measured ones keep the copy's points and targets). Terms without a Draw are kept as they are. The copy's Sampling
// is the scheme the draws used ("+"-joined when they differ). Errors name
// the term and what to change. A problem without Draw terms is returned as
// a copy with its Fresh and Redraw unchanged. With a Domain and Lo/Hi nil,
// the copy's Lo/Hi are the domain's bounding box. The terms a Transform
// Meets are checked at their points and left out of the copy (and of its
// Fresh and Redraw draws).
func (p *Problem) Sample(seed uint64) (*Problem, error) {
	tmpl := *p
	tmpl.Terms = slices.Clone(p.Terms)
	if p.Domain != nil && p.Lo == nil && p.Hi == nil && p.Domain.Dim() == p.Dim() {
		tmpl.Lo, tmpl.Hi = p.Domain.Bounds()
	}
	var used []string
	for i, t := range tmpl.Terms {
		if t.Draw == nil {
			continue
		}
		if err := p.pointsAndDraw(t); err != nil {
			return nil, err
		}
		s, err := p.drawSampler(t)
		if err != nil {
			return nil, err
		}
		d := *t.Draw // the template keeps the draw as it is now
		d.Sampler = s
		tmpl.Terms[i].Draw = &d
		if !slices.Contains(used, string(s)) {
			used = append(used, string(s))
		}
	}
	if used == nil {
		return tmpl.meet()
	}
	tmpl.Sampling = Sampler(strings.Join(used, "+"))
	// The terms are drawn, then those a transform meets left out (meet):
	// the others keep the points they have without a transform.
	all, err := tmpl.drawTerms(seed, nil)
	if err != nil {
		return nil, err
	}
	q, err := all.meet()
	if err != nil {
		return nil, err
	}
	q.Fresh = func() (*Problem, error) { return tmpl.Sample(seed + FreshSeedOffset) }
	q.Redraw = func(k uint64) (*Problem, error) {
		r, err := tmpl.drawTerms(seed+k*RedrawSeedStride, all)
		if err != nil {
			return nil, err
		}
		if r, err = r.meet(); err != nil {
			return nil, err
		}
		r.Fresh, r.Redraw = q.Fresh, q.Redraw
		return r, nil
	}
	return q, nil
}

// drawSampler is the sampler of a Draw term: its own, the problem's, or
// Uniform.
func (p *Problem) drawSampler(t Term) (Sampler, error) {
	name := t.Draw.Sampler
	if name == "" {
		name = Sampler(p.Sampling)
	}
	if name == "" {
		name = Uniform
	}
	s, err := ParseSampler(string(name))
	if err != nil {
		return "", fmt.Errorf("problem %q term %q: %v", p.Name, t.Name, err)
	}
	return s, nil
}

// drawTerms returns a copy of the template p (its draws' samplers set by
// Sample) with the Draw terms drawn from seed; with keep, measured terms
// take keep's points and targets instead.
func (p *Problem) drawTerms(seed uint64, keep *Problem) (*Problem, error) {
	if err := p.validateDomain(); err != nil {
		return nil, err
	}
	q := *p
	q.Terms = slices.Clone(p.Terms)
	for i := range q.Terms {
		t := &q.Terms[i]
		if t.Draw == nil {
			continue
		}
		if err := p.checkDraw(*t); err != nil {
			return nil, err
		}
		if t.Draw.Noise > 0 {
			t.Measured = true
		}
		if keep != nil && t.Measured {
			k := keep.Terms[i]
			t.Points, t.Target, t.Fields, t.drawn = k.Points, k.Target, k.Fields, true
			continue
		}
		if err := p.drawTerm(t, rand.New(rand.NewPCG(seed, drawStream+uint64(i)))); err != nil {
			return nil, fmt.Errorf("problem %q term %q: %v", p.Name, t.Name, err)
		}
	}
	return &q, nil
}

// drawTerm draws t's points, then its targets (with noise) and fields.
func (p *Problem) drawTerm(t *Term, rng *rand.Rand) error {
	d := t.Draw
	got, err := d.Region.draw(p, d.Sampler, rng, d.N)
	if err != nil {
		return err
	}
	pts := got.x
	t.Points, t.Target, t.Pairs, t.drawn = pts, nil, got.pair, true
	if d.Value != nil {
		if t.Target, err = values("Draw.Value", d.Value, pts); err != nil {
			return err
		}
		for k := range t.Target {
			t.Target[k] += d.Noise * rng.NormFloat64()
		}
	}
	if d.Fields != nil || got.normal != nil {
		t.Fields = maps.Clone(t.Fields)
		if t.Fields == nil {
			t.Fields = map[string][]float64{}
		}
		if got.normal != nil {
			p.setNormals(t, got.normal)
		}
		for _, name := range slices.Sorted(maps.Keys(d.Fields)) {
			if t.Fields[name], err = values(fmt.Sprintf("Draw.Fields[%q]", name), d.Fields[name], pts); err != nil {
				return err
			}
		}
	}
	return nil
}

// values is f at every point, with a panic in f (a user's function) as an
// error naming it.
func values(name string, f func([]float64) float64, pts [][]float64) (v []float64, err error) {
	k := 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("its %s panicked at %v: %v", name, pts[k], r)
		}
	}()
	v = make([]float64, len(pts))
	for ; k < len(pts); k++ {
		v[k] = f(slices.Clone(pts[k]))
	}
	return v, nil
}

// checkDraw checks a Draw's fields other than its region.
func (p *Problem) checkDraw(t Term) error {
	d := t.Draw
	switch {
	case d.N <= 0:
		return fmt.Errorf("problem %q term %q: draw of %d points; set Draw.N >= 1", p.Name, t.Name, d.N)
	case d.N > MaxDraw:
		return fmt.Errorf("problem %q term %q: draw of %d points; at most %d", p.Name, t.Name, d.N, MaxDraw)
	case math.IsNaN(d.Noise) || math.IsInf(d.Noise, 0) || d.Noise < 0:
		return fmt.Errorf("problem %q term %q: draw noise %v; set Draw.Noise to a standard deviation >= 0", p.Name, t.Name, d.Noise)
	case d.Noise > 0 && d.Value == nil:
		return fmt.Errorf("problem %q term %q: draw noise %g without a Value; set Draw.Value, the noise-free measurement", p.Name, t.Name, d.Noise)
	}
	for _, name := range slices.Sorted(maps.Keys(d.Fields)) {
		if d.Fields[name] == nil {
			return fmt.Errorf("problem %q term %q: Draw.Fields[%q] is nil; give it a function of the point or remove it", p.Name, t.Name, name)
		}
		if slices.ContainsFunc(p.Inputs, func(in string) bool { return NormalField(in) == name }) {
			return fmt.Errorf("problem %q term %q: Draw.Fields[%q] is the name of a normal field, which the draw fills on a boundary; rename the field", p.Name, t.Name, name)
		}
	}
	return nil
}
