package ad

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// reference evaluates every needed node of p one at a time with its own
// kernel (no fusion), on a copy of p's leaves, and returns the values.
func reference(p *Program) [][]float64 {
	r := &Program{g: p.g, val: make([][]float64, len(p.val)), need: p.need}
	for id, ok := range p.need {
		n := p.g.nodes[id]
		if !ok {
			continue
		}
		switch n.op {
		case OpInput, OpParam:
			r.val[id] = append([]float64(nil), p.val[id]...)
		default:
			r.val[id] = make([]float64, n.shape.Size())
			if n.op == OpFill {
				fill(r.val[id], n.f)
			}
		}
	}
	for _, n := range p.order {
		r.eval(n)
	}
	return r.val
}

func bindPINN(prog *Program, p *pinn) {
	prog.Set(p.x, p.points)
	p.ps.Bind(prog, p.w)
}

func TestFusedMatchesReference(t *testing.T) {
	t.Parallel()
	for _, sizes := range [][]int{{2, 6, 1}, {2, 8, 8, 1}, {3, 5, 4, 2, 1}} {
		p := newPINN(sizes, 37, 7)
		grads := Grad(p.loss, p.ps...)
		outs := append([]*Node{p.loss, p.r}, grads...)
		prog := p.g.Compile(outs...)
		bindPINN(prog, p)
		prog.Run()
		if prog.Len() < len(prog.code) {
			t.Errorf("%v: %d nodes but %d kernels", sizes, prog.Len(), len(prog.code))
		}
		ref := reference(prog)
		for _, o := range outs {
			for i, got := range prog.Value(o) {
				if want := ref[o.id][i]; !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-12) {
					t.Errorf("%v: %v[%d]: got %.16g want %.16g", sizes, o, i, got, want)
				}
			}
		}
		// Every node fused away can still be read; reading it re-plans,
		// and later Runs keep it (and the outputs) up to date.
		fused := 0
		for _, n := range prog.order {
			if prog.live[n.id] || prog.keep[n.id] {
				continue
			}
			fused++
			for i, got := range prog.Value(n) {
				if want := ref[n.id][i]; !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-12) {
					t.Fatalf("%v: fused %v[%d]: got %.16g want %.16g", sizes, n, i, got, want)
				}
			}
		}
		if fused == 0 {
			t.Errorf("%v: nothing was fused", sizes)
		}
		for i := range p.w {
			p.w[i] *= 0.9
		}
		prog.Run()
		ref = reference(prog)
		for _, n := range prog.order {
			for i, got := range prog.Value(n) {
				if want := ref[n.id][i]; !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-12) {
					t.Fatalf("%v: after re-plan %v[%d]: got %.16g want %.16g", sizes, n, i, got, want)
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	run := func() []float64 {
		p := newPINN([]int{2, 8, 8, 1}, 50, 3)
		h := NewHessian(p.loss, p.ps)
		bindPINN(h.Prog, p)
		P := p.ps.Size()
		H := make([]float64, P*P)
		h.ComputeTo(H)
		again := make([]float64, P*P)
		h.ComputeTo(again)
		for i := range H {
			if math.Float64bits(H[i]) != math.Float64bits(again[i]) {
				t.Fatalf("ComputeTo twice: H[%d] = %v then %v", i, H[i], again[i])
			}
		}
		return H
	}
	a, b := run(), run()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("two compilations: H[%d] = %v and %v", i, a[i], b[i])
		}
	}
}

// TestHessianPINN checks the exact Hessian of the PINN loss against central
// differences of its gradient, also after Value re-planned the program.
func TestHessianPINN(t *testing.T) {
	t.Parallel()
	for _, sizes := range [][]int{{2, 4, 1}, {2, 3, 3, 1}} {
		p := newPINN(sizes, 11, 5)
		P := p.ps.Size()
		grads := Grad(p.loss, p.ps...)
		gprog := p.g.Compile(grads...)
		bindPINN(gprog, p)
		h := NewHessian(p.loss, p.ps)
		bindPINN(h.Prog, p)
		H := make([]float64, P*P)
		h.ComputeTo(H)
		check := func(what string) {
			const step = 1e-5
			gp, gm := make([]float64, P), make([]float64, P)
			for j := 0; j < P; j++ {
				w := p.w[j]
				p.w[j] = w + step
				gprog.Run()
				p.ps.Gather(gprog, grads, gp)
				p.w[j] = w - step
				gprog.Run()
				p.ps.Gather(gprog, grads, gm)
				p.w[j] = w
				for i := 0; i < P; i++ {
					want := (gp[i] - gm[i]) / (2 * step)
					if !scalar.EqualWithinAbsOrRel(H[i*P+j], want, 1e-6, 1e-5) {
						t.Errorf("%v %s: hessian[%d,%d]: got %.10g want %.10g", sizes, what, i, j, H[i*P+j], want)
					}
				}
			}
		}
		check("first")
		// Read a fused intermediate: the plan changes and the Segment
		// must follow it.
		for _, n := range h.Prog.order {
			if !h.Prog.live[n.id] && !h.Prog.keep[n.id] {
				h.Prog.Value(n)
				break
			}
		}
		fill(H, 0)
		h.ComputeTo(H)
		check("after re-plan")
	}
}

// TestJacobianPINN checks NewJacobian of the PINN residual (it enters the
// parameters through MatMulT, Broadcast and the fused row products) against
// central differences of the residual.
func TestJacobianPINN(t *testing.T) {
	t.Parallel()
	for _, sizes := range [][]int{{2, 5, 1}, {2, 4, 3, 1}} {
		p := newPINN(sizes, 13, 9)
		N, P := p.r.shape.Rows, p.ps.Size()
		jac := NewJacobian(p.r, p.ps)
		bindPINN(jac.Prog, p)
		J := make([]float64, N*P)
		jac.ComputeTo(J)
		res := p.g.Compile(p.r)
		bindPINN(res, p)
		w0 := append([]float64(nil), p.w...)
		want := mat.NewDense(N, P, nil)
		fd.Jacobian(want, func(y, w []float64) {
			copy(p.w, w)
			res.Run()
			copy(y, res.Value(p.r))
		}, w0, &fd.JacobianSettings{Formula: fd.Central})
		copy(p.w, w0)
		for i := 0; i < N; i++ {
			for j := 0; j < P; j++ {
				if got := J[i*P+j]; !scalar.EqualWithinAbsOrRel(got, want.At(i, j), 1e-6, 1e-5) {
					t.Errorf("%v: J[%d,%d]: got %.10g want %.10g", sizes, i, j, got, want.At(i, j))
				}
			}
		}
	}
}

// TestPlanKernels checks that the cases meant to exercise a kernel or a
// factor mode do reach it.
func TestPlanKernels(t *testing.T) {
	t.Parallel()
	kinds := map[string]instrKind{"PadMatMulT": kPadMatMulT, "PadMatMul": kPadMatMul, "MatTMulPad": kMatTMulPad, "PadMatTMul": kPadMatTMul}
	modes := map[string]uint8{"FusedBroadcasts": modeCol, "FusedSliceCol": modeStride, "RowProductMatMulT": modeRow, "RowProductMatMul": modeRow}
	for _, c := range opCases {
		wantKind, okKind := kinds[c.name]
		wantMode, okMode := modes[c.name]
		if !okKind && !okMode {
			continue
		}
		g, loss, _, _ := buildCase(c, rand.New(rand.NewPCG(1, 1)))
		prog := g.Compile(loss)
		found := false
		for _, in := range prog.code {
			if okKind && in.kind == wantKind {
				found = true
			}
			if okMode && in.poly != nil {
				for _, tm := range in.poly.terms {
					for _, f := range tm.f {
						found = found || f.mode == wantMode
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: the plan does not use the kernel or factor it tests", c.name)
		}
	}
}

func TestTanhSweep(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 200000; i++ {
		x := (rng.Float64()*2 - 1) * 25
		if i%2 == 0 {
			x = math.Ldexp(rng.Float64()*2-1, -rng.IntN(40))
		}
		if got, want := tanh(x), math.Tanh(x); !scalar.EqualWithinAbsOrRel(got, want, 1e-300, 5e-16) {
			t.Fatalf("tanh(%.17g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		if got, want := tanh(x), math.Tanh(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("tanh(%v) = %v, want %v", x, got, want)
		}
	}
}
