package problems

import (
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// The inverse problems' data: the exact solutions satisfy their equations
// (central differences), the boundary and initial targets are the exact
// solution there, and the measurements are the exact solution plus noise
// of about the stated standard deviation.
func TestInverseProblemsData(t *testing.T) {
	t.Parallel()
	const h = 1e-4
	for _, c := range []struct {
		p        *pde.Problem
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
	q, err := Known(HeatInverse(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil || len(q.Unknowns) != 0 {
		t.Fatalf("Known: %v, unknowns %v", err, q.Unknowns)
	}
	user := HeatInverse(Options{}).WithData(&pde.Data{Points: [][]float64{{0.5, 0.5}}, U: []float64{0.3}})
	if _, err := Known(user); err == nil || !strings.Contains(err.Error(), `unknown "kappa": no Truth`) {
		t.Errorf("Known of a user's data: error %v, want one naming kappa's missing truth", err)
	}
	h := Heat(Options{})
	g := ad.NewGraph()
	pts := h.Terms[0].Points
	x := g.Input("x", len(pts), 2)
	w := g.Param("w", 2, 1)
	u := ad.Tanh(ad.MatMul(x, w))
	r1, err1 := q.BuildResidual(0, pde.ResidualInputs{U: u, X: x})
	r2, err2 := h.BuildResidual(0, pde.ResidualInputs{U: u, X: x})
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

// TestBurgersDataIdentifyNu measures what burgers-inverse's 60
// measurements can say about nu with a perfect solver: chi^2 of the data
// against the exact Cole-Hopf solution for nu on a grid of factors of the
// truth, its minimum and the half width where chi^2 rises by 1 (one sd
// for one parameter). The data alone pin nu to a few percent (docs/inverse.md
// compares this with the PINN's estimate): the minimum lies within 15 %
// of the truth and the sd is under 10 % on every data seed, and a nu 1.33
// times the truth (the PINN's estimate) is at least 4 sd from the minimum.
func TestBurgersDataIdentifyNu(t *testing.T) {
	t.Parallel()
	nu0 := BurgersNu()
	for _, seed := range []uint64{1, 2, 3} {
		p := BurgersInverse(Options{DataSeed: seed})
		var term *pde.Term
		for i := range p.Terms {
			if p.Terms[i].Measured {
				term = &p.Terms[i]
			}
		}
		std := p.Params["noise_std"]
		chi2 := func(f float64) float64 {
			r := NewBurgersRef(nu0*f, DefaultBurgersNodes(nu0*f))
			c := 0.0
			for i, q := range term.Points {
				d := (term.Target[i] - r.U(q[0], q[1])) / std
				c += d * d
			}
			return c
		}
		const step = 0.025
		best, cmin := 0.0, math.Inf(1)
		for f := 0.6; f <= 1.5; f += step {
			if c := chi2(f); c < cmin {
				best, cmin = f, c
			}
		}
		// A parabola through the minimum and its neighbours.
		lo, hi := chi2(best-step), chi2(best+step)
		curv := (lo - 2*cmin + hi) / (step * step)
		fHat := best - step*(hi-lo)/(2*(lo-2*cmin+hi))
		sd := math.Sqrt(2 / curv)
		at133 := chi2(1.33) - cmin
		t.Logf("data seed %d: nu/truth = %.3f, sd %.3f, chi2 %.1f at the minimum over %d points, +%.1f at 1.33", seed, fHat, sd, cmin, len(term.Points), at133)
		if math.Abs(fHat-1) > 0.15 || sd > 0.1 || at133 < 16 {
			t.Errorf("data seed %d: nu/truth %.3f (want within 0.15 of 1), sd %.3f (want < 0.1), chi2 +%.1f at 1.33 (want > 16)", seed, fHat, sd, at133)
		}
	}
}
