package refsol

import "math"

// grid is a uniform (n+1) x (n+1) node grid on [x0, x0+n*h]^2; nodal
// arrays are indexed j*(n+1)+i for the node at (x0+i*h, x0+j*h).
type grid struct {
	n     int
	x0, h float64
}

func (g grid) nodes() int          { return (g.n + 1) * (g.n + 1) }
func (g grid) idx(i, j int) int    { return j*(g.n+1) + i }
func (g grid) coord(i int) float64 { return g.x0 + float64(i)*g.h }

// cell returns the cell (i, j) holding (x, y) and the local coordinates
// in [0, 1]; points on the far edges belong to the last cell.
func (g grid) cell(x, y float64) (i, j int, s, t float64) {
	loc := func(z float64) (int, float64) {
		f := (z - g.x0) / g.h
		k := min(max(int(math.Floor(f)), 0), g.n-1)
		return k, f - float64(k)
	}
	i, s = loc(x)
	j, t = loc(y)
	return i, j, s, t
}

// bilinear interpolates the nodal array f at (x, y).
func (g grid) bilinear(f []float64, x, y float64) float64 {
	i, j, s, t := g.cell(x, y)
	return (1-t)*((1-s)*f[g.idx(i, j)]+s*f[g.idx(i+1, j)]) +
		t*((1-s)*f[g.idx(i, j+1)]+s*f[g.idx(i+1, j+1)])
}
