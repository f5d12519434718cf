package pde

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// TestAddends checks that a text equation's addends sum to its residual
// for a field that solves none of them, that they split where the text
// sums (through parentheses, negations and products with a sum), and
// that a residual written in Go has none.
func TestAddends(t *testing.T) {
	t.Parallel()
	field := func(c []*ad.Node) []*ad.Node { // sin(1.3 x + 0.7 y) exp(0.4 t) + x y
		s := ad.Sin(ad.Add(ad.Scale(c[0], 1.3), ad.Scale(c[1], 0.7)))
		return []*ad.Node{ad.Add(ad.Mul(s, ad.Exp(ad.Scale(c[2], 0.4))), ad.Mul(c[0], c[1]))}
	}
	for _, c := range []struct {
		text  string
		count int
	}{
		{"u_tt - 4*u_xx = 0", 2},
		{"u_t - (u_xx + 2*u_yy) = 0", 3},
		{"0.01*(u_xx + u_yy) = 0", 2},
		{"(u_x + u_y)/2 = -u", 3},
		{"-(u_t - u_xx) = sin(x)", 3},
		{"exp(u_x + u) = 1", 2},
		{"u*u_x + u_t - 0.01/pi*u_xx", 3},
		{"u_xx", 1},
	} {
		p := &Problem{Name: "addends", Inputs: []string{"x", "y", "t"}, Lo: []float64{0, 0, 0}, Hi: []float64{1, 1, 1},
			Terms: []Term{PDE(c.text, 40)}}
		q, err := p.Sample(1)
		if err != nil {
			t.Fatal(err)
		}
		parts := q.Terms[0].Addends()
		if len(parts) != c.count {
			t.Errorf("%q: %d addends, want %d", c.text, len(parts), c.count)
			continue
		}
		want, err := q.TrialResidual(0, field)
		if err != nil {
			t.Fatal(err)
		}
		sum := make([]float64, len(want))
		for _, r := range parts {
			a := *q
			a.Terms = []Term{q.Terms[0]}
			a.Terms[0].Residual = r
			v, err := a.TrialResidual(0, field)
			if err != nil {
				t.Fatalf("%q: %v", c.text, err)
			}
			for i := range sum {
				sum[i] += v[i]
			}
		}
		for i := range sum {
			if math.Abs(sum[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%q at %v: addends sum to %.15g, residual %.15g", c.text, q.Terms[0].Points[i], sum[i], want[i])
			}
		}
	}
	goTerm := Term{Name: "pde", Residual: func(v *Vars) *ad.Node { return v.D("x") }}
	if parts := goTerm.Addends(); parts != nil {
		t.Errorf("a residual written in Go: %d addends, want none", len(parts))
	}
}
