package geom

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Polygon is a simple polygon in the plane: its edges meet only at shared
// vertices. Edge i, from vertex i to vertex i+1 (the last one back to
// vertex 0) in the order given, is the part "edge<i>".
type Polygon struct {
	v      [][2]float64
	ccw    bool // the vertices as given run counter-clockwise
	lo, hi []float64
	pieces []Piece
}

var _ Domain = (*Polygon)(nil)

// NewPolygon returns the polygon of the vertices, in either orientation.
// It is an error when there are fewer than 3 vertices, a coordinate is not
// finite, two consecutive vertices coincide, all vertices are collinear
// (zero area) or the polygon is not simple (two edges cross or touch away from a shared
// vertex).
func NewPolygon(vertices [][2]float64) (*Polygon, error) {
	n := len(vertices)
	if n < 3 {
		return nil, fmt.Errorf("geom: polygon of %d vertices; give at least 3", n)
	}
	for i, v := range vertices {
		if err := finite("polygon vertex "+strconv.Itoa(i), v[:]); err != nil {
			return nil, fmt.Errorf("geom: %v", err)
		}
		if v == vertices[(i+1)%n] {
			return nil, fmt.Errorf("geom: polygon vertices %d and %d coincide at %v; remove one", i, (i+1)%n, v)
		}
	}
	collinear := true
	for _, v := range vertices[2:] {
		collinear = collinear && orient(vertices[0], vertices[1], v) == 0
	}
	if collinear {
		return nil, fmt.Errorf("geom: polygon of zero area (its vertices are collinear); give vertices that enclose a region")
	}
	if i, j, ok := crossing(vertices); ok {
		return nil, fmt.Errorf("geom: polygon is not simple: edges %d and %d intersect; give the vertices in order around the boundary", i, j)
	}
	// A simple polygon of non-collinear vertices has a non-zero area; its
	// sign is the orientation.
	var area float64
	for i, a := range vertices {
		b := vertices[(i+1)%n]
		area += a[0]*b[1] - b[0]*a[1]
	}
	p := &Polygon{v: slices.Clone(vertices), ccw: area > 0, lo: []float64{math.Inf(1), math.Inf(1)}, hi: []float64{math.Inf(-1), math.Inf(-1)}}
	for _, v := range p.v {
		for k := range 2 {
			p.lo[k], p.hi[k] = math.Min(p.lo[k], v[k]), math.Max(p.hi[k], v[k])
		}
	}
	for i := range p.v {
		a, b := p.v[i], p.v[(i+1)%n]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(dx, dy)
		// The outward normal is the edge direction turned clockwise for a
		// counter-clockwise polygon, anticlockwise for a clockwise one.
		nx, ny := dy/l, -dx/l
		if !p.ccw {
			nx, ny = -nx, -ny
		}
		p.pieces = append(p.pieces, Piece{Name: "edge" + strconv.Itoa(i), Dim: 1, Full: l, Measure: l,
			At: func(u, x, nrm []float64) {
				x[0], x[1] = a[0]+u[0]*dx, a[1]+u[0]*dy
				nrm[0], nrm[1] = nx, ny
			}})
	}
	return p, nil
}

// crossing returns two edges that intersect other than at the vertex that
// adjacent edges share, if any.
func crossing(v [][2]float64) (i, j int, ok bool) {
	n := len(v)
	for i := range n {
		a, b := v[i], v[(i+1)%n]
		for j := i + 1; j < n; j++ {
			c, d := v[j], v[(j+1)%n]
			switch {
			case j == i+1:
				// Adjacent edges share b = c; they overlap when d runs back
				// along the edge a-b.
				if orient(a, b, d) == 0 && (d[0]-b[0])*(a[0]-b[0])+(d[1]-b[1])*(a[1]-b[1]) > 0 {
					return i, j, true
				}
			case i == 0 && j == n-1:
				// Adjacent through vertex 0: d = a.
				if orient(c, d, b) == 0 && (b[0]-a[0])*(c[0]-a[0])+(b[1]-a[1])*(c[1]-a[1]) > 0 {
					return i, j, true
				}
			default:
				if segmentsMeet(a, b, c, d) {
					return i, j, true
				}
			}
		}
	}
	return 0, 0, false
}

// orient is the sign of the turn a -> b -> c: 1 anticlockwise, -1
// clockwise, 0 collinear.
func orient(a, b, c [2]float64) int {
	v := (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// segmentsMeet reports whether the closed segments a-b and c-d share a
// point.
func segmentsMeet(a, b, c, d [2]float64) bool {
	o1, o2, o3, o4 := orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
	if o1 != o2 && o3 != o4 {
		return true
	}
	within := func(p, q, r [2]float64) bool { // r on segment p-q, given collinear
		return math.Min(p[0], q[0]) <= r[0] && r[0] <= math.Max(p[0], q[0]) &&
			math.Min(p[1], q[1]) <= r[1] && r[1] <= math.Max(p[1], q[1])
	}
	return (o1 == 0 && within(a, b, c)) || (o2 == 0 && within(a, b, d)) ||
		(o3 == 0 && within(c, d, a)) || (o4 == 0 && within(c, d, b))
}

// Dim is 2.
func (p *Polygon) Dim() int { return 2 }

// Bounds returns the bounding box of the vertices.
func (p *Polygon) Bounds() (lo, hi []float64) {
	return []float64{p.lo[0], p.lo[1]}, []float64{p.hi[0], p.hi[1]}
}

// Contains reports whether x lies in the polygon or within Tol of it.
func (p *Polygon) Contains(x []float64) bool { return contains(p, x) }

// SignedDistance is the exact signed distance: the distance to the nearest
// edge, negative inside (by the even-odd crossing rule).
func (p *Polygon) SignedDistance(x []float64) float64 {
	checkDim(p, x)
	best := math.Inf(1)
	inside := false
	n := len(p.v)
	for i := range n {
		a, b := p.v[i], p.v[(i+1)%n]
		dx, dy := b[0]-a[0], b[1]-a[1]
		t := ((x[0]-a[0])*dx + (x[1]-a[1])*dy) / (dx*dx + dy*dy)
		t = math.Max(0, math.Min(1, t))
		best = math.Min(best, math.Hypot(x[0]-a[0]-t*dx, x[1]-a[1]-t*dy))
		if (a[1] > x[1]) != (b[1] > x[1]) && x[0] < a[0]+(x[1]-a[1])*dx/dy {
			inside = !inside
		}
	}
	if inside {
		return -best
	}
	return best
}

// Pieces returns the edges edge0, edge1, ... in the order of the vertices.
func (p *Polygon) Pieces() []Piece { return p.pieces }
