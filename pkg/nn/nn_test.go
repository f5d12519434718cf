package nn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// For u(x,t) = sum_j v_j tanh(a_j x + c_j t + b_j) + d the closed forms are
// u_x = sum v_j a_j s_j, u_xx = sum v_j a_j^2 (-2 tanh_j s_j), u_xt = sum v_j a_j c_j (-2 tanh_j s_j)
// with s_j = 1 - tanh_j^2.
func TestJetClosedForm(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	m := New([]int{2, 5, 1}, Tanh, rng)
	const n = 7
	pts := make([]float64, 2*n)
	for i := range pts {
		pts[i] = rng.Float64()*2 - 1
	}
	g := ad.NewGraph()
	x := g.Input("x", n, 2)
	ps := m.Params(g)
	j := ad.NewJet(m.Apply(ps, x), x)
	outs := []*ad.Node{j.U, j.D(0), j.D(1), j.D2(0, 0), j.D2(1, 1), j.D2(0, 1), j.D2(1, 0)}
	prog := g.Compile(outs...)
	prog.Set(x, pts)
	ps.Bind(prog, m.W)
	prog.Run()
	W1, b1 := m.Layer(0)
	W2, b2 := m.Layer(1)
	for p := 0; p < n; p++ {
		xx, tt := pts[2*p], pts[2*p+1]
		want := make([]float64, 7)
		want[0] = b2[0]
		for k := 0; k < 5; k++ {
			a, c, v := W1[2*k], W1[2*k+1], W2[k]
			th := math.Tanh(a*xx + c*tt + b1[k])
			s := 1 - th*th
			want[0] += v * th
			want[1] += v * a * s
			want[2] += v * c * s
			want[3] += v * a * a * (-2 * th * s)
			want[4] += v * c * c * (-2 * th * s)
			want[5] += v * a * c * (-2 * th * s)
		}
		want[6] = want[5]
		names := []string{"u", "u_x", "u_t", "u_xx", "u_tt", "u_xt", "u_tx"}
		for k, o := range outs {
			if got := prog.Value(o)[p]; !scalar.EqualWithinAbsOrRel(got, want[k], 1e-13, 1e-12) {
				t.Errorf("point %d %s: got %.15g want %.15g", p, names[k], got, want[k])
			}
		}
		if got := m.Eval(pts[2*p:2*p+2], nil)[0]; !scalar.EqualWithinAbsOrRel(got, want[0], 1e-14, 1e-13) {
			t.Errorf("Eval: got %g want %g", got, want[0])
		}
	}
}

// The per-row Jacobian of a PDE residual matches central differences.
func TestJacobianRowsFD(t *testing.T) {
	t.Parallel()
	mapped := New([]int{2, 3, 3, 1}, Tanh, rand.New(rand.NewPCG(1, 2)))
	mapped.BoxMap([]float64{0, 10}, []float64{100, 10.5})
	mapped.SetOutputMap([]float64{3}, []float64{40})
	for _, p := range []*pinnGraph{newPINNGraph([]int{2, 4, 1}, 9), newPINNGraph([]int{2, 3, 3, 1}, 9), pinnGraphOf(mapped, 9, rand.New(rand.NewPCG(1, 3)))} {
		sizes := p.m.Sizes
		jac := ad.NewJacobian(p.r, p.ps)
		jac.Prog.Set(p.x, p.points)
		w := p.m.W
		p.ps.Bind(jac.Prog, w)
		P := len(w)
		J := make([]float64, 9*P)
		jac.ComputeTo(J)
		res := jac.Prog.Value(p.r)
		_ = res
		rp, rm := make([]float64, 9), make([]float64, 9)
		const h = 1e-6
		for k := 0; k < P; k++ {
			w0 := w[k]
			w[k] = w0 + h
			jac.Prog.Run()
			copy(rp, jac.Prog.Value(p.r))
			w[k] = w0 - h
			jac.Prog.Run()
			copy(rm, jac.Prog.Value(p.r))
			w[k] = w0
			for r := 0; r < 9; r++ {
				want := (rp[r] - rm[r]) / (2 * h)
				if !scalar.EqualWithinAbsOrRel(J[r*P+k], want, 1e-7, 1e-6) {
					t.Errorf("%v J[%d,%d]: got %.10g want %.10g", sizes, r, k, J[r*P+k], want)
				}
			}
		}
		// Gauss-Newton is J^T J.
		H := make([]float64, P*P)
		GaussNewtonTo(H, J, 9, P)
		for a := 0; a < P; a++ {
			for b := 0; b < P; b++ {
				s := 0.0
				for r := 0; r < 9; r++ {
					s += J[r*P+a] * J[r*P+b]
				}
				if !scalar.EqualWithinAbsOrRel(H[a*P+b], s, 1e-12, 1e-12) {
					t.Fatalf("GN[%d,%d]: got %g want %g", a, b, H[a*P+b], s)
				}
			}
		}
	}
}

func TestClassesAndGroups(t *testing.T) {
	t.Parallel()
	m := Zero([]int{1, 6, 1}, Tanh)
	if got := m.NumWeights(); got != 19 {
		t.Fatalf("1-6-1 has %d weights, want 19", got)
	}
	cs := m.Classes()
	if len(cs) != 4 {
		t.Fatalf("%d classes, want 4", len(cs))
	}
	wantLen := []int{6, 6, 6, 1}
	for i, c := range cs {
		if c.Len != wantLen[i] {
			t.Errorf("class %s has %d weights, want %d", c.Name, c.Len, wantLen[i])
		}
	}
	single, _ := m.Groups(AlphaSingle)
	classes, _ := m.Groups(AlphaClasses)
	if len(single) != 1 || single[0].Len() != 19 || len(classes) != 4 {
		t.Errorf("groups: single %d (len %d), classes %d", len(single), single[0].Len(), len(classes))
	}
	idx := GroupIndex(classes, 19)
	if idx[0] != 0 || idx[6] != 1 || idx[12] != 2 || idx[18] != 3 {
		t.Errorf("group index %v", idx)
	}
	_, want := ParseAlphaMode("bogus")
	if _, err := m.Groups("bogus"); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("Groups of an unknown alpha mode: %v, want ParseAlphaMode's %v", err, want)
	}
}

func TestXavierDeterministic(t *testing.T) {
	t.Parallel()
	a := New([]int{2, 8, 8, 1}, Tanh, rand.New(rand.NewPCG(7, 7)))
	b := New([]int{2, 8, 8, 1}, Tanh, rand.New(rand.NewPCG(7, 7)))
	for i := range a.W {
		if a.W[i] != b.W[i] {
			t.Fatal("same seed gave different weights")
		}
	}
	w, bias := a.Layer(1)
	var s2 float64
	for _, v := range w {
		s2 += v * v
	}
	if std := math.Sqrt(s2 / 64); std < 0.25 || std > 0.5 {
		t.Errorf("layer 2 weight std %g, want about sqrt(2/16)=0.354", std)
	}
	for _, v := range bias {
		if v != 0 {
			t.Error("biases must start at zero")
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	m := New([]int{2, 3, 1}, Sin, rand.New(rand.NewPCG(1, 1)))
	got, saved := roundTrip(t, m)
	if !strings.Contains(saved, `"W": [`) {
		t.Errorf("saved form lacks W rows: %s", saved)
	}
	if got.Activation != Sin || len(got.W) != len(m.W) {
		t.Fatalf("loaded %+v", got)
	}
	for i := range m.W {
		if got.W[i] != m.W[i] {
			t.Fatalf("weight %d: %g != %g", i, got.W[i], m.W[i])
		}
	}
	wantLoadErrors(t, []loadCase{
		{`{"layers": []}`, "no layers"},
		{`{"layers": [{"W": [[1,2],[3]], "b": [0,0]}]}`, "row 1"},
		{`{"layers": [{"W": [[1,2]], "b": [0,0]}]}`, "layers[0].b"},
		{`{"layers": [{"W": [[1,2]], "b": [0]}, {"W": [[1,2]], "b": [0]}]}`, "layers[1].W has 2 columns"},
		{`{"activation": "relu", "layers": [{"W": [[1]], "b": [0]}]}`, "unknown activation"},
		{`{"layers": [`, "network JSON"},
	})
}

// roundTrip saves m and loads it back, returning the loaded net and the
// saved text.
func roundTrip(t *testing.T, m *MLP) (*MLP, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	got, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return got, saved
}

// loadCase is a saved network Load must refuse, and a part of its error.
type loadCase struct{ in, want string }

// wantLoadErrors checks that Load refuses each case with its error.
func wantLoadErrors(t *testing.T, cases []loadCase) {
	t.Helper()
	for _, c := range cases {
		if _, err := Load(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// A mapped network saves its maps and loads with them, evaluating the same
// bits; a record without maps (every record before them) loads as a
// network without maps, and a malformed map is refused.
func TestJSONMaps(t *testing.T) {
	t.Parallel()
	m := New([]int{2, 3, 1}, Tanh, rand.New(rand.NewPCG(1, 1)))
	plain := m.Clone()
	m.BoxMap([]float64{0, 10}, []float64{100, 12})
	m.SetOutputMap([]float64{7}, []float64{300})
	got, _ := roundTrip(t, m)
	x := []float64{30, 11.5}
	if a, b := got.Eval(x, nil)[0], m.Eval(x, nil)[0]; a != b || a == plain.Eval(x, nil)[0] {
		t.Errorf("loaded mapped net gives %v, saved %v, unmapped %v", a, b, plain.Eval(x, nil)[0])
	}
	old := `{"sizes": [1, 1], "activation": "tanh", "layers": [{"W": [[2]], "b": [0.5]}]}`
	o, err := Load(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if o.Mapped() || o.Eval([]float64{3}, nil)[0] != 6.5 {
		t.Errorf("an old record loads mapped %v, value %v at 3, want unmapped 6.5", o.Mapped(), o.Eval([]float64{3}, nil)[0])
	}
	if _, saved := roundTrip(t, plain); strings.Contains(saved, "shift") {
		t.Errorf("an unmapped net saves maps: %s", saved)
	}
	const layer = `"layers": [{"W": [[2]], "b": [0.5]}]`
	wantLoadErrors(t, []loadCase{
		{`{` + layer + `, "in_shift": [1]}`, "in_scale 0"},
		{`{` + layer + `, "out_shift": [1, 2], "out_scale": [1, 1]}`, "want 1 each"},
		{`{` + layer + `, "in_shift": [1], "in_scale": [0]}`, "nonzero scale"},
	})
}

func TestAdamMinimizesQuadratic(t *testing.T) {
	t.Parallel()
	w := []float64{3, -2}
	a := NewAdam(2, &AdamSettings{LR: 0.05})
	g := make([]float64, 2)
	for i := 0; i < 3000; i++ {
		g[0], g[1] = 2*(w[0]-1), 20*(w[1]+0.5)
		a.Step(w, g)
	}
	if math.Abs(w[0]-1) > 1e-3 || math.Abs(w[1]+0.5) > 1e-3 {
		t.Errorf("Adam ended at %v, want [1 -0.5]", w)
	}
	if d := NewAdam(1, nil).S; d.LR != 1e-3 || d.Beta1 != 0.9 || d.Beta2 != 0.999 || d.Eps != 1e-8 {
		t.Errorf("defaults %+v", d)
	}
}

// rosenbrock is (1-x)^2 + 100 (y-x^2)^2 with its gradient.
func rosenbrock(x, g []float64) float64 {
	a, b := 1-x[0], x[1]-x[0]*x[0]
	g[0] = -2*a - 400*x[0]*b
	g[1] = 200 * b
	return a*a + 100*b*b
}

func TestPolishRosenbrock(t *testing.T) {
	t.Parallel()
	w := []float64{-1.2, 1}
	r, err := Polish(context.Background(), w, rosenbrock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w[0]-1) > 1e-6 || math.Abs(w[1]-1) > 1e-6 || r.F > 1e-10 || math.Abs(r.F0-24.2) > 1e-12 {
		t.Errorf("polish ended at %v with %+v", w, r)
	}
}

// A closure that reads the weights in place (as bound programs do) and
// ignores its argument must still be minimized.
func TestPolishInPlace(t *testing.T) {
	t.Parallel()
	w := []float64{3, -4}
	f := func(_, g []float64) float64 {
		g[0], g[1] = 2*(w[0]-1), 2*(w[1]-2)
		return (w[0]-1)*(w[0]-1) + (w[1]-2)*(w[1]-2)
	}
	r, err := Polish(context.Background(), w, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w[0]-1) > 1e-8 || math.Abs(w[1]-2) > 1e-8 || r.Iterations < 1 {
		t.Errorf("in-place polish ended at %v with %+v", w, r)
	}
}

// Rosenbrock is the least-squares problem r = (1 - x, 10 (y - x^2)); with its
// Gauss-Newton matrix J^T J the polish is Gauss-Newton with a line search,
// which reaches the minimum in far fewer iterations than L-BFGS, reading the
// point from w (in place) when the matrix is asked for.
func TestPolishGaussNewtonRosenbrock(t *testing.T) {
	t.Parallel()
	w := []float64{-1.2, 1}
	calls := 0
	gn := func(h *mat.SymDense) {
		calls++
		// J = [[-1, 0], [-20 x, 10]]; E = |r|^2 so the matrix is 2 J^T J.
		x := w[0]
		h.SetSym(0, 0, 2*(1+400*x*x))
		h.SetSym(0, 1, 2*(-200*x))
		h.SetSym(1, 1, 2*100)
	}
	r, err := Polish(context.Background(), w, rosenbrock, &PolishSettings{Hessian: gn})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w[0]-1) > 1e-6 || math.Abs(w[1]-1) > 1e-6 || r.F > 1e-12 {
		t.Errorf("Gauss-Newton polish ended at %v with %+v", w, r)
	}
	lb := []float64{-1.2, 1}
	rl, _ := Polish(context.Background(), lb, rosenbrock, nil)
	if calls == 0 || r.Iterations >= rl.Iterations {
		t.Errorf("Gauss-Newton: %d iterations, %d matrices; L-BFGS %d iterations: want fewer with the matrix", r.Iterations, calls, rl.Iterations)
	}
}

// TestFeatures: Features is the last hidden layer's activations (checked
// against a forward pass written out for two hidden layers), and Eval is
// the output layer on them, output map included, bit for bit.
// EvalBatch is Eval at every point to a few ulps, on a mapped network of
// two outputs with waves; no points, nil.
func TestEvalBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	m := New([]int{2, 7, 5, 2}, Tanh, rng)
	m.BoxMap([]float64{0, 1}, []float64{2, 5})
	m.SetOutputMap([]float64{1, -2}, []float64{3, 0.5})
	m.SetWaves([]Wave{{Input: 1, Omega: 3}}, rng)
	var pts [][]float64
	for range 2*evalChunk + 37 { // two chunks and a padded one
		pts = append(pts, []float64{2 * rng.Float64(), 1 + 4*rng.Float64()})
	}
	got := m.EvalBatch(pts)
	if len(got) != 2*len(pts) {
		t.Fatalf("%d values for %d points of 2 outputs", len(got), len(pts))
	}
	for i, x := range pts {
		for k, want := range m.Eval(x, nil) {
			if v := got[2*i+k]; math.Abs(v-want) > 1e-14*math.Max(1, math.Abs(want)) {
				t.Errorf("point %d, output %d: %v, Eval %v", i, k, v, want)
			}
		}
	}
	if got := m.EvalBatch(nil); got != nil {
		t.Errorf("no points: %v", got)
	}
}

func TestFeatures(t *testing.T) {
	m := New([]int{2, 3, 4, 2}, Tanh, rand.New(rand.NewPCG(3, 9)))
	m.BoxMap([]float64{0, 1}, []float64{2, 5})
	m.SetOutputMap([]float64{1, -2}, []float64{3, 0.5})
	x := []float64{0.7, 2.9}
	z := m.MapInput(x)
	for l := 0; l < 2; l++ {
		w, b := m.Layer(l)
		in, out := m.Sizes[l], m.Sizes[l+1]
		next := make([]float64, out)
		for j := range next {
			s := b[j]
			for i := 0; i < in; i++ {
				s += w[j*in+i] * z[i]
			}
			next[j] = math.Tanh(s)
		}
		z = next
	}
	h := m.Features(x, nil)
	if !slices.Equal(h, z) {
		t.Fatalf("features %v, want %v", h, z)
	}
	w, b := m.Layer(2)
	u := m.Eval(x, nil)
	for k := range u {
		s := b[k]
		for i, hi := range h {
			s += w[k*4+i] * hi
		}
		if want := s*m.OutScale[k] + m.OutShift[k]; u[k] != want {
			t.Errorf("output %d: Eval %v, the output layer on the features %v", k, u[k], want)
		}
	}
}

// TestWaves checks a waved network: SetWaves without draws keeps the
// function (its new columns are zero) and with them changes it; Eval is
// the first layer on the inputs and their waves; the saved form loads the
// same bits and refuses a wave that names no input.
func TestWaves(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 1))
	m := New([]int{2, 4, 3, 1}, Tanh, rng)
	m.BoxMap([]float64{0, -1}, []float64{1, 1})
	x := []float64{0.3, 0.2}
	plain := m.Eval(x, nil)[0]
	waves := []Wave{{Input: 0, Omega: 31.4}, {Input: 1, Omega: 9}}
	zero := m.Clone()
	zero.SetWaves(waves, nil)
	if got := zero.Eval(x, nil)[0]; got != plain || zero.InWidth(0) != 6 || zero.NumWeights() != m.NumWeights()+2*len(waves)*4 {
		t.Fatalf("zero waves: value %v (want %v), first layer reads %d, %d weights", got, plain, zero.InWidth(0), zero.NumWeights())
	}
	m.SetWaves(waves, rng)
	z := m.MapInput(x)
	in := append(slices.Clone(z), math.Sin(31.4*z[0]), math.Cos(31.4*z[0]), math.Sin(9*z[1]), math.Cos(9*z[1]))
	w, b := m.Layer(0)
	h := make([]float64, 4)
	for j := range h {
		s := b[j]
		for i, v := range in {
			s += w[j*6+i] * v
		}
		h[j] = math.Tanh(s)
	}
	w1, b1 := m.Layer(1)
	w2, b2 := m.Layer(2)
	u := b2[0]
	for j := range 3 {
		s := b1[j]
		for i, v := range h {
			s += w1[j*4+i] * v
		}
		u += w2[j] * math.Tanh(s)
	}
	if got := m.Eval(x, nil)[0]; math.Abs(got-u) > 1e-12 || got == plain {
		t.Errorf("waved Eval %v, by hand %v (unwaved %v)", got, u, plain)
	}
	got, _ := roundTrip(t, m)
	if !slices.Equal(got.W, m.W) || !slices.Equal(got.Waves, m.Waves) || got.Eval(x, nil)[0] != m.Eval(x, nil)[0] {
		t.Errorf("loaded waves %v, weights equal %v", got.Waves, slices.Equal(got.W, m.W))
	}
	wantLoadErrors(t, []loadCase{{`{"layers": [{"W": [[1, 2, 3]], "b": [0]}], "waves": [{"input": 1, "omega": 3}]}`, "input below 1"}})
}

// TestPolishContext: a polish whose context has ended stops at once with
// the context's error and leaves w at a point no worse than the start.
func TestPolishContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := []float64{-1.2, 1}
	f0 := rosenbrock(slices.Clone(w), make([]float64, 2))
	r, err := Polish(ctx, w, rosenbrock, nil)
	if !errors.Is(err, context.Canceled) || r.Iterations > 1 || rosenbrock(w, make([]float64, 2)) > f0 {
		t.Errorf("cancelled polish: error %v, %d iterations, E %v from %v", err, r.Iterations, r.F, f0)
	}
}
