package pde

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// The inverse problems' data: the exact solutions satisfy their equations
// (central differences), the boundary and initial targets are the exact
// solution there, and the measurements are the exact solution plus noise
// of about the stated standard deviation.
func TestInverseProblemsData(t *testing.T) {
	t.Parallel()
	const h = 1e-4
	for _, c := range []struct {
		p        *Problem
		residual func(u func(x, t float64) float64, x, t float64) float64
	}{
		{HeatInverse(Options{}), func(u func(x, t float64) float64, x, t float64) float64 {
			return dt(u, x, t, h) - 0.1*dxx(u, x, t, h)
		}},
		{Heat2Inverse(Options{Reaction: 0.5}), func(u func(x, t float64) float64, x, t float64) float64 {
			return dt(u, x, t, h) - 0.1*dxx(u, x, t, h) + 0.5*u(x, t)
		}},
		{WaveInverse(Options{}), func(u func(x, t float64) float64, x, t float64) float64 {
			return (u(x, t+h) - 2*u(x, t) + u(x, t-h) - dxx(u, x, t, h)*h*h) / (h * h)
		}},
	} {
		p := c.p
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		u := func(x, t float64) float64 { return p.Exact([]float64{x, t}) }
		for _, x := range p.Terms[0].Points {
			if r := c.residual(u, x[0], x[1]); math.Abs(r) > 1e-5 {
				t.Errorf("%s: the exact solution leaves residual %g at %v", p.Name, r, x)
			}
		}
		if b := p.Terms[1]; math.Abs(b.Target[3]-p.Exact(b.Points[3])) > 1e-15 {
			t.Errorf("%s: boundary target %g, exact %g", p.Name, b.Target[3], p.Exact(b.Points[3]))
		}
		d := p.Terms[len(p.Terms)-1]
		var ss float64
		for i, x := range d.Points {
			e := d.Target[i] - p.Exact(x)
			ss += e * e
		}
		if s := math.Sqrt(ss / float64(len(d.Points))); d.Name != "data" || len(d.Points) != 30 || s < 0.005 || s > 0.015 {
			t.Errorf("%s: term %q with %d points, noise rms %g: want 30 measurements with noise about 0.01", p.Name, d.Name, len(d.Points), s)
		}
	}
}

func dt(u func(x, t float64) float64, x, t, h float64) float64 {
	return (u(x, t+h) - u(x, t-h)) / (2 * h)
}

func dxx(u func(x, t float64) float64, x, t, h float64) float64 {
	return (u(x+h, t) - 2*u(x, t) + u(x-h, t)) / (h * h)
}

// Known holds the unknowns at their truths: heat-inverse's equation
// residual is then heat's, value for value, and it has no unknowns left.
func TestKnown(t *testing.T) {
	t.Parallel()
	q := HeatInverse(Options{}).Known()
	if err := q.Validate(); err != nil || len(q.Unknowns) != 0 {
		t.Fatalf("Known: %v, unknowns %v", err, q.Unknowns)
	}
	h := Heat(Options{})
	g := ad.NewGraph()
	pts := h.Terms[0].Points
	x := g.Input("x", len(pts), 2)
	w := g.Param("w", 2, 1)
	u := ad.Tanh(ad.MatMul(x, w))
	r1, err1 := q.BuildResidual(0, ResidualInputs{U: u, X: x})
	r2, err2 := h.BuildResidual(0, ResidualInputs{U: u, X: x})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	prog := g.Compile(r1, r2)
	var flat []float64
	for _, p := range pts {
		flat = append(flat, p...)
	}
	prog.Set(x, flat)
	prog.Bind(w, []float64{0.7, -1.3})
	prog.Run()
	a, b := prog.Value(r1), prog.Value(r2)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-15*(1+math.Abs(b[i])) || a[i] == 0 {
			t.Fatalf("point %d: residual %g, heat's %g", i, a[i], b[i])
		}
	}
}
