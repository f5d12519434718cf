package problems

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"gonum.org/v1/gonum/stat"
)

// TestBurgersIdentify: burgers-identify's equation is u_t + l1 u u_x - l2
// u_xx at its measurements' points (the unknowns in their places: on a
// manufactured u with l1, l2 held at values of their own), the exact
// solution leaves it near zero at the truth, and the measurements are the
// exact solution with noise of 1 % of its spread (none for the clean twin).
func TestBurgersIdentify(t *testing.T) {
	t.Parallel()
	p, clean := BurgersIdentify(Options{}), BurgersIdentifyClean(Options{})
	for _, q := range []*pde.Problem{p, clean} {
		if err := q.Validate(); err != nil {
			t.Fatal(err)
		}
		if len(q.Terms) != 2 || len(q.Terms[0].Points) != IdentifyPoints || len(q.Terms[1].Points) != IdentifyPoints || len(q.Unknowns) != 2 {
			t.Fatalf("%s: %d terms, %d unknowns, want pde and data at %d points and l1, l2", q.Name, len(q.Terms), len(q.Unknowns), IdentifyPoints)
		}
		for i, x := range q.Terms[0].Points {
			if y := q.Terms[1].Points[i]; x[0] != y[0] || x[1] != y[1] {
				t.Fatalf("%s: point %d: equation at %v, measurement at %v: want the same points", q.Name, i, x, y)
			}
		}
	}
	if u := p.Unknowns; u[0].Name != "l1" || u[0].Positive || *u[0].Truth != 1 || u[1].Name != "l2" || !u[1].Positive || *u[1].Truth != BurgersNu() {
		t.Errorf("unknowns %+v: want l1 (truth 1, own scale), l2 (truth 0.01/pi, log scale)", u)
	}

	// The unknowns in their places: u = t sin(pi x) + 0.3 x^2, l1 = 0.7, l2 = 0.004.
	const l1, l2 = 0.7, 0.004
	held, err := p.Hold(map[string]float64{"l1": l1, "l2": l2})
	if err != nil {
		t.Fatal(err)
	}
	pi := math.Pi
	r := termResidual(t, held.Terms[0], p.Inputs, func(in []*ad.Node) *ad.Node {
		return ad.Add(ad.Mul(in[1], ad.Sin(ad.Scale(in[0], pi))), ad.Scale(ad.Square(in[0]), 0.3))
	})
	for k, x := range p.Terms[0].Points[:50] {
		xx, tt := x[0], x[1]
		u, ut := tt*math.Sin(pi*xx)+0.3*xx*xx, math.Sin(pi*xx)
		ux, uxx := pi*tt*math.Cos(pi*xx)+0.6*xx, -pi*pi*tt*math.Sin(pi*xx)+0.6
		if want := ut + l1*u*ux - l2*uxx; math.Abs(r[k]-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("point %v: residual %g, want u_t + %g u u_x - %g u_xx = %g", x, r[k], l1, l2, want)
		}
	}

	// The exact solution at the truth, by central differences, away from
	// the shock's core, where they cannot resolve it.
	const h = 1e-4
	u := func(x, t float64) float64 { return p.Exact([]float64{x, t}) }
	n := 0
	for _, x := range p.Terms[0].Points {
		if math.Abs(x[0]) < 0.05 || x[1] < h {
			continue
		}
		n++
		ux := (u(x[0]+h, x[1]) - u(x[0]-h, x[1])) / (2 * h)
		if r := dt(u, x[0], x[1], h) + u(x[0], x[1])*ux - BurgersNu()*dxx(u, x[0], x[1], h); math.Abs(r) > 1e-4 {
			t.Errorf("the exact solution leaves residual %g at %v", r, x)
		}
	}
	if n < IdentifyPoints*9/10 {
		t.Errorf("only %d points checked", n)
	}

	// The noise: 1 % of the values' spread, none for the clean twin.
	d, dc := p.Terms[1], clean.Terms[1]
	exact := make([]float64, len(d.Points))
	var ss float64
	for i, x := range d.Points {
		exact[i] = p.Exact(x)
		ss += (d.Target[i] - exact[i]) * (d.Target[i] - exact[i])
		if dc.Target[i] != exact[i] {
			t.Fatalf("clean measurement %d: %g, exact %g", i, dc.Target[i], exact[i])
		}
	}
	std := IdentifyNoise * stat.PopStdDev(exact, nil)
	if p.Params["noise_std"] != std || clean.Params["noise_std"] != 0 {
		t.Errorf("noise_std %g (clean %g), want %g (0)", p.Params["noise_std"], clean.Params["noise_std"], std)
	}
	if rms := math.Sqrt(ss / float64(len(exact))); math.Abs(rms/std-1) > 0.1 {
		t.Errorf("noise rms %g, want about %g", rms, std)
	}

	// A record's problem is rebuilt as drawn (bpinn predict, record.Restore).
	q2 := BurgersIdentify(Options{DataSeed: 2})
	r2, err := Rebuild("burgers-identify", 2, "uniform", q2.Params, map[string]float64{"l1": 1, "l2": BurgersNu()})
	if err != nil || r2.Terms[1].Target[7] != q2.Terms[1].Target[7] || r2.Terms[0].Points[9][1] != q2.Terms[0].Points[9][1] {
		t.Errorf("Rebuild of data seed 2: %v, or other data", err)
	}

	// A data seed draws new points; bad sampling is refused.
	if q2.Terms[0].Points[0][0] == p.Terms[0].Points[0][0] {
		t.Error("data seed 2 drew data seed 1's points")
	}
	if _, err := New("burgers-identify", Options{Sampling: pde.Halton}); err == nil {
		t.Error("sampling halton: no error")
	}
	if _, err := p.Hold(map[string]float64{"l2": -1}); err == nil {
		t.Error("l2 held at -1: no error")
	}
}
