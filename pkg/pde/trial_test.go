package pde

import (
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// TestTrialResidual evaluates u_tt = 4 u_xx for travelling waves: zero
// for sin(4 pi x + 8 pi t), 48 pi^2 sin(...) for sin(4 pi x + 4 pi t);
// a term out of range, the wrong number of fields and a residual that
// reads an unknown coefficient are errors naming them.
func TestTrialResidual(t *testing.T) {
	t.Parallel()
	p := &Problem{Name: "trial", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Terms:    []Term{PDE("u_tt = 4*u_xx", 50), PDE("u_t = c*u_xx", 50).Named("inverse")},
		Unknowns: []Unknown{{Name: "c", Init: 1}}}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	wave := func(omega float64) func(cols []*ad.Node) []*ad.Node {
		return func(c []*ad.Node) []*ad.Node {
			return []*ad.Node{ad.Sin(ad.Add(ad.Scale(c[0], 4*math.Pi), ad.Scale(c[1], omega)))}
		}
	}
	r, err := q.TrialResidual(0, wave(8*math.Pi))
	if err != nil {
		t.Fatal(err)
	}
	if m := maxAbs(r); m > 1e-9 {
		t.Errorf("a solution's residual %.3g, want 0", m)
	}
	r, err = q.TrialResidual(0, wave(4*math.Pi))
	if err != nil {
		t.Fatal(err)
	}
	for k, x := range q.Terms[0].Points {
		want := 48 * math.Pi * math.Pi * math.Sin(4*math.Pi*x[0]+4*math.Pi*x[1]) // -16 pi^2 u + 64 pi^2 u
		if math.Abs(r[k]-want) > 1e-9*48*math.Pi*math.Pi {
			t.Fatalf("point %v: residual %.6g, want %.6g", x, r[k], want)
		}
	}
	for _, c := range []struct {
		term  int
		build func([]*ad.Node) []*ad.Node
		want  string
	}{
		{2, wave(0), "no term 2"},
		{0, func(c []*ad.Node) []*ad.Node { return []*ad.Node{c[0], c[1]} }, "2 fields, want 1"},
		{1, wave(0), `"c"`},
	} {
		if _, err := q.TrialResidual(c.term, c.build); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("term %d: %v, want an error with %s", c.term, err, c.want)
		}
	}
}
