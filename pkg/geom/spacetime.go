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

// Dim is the spatial dimension plus one.
func (st *SpaceTime) Dim() int { return st.Space.Dim() + 1 }

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

// Interior returns exactly n points (x, t) with x in the space domain
// (drawn as SampleInterior does) and t in [T0, T1], the d+1 coordinates of
// each from one unit point of s.
func (st *SpaceTime) Interior(n int, s UnitSampler, src Source) ([][]float64, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	var pts [][]float64
	err := sampleInterior(st.Space, n, s, src, 1, func(x, rest []float64) {
		pts = append(pts, append(x, st.time(rest[0])))
	})
	return pts, err
}

// Boundary returns exactly n points (x, t) with x on the picked parts of
// the spatial boundary (as SampleBoundary draws them) and t uniform in
// [T0, T1]; the normals are the spatial ones with a zero time component.
func (st *SpaceTime) Boundary(n int, s UnitSampler, src Source, parts ...string) (*BoundaryPoints, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	bp := &BoundaryPoints{}
	err := sampleBoundary(st.Space, n, s, src, parts, 1, func(x, nrm []float64, part string, rest []float64) {
		bp.X = append(bp.X, append(x, st.time(rest[0])))
		bp.Normal = append(bp.Normal, append(nrm, 0))
		bp.Part = append(bp.Part, part)
	})
	if err != nil {
		return nil, err
	}
	return bp, nil
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
