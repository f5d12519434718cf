package problems

import (
	"math"
	"testing"
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
