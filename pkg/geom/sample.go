package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/samplemv"
)

// Source is the source of randomness of every sampler.
type Source = rand.Source

// UnitSampler draws n points of the unit cube [0,1]^d from src, the same
// points for the same source state. Scheme implements it (pkg/pde's
// Sampler is Scheme), and so does any type with the same method.
type UnitSampler interface {
	Unit(src Source, n, d int) ([][]float64, error)
}

// Scheme names a way to fill the unit cube: Uniform, LatinHypercube or
// Halton.
type Scheme string

// The schemes, named as in pkg/pde's Problem.Sampling.
const (
	// Uniform draws independent uniform points.
	Uniform Scheme = "uniform"
	// LatinHypercube stratifies every coordinate into n equal bins, one
	// point in each (gonum's samplemv.LatinHypercube).
	LatinHypercube Scheme = "lhs"
	// Halton draws a randomized Halton sequence (gonum's Owen scrambling,
	// fresh digit permutations per draw): an even, low-discrepancy spread.
	Halton Scheme = "halton"
)

var _ UnitSampler = Uniform

// Schemes lists the schemes a Scheme can name.
func Schemes() []Scheme { return []Scheme{Uniform, LatinHypercube, Halton} }

// ParseScheme returns the scheme of a name: uniform, lhs or halton.
func ParseScheme(name string) (Scheme, error) {
	s := Scheme(name)
	if !slices.Contains(Schemes(), s) {
		return "", fmt.Errorf("unknown sampler %q: use uniform, lhs or halton", name)
	}
	return s, nil
}

// Unit returns n points of [0,1]^d drawn by the scheme from src: the same
// source state gives the same points. d = 0 gives n empty points (the one
// point of a 0-dimensional face).
func (s Scheme) Unit(src Source, n, d int) ([][]float64, error) {
	if _, err := ParseScheme(string(s)); err != nil {
		return nil, err
	}
	if n < 0 || d < 0 {
		return nil, fmt.Errorf("sampler %s: %d points of dimension %d; need n >= 0 and d >= 0", s, n, d)
	}
	pts := make([][]float64, n)
	if n == 0 || d == 0 {
		for i := range pts {
			pts[i] = []float64{}
		}
		return pts, nil
	}
	switch s {
	case Uniform:
		rng := rand.New(src)
		for i := range pts {
			pts[i] = make([]float64, d)
			for k := range pts[i] {
				pts[i][k] = rng.Float64()
			}
		}
	case LatinHypercube, Halton:
		batch := mat.NewDense(n, d, nil)
		q := distmv.NewUnitUniform(d, nil)
		if s == LatinHypercube {
			samplemv.LatinHypercube{Q: q, Src: src}.Sample(batch)
		} else {
			samplemv.Halton{Kind: samplemv.Owen, Q: q, Src: src}.Sample(batch)
		}
		for i := range pts {
			pts[i] = batch.RawRowView(i)
		}
	}
	return pts, nil
}

// Rejection gives up when, after rejectMinDraws candidates, fewer than a
// fraction rejectMinRate of them were accepted: the domain is empty or too
// thin for its bounding box.
const (
	rejectMinDraws = 100_000
	rejectMinRate  = 1e-3
)

// reject draws unit points of dimension d from s in batches and offers
// each to try until n are accepted. The batch sizes depend only on the
// counts so far, so the same source state gives the same points.
func reject(s UnitSampler, src Source, n, d int, try func(u []float64) bool) error {
	if n <= 0 {
		return fmt.Errorf("geom: %d points asked for; give n >= 1", n)
	}
	if s == nil || src == nil {
		return fmt.Errorf("geom: nil sampler or source; give a Scheme and a rand.Source")
	}
	drawn, got := 0, 0
	for got < n {
		need := n - got
		m := need + need/4 + 16
		if got == 0 {
			m = max(m, drawn) // double while nothing is accepted
		} else {
			m = int(math.Min(1<<20, math.Ceil(float64(need)*float64(drawn)/float64(got)*1.25))) + 16
		}
		us, err := s.Unit(src, m, d)
		if err != nil {
			return err
		}
		for _, u := range us {
			drawn++
			if try(u) {
				if got++; got == n {
					return nil
				}
			}
		}
		if drawn >= rejectMinDraws && float64(got) < rejectMinRate*float64(drawn) {
			return fmt.Errorf("geom: %d of %d candidate points accepted; the domain (or the boundary part) is empty or too thin to sample by rejection in its bounding box", got, drawn)
		}
	}
	return nil
}

// SampleInterior returns exactly n points of d: points of d's bounding box
// drawn by s from src, those outside d rejected, until n are accepted.
func SampleInterior(d Domain, n int, s UnitSampler, src Source) ([][]float64, error) {
	if d == nil {
		return nil, fmt.Errorf("geom: nil domain; give a domain")
	}
	lo, hi := d.Bounds()
	for k := range lo {
		if !(lo[k] <= hi[k]) {
			return nil, fmt.Errorf("geom: the domain is empty (its bounding box has lo[%d] = %g > hi[%d] = %g): an empty intersection?", k, lo[k], k, hi[k])
		}
	}
	var pts [][]float64
	err := reject(s, src, n, d.Dim(), func(u []float64) bool {
		x := make([]float64, len(u))
		for k := range x {
			x[k] = lo[k] + u[k]*(hi[k]-lo[k])
		}
		if !d.Contains(x) {
			return false
		}
		pts = append(pts, x)
		return true
	})
	if err != nil {
		return nil, err
	}
	return pts, nil
}

// BoundaryPoints are points on a domain's boundary with the outward unit
// normal and the part name at each.
type BoundaryPoints struct {
	X      [][]float64
	Normal [][]float64
	Part   []string
}

// SampleBoundary returns exactly n points of d's boundary, uniform by arc
// length (2-D) or area (3-D) over the parts named (all parts when none is
// named), each with its outward unit normal and its part. A name picks the
// part of that name and every part below it ("holes" picks "holes/circle").
// The first coordinate of a unit point drawn by s picks a piece in
// proportion to its full measure (and is rescaled to a parameter of it);
// points off the piece's kept part are rejected. It is an error when a name picks
// no part or the picked boundary has measure zero.
func SampleBoundary(d Domain, n int, s UnitSampler, src Source, parts ...string) (*BoundaryPoints, error) {
	bp := &BoundaryPoints{}
	err := sampleBoundary(d, n, s, src, parts, func(x, nrm []float64, part string) {
		bp.X = append(bp.X, x)
		bp.Normal = append(bp.Normal, nrm)
		bp.Part = append(bp.Part, part)
	})
	if err != nil {
		return nil, err
	}
	return bp, nil
}

// sampleBoundary draws n boundary points of d, giving each accepted point,
// normal (fresh slices) and part to emit.
func sampleBoundary(d Domain, n int, s UnitSampler, src Source, parts []string,
	emit func(x, nrm []float64, part string)) error {
	if d == nil {
		return fmt.Errorf("geom: nil domain; give a domain")
	}
	var ps []Piece
	for _, p := range d.Pieces() {
		if selected(p.Name, parts) {
			ps = append(ps, p)
		}
	}
	for _, name := range parts {
		if !slices.ContainsFunc(d.Pieces(), func(p Piece) bool { return selected(p.Name, []string{name}) }) {
			var all []string
			for _, p := range Parts(d) {
				all = append(all, p.Name)
			}
			return fmt.Errorf("geom: no boundary part %q; the parts are %s", name, strings.Join(all, ", "))
		}
	}
	// cum[j] is the full measure of the pieces before j: a piece is picked
	// in proportion to its full measure and points off its kept part are
	// rejected, so the accepted points are uniform on the kept parts.
	// Pieces with nothing kept are left out.
	var kept float64
	cum := []float64{0}
	var use []Piece
	for _, p := range ps {
		if p.Measure > p.Full*(1+1e-9) || p.Dim != d.Dim()-1 {
			return fmt.Errorf("geom: boundary piece %q of dimension %d keeps %g of %g; a piece of a %d-D domain has dimension %d and keeps at most its full measure", p.Name, p.Dim, p.Measure, p.Full, d.Dim(), d.Dim()-1)
		}
		if p.Measure > 0 {
			use = append(use, p)
			cum = append(cum, cum[len(cum)-1]+p.Full)
			kept += p.Measure
		}
	}
	if !(kept > 0) {
		return fmt.Errorf("geom: the boundary %s has measure zero (an empty domain?); nothing to sample", partList(parts))
	}
	total := cum[len(use)]
	dim := d.Dim()
	param := make([]float64, dim-1)
	return reject(s, src, n, dim, func(u []float64) bool {
		t := u[0] * total
		j, _ := slices.BinarySearch(cum[1:], t)
		j = min(j, len(use)-1)
		p := use[j]
		if dim > 1 {
			param[0] = math.Max(0, math.Min(1, (t-cum[j])/p.Full))
			copy(param[1:], u[1:dim])
		}
		x, nrm := make([]float64, dim), make([]float64, dim)
		p.At(param, x, nrm)
		if p.Keep != nil && !p.Keep(x, nrm) {
			return false
		}
		emit(x, nrm, p.Name)
		return true
	})
}

func partList(parts []string) string {
	if len(parts) == 0 {
		return "of the domain"
	}
	return fmt.Sprintf("parts %q", parts)
}
