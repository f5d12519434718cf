package problems

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
)

// coleHopfTrapezoid is an independent evaluation of the Cole–Hopf integrals
// in η (not z), by the trapezoid rule on a uniform grid with spacing
// σ/refine, σ the narrower of the heat kernel √(2νt) and the peak of
// f = exp(−a cos(πy)) (1/(π√a)). The rule converges geometrically for these
// analytic, Gaussian-decaying integrands; the grid is cut where the
// integrand is below e^{−50} of its largest possible value. It returns u and
// u_x, summed in logs with a two-pass variance.
func coleHopfTrapezoid(nu, x, t, refine float64) (u, ux float64) {
	a := 1 / (2 * math.Pi * nu)
	sigma := math.Min(math.Sqrt(2*nu*t), 1/(math.Pi*math.Sqrt(a)))
	h := sigma / refine
	k := int(math.Ceil(math.Sqrt(4*nu*t*(2*a+50)) / h))
	n := 2*k + 1
	l := make([]float64, n)
	s := make([]float64, n)
	co := make([]float64, n)
	m := math.Inf(-1)
	for i := range n {
		eta := float64(i-k) * h
		s[i], co[i] = math.Sincos(math.Pi * (x - eta))
		l[i] = -eta*eta/(4*nu*t) - a*co[i]
		m = math.Max(m, l[i])
	}
	var sw, ss, sc float64
	for i := range n {
		p := math.Exp(l[i] - m)
		sw += p
		ss += p * s[i]
		sc += p * co[i]
	}
	mean := ss / sw
	var v float64
	for i := range n {
		d := s[i] - mean
		v += math.Exp(l[i]-m) * d * d
	}
	v /= sw
	return -mean, -math.Pi * (sc/sw + a*v)
}

func TestBurgersRefBasdevant(t *testing.T) {
	t.Parallel()
	// Basdevant et al. (1986), ν = 0.01/π: u_x(0, 1.6037/π) = −152.00516,
	// published to 8 digits. The tolerance is half a unit of the last digit.
	const want = -152.00516
	for _, nodes := range []int{0, 120, 400} {
		b := NewBurgersRef(BurgersNu(), nodes)
		got := b.Ux(0, 1.6037/math.Pi)
		if !scalar.EqualWithinAbs(got, want, 5e-6) {
			t.Errorf("nodes %d: got u_x(0, 1.6037/π) = %.10f, want %.5f", nodes, got, want)
		}
	}
}

func TestBurgersRefSymmetry(t *testing.T) {
	t.Parallel()
	b := NewBurgersRef(BurgersNu(), 0)
	rnd := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		x := 2*rnd.Float64() - 1
		tt := rnd.Float64()
		if got := b.U(0, tt); math.Abs(got) > 1e-14 {
			t.Errorf("u(0, %g): got %g, want 0", tt, got)
		}
		for _, xb := range []float64{-1, 1} {
			if got := b.U(xb, tt); math.Abs(got) > 1e-14 {
				t.Errorf("u(%g, %g): got %g, want 0", xb, tt, got)
			}
		}
		u, um := b.U(x, tt), b.U(-x, tt)
		if !scalar.EqualWithinAbs(um, -u, 1e-14) {
			t.Errorf("u(−x, t) at x=%g t=%g: got %g, want %g", x, tt, um, -u)
		}
		ux, uxm := b.Ux(x, tt), b.Ux(-x, tt)
		if !scalar.EqualWithinAbsOrRel(uxm, ux, 1e-12, 1e-12) {
			t.Errorf("u_x(−x, t) at x=%g t=%g: got %g, want %g", x, tt, uxm, ux)
		}
	}
}

func TestBurgersRefInitial(t *testing.T) {
	t.Parallel()
	b := NewBurgersRef(BurgersNu(), 0)
	for _, x := range []float64{-1, -0.7, -0.25, 0, 0.1, 0.5, 0.9, 1} {
		if got, want := b.U(x, 0), -math.Sin(math.Pi*x); got != want {
			t.Errorf("u(%g, 0): got %v, want %v", x, got, want)
		}
		if got, want := b.Ux(x, 0), -math.Pi*math.Cos(math.Pi*x); got != want {
			t.Errorf("u_x(%g, 0): got %v, want %v", x, got, want)
		}
		// |u(x, t) − u(x, 0)| ≤ t max|u_t| with |u_t| ≤ |u u_x| + ν|u_xx| ≲ 4.
		const tt = 1e-9
		if got, want := b.U(x, tt), -math.Sin(math.Pi*x); !scalar.EqualWithinAbs(got, want, 4*tt) {
			t.Errorf("u(%g, %g): got %v, want %v", x, tt, got, want)
		}
		if got, want := b.Ux(x, tt), -math.Pi*math.Cos(math.Pi*x); !scalar.EqualWithinAbs(got, want, 1e-6) {
			t.Errorf("u_x(%g, %g): got %v, want %v", x, tt, got, want)
		}
	}
}

// burgersSmoothPoints returns seeded random points with 0.2 < |x| < 1 and
// tMin ≤ t ≤ 1, away from the shock at x = 0.
func burgersSmoothPoints(n int, tMin float64) [][2]float64 {
	rnd := rand.New(rand.NewPCG(1, 1))
	pts := make([][2]float64, n)
	for i := range pts {
		x := 0.2 + 0.79*rnd.Float64()
		if rnd.IntN(2) == 0 {
			x = -x
		}
		pts[i] = [2]float64{x, tMin + (1-tMin)*rnd.Float64()}
	}
	return pts
}

func TestBurgersRefResidual(t *testing.T) {
	t.Parallel()
	nu := BurgersNu()
	b := NewBurgersRef(nu, 0)
	central := &fd.Settings{Formula: fd.Central}
	for _, p := range burgersSmoothPoints(200, 0.01) {
		x, tt := p[0], p[1]
		u, ux := b.U(x, tt), b.Ux(x, tt)
		ut := fd.Derivative(func(s float64) float64 { return b.U(x, s) }, tt, central)
		uxx := fd.Derivative(func(y float64) float64 { return b.Ux(y, tt) }, x, central)
		res := ut + u*ux - nu*uxx
		scale := math.Max(1, math.Max(math.Abs(ut), math.Abs(u*ux)))
		if math.Abs(res) > 1e-8*scale {
			t.Errorf("residual at (%g, %g): got %g, want 0 (u_t=%g, u u_x=%g, ν u_xx=%g)",
				x, tt, res, ut, u*ux, nu*uxx)
		}
	}
}

func TestBurgersRefUxFD(t *testing.T) {
	t.Parallel()
	b := NewBurgersRef(BurgersNu(), 0)
	central := &fd.Settings{Formula: fd.Central}
	type point struct{ x, t float64 }
	pts := []point{{0, 1.6037 / math.Pi}, {0.002, 0.5}, {-0.01, 1}, {0.03, 0.75}}
	for _, p := range burgersSmoothPoints(100, 0.001) {
		pts = append(pts, point{p[0], p[1]})
	}
	for _, p := range pts {
		got := b.Ux(p.x, p.t)
		want := fd.Derivative(func(y float64) float64 { return b.U(y, p.t) }, p.x, central)
		// Near the shock u''' ~ 1e7 makes the O(h²) truncation ~1e-6.
		tol := 1e-8
		if math.Abs(p.x) < 0.2 {
			tol = 1e-5
		}
		if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
			t.Errorf("u_x(%g, %g): got %.12g, want finite difference %.12g", p.x, p.t, got, want)
		}
	}
}

func TestBurgersRefIndependent(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		nu  float64
		x   float64
		t   float64
		tol float64
	}{
		{BurgersNu(), 0, 1, 1e-12},
		{BurgersNu(), 1e-6, 1, 1e-11},
		{BurgersNu(), 1e-3, 1, 1e-11},
		{BurgersNu(), -0.01, 1, 1e-11},
		{BurgersNu(), 0.05, 0.95, 1e-11},
		{BurgersNu(), 0, 1.6037 / math.Pi, 1e-12},
		{BurgersNu(), 0.001, 1.6037 / math.Pi, 1e-11},
		{BurgersNu(), 0.5, 0.5, 1e-11},
		{BurgersNu(), -0.7, 0.25, 1e-11},
		{BurgersNu(), 0.9, 0.01, 1e-11},
		{BurgersNu(), 0.3, 1e-4, 1e-11},
		{BurgersNu(), -0.999, 0.8, 1e-11},
		{BurgersNu(), 0.02, 1.5, 1e-11},
		// The default order for other viscosities.
		{0.1 / math.Pi, 0.01, 1, 1e-11},
		{0.1 / math.Pi, -0.6, 0.3, 1e-11},
		{1 / math.Pi, 0.95, 1, 1e-10},
		{0.001 / math.Pi, 1e-4, 1, 1e-10},
		{0.001 / math.Pi, -0.4, 0.6, 1e-10},
	} {
		b := NewBurgersRef(test.nu, 0)
		wantU, wantUx := coleHopfTrapezoid(test.nu, test.x, test.t, 8)
		if got := b.U(test.x, test.t); !scalar.EqualWithinAbsOrRel(got, wantU, 1e-14, test.tol) {
			t.Errorf("ν=%g: u(%g, %g): got %.15g, want %.15g", test.nu, test.x, test.t, got, wantU)
		}
		if got := b.Ux(test.x, test.t); !scalar.EqualWithinAbsOrRel(got, wantUx, 1e-12, test.tol) {
			t.Errorf("ν=%g: u_x(%g, %g): got %.15g, want %.15g", test.nu, test.x, test.t, got, wantUx)
		}
	}
}

// TestBurgersRefGridAgreement compares U and Ux with the trapezoid rule on
// a 41×21 grid of [−1, 1]×[1e-4, 1], t log-spaced, x shifted off the grid
// lines by 1e-3 and 1e-7 to sample the shock layer.
func TestBurgersRefGridAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("grid comparison skipped in short mode")
	}
	t.Parallel()
	nu := BurgersNu()
	b := NewBurgersRef(nu, 0)
	var maxU, maxUx float64
	for i := 0; i <= 40; i++ {
		for j := 0; j <= 20; j++ {
			x := -1 + float64(i)/20 + 1e-3*float64(j%3) + 1e-7*float64(j%2)
			tt := math.Pow(10, -4*float64(20-j)/20)
			wantU, wantUx := coleHopfTrapezoid(nu, x, tt, 8)
			maxU = math.Max(maxU, math.Abs(b.U(x, tt)-wantU))
			maxUx = math.Max(maxUx, math.Abs(b.Ux(x, tt)-wantUx)/math.Max(1, math.Abs(wantUx)))
		}
	}
	if maxU > 1e-13 {
		t.Errorf("max |ΔU| on the grid: got %g, want ≤ 1e-13", maxU)
	}
	if maxUx > 1e-12 {
		t.Errorf("max |ΔU_x|/max(1,|U_x|) on the grid: got %g, want ≤ 1e-12", maxUx)
	}
}

func TestBurgersRefDeterministic(t *testing.T) {
	t.Parallel()
	b1 := NewBurgersRef(BurgersNu(), 0)
	b2 := NewBurgersRef(BurgersNu(), 0)
	rnd := rand.New(rand.NewPCG(1, 1))
	type sample struct{ x, t, u, ux float64 }
	samples := make([]sample, 100)
	for i := range samples {
		x, tt := 2*rnd.Float64()-1, rnd.Float64()
		samples[i] = sample{x, tt, b1.U(x, tt), b1.Ux(x, tt)}
	}
	// A second instance, and concurrent readers of the first, give the
	// same bits.
	var wg sync.WaitGroup
	errs := make([]int, 4)
	for g := range errs {
		wg.Go(func() {
			for _, s := range samples {
				if math.Float64bits(b1.U(s.x, s.t)) != math.Float64bits(s.u) ||
					math.Float64bits(b1.Ux(s.x, s.t)) != math.Float64bits(s.ux) {
					errs[g]++
				}
			}
		})
	}
	wg.Wait()
	for g, n := range errs {
		if n != 0 {
			t.Errorf("goroutine %d: got %d differing values, want 0", g, n)
		}
	}
	for _, s := range samples {
		if got := b2.U(s.x, s.t); math.Float64bits(got) != math.Float64bits(s.u) {
			t.Errorf("u(%g, %g): got %v, want %v", s.x, s.t, got, s.u)
		}
		if got := b2.Ux(s.x, s.t); math.Float64bits(got) != math.Float64bits(s.ux) {
			t.Errorf("u_x(%g, %g): got %v, want %v", s.x, s.t, got, s.ux)
		}
	}
}

func TestNewBurgersRefPanics(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		f    func()
	}{
		{"nu=0", func() { NewBurgersRef(0, 0) }},
		{"nu<0", func() { NewBurgersRef(-0.01, 0) }},
		{"nu=NaN", func() { NewBurgersRef(math.NaN(), 0) }},
		{"nu=Inf", func() { NewBurgersRef(math.Inf(1), 0) }},
		{"nodes<0", func() { NewBurgersRef(0.01, -1) }},
		{"U t<0", func() { NewBurgersRef(0.01, 0).U(0.5, -1) }},
		{"Ux t<0", func() { NewBurgersRef(0.01, 0).Ux(0.5, -1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: got no panic, want panic", test.name)
				}
			}()
			test.f()
		}()
	}
}

func TestGaussHermite(t *testing.T) {
	t.Parallel()
	sqrtPi := math.Sqrt(math.Pi)
	for _, n := range []int{1, 2, 5, 20, 226, 1000} {
		z, logw := gaussHermite(n)
		// ∫ e^{−z²} g for g = 1, z², z⁴ (exact when 2n−1 ≥ degree) and
		// cos z.
		var s0, s2, s4, sc float64
		for i := range z {
			w := math.Exp(logw[i])
			z2 := z[i] * z[i]
			s0 += w
			s2 += w * z2
			s4 += w * z2 * z2
			sc += w * math.Cos(z[i])
		}
		tol := 1e-13
		if !scalar.EqualWithinRel(s0, sqrtPi, tol) {
			t.Errorf("n=%d: Σw: got %.16g, want %.16g", n, s0, sqrtPi)
		}
		if n >= 2 && !scalar.EqualWithinRel(s2, sqrtPi/2, tol) {
			t.Errorf("n=%d: Σw z²: got %.16g, want %.16g", n, s2, sqrtPi/2)
		}
		if n >= 3 && !scalar.EqualWithinRel(s4, 3*sqrtPi/4, tol) {
			t.Errorf("n=%d: Σw z⁴: got %.16g, want %.16g", n, s4, 3*sqrtPi/4)
		}
		if n >= 20 && !scalar.EqualWithinRel(sc, sqrtPi*math.Exp(-0.25), tol) {
			t.Errorf("n=%d: Σw cos z: got %.16g, want %.16g", n, sc, sqrtPi*math.Exp(-0.25))
		}
	}
	// n = 2: nodes ±1/√2, weights √π/2.
	z, logw := gaussHermite(2)
	if !scalar.EqualWithinAbs(z[1], 1/math.Sqrt2, 1e-15) || !scalar.EqualWithinAbs(z[0], -1/math.Sqrt2, 1e-15) {
		t.Errorf("n=2 nodes: got %v, want ±%v", z, 1/math.Sqrt2)
	}
	if w := math.Exp(logw[0]); !scalar.EqualWithinRel(w, sqrtPi/2, 1e-15) {
		t.Errorf("n=2 weight: got %v, want %v", w, sqrtPi/2)
	}
	// Far below the float64 range, the log weights stay finite: for
	// n = 1000 the outermost node is near 43 and w ≈ e^{−1800}.
	z, logw = gaussHermite(1000)
	if last := logw[len(logw)-1]; math.IsInf(last, 0) || math.IsNaN(last) || last > -700 {
		t.Errorf("n=1000: log weight at z=%g: got %g, want finite and < −700", z[len(z)-1], last)
	}
}

// BenchmarkBurgersRefGrid evaluates U on a 100×100 grid of [−1, 1]×[0, 1]
// with the default rule.
func BenchmarkBurgersRefGrid(b *testing.B) { benchmarkBurgersGrid(b, false) }

// BenchmarkBurgersRefGridUx evaluates Ux on the same grid.
func BenchmarkBurgersRefGridUx(b *testing.B) { benchmarkBurgersGrid(b, true) }

func benchmarkBurgersGrid(b *testing.B, deriv bool) {
	ref := NewBurgersRef(BurgersNu(), 0)
	const n = 100
	var sink float64
	for b.Loop() {
		for i := range n {
			x := -1 + 2*float64(i)/(n-1)
			for j := range n {
				tt := float64(j) / (n - 1)
				if deriv {
					sink += ref.Ux(x, tt)
				} else {
					sink += ref.U(x, tt)
				}
			}
		}
	}
	if math.IsNaN(sink) {
		b.Fatal("NaN on the grid")
	}
}
