package pde

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

// NormalField is the name of the term field that holds the input's
// component of the outward unit normal: "normal_x". Problem.Sample fills
// one per input for every term drawn on a boundary region; a term with
// given Points carries normals by setting these fields itself. The normals
// travel as fields so that a trainer feeds them with the term's other
// per-point values.
func NormalField(input string) string { return "normal_" + input }

// draw draws n points of r with sampler s from rng: on the box when the
// problem has no Domain or its Domain is a box (or a space-time of one),
// as the box problem draws them, and on the Domain otherwise; the parts of
// On always on the Domain.
func (r Region) draw(p *Problem, s Sampler, rng *rand.Rand, n int) (drawn, error) {
	if p.Domain == nil {
		if r.kind == kindParts {
			return drawn{}, fmt.Errorf("region %v: the problem has no Domain, so its boundary has no named parts; set Problem.Domain, or use Face, Faces or Boundary on its box", r)
		}
		return r.boxPoints(p, s, rng, n)
	}
	dom := p.Domain
	st, _ := dom.(*geom.SpaceTime)
	switch {
	case r.kind == kindBoundary:
		if err := r.checkBoundary(p); err != nil {
			return drawn{}, err
		}
	case r.kind == kindInitial && (st == nil || r.inputs[0] != p.Inputs[p.Dim()-1]):
		return drawn{}, fmt.Errorf("region %v: the initial slice of a space-time domain's time input; the domain is %s", r, domainKind(p))
	}
	if boxLike(dom) && r.kind != kindParts {
		return r.boxPoints(p, s, rng, n)
	}
	geomErr := func(err error) error {
		return fmt.Errorf("region %v: %s", r, strings.TrimPrefix(err.Error(), "geom: "))
	}
	switch r.kind {
	case kindFace, kindFaces, kindPairs:
		return drawn{}, fmt.Errorf("region %v: a face of a box, and the domain is not a box; pick boundary parts with On(...) (the parts are %s)", r, partNames(dom))
	case kindInterior:
		x, err := geom.SampleInterior(dom, n, s, rng)
		if err != nil {
			return drawn{}, geomErr(err)
		}
		return drawn{x: x}, nil
	case kindInitial:
		x, err := st.Initial(n, s, rng)
		if err != nil {
			return drawn{}, geomErr(err)
		}
		return drawn{x: x}, nil
	case kindBoundary, kindParts:
		var parts []string
		if r.kind == kindParts {
			parts = r.inputs
		}
		bp, err := geom.SampleBoundary(dom, n, s, rng, parts...)
		if err != nil {
			return drawn{}, geomErr(err)
		}
		return drawn{x: bp.X, normal: bp.Normal}, nil
	}
	_, err := r.faces(p) // no region: faces names the regions
	return drawn{}, err
}

// checkBoundary is the error of Boundary(except...) on a Domain: on a
// space-time domain it must leave out the time input and only it (its
// boundary is the lateral one); on another domain that is not a box it
// leaves out nothing.
func (r Region) checkBoundary(p *Problem) error {
	if _, ok := p.Domain.(*geom.SpaceTime); ok {
		if time := p.Inputs[p.Dim()-1]; !slices.Equal(r.inputs, []string{time}) {
			return fmt.Errorf("region %v: the boundary of a space-time domain is its spatial boundary times the time interval: write Boundary(%q), and Initial(%q) for the initial slice", r, time, time)
		}
		return nil
	}
	if len(r.inputs) > 0 && !boxLike(p.Domain) {
		return fmt.Errorf("region %v: a domain's boundary leaves out no inputs (only a space-time domain's time); write Boundary(), or pick parts with On(...)", r)
	}
	return nil
}

// boxLike reports whether d is a box, or a box times a time interval: the
// domains whose faces Face, Faces and FacePairs draw on.
func boxLike(d geom.Domain) bool {
	if st, ok := d.(*geom.SpaceTime); ok {
		d = st.Space
	}
	_, ok := d.(*geom.Box)
	return ok
}

func partNames(d geom.Domain) string {
	var names []string
	for _, p := range geom.Parts(d) {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

func domainKind(p *Problem) string {
	if p.Domain == nil {
		return "a box"
	}
	if st, ok := p.Domain.(*geom.SpaceTime); ok {
		return fmt.Sprintf("a space-time domain with time input %q", st.Inputs[len(st.Inputs)-1])
	}
	return fmt.Sprintf("a %d-D domain without time", p.Domain.Dim())
}

// validateGeometry checks the Domain against the inputs and the box: one
// coordinate per input (a space-time domain's input names equal to the
// problem's), not empty, and Lo/Hi its bounding box.
func (p *Problem) validateGeometry() error {
	d := p.Domain
	if d.Dim() != p.Dim() {
		return fmt.Errorf("problem %q: a %d-D domain for %d inputs %q; give a domain with one coordinate per input, in the inputs' order", p.Name, d.Dim(), p.Dim(), p.Inputs)
	}
	if st, ok := d.(*geom.SpaceTime); ok && st.Inputs != nil && !slices.Equal(st.Inputs, p.Inputs) {
		return fmt.Errorf("problem %q: inputs %q, and the space-time domain's are %q; name them alike (geom.NewSpaceTime's inputs)", p.Name, p.Inputs, st.Inputs)
	}
	lo, hi := d.Bounds()
	for k := range lo {
		if !(lo[k] < hi[k]) {
			return fmt.Errorf("problem %q: the domain is empty in %s (its bounding box is [%g, %g]): an empty intersection? give operands that overlap", p.Name, p.Inputs[k], lo[k], hi[k])
		}
	}
	if p.Lo == nil && p.Hi == nil {
		return fmt.Errorf("problem %q: Lo/Hi unset; p.Sample(seed) sets them to the domain's bounding box %v to %v, or set them so", p.Name, lo, hi)
	}
	if !near(p.Lo, lo) || !near(p.Hi, hi) {
		return fmt.Errorf("problem %q: Lo/Hi %v to %v, and the domain's bounding box is %v to %v; leave Lo/Hi nil (Sample sets them) or set them to it", p.Name, p.Lo, p.Hi, lo, hi)
	}
	return nil
}

// near reports whether a and b have one length and agree to a relative
// 1e-9: a bounding box written by hand and the one a domain computes.
func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !(math.Abs(a[k]-b[k]) <= 1e-9*(1+math.Abs(b[k]))) {
			return false
		}
	}
	return true
}

// Contains reports whether x lies in the problem's domain: its Domain
// (within geom.Tol), or else its box. A grid over the box (Grid) has points
// outside a Domain that is not a box; this tells them apart.
func (p *Problem) Contains(x []float64) bool {
	if len(x) != p.Dim() || slices.ContainsFunc(x, math.IsNaN) {
		return false
	}
	if p.Domain != nil {
		return p.Domain.Contains(x)
	}
	for i, v := range x {
		if v < p.Lo[i] || v > p.Hi[i] {
			return false
		}
	}
	return true
}

// outside is the error for point k of a term (or of its Pairs, what) that
// lies outside the problem's domain, nil when it is inside.
func (p *Problem) outside(t Term, what string, k int, x []float64) error {
	if p.Domain != nil && !p.Domain.Contains(x) {
		return fmt.Errorf("problem %q term %q: %s %d %v is outside the domain (signed distance %.3g); give points inside it", p.Name, t.Name, what, k, x, p.Domain.SignedDistance(x))
	}
	for i, v := range x {
		if math.IsNaN(v) || v < p.Lo[i] || v > p.Hi[i] {
			return fmt.Errorf("problem %q term %q: %s %d has %s = %g outside [%g, %g]", p.Name, t.Name, what, k, p.Inputs[i], v, p.Lo[i], p.Hi[i])
		}
	}
	return nil
}

// validateNormals checks a term's normal fields: one per input or none,
// each row a unit vector.
func (p *Problem) validateNormals(t Term) error {
	var missing []string
	for _, in := range p.Inputs {
		if _, ok := t.Fields[NormalField(in)]; !ok {
			missing = append(missing, NormalField(in))
		}
	}
	switch {
	case len(missing) == p.Dim():
		return nil
	case len(missing) > 0:
		return fmt.Errorf("problem %q term %q: normals need a field per input; missing %s", p.Name, t.Name, strings.Join(missing, ", "))
	}
	for k, nrm := range p.Normals(t) {
		var s float64
		for _, c := range nrm {
			s += c * c
		}
		if !(math.Abs(s-1) <= 1e-6) {
			return fmt.Errorf("problem %q term %q: normal %d %v has length %.6g; give unit vectors", p.Name, t.Name, k, nrm, math.Sqrt(s))
		}
	}
	return nil
}

// Normals returns the outward unit normals of term t's points (one row per
// point, in the input order) from its normal fields, nil when it has none.
func (p *Problem) Normals(t Term) [][]float64 {
	cols := make([][]float64, p.Dim())
	for i, in := range p.Inputs {
		if cols[i] = t.Fields[NormalField(in)]; cols[i] == nil {
			return nil
		}
	}
	out := make([][]float64, len(cols[0]))
	for k := range out {
		out[k] = make([]float64, p.Dim())
		for i := range cols {
			out[k][i] = cols[i][k]
		}
	}
	return out
}

// setNormals stores normals (one row per point) as t's normal fields.
func (p *Problem) setNormals(t *Term, normals [][]float64) {
	for i, in := range p.Inputs {
		col := make([]float64, len(normals))
		for k, nrm := range normals {
			col[k] = nrm[i]
		}
		t.Fields[NormalField(in)] = col
	}
}
