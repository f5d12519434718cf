package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// TestJetFiniteDifferences checks the input jet of deep networks (three hidden
// layers, three inputs) for every activation against central differences of
// the plain evaluation Eval, which shares no code with pkg/ad: u, every D(i)
// and every D2(i, j), mixed ones in both orders. TestJetClosedForm covers only
// one tanh layer, where a wrong rule for a composed activation's second
// derivative could cancel. The network has two outputs, each with its own
// jet through its column (a system's fields, pde.Problem.Outputs). The
// mapped variant puts the inputs in a box far from [-1, 1] (widths 100, 8
// and 0.5) and the outputs in a scale of their own: its derivatives are
// the chain rule through the maps, in physical units. The waved variant
// adds waves (Wave) of two inputs, one of them twice, to the mapped one.
func TestJetFiniteDifferences(t *testing.T) {
	t.Parallel()
	for _, v := range []struct{ mapped, waved bool }{{false, false}, {true, false}, {true, true}} {
		testJetFiniteDifferences(t, v.mapped, v.waved)
	}
}

func testJetFiniteDifferences(t *testing.T, mapped, waved bool) {
	const (
		dim  = 3
		n    = 5
		h1   = 1e-5 // first derivatives (extrapolated from h1 and 2 h1): truncation ~h1^4, rounding ~eps/h1
		h2   = 1e-4 // second derivatives (extrapolated from h2 and 2 h2): rounding ~eps/h2^2
		tol  = 1e-6 // relative to the scale 1 + |value|
		gain = 2
	)
	for ai, act := range []Activation{Tanh, Sin, Sigmoid, Softplus} {
		name := string(act)
		if mapped {
			name += "/mapped"
		}
		if waved {
			name += "/waved"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(11, uint64(ai)))
			m := New([]int{dim, 8, 8, 8, 2}, act, rng)
			if waved {
				m.SetWaves([]Wave{{Input: 0, Omega: 7}, {Input: 2, Omega: 3.5}, {Input: 0, Omega: 12}}, rng)
			}
			// Weights twice Xavier's and nonzero biases: every layer works in
			// its curved range, away from an activation's symmetry point
			// (Xavier alone leaves a sigmoid net nearly linear and flat).
			for l := 0; l < m.Layers(); l++ {
				w, b := m.Layer(l)
				for i := range w {
					w[i] *= gain
				}
				for i := range b {
					b[i] = rng.Float64() - 0.5
				}
			}
			step := []float64{1, 1, 1} // per input: the box's half-width
			if mapped {
				m.BoxMap([]float64{0, -3, 10}, []float64{100, 5, 10.5})
				m.SetOutputMap([]float64{3, -1}, []float64{40, 0.5})
				step = m.InScale
			}
			pts := make([]float64, n*dim)
			for i := range pts {
				pts[i] = 2*rng.Float64() - 1
				if mapped {
					pts[i] = m.InShift[i%dim] + m.InScale[i%dim]*pts[i]
				}
			}

			g := ad.NewGraph()
			x := g.Input("x", n, dim)
			ps := m.Params(g)
			net := m.Apply(ps, x)
			type out struct {
				name string
				node *ad.Node
				fd   func(p []float64) float64
				// scale is the value's natural size: 1 unmapped; mapped, the
				// output's scale over the steps' (a derivative's units),
				// where finite differences round.
				scale float64
			}
			var outs []out
			for c := range 2 {
				j := ad.NewJet(ad.SliceCol(net, c), x)
				u := func(p []float64) float64 { return m.Eval(p, nil)[c] }
				shift := func(p []float64, i int, hi float64, k int, hk float64) float64 { // u(p + hi e_i + hk e_k)
					q := append([]float64(nil), p...)
					q[i] += hi
					q[k] += hk
					return u(q)
				}
				sc := 1.0
				if mapped {
					sc = m.OutScale[c]
				}
				outs = append(outs, out{fmt.Sprintf("u%d", c), j.U, u, sc})
				for i := 0; i < dim; i++ {
					// central differences Richardson-extrapolated from h and 2h:
					// the waves' frequencies make the h^2 term count
					d1 := func(p []float64, h float64) float64 {
						hi := h * step[i]
						return (shift(p, i, hi, i, 0) - shift(p, i, -hi, i, 0)) / (2 * hi)
					}
					outs = append(outs, out{fmt.Sprintf("u%d D(%d)", c, i), j.D(i), func(p []float64) float64 {
						return (4*d1(p, h1) - d1(p, 2*h1)) / 3
					}, sc / step[i]})
				}
				for i := 0; i < dim; i++ {
					for k := 0; k < dim; k++ {
						// The 4-point mixed formula (for i == k the 3-point second
						// difference with step 2h), Richardson-extrapolated from
						// h and 2h to cancel its h^2 error: what is left is
						// rounding, ~1e-8 here, well below tol.
						d2 := func(p []float64, h float64) float64 {
							hi, hk := h*step[i], h*step[k]
							return (shift(p, i, hi, k, hk) - shift(p, i, hi, k, -hk) -
								shift(p, i, -hi, k, hk) + shift(p, i, -hi, k, -hk)) / (4 * hi * hk)
						}
						outs = append(outs, out{fmt.Sprintf("u%d D2(%d,%d)", c, i, k), j.D2(i, k), func(p []float64) float64 {
							return (4*d2(p, h2) - d2(p, 2*h2)) / 3
						}, sc / (step[i] * step[k])})
					}
				}
			}
			nodes := make([]*ad.Node, len(outs))
			for k, o := range outs {
				nodes[k] = o.node
			}
			prog := g.Compile(nodes...)
			prog.Set(x, pts)
			ps.Bind(prog, m.W)
			prog.Run()
			nonzero := 0
			for p := 0; p < n; p++ {
				pt := pts[p*dim : (p+1)*dim]
				for _, o := range outs {
					got, want := prog.Value(o.node)[p], o.fd(pt)
					if math.Abs(got-want) > tol*(o.scale+math.Abs(want)) {
						t.Errorf("point %d %s: jet %.12g, finite differences %.12g", p, o.name, got, want)
					}
					if math.Abs(want) > 1e-3 {
						nonzero++
					}
				}
			}
			// The comparison is only worth something if the derivatives are not all tiny.
			if nonzero < n*len(outs)/2 {
				t.Errorf("only %d of %d values above 1e-3: the network is too flat to test", nonzero, n*len(outs))
			}
		})
	}
}
