package pde

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

// Side picks one end of an input's interval: the face input = Lo or
// input = Hi of the domain box.
type Side int

// The two ends of an input's interval.
const (
	Lo Side = iota + 1
	Hi
)

// String is "Lo" or "Hi", as the constants are named.
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
	kindParts
	kindPairs
)

// Region is a part of a problem's domain named by input names or boundary
// part names, so it can be written in a Problem literal before the domain
// is known: Interior, Face, Faces, Boundary, Initial, On, FacePairs.
// Problem.Sample resolves it against the problem's Inputs and its Domain
// (or its box Lo, Hi); a name the problem does not have is an error there.
// The zero Region is no region.
//
// A Domain that is a geom.Box, or a geom.SpaceTime of one, draws the box
// regions as the box of its bounding box does, the same points bit for
// bit. Every boundary region but Initial draws the outward unit normal with
// each point (the term's normal fields, see NormalField), so that a
// residual can read the normal derivative (Vars.DN, u_n in an equation).
type Region struct {
	kind   regionKind
	inputs []string // input names, or part names for On
	side   Side
}

// Interior is the whole domain (the box, or Problem.Domain).
func Interior() Region { return Region{kind: kindInterior} }

// On is the named parts of the boundary of Problem.Domain, e.g.
// On("holes") or On("square"): a name picks the part of that name and every
// part below it (geom.Named's "holes" picks "holes/circle"); On() is the
// whole boundary. The points are spread over the parts by length (area),
// each with its outward unit normal. A problem without a Domain has no
// parts: use Face, Faces or Boundary on its box.
func On(parts ...string) Region { return Region{kind: kindParts, inputs: slices.Clone(parts)} }

// FacePairs is pairs of points on the two faces of an input of the box, a
// point on input = Lo and the same point moved to input = Hi: the points
// (Term.Points) are drawn on the Lo face as Face(input, Lo) draws them and
// their partners are the term's Pairs. It is the region of Periodic.
func FacePairs(input string) Region { return Region{kind: kindPairs, inputs: []string{input}} }

// Face is the face input = Lo or input = Hi of the box (with a Domain,
// only of a geom.Box or a space-time of one).
func Face(input string, side Side) Region {
	return Region{kind: kindFace, inputs: []string{input}, side: side}
}

// Faces is both faces of an input, the points split between them (half
// each, the odd one on the Lo face).
func Faces(input string) Region { return Region{kind: kindFaces, inputs: []string{input}} }

// Boundary is every face of the box except those of the inputs listed,
// e.g. Boundary("t") is the spatial boundary of a space-time box. The
// points are spread over the faces by face area. With a Domain that is not
// a box it is the domain's whole boundary, and Boundary("t") the lateral
// boundary of a geom.SpaceTime whose time input is t (its only boundary:
// Boundary() of a space-time domain is an error, so that the slices in
// time are never drawn by mistake).
func Boundary(except ...string) Region {
	return Region{kind: kindBoundary, inputs: slices.Clone(except)}
}

// Initial is the slice input = Lo, e.g. Initial("t") is t = 0 of a
// space-time box over [0, T], or the space domain at T0 of a
// geom.SpaceTime whose time input is t.
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
	case kindParts:
		return fmt.Sprintf("On(%s)", args)
	case kindPairs:
		return fmt.Sprintf("FacePairs(%s)", args)
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
	case kindPairs:
		return []face{{dims[0], Lo}}, nil
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
	return nil, fmt.Errorf("no region; set Draw.Region to pde.Interior(), Face, Faces, Boundary, Initial, On or FacePairs")
}

// drawn are a region's points, with the outward unit normal at each point
// of a boundary region and the partner of each point of FacePairs.
type drawn struct {
	x, normal, pair [][]float64
}

// boxPoints draws n points of r in p's box with sampler s: each face gets
// its share of n by area and its own set of the sampler
// (geom.FacePoints).
func (r Region) boxPoints(p *Problem, s Sampler, rng *rand.Rand, n int) (drawn, error) {
	fs, err := r.faces(p)
	if err != nil {
		return drawn{}, err
	}
	faces := make([]geom.Face, len(fs))
	for i, f := range fs {
		faces[i] = geom.Face{Axis: f.dim, High: f.side == Hi}
	}
	x, normal, err := geom.FacePoints(p.Lo, p.Hi, faces, n, s, rng)
	if err != nil {
		return drawn{}, err
	}
	out := drawn{x: x}
	switch r.kind {
	case kindPairs: // the Lo face's points moved to the Hi face
		d := fs[0].dim
		for _, v := range x {
			y := slices.Clone(v)
			y[d] = p.Hi[d]
			out.pair = append(out.pair, y)
		}
	case kindFace, kindFaces, kindBoundary:
		out.normal = normal
	}
	return out, nil
}
