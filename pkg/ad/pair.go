package ad

// polyPair evaluates two terms in one pass, ca*a0*... + cb*b0*..., with
// fewer loads and stores of y than two passes. set writes c0 plus the
// terms, otherwise they are added to y. Factor counts na, nb are 1 to 3.
//
// Long because it is one unrolled loop per pair of factor counts: the hot
// kernel, written out so that no loop over the factors runs per element.
func polyPair(y []float64, set bool, c0, ca, cb float64, a, b *[maxFactors][]float64, na, nb int) {
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
