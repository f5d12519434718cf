package geom

import (
	"fmt"
	"math"
	"slices"
)

// axisNames name the axes of a box in its face names: "x-" is the face
// x = lo[0], "y+" the face y = hi[1].
var axisNames = []string{"x", "y", "z", "w"}

// Box is the axis-aligned box [lo, hi] in 1 to 4 dimensions. Its faces are
// the parts "x-", "x+", "y-", "y+", and so on for z and w.
type Box struct {
	lo, hi []float64
	pieces []Piece
}

var _ Domain = (*Box)(nil)

// NewBox returns the box [lo, hi]; lo and hi must have the same length
// (1 to 4), finite coordinates and lo[i] < hi[i].
func NewBox(lo, hi []float64) (*Box, error) {
	if len(lo) != len(hi) {
		return nil, fmt.Errorf("geom: box corners of lengths %d and %d; give lo and hi of one length", len(lo), len(hi))
	}
	if len(lo) < 1 || len(lo) > len(axisNames) {
		return nil, fmt.Errorf("geom: box of dimension %d; give 1 to %d coordinates", len(lo), len(axisNames))
	}
	if err := finite("box lo", lo); err != nil {
		return nil, fmt.Errorf("geom: %v", err)
	}
	if err := finite("box hi", hi); err != nil {
		return nil, fmt.Errorf("geom: %v", err)
	}
	for i := range lo {
		if !(lo[i] < hi[i]) {
			return nil, fmt.Errorf("geom: box lo[%d] = %g >= hi[%d] = %g; give lo < hi on every axis", i, lo[i], i, hi[i])
		}
	}
	b := &Box{lo: slices.Clone(lo), hi: slices.Clone(hi)}
	b.pieces = b.faces()
	return b, nil
}

// faces returns the 2*Dim faces in the order x-, x+, y-, y+, ...
func (b *Box) faces() []Piece {
	d := len(b.lo)
	var ps []Piece
	for axis := range d {
		// others are the axes that the face's parameters span.
		var others []int
		area := 1.0
		for j := range d {
			if j != axis {
				others = append(others, j)
				area *= b.hi[j] - b.lo[j]
			}
		}
		for _, side := range []float64{-1, 1} {
			c := b.lo[axis]
			name := axisNames[axis] + "-"
			if side > 0 {
				c, name = b.hi[axis], axisNames[axis]+"+"
			}
			ps = append(ps, Piece{
				Name: name, Dim: d - 1, Full: area, Measure: area,
				At: func(u, x, n []float64) {
					clear(n)
					x[axis], n[axis] = c, side
					for k, j := range others {
						x[j] = b.lo[j] + u[k]*(b.hi[j]-b.lo[j])
					}
				},
			})
		}
	}
	return ps
}

// Dim is the number of coordinates.
func (b *Box) Dim() int { return len(b.lo) }

// Bounds returns copies of the corners.
func (b *Box) Bounds() (lo, hi []float64) { return slices.Clone(b.lo), slices.Clone(b.hi) }

// Contains reports whether x lies in the box or within Tol of it.
func (b *Box) Contains(x []float64) bool { return contains(b, x) }

// SignedDistance is the exact Euclidean signed distance to the box's
// boundary, negative inside.
func (b *Box) SignedDistance(x []float64) float64 {
	checkDim(b, x)
	var out, in float64
	in = math.Inf(-1)
	for i := range x {
		c, h := (b.lo[i]+b.hi[i])/2, (b.hi[i]-b.lo[i])/2
		q := math.Abs(x[i]-c) - h
		if q > 0 {
			out += q * q
		}
		in = math.Max(in, q)
	}
	if out > 0 {
		return math.Sqrt(out)
	}
	return math.Min(in, 0)
}

// Pieces returns the faces x-, x+, y-, y+, ...
func (b *Box) Pieces() []Piece { return b.pieces }

// Periodic returns n pairs of matched points for a periodic condition
// along the axis: lo[i] on the face axis = Lo and hi[i] the same point
// moved to the face axis = Hi (the other coordinates equal), the points of
// the lower face drawn by s from src.
func (b *Box) Periodic(axis, n int, s UnitSampler, src Source) (lo, hi [][]float64, err error) {
	if axis < 0 || axis >= b.Dim() {
		return nil, nil, fmt.Errorf("geom: periodic axis %d of a %d-D box; give an axis from 0 to %d", axis, b.Dim(), b.Dim()-1)
	}
	bp, err := SampleBoundary(b, n, s, src, axisNames[axis]+"-")
	if err != nil {
		return nil, nil, err
	}
	hi = make([][]float64, n)
	for i, x := range bp.X {
		hi[i] = slices.Clone(x)
		hi[i][axis] = b.hi[axis]
	}
	return bp.X, hi, nil
}
