package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// naive products, summing in the same order as the kernels.
func naiveMatMul(a, b []float64, n, k, m int) []float64 {
	y := make([]float64, n*m)
	for r := 0; r < n; r++ {
		for j := 0; j < m; j++ {
			for i := 0; i < k; i++ {
				y[r*m+j] += a[r*k+i] * b[i*m+j]
			}
		}
	}
	return y
}

func transpose(x []float64, rows, cols int) []float64 {
	t := make([]float64, len(x))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t[c*rows+r] = x[r*cols+c]
		}
	}
	return t
}

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()*2 - 1
	}
	return x
}

func checkClose(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-14, 1e-13) {
			t.Fatalf("%s[%d]: got %.17g want %.17g", what, i, got[i], want[i])
		}
	}
}

// TestKernels checks the matrix kernels (every block size and the
// assembly on amd64) against naive loops.
func TestKernels(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 3, 17} {
		for _, k := range []int{1, 2, 3, 4, 5, 8, 9} {
			for _, m := range []int{1, 2, 3, 4, 5, 6, 8, 12, 16, 40} {
				name := fmt.Sprintf("n%d k%d m%d", n, k, m)
				a, b := randSlice(rng, n*k), randSlice(rng, k*m)
				want := naiveMatMul(a, b, n, k, m)
				y := make([]float64, n*m)
				matMul(y, a, b, n, k, m)
				checkClose(t, name+" matMul", y, want)
				fill(y, 0)
				matMulT(y, a, transpose(b, k, m), n, k, m)
				checkClose(t, name+" matMulT", y, want)
				fill(y, 0)
				rowTimes(y, a, b, n, k, m)
				checkClose(t, name+" rowTimes", y, want)

				// a^T c with a N x K and c N x M is naiveMatMul(a^T, c).
				c := randSlice(rng, n*m)
				want = naiveMatMul(transpose(a, n, k), c, k, n, m)
				yt := make([]float64, k*m)
				matTMul(yt, a, c, n, k, m)
				checkClose(t, name+" matTMul", yt, want)
				fill(yt, 0)
				tMulRowsGo(yt, a, c, n, k, m)
				checkClose(t, name+" tMulRowsGo", yt, want)
			}
		}
	}
}

// fmaMatMul is y = a b (a NxK, b KxM) with each output one chain of fused
// multiply-adds from zero in increasing i: what mulFMA computes.
func fmaMatMul(a, b []float64, n, k, m int) []float64 {
	y := make([]float64, n*m)
	for r := 0; r < n; r++ {
		for j := 0; j < m; j++ {
			s := 0.0
			for i := 0; i < k; i++ {
				s = math.FMA(a[r*k+i], b[i*m+j], s)
			}
			y[r*m+j] = s
		}
	}
	return y
}

// TestKernelsFMA checks the assembly products (layers 8 or more wide) bit
// for bit against fmaMatMul: every block of 8 and 4 columns, of 4 and 1
// rows, and the last m%4 columns in Go, at unaligned offsets; the results
// must not depend on where a row or column sits.
func TestKernelsFMA(t *testing.T) {
	t.Parallel()
	if !useAVX2 {
		t.Skip("no assembly")
	}
	rng := rand.New(rand.NewPCG(5, 7))
	for _, n := range []int{1, 3, 4, 5, 8, 17} {
		for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 9, 20} {
			for _, m := range []int{8, 9, 10, 11, 12, 13, 15, 16, 20, 30, 40} {
				name := fmt.Sprintf("n%d k%d m%d", n, k, m)
				// Offsets of 1 element: the kernels load unaligned rows.
				a, b := randSlice(rng, n*k+1)[1:], randSlice(rng, k*m+1)[1:]
				want := fmaMatMul(a, b, n, k, m)
				y := make([]float64, n*m+1)[1:]
				matMul(y, a, b, n, k, m)
				checkBits(t, name+" matMul", y, want)
				if k > 2 { // k <= 2: matMulT's own loops, without FMA
					fill(y, 0)
					matMulT(y, a, transpose(b, k, m), n, k, m)
					checkBits(t, name+" matMulT", y, want)
				}

				c := randSlice(rng, n*m+1)[1:]
				want = fmaMatMul(transpose(a, n, k), c, k, n, m)
				yt := make([]float64, k*m+1)[1:]
				matTMul(yt, a, c, n, k, m)
				checkBits(t, name+" matTMul", yt, want)
			}
			// a^T c with c narrow (M = 2 < K): accumulated as (c^T a)^T.
			if k >= 8 {
				a, c := randSlice(rng, n*k), randSlice(rng, n*2)
				want := transpose(fmaMatMul(transpose(c, n, 2), a, 2, n, k), 2, k)
				yt := make([]float64, k*2)
				matTMul(yt, a, c, n, k, 2)
				checkBits(t, fmt.Sprintf("n%d k%d m2 matTMul", n, k), yt, want)
			}
		}
	}
}

func checkBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s[%d]: got %.17g want %.17g (bit for bit)", what, i, got[i], want[i])
		}
	}
}

// tanhModel is tanh8 (kernels_amd64.s) written out in Go, operation by
// operation with the same roundings: the assembly must match it bit for bit.
func tanhModel(x float64) float64 {
	z := math.Abs(x)
	s := z * z
	p := math.FMA(s, tanhP0, tanhP1)
	p = math.FMA(s, p, tanhP2)
	q := math.FMA(s, s+tanhQ0, tanhQ1)
	q = math.FMA(s, q, tanhQ2)
	b := z * s
	zc := math.Min(z, 20)
	if math.IsNaN(z) {
		zc = 20 // VMINPD returns its second operand
	}
	t := math.FMA(zc, -2*log2e, 1.5*(1<<52))
	k := t - 1.5*(1<<52)
	h := math.FMA(k, ln2Hi/2, zc)
	h = math.FMA(k, ln2Lo/2, h)
	h2 := h * h
	even, odd := expM2[12], expM2[13]
	for n := 10; n >= 2; n -= 2 {
		even = math.FMA(even, h2, expM2[n])
		odd = math.FMA(odd, h2, expM2[n+1])
	}
	e := math.FMA(h, odd, even)
	e = math.FMA(e, h, expM2[1])
	e = math.FMA(e, h, 1)
	e = math.Float64frombits(math.Float64bits(e) + math.Float64bits(t)<<52)
	a := z
	if z >= tanhSmall {
		a, b, p, q = 1, -2, e, e+1
	}
	return math.Float64frombits(math.Float64bits(math.FMA(b, p/q, a)) | math.Float64bits(x)&(1<<63))
}

// tanhInputs: the special values, a dense sweep of [-25, 25], and random
// values: log-uniform magnitudes from 1e-320 to 1e3 of both signs, and
// uniform on [-25, 25].
func tanhInputs() []float64 {
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		5e-324, -5e-324, 1e-310, 1e-300, -1e-300, 1e-20, 1e-8, tanhSmall,
		math.Nextafter(tanhSmall, 0), -tanhSmall, 19.06, 19.1, 20, -20, 20.5, 22, 1e300, -math.MaxFloat64}
	for x := -25.0; x <= 25; x += 1.0 / 4096 {
		xs = append(xs, x)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for range 200000 {
		x := math.Pow(10, -320+323*rng.Float64())
		if rng.IntN(2) == 0 {
			x = -x
		}
		xs = append(xs, x, 50*rng.Float64()-25)
	}
	return xs
}

// ulpDiff is the distance of a and b in units in the last place (0 for two
// NaNs or ±0 of the same sign).
func ulpDiff(a, b float64) uint64 {
	if math.IsNaN(a) && math.IsNaN(b) {
		return 0
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.Signbit(a) != math.Signbit(b) {
		return math.MaxUint64
	}
	ia, ib := math.Float64bits(a), math.Float64bits(b)
	return max(ia, ib) - min(ia, ib)
}

// TestTanhTo checks tanhTo (the assembly where available), the Go loop and
// the model of the assembly against math.Tanh: at most 2 ulp apart (so at
// most 4.5e-16 relative), signs of zero kept, NaN for NaN; and for every
// slice length 0..17 at unaligned offsets, and in place, that each value
// gets the same bits wherever it sits.
func TestTanhTo(t *testing.T) {
	t.Parallel()
	xs := tanhInputs()
	for _, impl := range []struct {
		name string
		f    func(y, a []float64)
	}{{"tanhTo", tanhTo}, {"tanhToGo", tanhToGo}, {"tanhModel", func(y, a []float64) {
		for i, x := range a {
			y[i] = tanhModel(x)
		}
	}}} {
		y := make([]float64, len(xs))
		impl.f(y, xs)
		var worst uint64
		var worstRel float64
		for i, x := range xs {
			want := math.Tanh(x)
			d := ulpDiff(y[i], want)
			if d > 2 {
				t.Fatalf("%s(%.17g) = %.17g, want %.17g", impl.name, x, y[i], want)
			}
			worst = max(worst, d)
			if want != 0 && !math.IsNaN(want) {
				worstRel = max(worstRel, math.Abs(y[i]-want)/math.Abs(want))
			}
		}
		t.Logf("%s: max %d ulp, %.3g relative from math.Tanh", impl.name, worst, worstRel)

		buf := make([]float64, 24)
		for _, base := range []int{0, len(xs) - 24} { // the special values, random values
			for n := 0; n <= 17; n++ {
				for off := 0; off < 4; off++ {
					a, want := xs[base+off:base+off+n], y[base+off:base+off+n]
					out := buf[off : off+n]
					impl.f(out, a)
					for i := range a {
						if ulpDiff(out[i], want[i]) != 0 {
							t.Fatalf("%s: n %d offset %d [%d]: %v, alone %v", impl.name, n, off, i, out[i], want[i])
						}
					}
					copy(out, a)
					impl.f(out, out)
					for i := range a {
						if ulpDiff(out[i], want[i]) != 0 {
							t.Fatalf("%s: in place, n %d offset %d [%d]: %v, want %v", impl.name, n, off, i, out[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestTanhModel checks the assembly against its Go model bit for bit.
func TestTanhModel(t *testing.T) {
	t.Parallel()
	if !useAVX2 {
		t.Skip("no assembly")
	}
	xs := tanhInputs()
	y := make([]float64, len(xs))
	tanhTo(y, xs)
	for i, x := range xs {
		if want := tanhModel(x); ulpDiff(y[i], want) != 0 {
			t.Fatalf("tanh8(%.17g) = %.17g, model %.17g", x, y[i], want)
		}
	}
}

func benchTanh(b *testing.B, f func(y, a []float64)) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, 600) // pre-activations of 100 points x 6 units
	for i := range a {
		a[i] = 1.5 * rng.NormFloat64()
	}
	y := make([]float64, len(a))
	for b.Loop() {
		f(y, a)
	}
}

func BenchmarkTanhScalar_600(b *testing.B) { benchTanh(b, tanhToGo) }
func BenchmarkTanhVec_600(b *testing.B)    { benchTanh(b, tanhTo) }

// TestPolyVec checks the assembly of the fused polynomials against their
// Go loops bit for bit: every pair of factor counts and every single term,
// set and added, on lengths 0 to 13 (the last len%4 values by Go).
func TestPolyVec(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		}
		return v
	}
	for n := range 14 {
		var a, b [maxFactors][]float64
		for f := range a {
			a[f], b[f] = vec(n), vec(n)
		}
		y0 := vec(n)
		c0, ca, cb := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		for _, set := range []bool{true, false} {
			for na := 1; na <= 3; na++ {
				for nb := 1; nb <= 3; nb++ {
					got, want := slices.Clone(y0), slices.Clone(y0)
					polyPair(got, set, c0, ca, cb, &a, &b, na, nb)
					polyPairGo(want, set, c0, ca, cb, &a, &b, na, nb)
					sameBits(t, fmt.Sprintf("pair %d,%d set %v n %d", na, nb, set, n), got, want)
				}
				got, want := slices.Clone(y0), slices.Clone(y0)
				polyTerm(nil, got, set, c0, ca, &a, na)
				switch {
				case set && na == 1:
					polySet1(want, ca, c0, a[0])
				case set && na == 2:
					polySet2(want, ca, c0, a[0], a[1])
				case set:
					polySet3(want, ca, c0, a[0], a[1], a[2])
				case na == 1:
					polyAdd1(want, ca, a[0])
				case na == 2:
					polyAdd2(want, ca, a[0], a[1])
				default:
					polyAdd3(want, ca, a[0], a[1], a[2])
				}
				sameBits(t, fmt.Sprintf("term %d set %v n %d", na, set, n), got, want)
			}
		}
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, Go %v", what, i, got[i], want[i])
		}
	}
}

// TestSumRowsOuter checks the assembly of the row sums, the row-wise
// outer products and the products by a transposed 2-column matrix against
// their Go loops bit for bit, on widths 1 to 37
// (16- and 4-column blocks and the Go tail) and 0 to 5 rows.
func TestSumRowsOuter(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		}
		return v
	}
	for _, m := range []int{129, 306, 2048} { // the larger buffer of matMulT2
		a2, b2 := vec(5*2), vec(m*2)
		got2, want2 := vec(5*m), make([]float64, 5*m)
		matMulT2(got2, a2, b2, 5, m)
		matMulT2Go(want2, a2, b2, 5, m, 0)
		if !slices.Equal(got2, want2) {
			t.Fatalf("matMulT2 m=%d: %v, the loop %v", m, got2, want2)
		}
	}
	for k := 1; k <= 37; k++ {
		for rows := range 6 {
			a, y0 := vec(rows*k), vec(k)
			got, want := slices.Clone(y0), slices.Clone(y0)
			sumRowsTo(got, a, k)
			sumRowsGo(want, a, k, 0)
			if !slices.Equal(got, want) {
				t.Fatalf("sumRows k=%d rows=%d: %v, the loop %v", k, rows, got, want)
			}
			a2, b2 := vec(rows*2), vec(k*2)
			got2, want2 := vec(rows*k), make([]float64, rows*k)
			matMulT2(got2, a2, b2, rows, k)
			matMulT2Go(want2, a2, b2, rows, k, 0)
			if !slices.Equal(got2, want2) {
				t.Fatalf("matMulT2 m=%d rows=%d: %v, the loop %v", k, rows, got2, want2)
			}
			for _, ka := range []int{1, 2, 5} {
				a, b := vec(rows*ka), vec(rows*k)
				got, want := vec(rows*ka*k), make([]float64, rows*ka*k)
				rowOuterTo(got, a, b, rows, ka, k)
				rowOuterGo(want, a, b, rows, ka, k, 0)
				if !slices.Equal(got, want) {
					t.Fatalf("rowOuter ka=%d kb=%d rows=%d: %v, the loop %v", ka, k, rows, got, want)
				}
			}
		}
	}
}
