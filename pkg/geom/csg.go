package geom

import (
	"fmt"
	"math"
	"slices"
)

// opKind is a CSG operation.
type opKind int

const (
	opUnion opKind = iota
	opIntersection
	opDifference
)

func (k opKind) String() string {
	return [...]string{"Union", "Intersection", "Difference"}[k]
}

// csg is the result of a CSG operation on its operands.
type csg struct {
	op     opKind
	ops    []Domain
	lo, hi []float64
	pieces []Piece
}

// Union returns the domain of the points in any of ds. Its boundary is the
// parts of the operands' boundaries that lie on the union's boundary, with
// their names.
func Union(ds ...Domain) (Domain, error) { return newCSG(opUnion, ds) }

// Intersection returns the domain of the points in all of ds. An empty
// intersection is an error when it is sampled.
func Intersection(ds ...Domain) (Domain, error) { return newCSG(opIntersection, ds) }

// Difference returns the domain of the points of a that are not inside b
// (b's boundary stays in the result). Its boundary holds the parts of a's
// boundary outside b and the parts of b's boundary inside a with their
// normals flipped (pointing into b, out of the result).
func Difference(a, b Domain) (Domain, error) { return newCSG(opDifference, []Domain{a, b}) }

func newCSG(op opKind, ds []Domain) (*csg, error) {
	if len(ds) == 0 {
		return nil, fmt.Errorf("geom: %v of no domains; give at least one", op)
	}
	for i, d := range ds {
		if d == nil {
			return nil, fmt.Errorf("geom: %v operand %d is nil; give a domain", op, i)
		}
		if d.Dim() != ds[0].Dim() {
			return nil, fmt.Errorf("geom: %v of a %d-D and a %d-D domain (operands 0 and %d); give operands of one dimension", op, ds[0].Dim(), d.Dim(), i)
		}
	}
	c := &csg{op: op, ops: slices.Clone(ds)}
	c.lo, c.hi = ds[0].Bounds()
	for _, d := range ds[1:] {
		lo, hi := d.Bounds()
		for k := range lo {
			switch op {
			case opUnion:
				c.lo[k], c.hi[k] = math.Min(c.lo[k], lo[k]), math.Max(c.hi[k], hi[k])
			case opIntersection:
				c.lo[k], c.hi[k] = math.Max(c.lo[k], lo[k]), math.Min(c.hi[k], hi[k])
			}
		}
	}
	for i, d := range ds {
		flip := op == opDifference && i == 1
		for _, p := range d.Pieces() {
			q := c.restrict(p, ds[:i], flip)
			q.Measure = retained(q)
			c.pieces = append(c.pieces, q)
		}
	}
	return c, nil
}

// restrict returns p kept only where it lies on c's boundary and not on the
// boundary of an earlier operand (which keeps coincident pieces), with its
// normal flipped if flip.
func (c *csg) restrict(p Piece, earlier []Domain, flip bool) Piece {
	at, keep := p.At, p.Keep
	if flip {
		p.At = func(u, x, n []float64) {
			at(u, x, n)
			for i := range n {
				n[i] = -n[i]
			}
		}
	}
	p.Keep = func(x, n []float64) bool {
		if keep != nil {
			m := n
			if flip {
				m = make([]float64, len(n))
				for i := range n {
					m[i] = -n[i]
				}
			}
			if !keep(x, m) {
				return false
			}
		}
		for _, e := range earlier {
			if math.Abs(e.SignedDistance(x)) <= Tol {
				return false
			}
		}
		return c.crosses(x, n)
	}
	return p
}

// crosses reports whether a step of Offset along n from x leaves c and a
// step against n enters it: x is on c's boundary with outward normal n.
func (c *csg) crosses(x, n []float64) bool {
	y := make([]float64, len(x))
	for i := range x {
		y[i] = x[i] + Offset*n[i]
	}
	if c.SignedDistance(y) <= 0 {
		return false
	}
	for i := range x {
		y[i] = x[i] - Offset*n[i]
	}
	return c.SignedDistance(y) < 0
}

// Dim is the operands' dimension.
func (c *csg) Dim() int { return c.ops[0].Dim() }

// Bounds returns the union's hull of the operands' boxes, the
// intersection's common box, or the box of a difference's first operand.
func (c *csg) Bounds() (lo, hi []float64) { return slices.Clone(c.lo), slices.Clone(c.hi) }

// Contains reports whether x lies in the result or within Tol of it.
func (c *csg) Contains(x []float64) bool { return contains(c, x) }

// SignedDistance combines the operands': the minimum for a union, the
// maximum for an intersection, max(a, -b) for a difference.
func (c *csg) SignedDistance(x []float64) float64 {
	checkDim(c, x)
	s := c.ops[0].SignedDistance(x)
	for _, d := range c.ops[1:] {
		t := d.SignedDistance(x)
		switch c.op {
		case opUnion:
			s = math.Min(s, t)
		case opIntersection:
			s = math.Max(s, t)
		case opDifference:
			s = math.Max(s, -t)
		}
	}
	return s
}

// Pieces returns the operands' pieces restricted to the result's boundary.
func (c *csg) Pieces() []Piece { return c.pieces }

// retained is the measure of the kept part of p. On curves (Dim 1) it is
// exact up to about Offset (the resolution of Keep near a corner of the
// result) for kept sets made of intervals longer than 1/curveCells of the
// piece: the parameter grid is refined by bisection where Keep changes. On surfaces it is a midpoint rule with about
// surfaceCells cells, accurate to about the cell size.
func retained(p Piece) float64 {
	if p.Keep == nil {
		return p.Full
	}
	d := p.Dim + 1
	x, n := make([]float64, d), make([]float64, d)
	kept := func(u []float64) bool {
		p.At(u, x, n)
		return p.Keep(x, n)
	}
	switch p.Dim {
	case 0:
		if kept(nil) {
			return p.Full
		}
		return 0
	case 1:
		const m = curveCells
		var frac float64
		u := []float64{0}
		prev := kept(u)
		for i := 1; i <= m; i++ {
			a, b := float64(i-1)/m, float64(i)/m
			u[0] = b
			cur := kept(u)
			switch {
			case cur && prev:
				frac += b - a
			case cur != prev:
				// Bisect for the switch; the kept side of it counts.
				lo, hi := a, b
				for range 50 {
					mid := (lo + hi) / 2
					u[0] = mid
					if kept(u) == prev {
						lo = mid
					} else {
						hi = mid
					}
				}
				if prev {
					frac += lo - a
				} else {
					frac += b - hi
				}
			}
			prev = cur
		}
		return math.Min(frac, 1) * p.Full
	}
	g := int(math.Round(math.Pow(surfaceCells, 1/float64(p.Dim))))
	u := make([]float64, p.Dim)
	idx := make([]int, p.Dim)
	var in, all int
	for {
		for k := range u {
			u[k] = (float64(idx[k]) + 0.5) / float64(g)
		}
		all++
		if kept(u) {
			in++
		}
		k := 0
		for ; k < len(idx); k++ {
			if idx[k]++; idx[k] < g {
				break
			}
			idx[k] = 0
		}
		if k == len(idx) {
			break
		}
	}
	return p.Full * float64(in) / float64(all)
}

// The grid sizes of retained.
const (
	curveCells   = 4096
	surfaceCells = 1 << 16
)
