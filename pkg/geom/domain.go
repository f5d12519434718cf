package geom

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Tol is the absolute distance within which a point counts as on the
// boundary: Contains accepts points with SignedDistance <= Tol, and
// boundary points have |SignedDistance| <= Tol. It suits domains of size
// near 1; scale the inputs of much larger or smaller domains.
const Tol = 1e-9

// Offset is the step along a boundary normal with which a CSG operation
// decides whether a piece of an operand's boundary is on the result's
// boundary (outside after the step, inside before it). Features of a
// domain should be much larger than Offset; boundary points closer than
// Offset to a corner of the result may be misjudged.
const Offset = 1e-6

// Domain is a closed region of R^Dim().
type Domain interface {
	// Dim is the dimension of the points of the domain.
	Dim() int
	// Bounds returns the lower and upper corners of a box that contains the
	// domain. lo[i] > hi[i] on some axis means the domain is empty.
	Bounds() (lo, hi []float64)
	// Contains reports whether x lies in the domain or within Tol of it. It
	// is false for NaN coordinates and panics if len(x) != Dim().
	Contains(x []float64) bool
	// SignedDistance is negative inside, zero on the boundary and positive
	// outside. For primitives it is the exact Euclidean signed distance; for
	// CSG results its sign is exact and its magnitude a lower bound of the
	// distance outside (the min/max combination of the operands'). It
	// panics if len(x) != Dim().
	SignedDistance(x []float64) float64
	// Pieces returns the pieces of the boundary.
	Pieces() []Piece
}

// Piece is a piece of a domain's boundary: the image of the unit cube
// [0,1]^Dim under At, of which the part where Keep holds is kept.
type Piece struct {
	// Name is the name of the boundary part the piece belongs to; several
	// pieces may share it (the four circles of a union of four disks).
	Name string
	// Dim is the dimension of the parameter cube: the domain's Dim() - 1.
	Dim int
	// Full is the measure (length, area; 1 for a point) of the whole image
	// of At, and Measure that of the kept part.
	Full, Measure float64
	// At writes to x the point at parameters u and to n the outward unit
	// normal there. It must have a constant Jacobian, so that uniform u
	// give points uniform by measure.
	At func(u, x, n []float64)
	// Keep, if not nil, reports whether the point x with normal n is kept.
	Keep func(x, n []float64) bool
}

// Part is a named part of a domain's boundary and its measure.
type Part struct {
	Name    string
	Measure float64
}

// Must returns d, and panics if err is not nil: for domains written as
// literals in code (a problem's definition), where an error is a
// programmer's mistake, as regexp.MustCompile. Domains built from a
// user's input should check the error instead.
func Must(d Domain, err error) Domain {
	if err != nil {
		panic(err)
	}
	return d
}

// Parts lists the parts of d's boundary in the order of their first piece,
// with the summed measure of their kept pieces.
func Parts(d Domain) []Part {
	var parts []Part
	for _, p := range d.Pieces() {
		i := slices.IndexFunc(parts, func(q Part) bool { return q.Name == p.Name })
		if i < 0 {
			parts = append(parts, Part{Name: p.Name})
			i = len(parts) - 1
		}
		parts[i].Measure += p.Measure
	}
	return parts
}

// Measure is the measure of d's boundary (its perimeter in 2-D, its area in
// 3-D), summed over the kept parts of its pieces.
func Measure(d Domain) float64 {
	var m float64
	for _, p := range d.Pieces() {
		m += p.Measure
	}
	return m
}

// contains is the Contains of every domain: within Tol of the closed set.
func contains(d Domain, x []float64) bool {
	checkDim(d, x)
	return d.SignedDistance(x) <= Tol
}

// checkDim panics when x does not have d's dimension: a programmer's
// mistake, as a shape mismatch in gonum.
func checkDim(d Domain, x []float64) {
	if len(x) != d.Dim() {
		panic(fmt.Sprintf("geom: point of dimension %d in a %d-D domain", len(x), d.Dim()))
	}
}

// Check returns an error naming the first of pts that has the wrong number
// of coordinates, a NaN or infinite coordinate, or lies outside d.
func Check(d Domain, pts [][]float64) error {
	for i, x := range pts {
		if len(x) != d.Dim() {
			return fmt.Errorf("geom: point %d has %d coordinates; the domain is %d-D", i, len(x), d.Dim())
		}
		if err := finite("point", x); err != nil {
			return fmt.Errorf("geom: point %d: %v", i, err)
		}
		if !d.Contains(x) {
			return fmt.Errorf("geom: point %d %v is outside the domain (signed distance %.3g); give points inside it", i, x, d.SignedDistance(x))
		}
	}
	return nil
}

// Normal returns the outward unit normal at the boundary point x: the
// gradient of the signed distance by central differences. It is an error
// when x is not within Tol of the boundary; at a corner, where no normal
// exists, it is a blend of the normals of the faces that meet there.
func Normal(d Domain, x []float64) ([]float64, error) {
	if len(x) != d.Dim() {
		return nil, fmt.Errorf("geom: point has %d coordinates; the domain is %d-D", len(x), d.Dim())
	}
	if err := finite("point", x); err != nil {
		return nil, fmt.Errorf("geom: %v", err)
	}
	if s := d.SignedDistance(x); math.Abs(s) > Tol {
		return nil, fmt.Errorf("geom: point %v is not on the boundary (signed distance %.3g); give a boundary point", x, s)
	}
	g := gradient(d.SignedDistance, x, 1e-7)
	norm := math.Sqrt(dot(g, g))
	if norm == 0 {
		return nil, fmt.Errorf("geom: no normal at %v: the signed distance is flat there", x)
	}
	for i := range g {
		g[i] /= norm
	}
	return g, nil
}

// gradient is the central-difference gradient of f at x with step h.
func gradient(f func([]float64) float64, x []float64, h float64) []float64 {
	g := make([]float64, len(x))
	y := slices.Clone(x)
	for i := range x {
		y[i] = x[i] + h
		fp := f(y)
		y[i] = x[i] - h
		fm := f(y)
		y[i] = x[i]
		g[i] = (fp - fm) / (2 * h)
	}
	return g
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// finite returns an error naming what when v holds a NaN or an infinity.
func finite(what string, v []float64) error {
	for i, c := range v {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("%s coordinate %d is %v; give finite numbers", what, i, c)
		}
	}
	return nil
}

// named is a domain whose parts' names carry a prefix.
type named struct {
	Domain
	pieces []Piece
}

// Named returns d with every boundary part's name prefixed by name and a
// slash ("holes/circle"), so that parts from different operands of a CSG
// result stay apart and a term can pick all of them by the prefix alone.
// The name must not be empty nor contain a slash.
func Named(name string, d Domain) (Domain, error) {
	if d == nil {
		return nil, fmt.Errorf("geom: Named(%q) of a nil domain; give a domain", name)
	}
	if name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("geom: part name %q; give a non-empty name without a slash", name)
	}
	ps := slices.Clone(d.Pieces())
	for i := range ps {
		ps[i].Name = name + "/" + ps[i].Name
	}
	return &named{Domain: d, pieces: ps}, nil
}

func (d *named) Pieces() []Piece { return d.pieces }

// selected reports whether the part name is picked by one of the names in
// parts (all parts when parts is empty): an equal name or a prefix followed
// by a slash.
func selected(name string, parts []string) bool {
	if len(parts) == 0 {
		return true
	}
	for _, p := range parts {
		if name == p || strings.HasPrefix(name, p+"/") {
			return true
		}
	}
	return false
}
