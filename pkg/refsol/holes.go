package refsol

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// HoleRadius is the radius of the four holes of PINNacle's Poisson2d-C,
// centred at (+-HoleCentre, +-HoleCentre) in the square [-0.5, 0.5]^2.
const (
	HoleRadius = 0.1
	HoleCentre = 0.3
)

// DefaultPlateCells is the grid of DefaultPoissonHoles: 200 x 200 cells
// (h = 0.005), L2RE 7.9e-5 against PINNacle's COMSOL export, about half a
// second on one core.
const DefaultPlateCells = 200

// Plate is the solution of PINNacle's Poisson2d-C on a uniform grid:
// Laplace's equation on [-0.5, 0.5]^2 minus four disks, u = 1 on the
// square and 0 on the circles. It is immutable, so one value may be
// shared by goroutines.
type Plate struct {
	g     grid
	u     []float64
	solid []bool // node in a hole (or on its circle)
}

// PoissonHoles solves Poisson2d-C by finite differences on n x n cells with
// the Shortley-Weller stencil at nodes next to a circle (the arm to a
// neighbour in a hole ends on the circle, where u = 0), second order up
// to the curved boundary; the nonsymmetric M-matrix is solved by a banded
// LU, whose band takes 16 n^3 bytes: 128 MB at 200 cells, 1 GB at the
// largest n, 400. n must be even so that x = 0 and y = 0 are grid lines.
func PoissonHoles(n int) (*Plate, error) {
	if n < 20 || n > 400 || n%2 != 0 {
		return nil, fmt.Errorf("refsol: poisson-holes grid of %d cells; use an even number from 20 to 400", n)
	}
	g := grid{n: n, x0: -0.5, h: 1 / float64(n)}
	pl := &Plate{g: g, u: make([]float64, g.nodes()), solid: make([]bool, g.nodes())}
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			k := g.idx(i, j)
			_, d := nearestHole(g.coord(i), g.coord(j))
			pl.solid[k] = d <= HoleRadius*(1+1e-12)
			if i == 0 || j == 0 || i == n || j == n {
				pl.u[k] = 1
			}
		}
	}
	m := n - 1 // unknown (i, j) is (j-1)*m + i-1
	a := newBand(m*m, m, m)
	rhs := make([]float64, m*m)
	steps := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	for j := 1; j < n; j++ {
		for i := 1; i < n; i++ {
			r := (j-1)*m + i - 1
			if pl.solid[g.idx(i, j)] {
				a.set(r, r, 1) // a hole's node: u = 0, never read
				continue
			}
			// arm[s] is the distance to neighbour s in units of h: 1, or
			// the fraction up to the circle when the neighbour is in a hole.
			var arm [4]float64
			for s, st := range steps {
				arm[s] = 1
				if pl.solid[g.idx(i+st[0], j+st[1])] {
					arm[s] = armToCircle(g.coord(i), g.coord(j), st) / g.h
				}
			}
			for axis := 0; axis < 2; axis++ {
				hp, hm := arm[2*axis], arm[2*axis+1]
				a.add(r, r, 2/(hp*hm))
				for s, hs := range [2]float64{hp, hm} {
					st := steps[2*axis+s]
					c := -2 / (hs * (hp + hm))
					ii, jj := i+st[0], j+st[1]
					switch {
					case pl.solid[g.idx(ii, jj)]: // u = 0 on the circle
					case ii == 0 || jj == 0 || ii == n || jj == n:
						rhs[r] -= c * pl.u[g.idx(ii, jj)]
					default:
						a.add(r, (jj-1)*m+ii-1, c)
					}
				}
			}
		}
	}
	if err := a.factor(); err != nil {
		return nil, fmt.Errorf("refsol: poisson-holes: %w", err)
	}
	a.solve(rhs)
	for j := 1; j < n; j++ {
		for i := 1; i < n; i++ {
			if !pl.solid[g.idx(i, j)] {
				pl.u[g.idx(i, j)] = rhs[(j-1)*m+i-1]
			}
		}
	}
	return pl, nil
}

var defaultPlate = sync.OnceValues(func() (*Plate, error) { return PoissonHoles(DefaultPlateCells) })

// DefaultPoissonHoles returns the plate at DefaultPlateCells, solved once
// per process and shared.
func DefaultPoissonHoles() (*Plate, error) { return defaultPlate() }

// Cells returns the number of grid cells per side.
func (pl *Plate) Cells() int { return pl.g.n }

// nearestHole returns the centre of the hole nearest to (x, y) and the
// distance to it.
func nearestHole(x, y float64) ([2]float64, float64) {
	c := [2]float64{math.Copysign(HoleCentre, x), math.Copysign(HoleCentre, y)}
	return c, math.Hypot(x-c[0], y-c[1])
}

// armToCircle returns the distance from (x, y), outside the holes, along
// the grid step st to the nearest hole's circle.
func armToCircle(x, y float64, st [2]int) float64 {
	c, d := nearestHole(x, y)
	s := (x-c[0])*float64(st[0]) + (y-c[1])*float64(st[1])
	q := d*d - HoleRadius*HoleRadius
	// smaller root of t^2 + 2 s t + q = 0, in the form without cancellation
	return q / (-s + math.Sqrt(max(s*s-q, 0)))
}

// At returns u at (x, y). A point outside the square or inside a hole
// (beyond rounding) is an error.
func (pl *Plate) At(x, y float64) (float64, error) {
	const tol = 1e-9
	if !(math.Abs(x) <= 0.5+tol && math.Abs(y) <= 0.5+tol) {
		return 0, fmt.Errorf("refsol: point (%g, %g) is outside the plate [-0.5, 0.5]^2", x, y)
	}
	c, d := nearestHole(x, y)
	if d < HoleRadius-tol {
		return 0, fmt.Errorf("refsol: point (%g, %g) is inside the hole centred at (%g, %g)", x, y, c[0], c[1])
	}
	x, y = min(max(x, -0.5), 0.5), min(max(y, -0.5), 0.5)
	g := pl.g
	i, j, _, _ := g.cell(x, y)
	if !pl.solid[g.idx(i, j)] && !pl.solid[g.idx(i+1, j)] && !pl.solid[g.idx(i, j+1)] && !pl.solid[g.idx(i+1, j+1)] {
		return g.bilinear(pl.u, x, y), nil
	}
	return pl.nearCircle(x, y, i, j, c)
}

// Values returns u at (x, y) as a one-element slice (for Table.L2RE).
func (pl *Plate) Values(x, y float64) ([]float64, error) {
	u, err := pl.At(x, y)
	if err != nil {
		return nil, err
	}
	return []float64{u}, nil
}

// nearCircle evaluates u in a cell with a corner in a hole, where bilinear
// interpolation would read a hole's node: a quadratic in (x, y) fitted by
// least squares, weighted by inverse distance, to the solved nodes among
// the surrounding 4 x 4, the circle's crossings of their grid lines and
// the point's projection on the circle (u = 0 there).
func (pl *Plate) nearCircle(x, y float64, i, j int, c [2]float64) (float64, error) {
	g := pl.g
	var pts [][3]float64
	for jj := max(j-1, 0); jj <= min(j+2, g.n); jj++ {
		for ii := max(i-1, 0); ii <= min(i+2, g.n); ii++ {
			xi, yj := g.coord(ii), g.coord(jj)
			if pl.solid[g.idx(ii, jj)] {
				continue
			}
			pts = append(pts, [3]float64{xi, yj, pl.u[g.idx(ii, jj)]})
			for _, st := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				ni, nj := ii+st[0], jj+st[1]
				if ni >= i-1 && ni <= i+2 && nj >= j-1 && nj <= j+2 && pl.solid[g.idx(ni, nj)] {
					t := armToCircle(xi, yj, st)
					pts = append(pts, [3]float64{xi + t*float64(st[0]), yj + t*float64(st[1]), 0})
				}
			}
		}
	}
	d := math.Hypot(x-c[0], y-c[1])
	pts = append(pts, [3]float64{c[0] + (x-c[0])*HoleRadius/d, c[1] + (y-c[1])*HoleRadius/d, 0})
	a := mat.NewDense(len(pts), 6, nil)
	b := mat.NewVecDense(len(pts), nil)
	for r, p := range pts {
		dx, dy := (p[0]-x)/g.h, (p[1]-y)/g.h
		// nearer points weigh more: on the circle the fit is 0 within 2e-7
		w := 1 / (math.Hypot(dx, dy) + 0.01)
		a.SetRow(r, []float64{w, w * dx, w * dy, w * dx * dx, w * dx * dy, w * dy * dy})
		b.SetVec(r, w*p[2])
	}
	var coef mat.VecDense
	if err := coef.SolveVec(a, b); err != nil {
		return 0, fmt.Errorf("refsol: interpolating near the hole at (%g, %g): %w", c[0], c[1], err)
	}
	return coef.AtVec(0), nil
}
