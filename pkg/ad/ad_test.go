package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
)

// opCase is a function of one or two parameters whose first and second
// derivatives are checked against central finite differences.
type opCase struct {
	name   string
	shapes []Shape
	lo, hi float64 // inputs drawn uniformly from [lo, hi]
	f      func(in []*Node) *Node
}

var (
	s34 = Shape{3, 4}
	s11 = Shape{1, 1}
	s14 = Shape{1, 4}
	s31 = Shape{3, 1}
	s42 = Shape{4, 2}
	s32 = Shape{3, 2}
)

var opCases = []opCase{
	{"Add", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node { return Square(Add(x[0], x[1])) }},
	{"AddRowBroadcast", []Shape{s34, s14}, -1, 1, func(x []*Node) *Node { return Square(Add(x[0], x[1])) }},
	{"AddScalarBroadcast", []Shape{s34, s11}, -1, 1, func(x []*Node) *Node { return Square(Add(x[0], x[1])) }},
	{"MulColBroadcast", []Shape{s34, s31}, -1, 1, func(x []*Node) *Node { return Mul(x[0], x[1]) }},
	{"Sub", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node { return Square(Sub(x[0], x[1])) }},
	{"Mul", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node { return Mul(x[0], x[1]) }},
	{"Div", []Shape{s34, s34}, 0.5, 2, func(x []*Node) *Node { return Div(x[0], x[1]) }},
	{"Scale", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(Scale(x[0], -2.5)) }},
	{"AddConst", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(AddConst(x[0], 0.7)) }},
	{"Neg", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Mul(Neg(x[0]), Exp(x[0])) }},
	{"Square", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(x[0]) }},
	{"Pow", []Shape{s34}, 0.5, 2, func(x []*Node) *Node { return Pow(x[0], 2.5) }},
	{"PowInteger", []Shape{s34}, -2, 2, func(x []*Node) *Node { return Pow(x[0], 3) }},
	{"Exp", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Exp(x[0]) }},
	{"Log", []Shape{s34}, 0.5, 2, func(x []*Node) *Node { return Log(x[0]) }},
	{"Sin", []Shape{s34}, -2, 2, func(x []*Node) *Node { return Sin(x[0]) }},
	{"Cos", []Shape{s34}, -2, 2, func(x []*Node) *Node { return Cos(x[0]) }},
	{"Tanh", []Shape{s34}, -2, 2, func(x []*Node) *Node { return Tanh(x[0]) }},
	{"Abs", []Shape{s34}, -2, 2, func(x []*Node) *Node { return Mul(Abs(x[0]), Sin(x[0])) }},
	{"AbsSign", []Shape{s34}, -2, 2, func(x []*Node) *Node { return Add(Square(Abs(x[0])), Mul(Sign(x[0]), x[0])) }},
	{"Sigmoid", []Shape{s34}, -3, 3, func(x []*Node) *Node { return Sigmoid(x[0]) }},
	{"Softplus", []Shape{s34}, -3, 3, func(x []*Node) *Node { return Softplus(x[0]) }},
	{"Sum", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(Sum(Mul(x[0], x[0]))) }},
	{"Mean", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(Mean(Sin(x[0]))) }},
	{"SumRows", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(SumRows(Sin(x[0]))) }},
	{"SumCols", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Square(SumCols(Sin(x[0]))) }},
	{"MatMul", []Shape{s34, s42}, -1, 1, func(x []*Node) *Node { return Square(MatMul(x[0], x[1])) }},
	{"MatMulT", []Shape{s34, Shape{2, 4}}, -1, 1, func(x []*Node) *Node { return Square(MatMulT(x[0], x[1])) }},
	{"MatTMul", []Shape{s34, s32}, -1, 1, func(x []*Node) *Node { return Square(MatTMul(x[0], x[1])) }},
	{"SliceCol", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Tanh(SliceCol(Mul(x[0], x[0]), 2)) }},
	{"PadCol", []Shape{s31}, -1, 1, func(x []*Node) *Node { return Sin(PadCol(x[0], 1, 3)) }},
	{"Reshape", []Shape{s34}, -1, 1, func(x []*Node) *Node { return Sin(MatMul(Reshape(Square(x[0]), 2, 6), Reshape(x[0], 6, 2))) }},
	{"Broadcast", []Shape{s14}, -1, 1, func(x []*Node) *Node { return Sin(Broadcast(Square(x[0]), s34)) }},
	{"Chain", []Shape{s34, s14}, -1, 1, func(x []*Node) *Node {
		return Softplus(Mul(Tanh(Add(x[0], x[1])), Sigmoid(Sub(x[0], x[1]))))
	}},

	// Fused polynomials (plan.go): row, column and scalar broadcasts, the
	// strided SliceCol factor, terms of 4 and 5 factors, more terms than
	// maxTerms, Mul of sums (not expanded), constants.
	{"FusedBroadcasts", []Shape{s34, s14, s31, s11}, -1, 1, func(x []*Node) *Node {
		return Sin(Sub(Mul(Add(x[0], x[1]), Mul(x[2], x[3])), AddConst(Scale(Square(x[0]), 2), 0.5)))
	}},
	{"FusedSliceCol", []Shape{s34, s31}, -1, 1, func(x []*Node) *Node {
		return Sin(Add(Mul(SliceCol(x[0], 2), x[1]), Scale(SliceCol(x[0], 0), -3)))
	}},
	{"FusedFourFactors", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node {
		return Add(Mul(Mul(x[0], x[1]), Mul(x[1], x[0])), Mul(x[0], x[1]))
	}},
	{"FusedFiveFactors", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node {
		return Mul(Mul(Mul(x[0], x[1]), Mul(x[1], x[0])), Scale(x[1], 0.3))
	}},
	{"FusedManyTerms", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node {
		sum := x[0]
		for k := 1; k <= 10; k++ {
			sum = Add(sum, Scale(Mul(x[0], x[1]), float64(k)))
			sum = Sub(sum, Scale(x[1], 0.1*float64(k)))
		}
		return Sin(sum)
	}},
	{"FusedProductOfSums", []Shape{s34, s34}, -1, 1, func(x []*Node) *Node {
		a, b := Add(x[0], x[1]), AddConst(Sub(x[0], x[1]), 1)
		return Mul(Mul(a, b), Sub(a, Mul(b, b)))
	}},
	{"FusedConstant", []Shape{s34}, -1, 1, func(x []*Node) *Node {
		return Mul(Sub(x[0].g.Fill(3, 4, 2), x[0]), Add(x[0].g.Fill(3, 4, -1), x[0]))
	}},
	// Matrix products with a padded operand (kPad* kernels) and products
	// that only repeat a row (rowProduct factors).
	{"PadMatMulT", []Shape{s31, Shape{4, 2}}, -1, 1, func(x []*Node) *Node {
		return Sin(MatMulT(PadCol(Sin(x[0]), 1, 2), x[1]))
	}},
	{"PadMatMul", []Shape{s31, Shape{3, 4}}, -1, 1, func(x []*Node) *Node {
		return Sin(MatMul(PadCol(Sin(x[0]), 2, 3), x[1]))
	}},
	{"MatTMulPad", []Shape{s34, s31}, -1, 1, func(x []*Node) *Node {
		return Square(MatTMul(x[0], PadCol(Sin(x[1]), 1, 2)))
	}},
	{"PadMatTMul", []Shape{s31, s32}, -1, 1, func(x []*Node) *Node {
		return Square(MatTMul(PadCol(Sin(x[0]), 1, 4), x[1]))
	}},
	{"RowProductMatMulT", []Shape{Shape{4, 2}, s34}, -1, 1, func(x []*Node) *Node {
		seed := PadCol(x[0].g.Fill(3, 1, 1.5), 1, 2)
		return Mul(Sin(MatMulT(seed, x[0])), x[1])
	}},
	{"RowProductMatMul", []Shape{s14, Shape{2, 4}, s34}, -1, 1, func(x []*Node) *Node {
		g := x[0].g
		return Mul(Add(MatMul(g.Fill(3, 1, -2), x[0]), MatMul(PadCol(g.Fill(3, 1, 0.5), 1, 2), x[1])), Sin(x[2]))
	}},
	// Rows 8 wide: the assembly kernels on amd64 (blocks of 4 and 1 rows
	// of a^T b), the transposed accumulation of a^T b when b is narrow.
	{"MatMul8", []Shape{Shape{3, 5}, Shape{5, 8}}, -1, 1, func(x []*Node) *Node { return Sin(MatMul(x[0], x[1])) }},
	{"MatMulT8", []Shape{Shape{3, 5}, Shape{8, 5}}, -1, 1, func(x []*Node) *Node { return Sin(MatMulT(x[0], x[1])) }},
	{"MatTMul8", []Shape{Shape{3, 5}, Shape{3, 8}}, -1, 1, func(x []*Node) *Node { return Sin(MatTMul(x[0], x[1])) }},
	{"MatTMulNarrow", []Shape{Shape{3, 8}, s32}, -1, 1, func(x []*Node) *Node { return Sin(MatTMul(x[0], x[1])) }},
	{"MatTMulColumn", []Shape{Shape{3, 8}, s31}, -1, 1, func(x []*Node) *Node { return Sin(MatTMul(x[0], x[1])) }},
	// The loss is linear in p1, between two blocks that are not: p1 has no
	// Hessian segment, and the state must be reset around it.
	{"LinearBlock", []Shape{s34, s34, s34}, -1, 1, func(x []*Node) *Node {
		return Add(Add(Mul(Sin(x[0]), x[2]), x[1]), Square(x[2]))
	}},
	{"MatMulShapes", []Shape{Shape{3, 8}, Shape{8, 5}, Shape{6, 8}}, -1, 1, func(x []*Node) *Node {
		// K = 8, M = 5 and 6: the unrolled and remainder paths.
		return Add(Sum(Square(MatMul(x[0], x[1]))), Sum(Sin(MatMulT(x[0], x[2]))))
	}},
}

// buildCase returns a graph evaluating L = sum(C * f(params)) with random C.
func buildCase(c opCase, rng *rand.Rand) (g *Graph, loss *Node, params Params, weights []float64) {
	g = NewGraph()
	for k, s := range c.shapes {
		params = append(params, g.Param(fmt.Sprintf("p%d", k), s.Rows, s.Cols))
	}
	out := c.f(params)
	cw := g.Param("C", out.shape.Rows, out.shape.Cols)
	weights = make([]float64, out.shape.Size())
	for i := range weights {
		weights[i] = rng.Float64()*2 - 1
	}
	loss = Sum(Mul(out, cw))
	return g, loss, append(params, cw), weights
}

func TestOpDerivatives(t *testing.T) {
	t.Parallel()
	for _, c := range opCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			g, loss, all, cw := buildCase(c, rng)
			params := all[:len(all)-1]
			P := params.Size()
			x := make([]float64, P)
			for i := range x {
				x[i] = c.lo + (c.hi-c.lo)*rng.Float64()
			}
			grads := Grad(loss, params...)
			prog := g.Compile(append([]*Node{loss}, grads...)...)
			prog.Bind(all[len(all)-1], cw)
			w := make([]float64, P)
			params.Bind(prog, w)
			f := func(z []float64) float64 {
				copy(w, z)
				prog.Run()
				return prog.Scalar(loss)
			}
			got := make([]float64, P)
			copy(w, x)
			prog.Run()
			params.Gather(prog, grads, got)
			want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			for i := range got {
				if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-7, 1e-6) {
					t.Errorf("gradient[%d]: got %.10g want %.10g", i, got[i], want[i])
				}
			}

			// Second derivatives: exact Hessian by HVPs against central
			// differences of the (checked) analytic gradient.
			h := NewHessian(loss, params)
			h.Prog.Bind(all[len(all)-1], cw)
			hw := make([]float64, P)
			params.Bind(h.Prog, hw)
			copy(hw, x)
			H := make([]float64, P*P)
			h.ComputeTo(H)
			const step = 1e-5
			gp, gm := make([]float64, P), make([]float64, P)
			for j := 0; j < P; j++ {
				copy(w, x)
				w[j] += step
				prog.Run()
				params.Gather(prog, grads, gp)
				w[j] -= 2 * step
				prog.Run()
				params.Gather(prog, grads, gm)
				for i := 0; i < P; i++ {
					want := (gp[i] - gm[i]) / (2 * step)
					if !scalar.EqualWithinAbsOrRel(H[i*P+j], want, 1e-6, 1e-5) {
						t.Errorf("hessian[%d,%d]: got %.10g want %.10g", i, j, H[i*P+j], want)
					}
				}
			}
			for i := 0; i < P; i++ {
				for j := 0; j < i; j++ {
					if !scalar.EqualWithinAbsOrRel(H[i*P+j], H[j*P+i], 1e-12, 1e-10) {
						t.Errorf("hessian not symmetric at %d,%d: %g vs %g", i, j, H[i*P+j], H[j*P+i])
					}
				}
			}
		})
	}
}

func TestStopGradient(t *testing.T) {
	t.Parallel()
	g := NewGraph()
	a := g.Param("a", 1, 3)
	loss := Sum(Mul(a, StopGradient(a))) // d/da = stop(a), not 2a
	grad := Grad(loss, a)[0]
	prog := g.Compile(loss, grad)
	prog.Set(a, []float64{1, -2, 3})
	prog.Run()
	for i, want := range []float64{1, -2, 3} {
		if got := prog.Value(grad)[i]; got != want {
			t.Errorf("grad[%d] = %g, want %g", i, got, want)
		}
	}
}

// Row is its values as one row of constants, which a batch's rows
// broadcast against, and a program of it has no input to set.
func TestRow(t *testing.T) {
	t.Parallel()
	for _, v := range [][]float64{{2.5}, {1, -2, 3}} {
		g := NewGraph()
		x := g.Input("x", 2, len(v))
		row := g.Row(v)
		if s := row.Shape(); s.Rows != 1 || s.Cols != len(v) {
			t.Fatalf("Row(%v): shape %v, want 1x%d", v, s, len(v))
		}
		y := Add(x, row)
		prog := g.Compile(y)
		prog.Set(x, make([]float64, 2*len(v)))
		prog.Run()
		got := prog.Value(y)
		for r := 0; r < 2; r++ {
			for j, want := range v {
				if got[r*len(v)+j] != want {
					t.Errorf("Row(%v): row %d of x + Row is %v, want %v", v, r, got[r*len(v):(r+1)*len(v)], v)
				}
			}
		}
	}
}

// Cols puts its columns side by side, in order, and the gradient of a
// sum over it reaches each column; one column is itself.
func TestCols(t *testing.T) {
	t.Parallel()
	g := NewGraph()
	a, b := g.Param("a", 3, 1), g.Param("b", 3, 1)
	c := Cols(a, Scale(b, 2), a)
	if s := c.Shape(); s.Rows != 3 || s.Cols != 3 {
		t.Fatalf("shape %v, want 3x3", s)
	}
	if Cols(a) != a {
		t.Error("one column is not itself")
	}
	loss := Sum(Mul(c, c))
	grads := Grad(loss, a, b)
	prog := g.Compile(append([]*Node{c}, grads...)...)
	av, bv := []float64{1, 2, 3}, []float64{-1, 0.5, 4}
	prog.Bind(a, av)
	prog.Bind(b, bv)
	prog.Run()
	got := prog.Value(c)
	for i := range 3 {
		if row, want := got[3*i:3*i+3], []float64{av[i], 2 * bv[i], av[i]}; !slices.Equal(row, want) {
			t.Errorf("row %d: %v, want %v", i, row, want)
		}
		if ga, gb := prog.Value(grads[0])[i], prog.Value(grads[1])[i]; ga != 4*av[i] || gb != 8*bv[i] {
			t.Errorf("row %d: gradients %v, %v; want %v, %v", i, ga, gb, 4*av[i], 8*bv[i])
		}
	}
}

func TestShapePanics(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		f    func(g *Graph)
	}{
		{"Add", func(g *Graph) { Add(g.Param("a", 2, 3), g.Param("b", 3, 2)) }},
		{"MatMul", func(g *Graph) { MatMul(g.Param("a", 2, 3), g.Param("b", 2, 3)) }},
		{"SliceCol", func(g *Graph) { SliceCol(g.Param("a", 2, 3), 3) }},
		{"GradNotScalar", func(g *Graph) { Grad(g.Param("a", 2, 3), g.Param("b", 1, 1)) }},
		{"Shape", func(g *Graph) { g.Input("x", 0, 2) }},
		{"SetLength", func(g *Graph) {
			a := g.Param("a", 2, 2)
			g.Compile(Sum(a)).Set(a, []float64{1})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatalf("%s: no panic", c.name)
				}
				if msg := fmt.Sprint(r); len(msg) < 10 {
					t.Errorf("panic message %q does not say what is wrong", msg)
				}
			}()
			c.f(NewGraph())
		})
	}
}

func TestTanhAccuracy(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{-30, -5, -1, -1e-3, -1e-12, 0, 1e-12, 1e-3, 0.5, 3, 19.9, 25} {
		if got, want := tanh(x), math.Tanh(x); !scalar.EqualWithinAbsOrRel(got, want, 1e-300, 4e-16) {
			t.Errorf("tanh(%g) = %.17g, want %.17g", x, got, want)
		}
	}
}
