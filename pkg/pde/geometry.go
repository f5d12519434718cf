package pde

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Side picks one end of an input's interval: the face input = Lo or
// input = Hi of the domain box.
type Side int

// The two ends of an input's interval.
const (
	Lo Side = iota + 1
	Hi
)

func (s Side) String() string {
	switch s {
	case Lo:
		return "Lo"
	case Hi:
		return "Hi"
	}
	return fmt.Sprintf("Side(%d)", int(s))
}

type regionKind int

const (
	kindNone regionKind = iota
	kindInterior
	kindFace
	kindFaces
	kindBoundary
	kindInitial
)

// Region is a part of a problem's domain box named by input names, so it
// can be written in a Problem literal before the box is known: Interior,
// Face, Faces, Boundary, Initial. Problem.Sample resolves it against the
// problem's Inputs, Lo and Hi; a name the problem does not have is an
// error there. The zero Region is no region.
type Region struct {
	kind   regionKind
	inputs []string
	side   Side
}

// Interior is the whole box.
func Interior() Region { return Region{kind: kindInterior} }

// Face is the face input = Lo or input = Hi of the box.
func Face(input string, side Side) Region {
	return Region{kind: kindFace, inputs: []string{input}, side: side}
}

// Faces is both faces of an input, the points split between them (half
// each, the odd one on the Lo face).
func Faces(input string) Region { return Region{kind: kindFaces, inputs: []string{input}} }

// Boundary is every face of the box except those of the inputs listed,
// e.g. Boundary("t") is the spatial boundary of a space-time box. The
// points are spread over the faces by face area.
func Boundary(except ...string) Region {
	return Region{kind: kindBoundary, inputs: slices.Clone(except)}
}

// Initial is the slice input = Lo, e.g. Initial("t") is t = 0 of a
// space-time box over [0, T].
func Initial(input string) Region {
	return Region{kind: kindInitial, inputs: []string{input}, side: Lo}
}

// String is the region as it is written in Go.
func (r Region) String() string {
	q := make([]string, len(r.inputs))
	for i, in := range r.inputs {
		q[i] = fmt.Sprintf("%q", in)
	}
	args := strings.Join(q, ", ")
	switch r.kind {
	case kindInterior:
		return "Interior()"
	case kindFace:
		return fmt.Sprintf("Face(%s, %v)", args, r.side)
	case kindFaces:
		return fmt.Sprintf("Faces(%s)", args)
	case kindBoundary:
		return fmt.Sprintf("Boundary(%s)", args)
	case kindInitial:
		return fmt.Sprintf("Initial(%s)", args)
	}
	return "no region"
}

// face is a region's piece: the box with input dim fixed at its Lo or Hi
// end (dim -1: the whole box).
type face struct {
	dim  int
	side Side
}

// faces resolves r against p's inputs.
func (r Region) faces(p *Problem) ([]face, error) {
	dims := make([]int, len(r.inputs))
	for i, in := range r.inputs {
		dims[i] = slices.Index(p.Inputs, in)
		if dims[i] < 0 {
			return nil, fmt.Errorf("region %v: no input %q; the inputs are %q", r, in, p.Inputs)
		}
	}
	switch r.kind {
	case kindInterior:
		return []face{{dim: -1}}, nil
	case kindFace, kindInitial:
		if r.side != Lo && r.side != Hi {
			return nil, fmt.Errorf("region %v: side %v; use pde.Lo or pde.Hi", r, r.side)
		}
		return []face{{dims[0], r.side}}, nil
	case kindFaces:
		return []face{{dims[0], Lo}, {dims[0], Hi}}, nil
	case kindBoundary:
		var fs []face
		for d := range p.Inputs {
			if !slices.Contains(dims, d) {
				fs = append(fs, face{d, Lo}, face{d, Hi})
			}
		}
		if fs == nil {
			return nil, fmt.Errorf("region %v: leaves out every input, so it has no faces; list fewer inputs", r)
		}
		return fs, nil
	}
	return nil, fmt.Errorf("no region; set Draw.Region to pde.Interior(), Face, Faces, Boundary or Initial")
}

// points draws n points of r in p's box with sampler s: each face gets its
// share of n by area (largest remainders, ties to the earlier face) and
// its own set of the sampler in the face's free coordinates; the fixed
// coordinate is exactly Lo or Hi.
func (r Region) points(p *Problem, s Sampler, rng *rand.Rand, n int) ([][]float64, error) {
	fs, err := r.faces(p)
	if err != nil {
		return nil, err
	}
	area := make([]float64, len(fs))
	for i, f := range fs {
		area[i] = 1
		for d := range p.Inputs {
			if d != f.dim {
				area[i] *= p.Hi[d] - p.Lo[d]
			}
		}
	}
	pts := make([][]float64, 0, n)
	for i, c := range share(n, area) {
		f := fs[i]
		free := p.Dim()
		if f.dim >= 0 {
			free--
		}
		u, err := s.Unit(rng, c, free)
		if err != nil {
			return nil, err
		}
		for _, v := range u {
			x := make([]float64, p.Dim())
			k := 0
			for d := range x {
				switch {
				case d != f.dim:
					x[d] = math.Min(p.Hi[d], p.Lo[d]+(p.Hi[d]-p.Lo[d])*v[k])
					k++
				case f.side == Lo:
					x[d] = p.Lo[d]
				default:
					x[d] = p.Hi[d]
				}
			}
			pts = append(pts, x)
		}
	}
	return pts, nil
}

// share splits n into counts proportional to w by largest remainders, ties
// going to the earlier entry.
func share(n int, w []float64) []int {
	total := 0.0
	for _, v := range w {
		total += v
	}
	counts := make([]int, len(w))
	rem := make([]float64, len(w))
	left := n
	for i, v := range w {
		q := float64(n) * v / total
		counts[i] = int(math.Floor(q))
		rem[i] = q - float64(counts[i])
		left -= counts[i]
	}
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for _, i := range order[:left] {
		counts[i]++
	}
	return counts
}
