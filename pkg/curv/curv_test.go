package curv_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// randomSystem has alpha groups interleaved (not contiguous) and beta groups
// of the given sizes; J entries N(0, 1).
func randomSystem(seed uint64, P int, rows []int) *curv.System {
	rng := rand.New(rand.NewPCG(seed, 7))
	s := &curv.System{P: P, Alpha: []float64{0.3, 0.02}, AlphaOf: make([]int, P)}
	for k := range s.AlphaOf {
		s.AlphaOf[k] = (k / 3) % 2
	}
	for t, n := range rows {
		j := make([]float64, n*P)
		for i := range j {
			j[i] = rng.NormFloat64()
		}
		s.J = append(s.J, j)
		s.Beta = append(s.Beta, []float64{2, 50, 0.5}[t%3])
	}
	third := P / 3
	s.Layers = [][2]int{{0, third}, {third, P - 5}, {P - 5, P}}
	return s
}

// naive computes every trace from A^-1 and H_t formed entry by entry.
func naive(s *curv.System) *curv.Traces {
	P := s.P
	a := mat.NewDense(P, P, nil)
	hs := make([]*mat.Dense, len(s.J))
	for t, j := range s.J {
		n := s.Rows(t)
		jm := mat.NewDense(n, P, j)
		hs[t] = mat.NewDense(P, P, nil)
		hs[t].Mul(jm.T(), jm)
		var sc mat.Dense
		sc.Scale(s.Beta[t], hs[t])
		a.Add(a, &sc)
	}
	for k, g := range s.AlphaOf {
		a.Set(k, k, a.At(k, k)+s.Alpha[g])
	}
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		panic(err)
	}
	var lu mat.LU
	lu.Factorize(a)
	ld, _ := lu.LogDet()
	tr := &curv.Traces{LogDet: ld, TrAlpha: make([]float64, len(s.Alpha)), TrSqAlpha: make([]float64, len(s.Alpha)),
		TrBeta: make([]float64, len(s.J)), TrSqBeta: make([]float64, len(s.J))}
	for r := 0; r < P; r++ {
		for c := 0; c < P; c++ {
			if s.AlphaOf[r] == s.AlphaOf[c] {
				tr.TrSqAlpha[s.AlphaOf[r]] += inv.At(r, c) * inv.At(c, r)
			}
		}
		tr.TrAlpha[s.AlphaOf[r]] += inv.At(r, r)
	}
	for t, h := range hs {
		var m, m2 mat.Dense
		m.Mul(&inv, h)
		m2.Mul(&m, &m)
		tr.TrBeta[t], tr.TrSqBeta[t] = mat.Trace(&m), mat.Trace(&m2)
	}
	return tr
}

func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// worst returns the largest relative error of any trace and its name.
func worst(got, want *curv.Traces, squares bool) (float64, string) {
	e, name := relErr(got.LogDet, want.LogDet), "ln|A|"
	check := func(label string, g, w []float64) {
		for i := range w {
			if r := relErr(g[i], w[i]); r > e || math.IsNaN(r) {
				e, name = r, label
			}
		}
	}
	check("tr alpha", got.TrAlpha, want.TrAlpha)
	check("tr beta", got.TrBeta, want.TrBeta)
	if squares {
		check("tr^2 alpha", got.TrSqAlpha, want.TrSqAlpha)
		check("tr^2 beta", got.TrSqBeta, want.TrSqBeta)
	}
	return e, name
}

func compute(t *testing.T, s *curv.System, o curv.Options) *curv.Traces {
	t.Helper()
	tr, err := curv.Compute(s, o)
	if err != nil {
		t.Fatalf("%s: %v", o.Kind, err)
	}
	return tr
}

// The exact structures agree with the entry-by-entry computation to 1e-10,
// both when N > P and (Dual's case) when N < P; LowRank with rank P and
// Layers with one block over all weights are exact too.
func TestExactStructures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		P    int
		rows []int
	}{{30, []int{20, 15, 12}}, {60, []int{9, 4, 6}}} {
		s := randomSystem(uint64(c.P), c.P, c.rows)
		want := naive(s)
		for _, o := range []curv.Options{{Kind: curv.Dense}, {Kind: curv.Dual}, {Kind: curv.LowRank, Rank: c.P}} {
			o.Squares = o.Kind != curv.LowRank // its squares are Hutchinson's
			got := compute(t, s, o)
			tol := 1e-10
			if o.Kind == curv.LowRank {
				tol = 1e-8 // Lanczos' Ritz vectors to rounding of an P-step run
			}
			if e, name := worst(got, want, o.Squares); !(e < tol) {
				t.Errorf("P %d N %v %s: %s relative error %.3g, want < %g", c.P, c.rows, o.Kind, name, e, tol)
			}
		}
		one := *s
		one.Layers = [][2]int{{0, c.P}}
		got := compute(t, &one, curv.Options{Kind: curv.Layers, Squares: true})
		if e, name := worst(got, want, true); !(e < 1e-10) {
			t.Errorf("P %d: layers with one block: %s relative error %.3g", c.P, name, e)
		}
	}
}

// The diagonal structure against the formulas of a diagonal A computed here,
// and the block structures obey Fischer's inequality: ln|A| <= the sum of
// the ln-determinants of any block-diagonal part, with equality only for a
// block-diagonal A.
func TestBlockStructures(t *testing.T) {
	t.Parallel()
	s := randomSystem(3, 40, []int{30, 25, 10})
	d := compute(t, s, curv.Options{Kind: curv.Diag, Squares: true})
	ld, trA := 0.0, make([]float64, 2)
	trB := make([]float64, 3)
	for k := 0; k < s.P; k++ {
		a := s.Alpha[s.AlphaOf[k]]
		h := make([]float64, 3)
		for tt, j := range s.J {
			for i := 0; i < s.Rows(tt); i++ {
				h[tt] += j[i*s.P+k] * j[i*s.P+k]
			}
			a += s.Beta[tt] * h[tt]
		}
		ld += math.Log(a)
		trA[s.AlphaOf[k]] += 1 / a
		for tt := range h {
			trB[tt] += h[tt] / a
		}
	}
	want := &curv.Traces{LogDet: ld, TrAlpha: trA, TrBeta: trB}
	if e, name := worst(d, want, false); !(e < 1e-12) {
		t.Errorf("diag: %s relative error %.3g", name, e)
	}
	exact := compute(t, s, curv.Options{})
	last := compute(t, s, curv.Options{Kind: curv.LastLayer})
	layers := compute(t, s, curv.Options{Kind: curv.Layers})
	if !(exact.LogDet < layers.LogDet && layers.LogDet <= last.LogDet+1e-9 && last.LogDet < d.LogDet) {
		t.Errorf("Fischer: ln|A| %.6g, layers %.6g, last layer %.6g, diag %.6g: want increasing", exact.LogDet, layers.LogDet, last.LogDet, d.LogDet)
	}
}

// The diag structure from the column squares alone, summed in uneven
// blocks of rows (AddColSquares), is the one from the Jacobians to the
// bit, traces, squares and solve; the squares are the diagonal of the
// dense J_t^T J_t; every other structure refuses them.
func TestDiagFromColumnSquares(t *testing.T) {
	t.Parallel()
	s := randomSystem(4, 30, []int{23, 17, 5})
	cs := *s
	cs.J = nil
	for tt, j := range s.J {
		h := make([]float64, s.P)
		for lo := 0; lo < s.Rows(tt); lo += 4 {
			curv.AddColSquares(h, j[lo*s.P:min(lo+4, s.Rows(tt))*s.P])
		}
		jm := mat.NewDense(s.Rows(tt), s.P, j)
		var jtj mat.Dense
		jtj.Mul(jm.T(), jm)
		for k, v := range h {
			if relErr(v, jtj.At(k, k)) > 1e-13 {
				t.Fatalf("group %d, weight %d: column squares %v, diag(J^T J) %v", tt, k, v, jtj.At(k, k))
			}
		}
		cs.ColSquares = append(cs.ColSquares, h)
	}
	got := compute(t, &cs, curv.Options{Kind: curv.Diag, Squares: true})
	want := compute(t, s, curv.Options{Kind: curv.Diag, Squares: true})
	if got.LogDet != want.LogDet || !slices.Equal(got.TrAlpha, want.TrAlpha) || !slices.Equal(got.TrBeta, want.TrBeta) ||
		!slices.Equal(got.TrSqAlpha, want.TrSqAlpha) || !slices.Equal(got.TrSqBeta, want.TrSqBeta) {
		t.Errorf("diag from column squares: ln|A| %v, tr beta %v; from J %v, %v", got.LogDet, got.TrBeta, want.LogDet, want.TrBeta)
	}
	b := make([]float64, s.P)
	for k := range b {
		b[k] = float64(k%5) - 2
	}
	x, y := make([]float64, s.P), make([]float64, s.P)
	got.Solve(x, b)
	want.Solve(y, b)
	if !slices.Equal(x, y) {
		t.Errorf("diag solve from column squares %v, from J %v", x[:3], y[:3])
	}
	for _, k := range curv.Kinds() {
		if _, err := curv.Compute(&cs, curv.Options{Kind: k}); (err == nil) != (k == curv.Diag) {
			t.Errorf("%s from column squares alone: error %v", k, err)
		}
	}
	short := cs
	short.ColSquares = [][]float64{cs.ColSquares[0], cs.ColSquares[1], cs.ColSquares[2][1:]}
	if _, err := curv.Compute(&short, curv.Options{Kind: curv.Diag}); err == nil {
		t.Error("column squares of P-1 values: no error")
	}
}

// The estimators converge to the dense values: LowRank's squares and the
// stochastic traces within thresholds for this budget.
func TestEstimators(t *testing.T) {
	t.Parallel()
	s := randomSystem(5, 50, []int{40, 30, 20})
	want := naive(s)
	low := compute(t, s, curv.Options{Kind: curv.LowRank, Rank: 50, Squares: true, Probes: 400})
	if e, name := worst(low, want, true); !(e < 0.1) {
		t.Errorf("lowrank squares by Hutchinson (400 probes): %s relative error %.3g, want < 0.1", name, e)
	}
	st := compute(t, s, curv.Options{Kind: curv.Stochastic, Probes: 400, Steps: 200, Tol: 1e-12})
	if e, name := worst(st, want, false); !(e < 0.05) {
		t.Errorf("stochastic (400 probes): %s relative error %.3g, want < 0.05", name, e)
	}
	a := compute(t, s, curv.Options{Kind: curv.Stochastic, Probes: 8, Seed: 3})
	b := compute(t, s, curv.Options{Kind: curv.Stochastic, Probes: 8, Seed: 3})
	if a.LogDet != b.LogDet || a.TrBeta[1] != b.TrBeta[1] {
		t.Errorf("same seed, different estimates: %v %v", a.LogDet, b.LogDet)
	}
}

// Hyper's gradient of E_hyp matches central differences of its E_hyp
// through the dense traces, and MacKay's update zeroes that gradient.
func TestHyperGradient(t *testing.T) {
	t.Parallel()
	s := randomSystem(9, 20, []int{15, 10})
	l := curv.Loss{EW: []float64{0.8, 1.5}, ED: []float64{0.4, 0.02}, W: []int{0, 0}, N: []int{15, 10}}
	for _, g := range s.AlphaOf {
		l.W[g]++
	}
	eval := func(alpha, beta []float64) curv.Hyper {
		c := *s
		c.Alpha, c.Beta = alpha, beta
		return curv.Evidence(compute(t, &c, curv.Options{Squares: true}), alpha, beta, l)
	}
	h := eval(s.Alpha, s.Beta)
	const eps = 1e-5
	for i := range s.Alpha {
		up, dn := append([]float64(nil), s.Alpha...), append([]float64(nil), s.Alpha...)
		up[i] *= math.Exp(eps)
		dn[i] *= math.Exp(-eps)
		fd := (eval(up, s.Beta).EHyp - eval(dn, s.Beta).EHyp) / (2 * eps)
		if e := math.Abs(fd - h.GradLogAlpha[i]); e > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("dE/dln alpha_%d = %.8g, finite difference %.8g", i, h.GradLogAlpha[i], fd)
		}
	}
	for i := range s.Beta {
		up, dn := append([]float64(nil), s.Beta...), append([]float64(nil), s.Beta...)
		up[i] *= math.Exp(eps)
		dn[i] *= math.Exp(-eps)
		fd := (eval(s.Alpha, up).EHyp - eval(s.Alpha, dn).EHyp) / (2 * eps)
		if e := math.Abs(fd - h.GradLogBeta[i]); e > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("dE/dln beta_%d = %.8g, finite difference %.8g", i, h.GradLogBeta[i], fd)
		}
	}
	// MacKay's update is where the gradient vanishes with the traces (and
	// so gamma) held: alpha' E_w + (W - gamma)/2 - W/2 = 0.
	alpha, beta := h.MacKay(l)
	for i, a := range alpha {
		if g := a*l.EW[i] + 0.5*(float64(l.W[i])-h.GammaAlpha[i]) - float64(l.W[i])/2; math.Abs(g) > 1e-9 {
			t.Errorf("MacKay alpha_%d = %g leaves gradient %g", i, a, g)
		}
	}
	for i, b := range beta {
		if g := b*l.ED[i] + 0.5*h.GammaBeta[i] - float64(l.N[i])/2; math.Abs(g) > 1e-9 {
			t.Errorf("MacKay beta_%d = %g leaves gradient %g", i, b, g)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	s := randomSystem(1, 10, []int{5})
	if _, err := curv.Compute(s, curv.Options{Kind: "kfac"}); err == nil {
		t.Error("unknown kind: no error")
	}
	bad := *s
	bad.Alpha = []float64{0.3, -1}
	if _, err := curv.Compute(&bad, curv.Options{}); err == nil {
		t.Error("negative alpha: no error")
	}
	nol := *s
	nol.Layers = nil
	if _, err := curv.Compute(&nol, curv.Options{Kind: curv.LastLayer}); err == nil {
		t.Error("last-layer without layers: no error")
	}
}

// Solve inverts each structure's own A: for the exact ones A^-1 b of the
// dense A, and for every one the same answer as its traces imply on unit
// vectors (the trace over an alpha group is the sum of e_k^T A^-1 e_k).
func TestSolve(t *testing.T) {
	t.Parallel()
	s := randomSystem(11, 24, []int{10, 8, 6})
	ref := compute(t, s, curv.Options{})
	b := make([]float64, s.P)
	for k := range b {
		b[k] = math.Sin(float64(k))
	}
	want := make([]float64, s.P)
	ref.Solve(want, b)
	for _, o := range []curv.Options{{Kind: curv.Dual}, {Kind: curv.LowRank, Rank: 24}, {Kind: curv.Stochastic, Tol: 1e-14, Steps: 500},
		{Kind: curv.Diag}, {Kind: curv.LastLayer}, {Kind: curv.Layers}} {
		tr := compute(t, s, o)
		got := make([]float64, s.P)
		tr.Solve(got, b)
		if o.Kind == curv.Diag || o.Kind == curv.LastLayer || o.Kind == curv.Layers {
			e := make([]float64, s.P)
			sum := make([]float64, 2)
			for k := range e {
				e[k] = 1
				tr.Solve(got, e)
				sum[s.AlphaOf[k]] += got[k]
				e[k] = 0
			}
			for g := range sum {
				if r := relErr(sum[g], tr.TrAlpha[g]); r > 1e-12 {
					t.Errorf("%s: sum of e_k^T A^-1 e_k over group %d = %g, trace %g", o.Kind, g, sum[g], tr.TrAlpha[g])
				}
			}
			continue
		}
		for k := range got {
			if r := math.Abs(got[k]-want[k]) / math.Max(1e-3, math.Abs(want[k])); r > 1e-7 {
				t.Errorf("%s: x[%d] = %.10g, dense %.10g", o.Kind, k, got[k], want[k])
				break
			}
		}
	}
}

func TestAuto(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		P, N int
		want curv.Kind
	}{{109, 460, curv.Dense}, {921, 2840, curv.Diag}, {921, 300, curv.Dual}, {9937, 2840, curv.Diag}} {
		if got := curv.Auto(c.P, c.N); got != c.want {
			t.Errorf("Auto(%d weights, %d residuals) = %s, want %s", c.P, c.N, got, c.want)
		}
	}
}
