package curv_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// TestLowRankLaplace checks the LowRank final Laplace against the dense
// one of the same Gauss-Newton A: at full rank (Lanczos exhausts G~, with
// fewer residuals than weights and with more) ln|A|, every gamma, every
// Occam argument, ln Z and g^T A^-1 g agree to round-off; truncated, its
// ln|A| lies within [dense - LogDetGap, dense].
func TestLowRankLaplace(t *testing.T) {
	for _, c := range []struct {
		name string
		P    int
		rows []int
		rank int
		tol  float64
	}{
		{"N < P, rank N", 60, []int{8, 5}, 13, 1e-7},
		{"N > P, rank P", 25, []int{20, 15, 9}, 25, 1e-7},
		{"N > P, rank P/2", 25, []int{20, 15, 9}, 12, 0},
	} {
		s := randomSystem(5, c.P, c.rows)
		loss := lossOf(6, s)
		want, err := curv.NewLaplace(hessiansOf(s, loss), s.Alpha, s.Beta)
		if err != nil {
			t.Fatal(err)
		}
		got, err := curv.NewLowRankLaplace(s, loss, curv.Options{Rank: c.rank}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Kind != curv.LowRank {
			t.Errorf("%s: kind %q, want lowrank", c.name, got.Kind)
		}
		pool := par.New(2)
		threaded, err := curv.NewLowRankLaplace(s, loss, curv.Options{Rank: c.rank}, pool)
		pool.Close()
		if err != nil || threaded.LogEvidence != got.LogEvidence || !slices.Equal(threaded.GammaBeta, got.GammaBeta) {
			t.Errorf("%s: two threads give another Laplace (%v)", c.name, err)
		}
		if c.tol == 0 {
			if d := want.LogDetA - got.LogDetA; d < -1e-9 || d > got.LogDetGap || got.LogDetGap <= 0 {
				t.Errorf("%s: ln|A| %v, dense %v: outside [dense - gap %v, dense]", c.name, got.LogDetA, want.LogDetA, got.LogDetGap)
			}
			continue
		}
		if got.LogDetGap > 1e-8*math.Abs(want.LogDetA) {
			t.Errorf("%s: gap %v at full rank", c.name, got.LogDetGap)
		}
		compareLaplace(t, c.name, got, want, loss, c.P, c.tol)
	}
}

// TestLowRankLaplaceHutchinson checks the estimated tr((A^-1 H_t)^2) of
// groups above exactSquareRows: the Occam arguments within 1 % of N_t/2
// of the dense ones at full rank, the same bits for the same seed.
func TestLowRankLaplaceHutchinson(t *testing.T) {
	defer func(v int) { *curv.ExactSquareRows = v }(*curv.ExactSquareRows)
	*curv.ExactSquareRows = 4
	s := randomSystem(5, 25, []int{20, 15, 9})
	loss := lossOf(6, s)
	want, err := curv.NewLaplace(hessiansOf(s, loss), s.Alpha, s.Beta)
	if err != nil {
		t.Fatal(err)
	}
	o := curv.Options{Rank: 25, Probes: 64}
	got, err := curv.NewLowRankLaplace(s, loss, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := curv.NewLowRankLaplace(s, loss, o, nil)
	for k, a := range want.OccamArgBeta {
		if d := math.Abs(got.OccamArgBeta[k]-a) / (float64(loss.N[k]) / 2); d > 0.01 || d == 0 {
			t.Errorf("group %d: Occam argument %v, dense %v (%.2g of N/2; 0 means not estimated)", k, got.OccamArgBeta[k], a, d)
		}
		if again.OccamArgBeta[k] != got.OccamArgBeta[k] {
			t.Errorf("group %d: the same seed gives %v and %v", k, again.OccamArgBeta[k], got.OccamArgBeta[k])
		}
	}
}

// compareLaplace checks got's ln|A|, gammas, Occam arguments (relative
// to W_i/2 and N_t/2), ln Z and band against want's to tol. It returns
// the band's random Jacobian rows (P columns each) and got's variances
// there.
func compareLaplace(t *testing.T, name string, got, want *curv.Laplace, loss curv.Loss, P int, tol float64) (J, gotV []float64) {
	t.Helper()
	half := func(n []int) []float64 {
		h := make([]float64, len(n))
		for i, v := range n {
			h[i] = float64(v) / 2
		}
		return h
	}
	if !got.OccamOK || !want.OccamOK {
		t.Fatalf("%s: Occam factors invalid (got %v, dense %v)", name, got.OccamOK, want.OccamOK)
	}
	pairs := []struct{ got, want, scale []float64 }{
		{[]float64{got.LogDetA, got.LogEvidence, got.Gamma}, []float64{want.LogDetA, want.LogEvidence, want.Gamma}, nil},
		{got.GammaAlpha, want.GammaAlpha, nil}, {got.GammaBeta, want.GammaBeta, nil},
		{got.OccamArgAlpha, want.OccamArgAlpha, half(loss.W)}, {got.OccamArgBeta, want.OccamArgBeta, half(loss.N)},
	}
	for _, p := range pairs {
		for k := range p.want {
			r := relErr(p.got[k], p.want[k])
			if p.scale != nil {
				r = math.Abs(p.got[k]-p.want[k]) / p.scale[k]
			}
			if r > tol {
				t.Errorf("%s: %v, dense %v (relative error %.2g)", name, p.got, p.want, r)
				break
			}
		}
	}
	n := 9
	rng := rand.New(rand.NewPCG(8, 9))
	J = make([]float64, n*P)
	for i := range J {
		J[i] = rng.NormFloat64()
	}
	wantV := make([]float64, n)
	gotV = make([]float64, n)
	want.VariancesTo(wantV, J, n)
	got.VariancesTo(gotV, J, n)
	for i := range n {
		if r := relErr(gotV[i], wantV[i]); r > tol {
			t.Errorf("%s: g^T A^-1 g at point %d = %.12g, dense %.12g", name, i, gotV[i], wantV[i])
		}
		if v := got.Variance(J[i*P : (i+1)*P]); relErr(v, wantV[i]) > tol {
			t.Errorf("%s: Variance at point %d = %.12g, dense %.12g", name, i, v, wantV[i])
		}
	}
	return J, gotV
}

// TestLowRankLaplaceNotPD checks that a non-finite Jacobian is reported
// as A not positive definite under LowRank, not as a result.
func TestLowRankLaplaceNotPD(t *testing.T) {
	s := randomSystem(5, 30, []int{40})
	s.J[0][3] = math.Inf(1)
	_, err := curv.NewLowRankLaplace(s, lossOf(6, s), curv.Options{}, nil)
	if e, ok := err.(curv.NotPositiveDefinite); !ok || e.Kind != curv.LowRank {
		t.Errorf("err = %v, want NotPositiveDefinite of lowrank", err)
	}
}

// lowRankSystem is a system whose Jacobians have rank r: J_t = B_t C,
// C r x P shared by the groups, so that Lanczos exhausts G~ in r steps.
func lowRankSystem(seed uint64, P, r int, rows []int) *curv.System {
	s := randomSystem(seed, P, rows)
	rng := rand.New(rand.NewPCG(seed, 13))
	c := make([]float64, r*P)
	for i := range c {
		c[i] = rng.NormFloat64()
	}
	for t, n := range rows {
		for i := range n {
			b := make([]float64, r)
			for k := range b {
				b[k] = rng.NormFloat64()
			}
			row := s.J[t][i*P : (i+1)*P]
			clear(row)
			for k, x := range b {
				for col := range P {
					row[col] += x * c[k*P+col]
				}
			}
		}
	}
	return s
}

// TestCloseLowRankLaplace checks the choice between the low-rank and the
// dual Laplace where the dual applies, on both sides of each of its two
// boundaries (8 Lanczos steps): the cost (rank-4 Jacobians, which the low
// rank holds exactly, with 90 residuals and with 9: too few for Lanczos
// to be the cheaper) and the gap (full-rank Jacobians with 90 residuals:
// 8 steps miss most of ln|A|). Where it declines, s is as it was: the
// dual Laplace from it is the same bits as from a fresh copy.
func TestCloseLowRankLaplace(t *testing.T) {
	const P, k = 200, 8
	for _, c := range []struct {
		name    string
		s       func() *curv.System
		lowRank bool
	}{
		{"rank 4, 90 residuals", func() *curv.System { return lowRankSystem(5, P, 4, []int{50, 40}) }, true},
		{"rank 4, 9 residuals", func() *curv.System { return lowRankSystem(5, P, 4, []int{5, 4}) }, false},
		{"full rank, 90 residuals", func() *curv.System { return randomSystem(5, P, []int{50, 40}) }, false},
	} {
		for _, laplace := range []bool{true, false} {
			s := c.s()
			loss := lossOf(6, s)
			got := curv.CloseLowRankLaplace(s, loss, curv.Options{Rank: k}, laplace, nil)
			if (got != nil) != c.lowRank {
				t.Errorf("%s (laplace %v): low rank %v, want %v", c.name, laplace, got != nil, c.lowRank)
				continue
			}
			if got != nil {
				if got.Kind != curv.LowRank || got.LogDetGap > curv.LowRankMaxGap {
					t.Errorf("%s: kind %q, gap %v", c.name, got.Kind, got.LogDetGap)
				}
				want, err := curv.NewLaplace(hessiansOf(s, loss), s.Alpha, s.Beta)
				if err != nil {
					t.Fatal(err)
				}
				compareLaplace(t, c.name, got, want, loss, P, 1e-7)
				continue
			}
			dual, err := curv.NewDualLaplace(s, loss, nil)
			fresh := c.s()
			want, err2 := curv.NewDualLaplace(fresh, lossOf(6, fresh), nil)
			if err != nil || err2 != nil || dual.LogEvidence != want.LogEvidence || dual.LogDetA != want.LogDetA {
				t.Errorf("%s: the dual Laplace after the declined low rank differs from a fresh one (%v, %v)", c.name, err, err2)
			}
		}
	}
}

// TestLowRankCheaper checks the cost side of the choice at the sizes of
// docs/curvature.md: the low rank (512 steps) is tried at poisson-holes'
// 5 x 100 net and at burgers-wide's residuals with 3441 weights (12 s of
// CPU against the dual's 58 s there), not with heat's 100 residuals, nor
// where the dual does not apply.
func TestLowRankCheaper(t *testing.T) {
	for _, c := range []struct {
		P, N, k int
		laplace bool
		want    bool
	}{
		{40801, 5200, 0, true, true},  // poisson-holes' 5 x 100
		{40801, 5200, 0, false, true}, // its final rounds
		{3441, 2840, 0, true, true},   // burgers-wide 40-40-40
		{3281, 100, 0, true, false},   // heat 60-50: N < k
		{40801, 600, 0, true, false},  // few residuals: the dual is cheap
		{40801, 600, 0, false, false}, //
		{5000, 8000, 0, true, false},  // N > P: no dual to replace
		{200, 90, 8, true, true},      // TestCloseLowRankLaplace's sizes
		{200, 9, 8, true, false},      //
	} {
		if got := curv.LowRankCheaper(c.P, c.N, c.k, c.laplace); got != c.want {
			t.Errorf("LowRankCheaper(%d weights, %d residuals, %d steps, laplace %v) = %v; want %v", c.P, c.N, c.k, c.laplace, got, c.want)
		}
	}
}
