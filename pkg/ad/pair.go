package ad

// Modes of polyVec, the assembly of the fused polynomials' loops.
const (
	vecSet     = iota // y = c*a0*... + c0 (polySet1-3)
	vecAdd            // y += c*a0*... (polyAdd1-3)
	vecPairSet        // y = c0 + ca*a0*... + cb*b0*... (polyPair, set)
	vecPairAdd        // y += ca*a0*... + cb*b0*... (polyPair)
)

// polyVecHead evaluates the first len(y) &^ 3 values of a term or pair of
// terms (mode) by polyVec, with AVX2, and returns how many it did (0
// without): the same operations in the same order as the Go loops, 4
// values at a time.
func polyVecHead(y []float64, mode int, c0, ca, cb float64, a, b *[maxFactors][]float64, na, nb int) int {
	n := len(y) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	var pa, pb [3]*float64
	for f := range na {
		pa[f] = &a[f][:n][0]
	}
	for f := range nb {
		pb[f] = &b[f][:n][0]
	}
	polyVec(&y[0], pa[0], pa[1], pa[2], pb[0], pb[1], pb[2], na, nb, ca, cb, c0, mode, n)
	return n
}

// tails is the first nf factors from value k on.
func tails(f *[maxFactors][]float64, nf, k int) (t [maxFactors][]float64) {
	for i := range nf {
		t[i] = f[i][k:]
	}
	return t
}

// polyPair evaluates two terms in one pass, ca*a0*... + cb*b0*..., with
// fewer loads and stores of y than two passes. set writes c0 plus the
// terms, otherwise they are added to y. Factor counts na, nb are 1 to 3.
func polyPair(y []float64, set bool, c0, ca, cb float64, a, b *[maxFactors][]float64, na, nb int) {
	mode := vecPairAdd
	if set {
		mode = vecPairSet
	}
	k := polyVecHead(y, mode, c0, ca, cb, a, b, na, nb)
	if k == len(y) {
		return
	}
	ta, tb := tails(a, na, k), tails(b, nb, k)
	polyPairGo(y[k:], set, c0, ca, cb, &ta, &tb, na, nb)
}

// polyPairGo is polyPair in Go.
//
// Long because it is one unrolled loop per pair of factor counts: the hot
// kernel, written out so that no loop over the factors runs per element.
func polyPairGo(y []float64, set bool, c0, ca, cb float64, a, b *[maxFactors][]float64, na, nb int) {
	m := len(y)
	if !set {
		c0 = 0
	}
	switch na*4 + nb {
	case 5:
		a0 := a[0][:m]
		b0 := b[0][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i] + cb*b0[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i] + cb*b0[i]
			}
		}
	case 6:
		a0 := a[0][:m]
		b0 := b[0][:m]
		b1 := b[1][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i] + cb*b0[i]*b1[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i] + cb*b0[i]*b1[i]
			}
		}
	case 7:
		a0 := a[0][:m]
		b0 := b[0][:m]
		b1 := b[1][:m]
		b2 := b[2][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i] + cb*b0[i]*b1[i]*b2[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i] + cb*b0[i]*b1[i]*b2[i]
			}
		}
	case 9:
		a0 := a[0][:m]
		a1 := a[1][:m]
		b0 := b[0][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i]*a1[i] + cb*b0[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i]*a1[i] + cb*b0[i]
			}
		}
	case 10:
		a0 := a[0][:m]
		a1 := a[1][:m]
		b0 := b[0][:m]
		b1 := b[1][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i]*a1[i] + cb*b0[i]*b1[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i]*a1[i] + cb*b0[i]*b1[i]
			}
		}
	case 11:
		a0 := a[0][:m]
		a1 := a[1][:m]
		b0 := b[0][:m]
		b1 := b[1][:m]
		b2 := b[2][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i]*a1[i] + cb*b0[i]*b1[i]*b2[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i]*a1[i] + cb*b0[i]*b1[i]*b2[i]
			}
		}
	case 13:
		a0 := a[0][:m]
		a1 := a[1][:m]
		a2 := a[2][:m]
		b0 := b[0][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i]*a1[i]*a2[i] + cb*b0[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i]*a1[i]*a2[i] + cb*b0[i]
			}
		}
	case 14:
		a0 := a[0][:m]
		a1 := a[1][:m]
		a2 := a[2][:m]
		b0 := b[0][:m]
		b1 := b[1][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i]*a1[i]*a2[i] + cb*b0[i]*b1[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i]*a1[i]*a2[i] + cb*b0[i]*b1[i]
			}
		}
	case 15:
		a0 := a[0][:m]
		a1 := a[1][:m]
		a2 := a[2][:m]
		b0 := b[0][:m]
		b1 := b[1][:m]
		b2 := b[2][:m]
		if set {
			for i := range y {
				y[i] = c0 + ca*a0[i]*a1[i]*a2[i] + cb*b0[i]*b1[i]*b2[i]
			}
		} else {
			for i := range y {
				y[i] += ca*a0[i]*a1[i]*a2[i] + cb*b0[i]*b1[i]*b2[i]
			}
		}
	}
}
