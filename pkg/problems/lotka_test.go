package problems

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The reference solution keeps the invariant V = c u - d ln u + b v - a ln v
// of the exact trajectory (to 1e-12 at the nodes and between them, where
// the Hermite interpolation reads it), and it converges: the solution at
// T with half the steps differs by less than 1e-9 (RK4: 16x per halving).
func TestLVSolution(t *testing.T) {
	t.Parallel()
	m := LVTruth
	s := lvTruth()
	v0 := m.Invariant(m.U0, m.V0)
	worst := 0.0
	for i := 0; i <= 997; i++ {
		u, v := s.At(m.T * float64(i) / 997)
		worst = math.Max(worst, math.Abs(m.Invariant(u, v)-v0))
	}
	if worst > 1e-12 {
		t.Errorf("invariant drifts by %g over [0, T], want < 1e-12", worst)
	}
	coarse := SolveLV(m, LVSteps/2)
	u1, v1 := s.At(m.T)
	u2, v2 := coarse.At(m.T)
	if d := math.Hypot(u1-u2, v1-v2); d > 1e-9 || d == 0 {
		t.Errorf("u, v at T with %d and %d steps differ by %g, want (0, 1e-9)", LVSteps, LVSteps/2, d)
	}
	// A coarse solution is visibly off: the check can fail.
	bad := SolveLV(m, 20)
	u3, v3 := bad.At(m.T)
	if math.Abs(m.Invariant(u3, v3)-v0) < 1e-6 {
		t.Errorf("20 RK4 steps keep the invariant to %g: the test cannot tell a poor solution", math.Abs(m.Invariant(u3, v3)-v0))
	}
}

// lotka-volterra-inverse's data: both populations at t = 0 and 40 drawn times with
// noise of about 0.05 around the reference, the equations hold on the
// reference at the truth (central differences), the unknowns carry their
// truths, and another data seed draws other noise (and times) but again measures at t = 0.
func TestLotkaVolterraInverseData(t *testing.T) {
	t.Parallel()
	p := LotkaVolterraInverse(Options{})
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(p.Unknowns) != 4 {
		t.Fatalf("unknowns %v, want a, b, c, d", p.Unknowns)
	}
	for _, u := range p.Unknowns {
		if u.Truth == nil || !u.Positive {
			t.Errorf("unknown %s: truth %v, positive %v", u.Name, u.Truth, u.Positive)
		}
	}
	m, T := LVTruth, p.Params["T"]
	const h = 1e-5
	for _, x := range p.Terms[0].Points {
		s := x[0]
		if s < h || s > 1-h {
			continue
		}
		y, ym, yp := p.ExactValues(x), p.ExactValues([]float64{s - h}), p.ExactValues([]float64{s + h})
		du, dv := m.Rate(y[0], y[1])
		if r := math.Hypot((yp[0]-ym[0])/(2*h)-T*du, (yp[1]-ym[1])/(2*h)-T*dv); r > 1e-5 {
			t.Errorf("tau %g: the reference leaves residual %g", s, r)
		}
	}
	other := LotkaVolterraInverse(Options{DataSeed: 2})
	for k, name := range []string{"u", "v"} {
		d := p.Terms[2+k]
		if d.Output != name || !d.Measured || len(d.Points) != LVTimes {
			t.Fatalf("term %d: %q measures %q, %d points; want data_%s of %d", 2+k, d.Name, d.Output, len(d.Points), name, LVTimes)
		}
		var ss float64
		for i, x := range d.Points {
			e := d.Target[i] - p.ExactValues(x)[k]
			ss += e * e
		}
		if s := math.Sqrt(ss / float64(len(d.Points))); s < 0.03 || s > 0.07 {
			t.Errorf("%s: noise rms %g, want about %g", d.Name, s, LVNoise)
		}
		if o := other.Terms[2+k]; o.Points[0][0] != 0 || d.Points[0][0] != 0 || o.Target[0] == d.Target[0] {
			t.Errorf("%s: data seeds 1 and 2 measure first at %g and %g (%g and %g): want t = 0 with other noise",
				d.Name, d.Points[0][0], o.Points[0][0], d.Target[0], o.Target[0])
		}
	}
}

// lvLeastSquares fits the rates and the initial state (a, b, c, d, u0, v0)
// to a problem's measurements by Gauss-Newton on the RK4 solution: what a
// perfect solver makes of the data. It returns the estimate and the
// standard deviations of ln a ... ln d from (J^T J)^-1 at the known noise.
func lvLeastSquares(p *pde.Problem) (est, sdLn [4]float64) {
	du, dv := p.Terms[2], p.Terms[3]
	theta := []float64{1, 0.5, 0.5, 1, 1, 1} // start at the truth: the question is the spread, not the basin
	resid := func(th []float64) []float64 {
		m := LotkaVolterra{A: th[0], B: th[1], C: th[2], D: th[3], U0: th[4], V0: th[5], T: LVTruth.T}
		s := SolveLV(m, 2000)
		r := make([]float64, 0, 2*len(du.Points))
		for i, x := range du.Points {
			u, _ := s.At(x[0] * m.T)
			r = append(r, (u-du.Target[i])/LVNoise)
		}
		for i, x := range dv.Points {
			_, v := s.At(x[0] * m.T)
			r = append(r, (v-dv.Target[i])/LVNoise)
		}
		return r
	}
	const n = 6
	var jtj [n][n]float64
	for iter := 0; iter < 8; iter++ {
		r0 := resid(theta)
		jac := make([][]float64, n)
		for k := range jac {
			th := append([]float64(nil), theta...)
			h := 1e-6 * theta[k]
			th[k] += h
			r := resid(th)
			jac[k] = make([]float64, len(r))
			for i := range r {
				jac[k][i] = (r[i] - r0[i]) / h
			}
		}
		var g [n]float64
		for a := range n {
			for b := range n {
				jtj[a][b] = 0
				for i := range r0 {
					jtj[a][b] += jac[a][i] * jac[b][i]
				}
			}
			for i := range r0 {
				g[a] += jac[a][i] * r0[i]
			}
		}
		step := solve6(jtj, g)
		for k := range theta {
			theta[k] -= step[k]
		}
	}
	cov := invert6(jtj)
	for k := range 4 {
		est[k] = theta[k]
		sdLn[k] = math.Sqrt(cov[k][k]) / theta[k]
	}
	return est, sdLn
}

// solve6 solves A x = b by Gaussian elimination with partial pivoting.
func solve6(a [6][6]float64, b [6]float64) [6]float64 {
	const n = 6
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p], b[c], b[p] = a[p], a[c], b[p], b[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < n; k++ {
				a[r][k] -= f * a[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	var x [6]float64
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x
}

// invert6 returns the inverse of a, column by column.
func invert6(a [6][6]float64) [6][6]float64 {
	var inv [6][6]float64
	for c := range 6 {
		var e [6]float64
		e[c] = 1
		col := solve6(a, e)
		for r := range 6 {
			inv[r][c] = col[r]
		}
	}
	return inv
}

// TestLVDataIdentifyRates measures what lotka-volterra-inverse's
// measurements say about the rates with a perfect solver (least squares
// on the RK4 solution, the initial state fitted too, the noise known):
// over 100 data draws the estimates scatter as their Gauss-Newton sd says
// and the 95 % intervals hold the truth about 95 % of the time; the sd of
// ln rate is about 1 %, the Laplace sd the PINN reports
// (docs/results/lotka-volterra.md compares the two).
func TestLVDataIdentifyRates(t *testing.T) {
	if testing.Short() {
		t.Skip("100 least-squares fits: about a second")
	}
	t.Parallel()
	truth := [4]float64{1, 0.5, 0.5, 1}
	var covered, n [4]int
	var sdSum, sq [4]float64
	for seed := uint64(1); seed <= 100; seed++ {
		est, sd := lvLeastSquares(LotkaVolterraInverse(Options{DataSeed: seed}))
		for k := range 4 {
			z := math.Log(est[k] / truth[k])
			if math.Abs(z) <= 1.96*sd[k] {
				covered[k]++
			}
			n[k]++
			sdSum[k] += sd[k]
			sq[k] += z * z
		}
	}
	for k, name := range []string{"a", "b", "c", "d"} {
		rms, sd := math.Sqrt(sq[k]/float64(n[k])), sdSum[k]/float64(n[k])
		t.Logf("%s: rms ln error %.4f over %d draws, mean sd %.4f, 95%% interval holds the truth in %d", name, rms, n[k], sd, covered[k])
		if covered[k] < 88 || rms > 1.3*sd || sd > 0.02 {
			t.Errorf("%s: covered %d of 100 (want >= 88), rms ln error %.4f against sd %.4f", name, covered[k], rms, sd)
		}
	}
}
