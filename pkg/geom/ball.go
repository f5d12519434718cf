package geom

import (
	"fmt"
	"math"
	"slices"
)

// Ball is the closed disk (2-D) or ball (3-D to 5-D) of a centre and a
// radius. Its boundary is one part, "circle" in 2-D and "sphere" above.
type Ball struct {
	c      []float64
	r      float64
	pieces []Piece
}

var _ Domain = (*Ball)(nil)

// NewDisk returns the disk of centre (cx, cy) and radius r > 0.
func NewDisk(cx, cy, r float64) (*Ball, error) { return NewBall([]float64{cx, cy}, r) }

// NewBall returns the ball of the centre (2 to 5 coordinates) and the
// radius r > 0.
func NewBall(center []float64, r float64) (*Ball, error) {
	if len(center) < 2 || len(center) > 5 {
		return nil, fmt.Errorf("geom: ball centre of %d coordinates; give 2 (disk) to 5", len(center))
	}
	if err := finite("ball centre", center); err != nil {
		return nil, fmt.Errorf("geom: %v", err)
	}
	if !(r > 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("geom: ball radius %v; give a finite radius > 0", r)
	}
	b := &Ball{c: slices.Clone(center), r: r}
	switch len(center) {
	case 2:
		b.pieces = []Piece{{Name: "circle", Dim: 1, Full: 2 * math.Pi * r, Measure: 2 * math.Pi * r,
			At: func(u, x, n []float64) {
				s, c := math.Sincos(2 * math.Pi * u[0])
				n[0], n[1] = c, s
				x[0], x[1] = b.c[0]+r*c, b.c[1]+r*s
			}}}
	case 3:
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
	default:
		area := sphereArea(len(center), r)
		b.pieces = []Piece{{Name: "sphere", Dim: len(center) - 1, Full: area, Measure: area,
			At: func(u, x, n []float64) {
				highSphere(u, n)
				for i := range n {
					x[i] = b.c[i] + r*n[i]
				}
			}}}
	}
	return b, nil
}

// sphereArea is the measure of the sphere of radius r in R^d, d = 4 or 5:
// 2 pi^2 r^3 and 8/3 pi^2 r^4.
func sphereArea(d int, r float64) float64 {
	if d == 4 {
		return 2 * math.Pi * math.Pi * r * r * r
	}
	return 8.0 / 3 * math.Pi * math.Pi * r * r * r * r
}

// highSphere maps u in [0,1]^(d-1) to n on the unit sphere of R^d, d = 4
// or 5, uniform by measure: the first d-2 coordinates of a uniform point
// on that sphere are uniform in the unit ball of R^(d-2) (Archimedes'
// theorem one dimension up), and the last two lie on the circle of the
// remaining radius at a uniform angle. The ball's point is drawn from
// u[:d-2] by its radius' CDF (r^2 in the disk, r^3 in the ball) and a
// uniform direction (Archimedes in 3-D), the angle from u[d-2].
func highSphere(u, n []float64) {
	d := len(n)
	var rad float64
	if d == 4 {
		rad = math.Sqrt(u[0])
		s, c := math.Sincos(2 * math.Pi * u[1])
		n[0], n[1] = rad*c, rad*s
	} else {
		rad = math.Cbrt(u[0])
		z := 2*u[1] - 1
		rho := math.Sqrt(math.Max(0, 1-z*z))
		s, c := math.Sincos(2 * math.Pi * u[2])
		n[0], n[1], n[2] = rad*rho*c, rad*rho*s, rad*z
	}
	rest := math.Sqrt(math.Max(0, 1-rad*rad))
	s, c := math.Sincos(2 * math.Pi * u[d-2])
	n[d-2], n[d-1] = rest*c, rest*s
}

// Dim is the number of coordinates of the centre.
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
