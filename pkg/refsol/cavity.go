package refsol

import (
	"fmt"
	"math"
	"sync"
)

// Nu is the kinematic viscosity of the lid-driven cavity (PINNacle's
// NS2d-C): Re = 100 for the peak lid speed 1.
const Nu = 0.01

// DefaultCavityCells is the grid of DefaultLidDriven: 128 x 128 cells,
// extrapolated with 64 x 64, joint L2RE 9.1e-4 against PINNacle's COMSOL
// export, about a second on one core.
const DefaultCavityCells = 128

// cavityStretch is a in the grid map x = xi - a sin(2 pi xi)/(2 pi): wall
// cells (1-a) times, central cells (1+a) times the uniform width. The
// walls' boundary layers and the pressure's logarithmic singularity at
// the lid's corners want the finer cells.
const cavityStretch = 0.5

// Cavity is the steady lid-driven cavity flow of PINNacle's NS2d-C: u, v
// and p at the nodes of a grid refined toward the walls, interpolated by
// bicubic Lagrange polynomials between them. It is immutable, so one
// value may be shared by goroutines.
type Cavity struct {
	ax           axis
	u, v, p, psi []float64
}

// lid is the lid's tangential velocity u(x, 1).
func lid(x float64) float64 { return 4 * x * (1 - x) }

// LidDriven solves steady incompressible Navier-Stokes on the unit square
// with nu = Nu, lid y = 1 moving at u = 4x(1-x), v = 0, the other walls
// at rest, and the pressure gauge p(0, 0) = 0, on n x n cells (n even).
//
// Method: the stream function psi (u = psi_y, v = -psi_x) on the nodes of
// a smoothly stretched grid, vorticity omega = -lap(psi) with Thom's wall
// formula (second order in the computed vorticity up to the wall), the
// vorticity equation u omega_x + v omega_y = nu lap(omega) by central
// differences in the mapped coordinates, solved by Newton's method with a
// banded LU of the exact Jacobian (the residual is quadratic in psi, so
// its central difference is exact), from rest on n/2 cells and from that
// solution on n. The pressure is the
// least-squares fit of its differences along the grid edges to the
// momentum equations' pressure gradient: the discrete pressure Poisson
// equation with its Neumann conditions built in. The same solve on n/2
// cells, interpolated to the fine nodes, removes the h^2 error term
// (Richardson extrapolation). The Newton matrix's band takes 32 n^3
// bytes: 67 MB at 128 cells, 226 MB at the largest n, 192.
func LidDriven(n int) (*Cavity, error) {
	if n < 16 || n > 192 || n%2 != 0 {
		return nil, fmt.Errorf("refsol: lid-driven grid of %d cells; use an even number from 16 to 192", n)
	}
	coarse, err := cavitySolve(n/2, nil)
	if err != nil {
		return nil, err
	}
	fine, err := cavitySolve(n, coarse)
	if err != nil {
		return nil, err
	}
	for _, f := range [][2][]float64{{fine.u, coarse.u}, {fine.v, coarse.v}, {fine.p, coarse.p}} {
		for j := 0; j <= n; j++ {
			for i := 0; i <= n; i++ {
				k := j*(n+1) + i
				f[0][k] = (4*f[0][k] - coarse.ax.atIndex(f[1], float64(i)/2, float64(j)/2)) / 3
			}
		}
	}
	return fine, nil
}

var defaultCavity = sync.OnceValues(func() (*Cavity, error) { return LidDriven(DefaultCavityCells) })

// DefaultLidDriven returns the cavity at DefaultCavityCells, solved once per
// process and shared: the studies and tests ask for it repeatedly.
func DefaultLidDriven() (*Cavity, error) { return defaultCavity() }

// Cells returns the number of grid cells per side.
func (c *Cavity) Cells() int { return c.ax.n }

// At returns u, v and p at (x, y); a point outside the unit square (beyond
// rounding) is an error.
func (c *Cavity) At(x, y float64) (u, v, p float64, err error) {
	const tol = 1e-9
	if !(x >= -tol && x <= 1+tol && y >= -tol && y <= 1+tol) {
		return 0, 0, 0, fmt.Errorf("refsol: point (%g, %g) is outside the cavity [0, 1]^2", x, y)
	}
	si, sj := c.ax.index(x), c.ax.index(y)
	return c.ax.atIndex(c.u, si, sj), c.ax.atIndex(c.v, si, sj), c.ax.atIndex(c.p, si, sj), nil
}

// Values returns u, v, p at (x, y) as a slice, in the column order of
// PINNacle's lid_driven_a4.dat (for Table.L2RE).
func (c *Cavity) Values(x, y float64) ([]float64, error) {
	u, v, p, err := c.At(x, y)
	if err != nil {
		return nil, err
	}
	return []float64{u, v, p}, nil
}

// axis is the stretched node set of both sides: x[i] = X(i/n) and the
// map's derivatives d1 = X', d2 = X” there.
type axis struct {
	n         int
	x, d1, d2 []float64
}

func newAxis(n int) axis {
	a := axis{n: n, x: make([]float64, n+1), d1: make([]float64, n+1), d2: make([]float64, n+1)}
	for i := 0; i <= n; i++ {
		xi := float64(i) / float64(n)
		s, c := math.Sincos(2 * math.Pi * xi)
		a.x[i] = xi - cavityStretch*s/(2*math.Pi)
		a.d1[i] = 1 - cavityStretch*c
		a.d2[i] = 2 * math.Pi * cavityStretch * s
	}
	a.x[0], a.x[n] = 0, 1
	return a
}

// index returns the fractional node index of coordinate z in [0, 1] (by
// bisection: the map is monotone and this is not a hot path).
func (a axis) index(z float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if mid-cavityStretch*math.Sin(2*math.Pi*mid)/(2*math.Pi) < z {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2 * float64(a.n)
}

// lagrange4 returns the first of four nodes around the fractional index s
// and their cubic Lagrange weights.
func (a axis) lagrange4(s float64) (int, [4]float64) {
	k := min(max(int(math.Floor(s))-1, 0), a.n-3)
	var w [4]float64
	for m := range w {
		w[m] = 1
		for q := 0; q < 4; q++ {
			if q != m {
				w[m] *= (s - float64(k+q)) / float64(m-q)
			}
		}
	}
	return k, w
}

// atIndex interpolates the nodal array f at fractional indices (si, sj),
// fourth order in the mapped coordinates.
func (a axis) atIndex(f []float64, si, sj float64) float64 {
	ki, wi := a.lagrange4(si)
	kj, wj := a.lagrange4(sj)
	s := 0.0
	for q, wy := range wj {
		row := 0.0
		for m, wx := range wi {
			row += wx * f[(kj+q)*(a.n+1)+ki+m]
		}
		s += wy * row
	}
	return s
}

// cavitySolve returns the flow on n x n stretched cells, starting Newton's
// method from the coarser solution start when there is one (two steps
// instead of five from rest).
func cavitySolve(n int, start *Cavity) (*Cavity, error) {
	ax := newAxis(n)
	psi := make([]float64, (n+1)*(n+1))
	if start != nil {
		r := float64(start.ax.n) / float64(n)
		for j := 1; j < n; j++ {
			for i := 1; i < n; i++ {
				psi[j*(n+1)+i] = start.ax.atIndex(start.psi, float64(i)*r, float64(j)*r)
			}
		}
	}
	psi, err := cavityStream(ax, psi)
	if err != nil {
		return nil, err
	}
	c := &Cavity{ax: ax, psi: psi}
	c.u, c.v = cavityVelocity(ax, psi)
	c.p, err = cavityPressure(ax, c.u, c.v, cavityVorticity(ax, psi))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// cavityVorticity returns omega = -lap(psi) at every node: Thom's formula
// on the walls (the ghost value that makes psi_n the wall speed), zero in
// the corners, where both walls' no-slip conditions make it vanish.
func cavityVorticity(ax axis, psi []float64) []float64 {
	n, dd := ax.n, float64(ax.n*ax.n) // 1/dxi^2
	w := n + 1
	om := make([]float64, w*w)
	for j := 1; j < n; j++ {
		for i := 1; i < n; i++ {
			k := j*w + i
			fx, fxx := (psi[k+1]-psi[k-1])*float64(n)/2, (psi[k+1]-2*psi[k]+psi[k-1])*dd
			fy, fyy := (psi[k+w]-psi[k-w])*float64(n)/2, (psi[k+w]-2*psi[k]+psi[k-w])*dd
			om[k] = -((fxx-ax.d2[i]/ax.d1[i]*fx)/(ax.d1[i]*ax.d1[i]) +
				(fyy-ax.d2[j]/ax.d1[j]*fy)/(ax.d1[j]*ax.d1[j]))
		}
	}
	for k := 1; k < n; k++ {
		om[k] = -2 * psi[w+k] * dd / (ax.d1[0] * ax.d1[0])
		om[k*w] = -2 * psi[k*w+1] * dd / (ax.d1[0] * ax.d1[0])
		om[k*w+n] = -2 * psi[k*w+n-1] * dd / (ax.d1[n] * ax.d1[n])
		// lid: the ghost psi[n+1] = psi[n-1] + 2 dxi U y'
		U := lid(ax.x[k])
		pyy := (2*psi[(n-1)*w+k] + 2*U*ax.d1[n]/float64(n)) * dd
		om[n*w+k] = -(pyy - ax.d2[n]*U) / (ax.d1[n] * ax.d1[n])
	}
	return om
}

// cavityResidual writes the vorticity equation's residual, divided by nu,
// at the interior nodes into r (indexed like psi; the walls stay zero).
func cavityResidual(ax axis, psi, r []float64) {
	n, w := ax.n, ax.n+1
	om := cavityVorticity(ax, psi)
	half, dd := float64(n)/2, float64(n*n)
	for j := 1; j < n; j++ {
		for i := 1; i < n; i++ {
			k := j*w + i
			u := (psi[k+w] - psi[k-w]) * half / ax.d1[j]
			v := -(psi[k+1] - psi[k-1]) * half / ax.d1[i]
			ox, oxx := (om[k+1]-om[k-1])*half, (om[k+1]-2*om[k]+om[k-1])*dd
			oy, oyy := (om[k+w]-om[k-w])*half, (om[k+w]-2*om[k]+om[k-w])*dd
			lap := (oxx-ax.d2[i]/ax.d1[i]*ox)/(ax.d1[i]*ax.d1[i]) + (oyy-ax.d2[j]/ax.d1[j]*oy)/(ax.d1[j]*ax.d1[j])
			r[k] = (u*ox/ax.d1[i]+v*oy/ax.d1[j])/Nu - lap
		}
	}
}

// cavityStream solves the discrete vorticity equation for psi by Newton's
// method from psi (zero on the walls), which it overwrites and returns.
func cavityStream(ax axis, psi []float64) ([]float64, error) {
	n, w := ax.n, ax.n+1
	m := n - 1 // interior nodes per side; unknown (i, j) is (j-1)*m + i-1
	r := make([]float64, w*w)
	rp := make([]float64, w*w)
	rm := make([]float64, w*w)
	trial := make([]float64, w*w)
	x := make([]float64, m*m)
	maxAbs := func(r []float64) float64 {
		m := 0.0
		for _, v := range r {
			m = max(m, math.Abs(v))
		}
		return m
	}
	// converged: the residual 1e-11 of the fluid at rest's (the lid alone)
	cavityResidual(ax, make([]float64, w*w), r)
	tol := 1e-11 * maxAbs(r)
	const maxSteps = 30
	for step := 0; step <= maxSteps; step++ {
		cavityResidual(ax, psi, r)
		if maxAbs(r) <= tol {
			return psi, nil
		}
		if step == maxSteps {
			break
		}
		// Jacobian by colouring: unknowns 5 apart in i or j never share a
		// row's stencil (|di|+|dj| <= 2), so 25 pairs of residuals give
		// every column, exactly since the residual is quadratic.
		jac := newBand(m*m, 2*m, 2*m)
		for ci := 0; ci < 5; ci++ {
			for cj := 0; cj < 5; cj++ {
				for s, sign := range []float64{1, -1} {
					copy(trial, psi)
					for j := 1 + cj; j < n; j += 5 {
						for i := 1 + ci; i < n; i += 5 {
							trial[j*w+i] += sign
						}
					}
					cavityResidual(ax, trial, [][]float64{rp, rm}[s])
				}
				for j := 1; j < n; j++ {
					for i := 1; i < n; i++ {
						di, dj := colourOffset(ci+1-i), colourOffset(cj+1-j)
						if abs(di)+abs(dj) > 2 || i+di < 1 || i+di >= n || j+dj < 1 || j+dj >= n {
							continue
						}
						k := j*w + i
						jac.set((j-1)*m+i-1, (j+dj-1)*m+i+di-1, (rp[k]-rm[k])/2)
					}
				}
			}
		}
		if err := jac.factor(); err != nil {
			return nil, fmt.Errorf("refsol: lid-driven Newton step %d: %w", step+1, err)
		}
		for j := 1; j < n; j++ {
			for i := 1; i < n; i++ {
				x[(j-1)*m+i-1] = -r[j*w+i]
			}
		}
		jac.solve(x)
		for j := 1; j < n; j++ {
			for i := 1; i < n; i++ {
				psi[j*w+i] += x[(j-1)*m+i-1]
			}
		}
	}
	return nil, fmt.Errorf("refsol: lid-driven Newton iteration did not converge in %d steps", maxSteps)
}

// colourOffset maps d, the offset to some column of a colour modulo 5,
// to the one offset in -2..2.
func colourOffset(d int) int { return ((d%5)+5+2)%5 - 2 }

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// cavityVelocity returns u = psi_y and v = -psi_x at the nodes by central
// differences, and the wall velocities on the walls.
func cavityVelocity(ax axis, psi []float64) (u, v []float64) {
	n, w := ax.n, ax.n+1
	half := float64(n) / 2
	u = make([]float64, w*w)
	v = make([]float64, w*w)
	for j := 1; j < n; j++ {
		for i := 1; i < n; i++ {
			k := j*w + i
			u[k] = (psi[k+w] - psi[k-w]) * half / ax.d1[j]
			v[k] = -(psi[k+1] - psi[k-1]) * half / ax.d1[i]
		}
	}
	for i := 0; i <= n; i++ {
		u[n*w+i] = lid(ax.x[i])
	}
	return u, v
}

// derivative returns the x (x true) or y derivative of the nodal array f:
// central inside, second-order one-sided on the walls, in the mapped
// coordinate.
func derivative(ax axis, f []float64, x bool) []float64 {
	n, w := ax.n, ax.n+1
	half := float64(n) / 2
	d := make([]float64, len(f))
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			a, stride := i, 1
			if !x {
				a, stride = j, w
			}
			k := j*w + i
			switch a {
			case 0:
				d[k] = (-3*f[k] + 4*f[k+stride] - f[k+2*stride]) * half
			case n:
				d[k] = (3*f[k] - 4*f[k-stride] + f[k-2*stride]) * half
			default:
				d[k] = (f[k+stride] - f[k-stride]) * half
			}
			d[k] /= ax.d1[a]
		}
	}
	return d
}

// cavityPressure returns p with p(0, 0) = 0 whose differences along the
// grid edges fit, in least squares, the trapezoidal integrals of the
// momentum equations' gradient G = -(u.grad)u - nu curl(omega).
func cavityPressure(ax axis, u, v, om []float64) ([]float64, error) {
	n, w := ax.n, ax.n+1
	ux, uy := derivative(ax, u, true), derivative(ax, u, false)
	vx, vy := derivative(ax, v, true), derivative(ax, v, false)
	ox, oy := derivative(ax, om, true), derivative(ax, om, false)
	// G times the map's derivative: the gradient in the mapped coordinates
	gx := make([]float64, w*w)
	gy := make([]float64, w*w)
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			k := j*w + i
			gx[k] = (-(u[k]*ux[k] + v[k]*uy[k]) - Nu*oy[k]) * ax.d1[i]
			gy[k] = (-(u[k]*vx[k] + v[k]*vy[k]) + Nu*ox[k]) * ax.d1[j]
		}
	}
	lap := newBand(w*w, w, w)
	p := make([]float64, w*w)
	edge := func(a, b int, grad []float64) {
		d := (grad[a] + grad[b]) / (2 * float64(n))
		lap.add(a, a, 1)
		lap.add(b, b, 1)
		lap.add(a, b, -1)
		lap.add(b, a, -1)
		p[a] -= d
		p[b] += d
	}
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			k := j*w + i
			if i < n {
				edge(k, k+1, gx)
			}
			if j < n {
				edge(k, k+w, gy)
			}
		}
	}
	// The gauge replaces node (0, 0)'s equation, which the others imply.
	for c := 0; c <= w; c++ {
		lap.set(0, c, 0)
	}
	lap.set(0, 0, 1)
	p[0] = 0
	if err := lap.factor(); err != nil {
		return nil, fmt.Errorf("refsol: lid-driven pressure: %w", err)
	}
	lap.solve(p)
	return p, nil
}
