package geom

import (
	"math"
	"slices"
)

// Face is a face of the box [lo, hi]: the coordinate Axis held at lo[Axis],
// or at hi[Axis] with High. Axis -1 is the whole box.
type Face struct {
	Axis int
	High bool
}

// FacePoints draws n points on the faces of the box [lo, hi] with s from
// src. Each face gets its share of n by area (largest remainders, ties to
// the earlier face) and a set of s of its own in its free coordinates, in
// the order of faces; the held coordinate is exactly lo or hi, so the
// points of a problem's box faces are the same bits however the box is
// written. normal[i] is the outward unit normal at point i, nil on the
// whole box.
func FacePoints(lo, hi []float64, faces []Face, n int, s UnitSampler, src Source) (x, normal [][]float64, err error) {
	dim := len(lo)
	area := make([]float64, len(faces))
	for i, f := range faces {
		area[i] = 1
		for d := range dim {
			if d != f.Axis {
				area[i] *= hi[d] - lo[d]
			}
		}
	}
	x = make([][]float64, 0, n)
	for i, c := range share(n, area) {
		f := faces[i]
		free := dim
		if f.Axis >= 0 {
			free--
		}
		u, err := s.Unit(src, c, free)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range u {
			p := make([]float64, dim)
			k := 0
			for d := range p {
				switch {
				case d != f.Axis:
					p[d] = math.Min(hi[d], lo[d]+(hi[d]-lo[d])*v[k])
					k++
				case f.High:
					p[d] = hi[d]
				default:
					p[d] = lo[d]
				}
			}
			x = append(x, p)
			var nrm []float64
			if f.Axis >= 0 {
				nrm = make([]float64, dim)
				nrm[f.Axis] = -1
				if f.High {
					nrm[f.Axis] = 1
				}
			}
			normal = append(normal, nrm)
		}
	}
	return x, normal, nil
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

// Lattice is the grid of m points per axis over the box [lo, hi], m^d
// points from corner to corner, the first coordinate varying fastest; m = 1
// is the box's centre.
func Lattice(lo, hi []float64, m int) [][]float64 {
	d := len(lo)
	total := 1
	for range d {
		total *= m
	}
	pts := make([][]float64, total)
	for i := range pts {
		x := make([]float64, d)
		for k, r := 0, i; k < d; k, r = k+1, r/m {
			x[k] = lerp(lo[k], hi[k], r%m, m)
		}
		pts[i] = x
	}
	return pts
}

func lerp(lo, hi float64, i, n int) float64 {
	if n == 1 {
		return (lo + hi) / 2
	}
	return lo + (hi-lo)*float64(i)/float64(n-1)
}
