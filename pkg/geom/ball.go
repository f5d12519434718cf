package geom

import (
	"fmt"
	"math"
	"slices"
)

// Ball is the closed disk (2-D) or ball (3-D) of a centre and a radius. Its
// boundary is one part, "circle" in 2-D and "sphere" in 3-D.
type Ball struct {
	c      []float64
	r      float64
	pieces []Piece
}

var _ Domain = (*Ball)(nil)

// NewDisk returns the disk of centre (cx, cy) and radius r > 0.
func NewDisk(cx, cy, r float64) (*Ball, error) { return NewBall([]float64{cx, cy}, r) }

// NewBall returns the ball of the centre (2 or 3 coordinates) and the
// radius r > 0.
func NewBall(center []float64, r float64) (*Ball, error) {
	if len(center) != 2 && len(center) != 3 {
		return nil, fmt.Errorf("geom: ball centre of %d coordinates; give 2 (disk) or 3 (ball)", len(center))
	}
	if err := finite("ball centre", center); err != nil {
		return nil, fmt.Errorf("geom: %v", err)
	}
	if !(r > 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("geom: ball radius %v; give a finite radius > 0", r)
	}
	b := &Ball{c: slices.Clone(center), r: r}
	if len(center) == 2 {
		b.pieces = []Piece{{Name: "circle", Dim: 1, Full: 2 * math.Pi * r, Measure: 2 * math.Pi * r,
			At: func(u, x, n []float64) {
				s, c := math.Sincos(2 * math.Pi * u[0])
				n[0], n[1] = c, s
				x[0], x[1] = b.c[0]+r*c, b.c[1]+r*s
			}}}
	} else {
		// Archimedes: z uniform in [-1, 1] and the azimuth uniform give
		// points uniform by area on the sphere.
		b.pieces = []Piece{{Name: "sphere", Dim: 2, Full: 4 * math.Pi * r * r, Measure: 4 * math.Pi * r * r,
			At: func(u, x, n []float64) {
				z := 2*u[0] - 1
				rho := math.Sqrt(math.Max(0, 1-z*z))
				s, c := math.Sincos(2 * math.Pi * u[1])
				n[0], n[1], n[2] = rho*c, rho*s, z
				for i := range 3 {
					x[i] = b.c[i] + r*n[i]
				}
			}}}
	}
	return b, nil
}

// Dim is 2 for a disk and 3 for a ball.
func (b *Ball) Dim() int { return len(b.c) }

// Bounds returns the box centre -+ radius.
func (b *Ball) Bounds() (lo, hi []float64) {
	lo, hi = slices.Clone(b.c), slices.Clone(b.c)
	for i := range lo {
		lo[i] -= b.r
		hi[i] += b.r
	}
	return lo, hi
}

// Contains reports whether x lies in the ball or within Tol of it.
func (b *Ball) Contains(x []float64) bool { return contains(b, x) }

// SignedDistance is |x - centre| - radius, exact.
func (b *Ball) SignedDistance(x []float64) float64 {
	checkDim(b, x)
	var s float64
	for i := range x {
		s += (x[i] - b.c[i]) * (x[i] - b.c[i])
	}
	return math.Sqrt(s) - b.r
}

// Pieces returns the circle or the sphere.
func (b *Ball) Pieces() []Piece { return b.pieces }
