package geom

import (
	"fmt"
	"math"
	"slices"
)

// SpaceTime is a spatial domain times the time interval [T0, T1]: the
// domain of a time-dependent problem. Its points are (x, t), time last.
type SpaceTime struct {
	Space  Domain
	T0, T1 float64
	// Inputs names the coordinates of a point, time last.
	Inputs []string
}

// NewSpaceTime returns space x [t0, t1] with the inputs named (one per
// spatial coordinate, then time); no names gives x, y, z then t.
func NewSpaceTime(space Domain, t0, t1 float64, inputs ...string) (*SpaceTime, error) {
	st := &SpaceTime{Space: space, T0: t0, T1: t1}
	if err := st.check(); err != nil {
		return nil, err
	}
	d := space.Dim()
	if inputs == nil {
		if d > 3 {
			return nil, fmt.Errorf("geom: space-time of a %d-D domain; name its %d inputs", d, d+1)
		}
		inputs = append(slices.Clone(axisNames[:d]), "t")
	}
	if len(inputs) != d+1 {
		return nil, fmt.Errorf("geom: %d input names for a %d-D domain times time; give %d", len(inputs), d, d+1)
	}
	st.Inputs = slices.Clone(inputs)
	return st, nil
}

// check returns the error of a space-time domain without a space or with
// a time interval that is not finite and increasing: NewSpaceTime's, and
// the samplers' for a SpaceTime built as a literal.
func (st *SpaceTime) check() error {
	if st.Space == nil {
		return fmt.Errorf("geom: space-time of a nil domain; give a spatial domain")
	}
	if err := finite("time interval", []float64{st.T0, st.T1}); err != nil {
		return fmt.Errorf("geom: %v", err)
	}
	if !(st.T0 < st.T1) {
		return fmt.Errorf("geom: time interval [%g, %g]; give t0 < t1", st.T0, st.T1)
	}
	return nil
}

var _ Domain = (*SpaceTime)(nil)

// Dim is the spatial dimension plus one.
func (st *SpaceTime) Dim() int { return st.Space.Dim() + 1 }

// Bounds is the space domain's bounding box times [T0, T1].
func (st *SpaceTime) Bounds() (lo, hi []float64) {
	lo, hi = st.Space.Bounds()
	return append(lo, st.T0), append(hi, st.T1)
}

// Pieces are the lateral boundary: every piece of the space domain's
// boundary times [T0, T1], with the piece's name, the last parameter
// mapped to time and a zero time component in the normal. The slices
// t = T0 and t = T1 are not pieces: the initial slice is drawn by Initial,
// and a condition at the final time is not a boundary condition of an
// evolution equation.
func (st *SpaceTime) Pieces() []Piece {
	d := st.Space.Dim()
	span := st.T1 - st.T0
	var ps []Piece
	for _, p := range st.Space.Pieces() {
		q := Piece{Name: p.Name, Dim: p.Dim + 1, Full: p.Full * span, Measure: p.Measure * span,
			At: func(u, x, n []float64) {
				p.At(u[:d-1], x[:d], n[:d])
				x[d], n[d] = st.time(u[d-1]), 0
			}}
		if p.Keep != nil {
			q.Keep = func(x, n []float64) bool { return p.Keep(x[:d], n[:d]) }
		}
		ps = append(ps, q)
	}
	return ps
}

// Contains reports whether x (time last) lies in the space-time domain,
// within Tol.
func (st *SpaceTime) Contains(x []float64) bool {
	d := st.Space.Dim()
	if len(x) != d+1 {
		panic(fmt.Sprintf("geom: point of dimension %d in a %d-D space-time domain", len(x), d+1))
	}
	t := x[d]
	return st.T0-Tol <= t && t <= st.T1+Tol && st.Space.Contains(x[:d])
}

// time maps a unit coordinate to [T0, T1].
func (st *SpaceTime) time(u float64) float64 { return st.T0 + u*(st.T1-st.T0) }

// Interior returns exactly n points (x, t) with x in the space domain and
// t in [T0, T1]: SampleInterior of the space-time domain, the d+1
// coordinates of each point from one unit point of s.
func (st *SpaceTime) Interior(n int, s UnitSampler, src Source) ([][]float64, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	return SampleInterior(st, n, s, src)
}

// Boundary returns exactly n points (x, t) with x on the picked parts of
// the spatial boundary and t uniform in [T0, T1], uniform by the measure
// of the lateral boundary: SampleBoundary of the space-time domain. The
// normals are the spatial ones with a zero time component.
func (st *SpaceTime) Boundary(n int, s UnitSampler, src Source, parts ...string) (*BoundaryPoints, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	return SampleBoundary(st, n, s, src, parts...)
}

// Initial returns exactly n points (x, T0) with x drawn in the space
// domain as SampleInterior does.
func (st *SpaceTime) Initial(n int, s UnitSampler, src Source) ([][]float64, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	pts, err := SampleInterior(st.Space, n, s, src)
	for i := range pts {
		pts[i] = append(pts[i], st.T0)
	}
	return pts, err
}

// SignedDistance is a signed distance of the space-time cylinder: the
// larger of the spatial one and the distance outside (or inside) the time
// interval; exact inside and on the sides, a lower bound near the rims.
func (st *SpaceTime) SignedDistance(x []float64) float64 {
	d := st.Space.Dim()
	if len(x) != d+1 {
		panic(fmt.Sprintf("geom: point of dimension %d in a %d-D space-time domain", len(x), d+1))
	}
	t := x[d]
	return math.Max(st.Space.SignedDistance(x[:d]), math.Max(st.T0-t, t-st.T1))
}
