package band

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// TestWidenedSameOutputs: the widened network computes the same outputs,
// bit for bit, on one hidden layer and on three, and its new units see
// the inputs (one hidden layer) or the layer below (hiddenValues, checked
// against the network's own forward pass); so on a mapped network (the
// box [0, 10] x [100, 300]), whose maps both keep.
func TestWidenedSameOutputs(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		testWidenedSameOutputs(t, mapped)
	}
}

func testWidenedSameOutputs(t *testing.T, mapped bool) {
	p := &pde.Problem{Lo: []float64{-1, 0}, Hi: []float64{1, 2}}
	if mapped {
		p.Lo, p.Hi = []float64{0, 100}, []float64{10, 300}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sizes := range [][]int{{2, 6, 1}, {2, 5, 4, 3, 2}} {
		net := nn.New(sizes, nn.Tanh, rng)
		if mapped {
			net.BoxMap(p.Lo, p.Hi)
			out := sizes[len(sizes)-1]
			net.SetOutputMap(slices.Repeat([]float64{7}, out), slices.Repeat([]float64{30}, out))
		}
		w := widened(net, p, 17, rand.New(rand.NewPCG(3, 4)))
		if got, want := w.Sizes[len(sizes)-2], sizes[len(sizes)-2]+17; got != want {
			t.Fatalf("%v: last hidden layer %d units, want %d", sizes, got, want)
		}
		for i := 0; i < 20; i++ {
			x := []float64{p.Lo[0] + (p.Hi[0]-p.Lo[0])*rng.Float64(), p.Lo[1] + (p.Hi[1]-p.Lo[1])*rng.Float64()}
			if a, b := net.Eval(x, nil), w.Eval(x, nil); !slices.Equal(a, b) {
				t.Fatalf("%v at %v: widened %v, net %v", sizes, x, b, a)
			}
		}
		below := hiddenValues(net, len(sizes)-3)
		if len(sizes) == 3 {
			if below != nil {
				t.Errorf("%v: one hidden layer, yet hiddenValues is not nil", sizes)
			}
			continue
		}
		x := []float64{0.3, 1.1}
		h := net.MapInput(x)
		for l := 0; l < len(sizes)-3; l++ { // the forward pass up to the layer below the last hidden one
			wl, bl := net.Layer(l)
			next := make([]float64, sizes[l+1])
			for j := range next {
				s := bl[j]
				for i, v := range h {
					s += wl[j*len(h)+i] * v
				}
				next[j] = math.Tanh(s)
			}
			h = next
		}
		if got := below(x); !slices.EqualFunc(got, h, func(a, b float64) bool { return math.Abs(a-b) < 1e-15 }) {
			t.Errorf("%v: hiddenValues %v, the forward pass %v", sizes, got, h)
		}
	}
}

// TestLeastSquares: on a full-rank tall system the truncated SVD solve is
// the least-squares solution (gonum's QR solve), whatever the columns'
// scales; on a rank-deficient one it is the minimum-norm solution, the
// duplicated column's weight split evenly.
func TestLeastSquares(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, c := 40, 6
	A := mat.NewDense(n, c, nil)
	b := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			A.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(j-3)))
		}
		b[i] = rng.NormFloat64()
	}
	var want mat.VecDense
	if err := want.SolveVec(A, mat.NewVecDense(n, b)); err != nil {
		t.Fatal(err)
	}
	got, err := leastSquares(mat.DenseCopyOf(A), b, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	for j := range got {
		if math.Abs(got[j]-want.AtVec(j)) > 1e-9*math.Abs(want.AtVec(j)) {
			t.Errorf("x[%d] = %g, want %g", j, got[j], want.AtVec(j))
		}
	}
	// two equal columns: x0 + x1 is determined, the minimum norm splits it
	D := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		v := rng.NormFloat64()
		D.Set(i, 0, v)
		D.Set(i, 1, v)
		b[i] = 3 * v
	}
	x, err := leastSquares(D, b, 1e-8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(x[0]-1.5) > 1e-12 || math.Abs(x[1]-1.5) > 1e-12 {
		t.Errorf("rank-deficient: x = %v, want [1.5 1.5]", x)
	}
}

// TestEstimateWarnings: a scale above ValueOverconfident/2 warns of an
// overconfident band, below ValueNarrow/2 of a band too wide, naming the
// output when there are several; none between.
func TestEstimateWarnings(t *testing.T) {
	if w := estimateWarnings([]float64{1}, []string{"u"}); w != nil {
		t.Errorf("scale 1: %q, want none", w)
	}
	w := estimateWarnings([]float64{2, 0.3}, []string{"u", "v"})
	if len(w) != 2 || !strings.Contains(w[0], "band of u is likely overconfident") || !strings.Contains(w[1], "band of v is likely too wide") {
		t.Errorf("scales 2, 0.3: %q", w)
	}
	if w := estimateWarnings([]float64{0.3}, []string{"u"}); len(w) != 1 || !strings.Contains(w[0], "2-sigma band is likely too wide") {
		t.Errorf("scale 0.3: %q", w)
	}
}

// TestLeastSquaresAsSVD: the bidiagonal route (xGELSS's) gives the thin
// SVD's truncated solution on an ill-conditioned matrix of random tanh
// features, as the error estimate's are (singular values spread below
// the cutoff, so directions are dropped): the same kept directions, and
// solutions and fitted values equal to rounding.
func TestLeastSquaresAsSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, c := 300, 120
	A := mat.NewDense(n, c, nil)
	b := make([]float64, n)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.Float64()
		b[i] = math.Sin(7*xs[i]) + 0.01*rng.NormFloat64()
	}
	for j := 0; j < c; j++ {
		slope, at := math.Exp(rng.Float64()*math.Log(40)), rng.Float64()
		for i, x := range xs {
			A.Set(i, j, math.Tanh(slope*(x-at)))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDNone) {
		t.Fatal("no SVD")
	}
	sv := svd.Values(nil)
	const rcond = 1e-8
	if sv[len(sv)-1] > rcond*sv[0] {
		t.Fatalf("condition %g: this test needs directions below the cutoff", sv[0]/sv[len(sv)-1])
	}
	want, err := leastSquaresSVD(mat.DenseCopyOf(A), b, rcond)
	if err != nil {
		t.Fatal(err)
	}
	got, err := leastSquares(mat.DenseCopyOf(A), b, rcond)
	if err != nil {
		t.Fatal(err)
	}
	var dx, nx float64
	for j := range got {
		dx += (got[j] - want[j]) * (got[j] - want[j])
		nx += want[j] * want[j]
	}
	fit := func(x []float64) *mat.VecDense {
		var v mat.VecDense
		v.MulVec(A, mat.NewVecDense(c, x))
		return &v
	}
	var df mat.VecDense
	df.SubVec(fit(got), fit(want))
	t.Logf("solutions %.3g, fitted %.3g, condition %.3g", math.Sqrt(dx/nx), mat.Norm(&df, 2)/mat.Norm(fit(want), 2), sv[0]/sv[len(sv)-1])
	if r := math.Sqrt(dx / nx); !(r < 1e-6) || !(mat.Norm(&df, 2) < 1e-9*mat.Norm(fit(want), 2)) {
		t.Errorf("relative difference of the solutions %g, of the fitted values %g; want both at rounding", r, mat.Norm(&df, 2)/mat.Norm(fit(want), 2))
	}
}

// TestLeastSquaresDeflated: where a few directions fall below the cutoff
// (1 to maxDeflated), the deflated bidiagonal solve takes them out
// without B's singular vectors and gives solveSVD's truncated solution to
// rounding; with none below it too, and with a zero column (its weight
// zero); with more than maxDeflated it declines.
func TestLeastSquaresDeflated(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n, c := 200, 60
	for _, drops := range []int{0, 1, 3, maxDeflated, maxDeflated + 5} {
		A, b := spectrumMatrix(rng, n, c, drops)
		scaled := mat.DenseCopyOf(A)
		columnScale(scaled)
		bd := bidiagonalize(mat.DenseCopyOf(scaled), b)
		got, ok := bd.solveDeflated(1e-8)
		want, err := bidiagonalize(mat.DenseCopyOf(scaled), b).solveSVD(1e-8)
		if err != nil {
			t.Fatal(err)
		}
		if drops > maxDeflated {
			if ok {
				t.Errorf("%d directions below the cutoff: deflated, want solveSVD", drops)
			}
			continue
		}
		if !ok {
			t.Fatalf("%d directions below the cutoff: not deflated", drops)
		}
		var dx, nx float64
		for j := range got {
			dx += (got[j] - want[j]) * (got[j] - want[j])
			nx += want[j] * want[j]
		}
		if r := math.Sqrt(dx / nx); !(r < 1e-10) {
			t.Errorf("%d below the cutoff: deflated and SVD solutions differ by %.3g (relative)", drops, r)
		}
	}
	// a zero column: a direction of singular value zero, deflated too
	A, b := spectrumMatrix(rng, n, c, 0)
	for i := range n {
		A.Set(i, 7, 0)
	}
	columnScale(A)
	got, ok := bidiagonalize(mat.DenseCopyOf(A), b).solveDeflated(1e-8)
	want, err := bidiagonalize(mat.DenseCopyOf(A), b).solveSVD(1e-8)
	if err != nil {
		t.Fatal(err)
	}
	if top := floats.Norm(want, math.Inf(1)); !ok || !(math.Abs(got[7]) < 1e-10*top) || !(floats.Distance(got, want, 2) < 1e-10*floats.Norm(want, 2)) {
		t.Errorf("a zero column: deflated %v, its weight %g (largest %g), |x - solveSVD's| %g; want 0 and equal, to rounding", ok, got[7], top, floats.Distance(got, want, 2))
	}
}

// spectrumMatrix is an n x c matrix U diag(s) V^T of random orthonormal U
// and V, its singular values spread from 1 to 1e-6 but for `below` of
// them at 1e-10 to 1e-12 (under a cutoff of 1e-8), and a random b.
func spectrumMatrix(rng *rand.Rand, n, c, below int) (*mat.Dense, []float64) {
	orth := func(r int) *mat.Dense {
		G := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				G.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(G)
		var Q mat.Dense
		qr.QTo(&Q)
		return mat.DenseCopyOf(Q.Slice(0, r, 0, c))
	}
	U, V := orth(n), orth(c)
	for j := range c {
		s := math.Pow(1e-6, float64(j)/float64(c-below-1))
		if j >= c-below {
			s = math.Pow(10, -10-2*rng.Float64())
		}
		for i := range n {
			U.Set(i, j, U.At(i, j)*s)
		}
	}
	var A mat.Dense
	A.Mul(U, V.T())
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return &A, b
}
