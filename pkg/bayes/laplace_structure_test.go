package bayes

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// heatGrid is a 7 x 7 grid of heat's domain [0, 1]^2.
func heatGrid() [][]float64 {
	var pts [][]float64
	for i := range 7 {
		for j := range 7 {
			pts = append(pts, []float64{float64(i) / 6, float64(j) / 6})
		}
	}
	return pts
}

// The dual Laplace of a fit is its dense one: at a heat fit with more
// weights (501) than residuals (100), where a fit keeps the dense A, the
// dual form gives the same ln|A|, gammas, log evidence and band.
func TestDualLaplaceOfFit(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 1, Hidden: []int{20, 20}})
	if f.Status != StatusOK || f.Laplace == nil || f.Laplace.Kind != curv.Dense {
		t.Fatalf("status %s (%s), Laplace %v: want ok and dense at %d weights", f.Status, f.Reason, f.Laplace != nil, f.Model.NumWeights())
	}
	d, _, err := f.laplace(curv.Dual, f.Beta)
	if err != nil {
		t.Fatal(err)
	}
	want := f.Laplace
	for _, p := range [][2]float64{{d.LogDetA, want.LogDetA}, {d.LogEvidence, want.LogEvidence}} {
		if rel(p[0], p[1]) > 1e-7 {
			t.Errorf("dual %v, dense %v", p[0], p[1])
		}
	}
	// The gammas: A's condition number leaves each structure's sum of
	// gamma_alpha and of gamma_beta (equal in exact arithmetic) 3e-7
	// apart here.
	pairs := [][2]float64{{d.Gamma, want.Gamma}}
	for t2 := range want.GammaBeta {
		pairs = append(pairs, [2]float64{d.GammaBeta[t2], want.GammaBeta[t2]})
	}
	for _, p := range pairs {
		if rel(p[0], p[1]) > 2e-6 {
			t.Errorf("gamma: dual %v, dense %v", p[0], p[1])
		}
	}
	_, J, err := f.Jacobian(heatGrid())
	if err != nil {
		t.Fatal(err)
	}
	n := len(heatGrid())
	sd, sw := d.Sigmas(J, n), want.Sigmas(J, n)
	for i := range sd {
		if rel(sd[i], sw[i]) > 1e-6 {
			t.Errorf("point %d: dual sigma %.10g, dense %.10g", i, sd[i], sw[i])
		}
	}
}

// A fit above DenseLimit weights with fewer residuals than weights ends
// with the dual Laplace: status ok, a log evidence and a band (heat with
// 3281 weights and 100 residuals).
func TestFitAboveDenseLimit(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 1, Hidden: []int{60, 50}, Epochs: 200, Hyper: HyperSteps{Start: 100}, Curvature: CurvatureAuto})
	if P := f.Model.NumWeights(); P <= DenseLimit {
		t.Fatalf("%d weights: the test wants more than %d", P, DenseLimit)
	}
	if f.Status != StatusOK || f.Laplace == nil {
		t.Fatalf("status %s (%s), want ok with a Laplace approximation", f.Status, f.Reason)
	}
	if f.Laplace.Kind != curv.Dual || math.IsNaN(f.Laplace.LogEvidence) || math.IsInf(f.Laplace.LogEvidence, 0) || !f.Laplace.OccamOK {
		t.Errorf("Laplace %s, log evidence %v (Occam ok %v); want dual and finite", f.Laplace.Kind, f.Laplace.LogEvidence, f.Laplace.OccamOK)
	}
	if g := f.Laplace.Gamma; !(g > 0 && g < float64(f.Model.NumWeights())) {
		t.Errorf("gamma %v, want in (0, %d)", g, f.Model.NumWeights())
	}
	_, sigma, err := f.Predict(heatGrid())
	if err != nil || len(sigma) != len(heatGrid()) {
		t.Fatalf("band: %d sigmas, %v", len(sigma), err)
	}
	for i, s := range sigma {
		if !(s > 0) || math.IsInf(s, 0) {
			t.Errorf("point %d: sigma %v, want positive and finite", i, s)
		}
	}
	l, err := f.LaplaceAt(f.Beta)
	if err != nil || l.Kind != curv.Dual || rel(l.LogEvidence, f.Laplace.LogEvidence) > 1e-12 {
		t.Errorf("LaplaceAt the fit's betas: %v; want the fit's dual Laplace", err)
	}
}

// Where the dual applies above DenseLimit, a fit's Laplace and final
// rounds take the low-rank form only when it is much cheaper and close
// (curv.CloseLowRankLaplace), else the dual one unchanged: at a fresh
// heat net of 3281 weights and 100 residuals, 8 Lanczos steps leave a
// gap of 0.4 nats (the dual, the same bits as without the attempt, in
// the Laplace and in a round), 12 steps 0.009 (the low rank in both,
// ln Z within the gap of the dual's, E_hyp within half of it below) and
// 16 steps 8e-5 (the low rank for the Laplace; a round's dual traces are
// cheaper than 16 steps there). Not parallel: it sets laplaceRank.
func TestLowRankWhereDualApplies(t *testing.T) {
	f := initialFitAt(t, "heat", Settings{Seed: 1, Hidden: []int{60, 50}})
	if f.Status != StatusOK || f.Laplace == nil || f.Laplace.Kind != curv.Dual {
		t.Fatalf("status %s (%s), Laplace %v; want ok and dual", f.Status, f.Reason, f.Laplace != nil)
	}
	dual, round := f.Laplace, roundOf(t, f)
	defer func(k int) { laplaceRank = k }(laplaceRank)
	for _, c := range []struct {
		rank         int
		laplace, hyp curv.Kind
	}{{8, curv.Dual, curv.Dual}, {12, curv.LowRank, curv.LowRank}, {16, curv.LowRank, curv.Dual}} {
		laplaceRank = c.rank
		l, _, err := f.laplace(curv.Dual, f.Beta)
		switch {
		case err != nil || l.Kind != c.laplace:
			t.Errorf("%d steps: Laplace %v (%v), want %s", c.rank, l != nil && err == nil, err, c.laplace)
		case l.Kind == curv.Dual && (l.LogEvidence != dual.LogEvidence || l.LogDetA != dual.LogDetA):
			t.Errorf("%d steps: the dual Laplace after the attempt differs: ln Z %v, %v", c.rank, l.LogEvidence, dual.LogEvidence)
		case l.Kind == curv.LowRank && (math.Abs(l.LogEvidence-dual.LogEvidence) > l.LogDetGap || l.LogDetGap > curv.LowRankMaxGap):
			t.Errorf("%d steps: low-rank ln Z %v (gap %v), dual %v", c.rank, l.LogEvidence, l.LogDetGap, dual.LogEvidence)
		}
		got := roundOf(t, f)
		if c.hyp == curv.Dual && !slices.Equal(got, round) {
			t.Errorf("%d steps: a round's evidence %v, want the dual traces' %v", c.rank, got, round)
		}
		if d := round[0] - got[0]; c.hyp == curv.LowRank && (err != nil || d < -1e-9*math.Abs(round[0]) || d > l.LogDetGap/2+1e-9*math.Abs(round[0]) || d == 0) {
			t.Errorf("%d steps: a round's E_hyp %v, the dual's %v: want the low rank's, within half its gap below", c.rank, got[0], round[0])
		}
	}
}

// roundOf is a final round's E_hyp and gammas at f under Dual.
func roundOf(t *testing.T, f *Fit) []float64 {
	t.Helper()
	hy, _, err := f.roundEvidence(curv.Dual)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float64{hy.EHyp, hy.Gamma}, hy.GammaBeta...)
}

// Above DenseLimit a fit that no structure fits ends no-laplace, its
// reason saying why: the exact Hessian (heat at 3281 weights).
func TestNoLaplaceReasons(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem string
		hidden  []int
		hessian HessianKind
		want    string
	}{
		{"heat", []int{60, 50}, Exact, "hessian"},
	} {
		f := initialFitAt(t, c.problem, Settings{Seed: 1, Hidden: c.hidden, Hessian: c.hessian})
		if f.Status != StatusNoLaplace || f.Laplace != nil || !strings.Contains(f.Reason, c.want) || strings.Contains(f.Reason, "\n") {
			t.Errorf("%s %v: status %s, reason %q; want no-laplace naming %q", c.problem, c.hidden, f.Status, f.Reason, c.want)
		}
	}
}

// initialFitAt is FitAt with the Laplace approximation at a fresh net of
// problem under s (alpha 0.01, beta 1).
func initialFitAt(t *testing.T, problem string, s Settings) *Fit {
	t.Helper()
	p, err := problems.New(problem, problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err = scheduled(p, s).Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	net := nn.New(append(append([]int{p.Dim()}, s.Hidden...), 1), nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	m, err := NewModel(p, net, s.AlphaMode, s.BetaMode)
	if err != nil {
		t.Fatal(err)
	}
	return FitAt(m, s, fillN(len(m.Alphas), 0.01), fillN(len(m.BetaNames), 1), true)
}

// Above DenseLimit with more residuals than weights (poisson-holes' 5200
// at 3901 weights) a fit's Laplace is the low-rank one: status ok, a
// finite log evidence, a positive band, and LaplaceAt gives it again.
func TestLowRankLaplaceAboveDenseLimit(t *testing.T) {
	t.Parallel()
	f := initialFitAt(t, "poisson-holes", Settings{Seed: 1, Hidden: []int{60, 60}})
	if f.Status != StatusOK || f.Laplace == nil || f.Laplace.Kind != curv.LowRank {
		t.Fatalf("status %s (%s), Laplace %v; want ok and lowrank", f.Status, f.Reason, f.Laplace != nil)
	}
	if ev := f.Laplace.LogEvidence; math.IsNaN(ev) || math.IsInf(ev, 0) || !f.Laplace.OccamOK {
		t.Errorf("log evidence %v (Occam ok %v), want finite", ev, f.Laplace.OccamOK)
	}
	pts := [][]float64{{0.1, 0.2}, {0.5, 0.5}, {-0.3, 0.7}}
	_, sigma, err := f.Predict(pts)
	if err != nil || len(sigma) != len(pts) {
		t.Fatalf("band: %d sigmas, %v", len(sigma), err)
	}
	for i, s := range sigma {
		if !(s > 0) || math.IsInf(s, 0) {
			t.Errorf("point %d: sigma %v, want positive and finite", i, s)
		}
	}
	if l, err := f.LaplaceAt(f.Beta); err != nil || l.LogEvidence != f.Laplace.LogEvidence {
		t.Errorf("LaplaceAt the fit's betas: %v; want the fit's low-rank Laplace again", err)
	}
}

// The low-rank Laplace of a fit whose Gauss-Newton matrix Lanczos
// exhausts (heat, 501 weights, 100 residuals) is its dense one.
func TestLowRankLaplaceOfFit(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 1, Hidden: []int{20, 20}})
	l, _, err := f.laplace(curv.LowRank, f.Beta)
	if err != nil {
		t.Fatal(err)
	}
	want := f.Laplace
	for _, p := range [][2]float64{{l.LogDetA, want.LogDetA}, {l.LogEvidence, want.LogEvidence}, {l.Gamma, want.Gamma}} {
		if rel(p[0], p[1]) > 1e-6 {
			t.Errorf("lowrank %v, dense %v", p[0], p[1])
		}
	}
	_, J, err := f.Jacobian(heatGrid())
	if err != nil {
		t.Fatal(err)
	}
	n := len(heatGrid())
	sl, sw := l.Sigmas(J, n), want.Sigmas(J, n)
	for i := range sl {
		if rel(sl[i], sw[i]) > 1e-5 {
			t.Errorf("point %d: lowrank sigma %.10g, dense %.10g", i, sl[i], sw[i])
		}
	}
}

// The final dual Laplace's Jacobian, computed in blocks of points of a
// term, is GroupJacobians' in one array: burgers-wide's terms of up to
// 2000 points in blocks of 512, in groups of several terms.
func TestStackedJacobians(t *testing.T) {
	t.Parallel()
	m := smallBurgersWide(t)
	p := m.Problem
	if longest := slices.MaxFunc(p.Terms, func(a, b pde.Term) int { return len(a.Points) - len(b.Points) }); len(longest.Points) <= 512 {
		t.Fatalf("longest term %d points: the test wants more than 512", len(longest.Points))
	}
	if jacobianBlock(9937) != 422 || jacobianBlock(1e6) != 16 {
		t.Errorf("blocks of %d points at 9937 weights, %d at 10^6; want 2^22/P, at least 16", jacobianBlock(9937), jacobianBlock(1e6))
	}
	got, err := m.stackedJacobians(512)
	if err != nil {
		t.Fatal(err)
	}
	want := m.GroupJacobians()
	for g := range want {
		if !slices.Equal(got[g], want[g]) {
			t.Errorf("group %s: the blocks' Jacobian differs from the whole one", m.BetaNames[g])
		}
		if g > 0 && &got[g-1][:len(got[g-1])+1][len(got[g-1])] != &got[g][0] {
			t.Errorf("group %s: not the next part of one array", m.BetaNames[g])
		}
	}
}

// smallBurgersWide is a model of burgers-wide's 2840 points, in several
// terms and beta groups, on a 2-5-5-1 net.
func smallBurgersWide(t *testing.T) *Model {
	t.Helper()
	p, err := problems.New("burgers-wide", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := scheduled(p, Settings{Seed: 1, Hidden: []int{5, 5}}).Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(p, nn.New([]int{2, 5, 5, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 2))), s.AlphaMode, s.BetaMode)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The column squares summed a block of points at a time (blocks of 512
// and of 7, which split every term unevenly) are those of the whole
// Jacobian of each beta group, to the bit.
func TestColumnSquares(t *testing.T) {
	t.Parallel()
	m := smallBurgersWide(t)
	P := m.NumWeights()
	whole := m.GroupJacobians()
	for _, block := range []int{512, 7} {
		got, err := m.columnSquares(block)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(whole) {
			t.Fatalf("blocks of %d: %d groups, want %d", block, len(got), len(whole))
		}
		for g, j := range whole {
			want := make([]float64, P)
			for i := 0; i < len(j); i += P {
				for k, v := range j[i : i+P] {
					want[k] += v * v
				}
			}
			if !slices.Equal(got[g], want) {
				t.Errorf("blocks of %d, group %s: column squares differ from the whole Jacobian's", block, m.BetaNames[g])
			}
		}
	}
}

// Above DenseLimit a diag step takes the column squares alone
// (diagSystem: no Jacobian array) and gives the evidence of the
// Jacobians' system to the bit.
func TestDiagStepWithoutJacobian(t *testing.T) {
	t.Parallel()
	f := initialFitAt(t, "heat", Settings{Seed: 1, Hidden: []int{60, 50}})
	if f.Model.NumWeights() <= DenseLimit {
		t.Fatalf("%d weights: the test wants more than %d", f.Model.NumWeights(), DenseLimit)
	}
	if s := f.diagSystem(); s.J != nil || len(s.ColSquares) != len(f.Beta) {
		t.Fatalf("diag system: %d Jacobians, %d column squares; want none and %d", len(s.J), len(s.ColSquares), len(f.Beta))
	}
	got, _, err := f.evidence(curv.Diag, true)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := f.evidenceOf(f.system(false), f.loss(), curv.Diag, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.EHyp != want.EHyp || got.LogEvidence != want.LogEvidence || !slices.Equal(got.GammaBeta, want.GammaBeta) || !slices.Equal(got.GammaAlpha, want.GammaAlpha) {
		t.Errorf("diag from column squares: E_hyp %v, ln Z %v, gamma_beta %v; from the Jacobians %v, %v, %v",
			got.EHyp, got.LogEvidence, got.GammaBeta, want.EHyp, want.LogEvidence, want.GammaBeta)
	}
}

// A released training program is compiled again on next use and gives
// the same E_D and gradient, to the bit.
func TestReleaseTrainSameBits(t *testing.T) {
	t.Parallel()
	m := smallBurgersWide(t)
	beta := fillN(len(m.BetaNames), 1.5)
	run := func() []float64 {
		ed, grad := make([]float64, len(beta)), make([]float64, m.NumWeights())
		m.DataLoss(beta, ed, grad)
		return append(ed, grad...)
	}
	before := run()
	m.ReleaseTrain()
	if m.train != nil {
		t.Fatal("the training program is still held")
	}
	if after := run(); !slices.Equal(after, before) {
		t.Errorf("after the release E_D %v, before %v", after[:len(beta)], before[:len(beta)])
	}
}

// LaplaceAt at the fit's own betas is the fit's Laplace, which it would
// compute again to the bit (ln Z and the band); at other betas a new one.
func TestLaplaceAtOwnBetas(t *testing.T) {
	t.Parallel()
	f := initialFitAt(t, "heat", Settings{Seed: 1, Hidden: []int{60, 50}})
	if f.Laplace == nil {
		t.Fatalf("status %s (%s): no Laplace", f.Status, f.Reason)
	}
	own, err := f.LaplaceAt(slices.Clone(f.Beta))
	if err != nil || own != f.Laplace {
		t.Fatalf("LaplaceAt(own betas): %v (%v), want the fit's Laplace", own != nil, err)
	}
	again, _, err := f.laplace(f.Laplace.Kind, f.Beta)
	if err != nil {
		t.Fatal(err)
	}
	_, J, err := f.Jacobian([][]float64{{0.1, 0.2}, {0.5, 0.5}, {0.9, 0.7}})
	if err != nil {
		t.Fatal(err)
	}
	if again.LogEvidence != own.LogEvidence || !slices.Equal(again.Sigmas(J, 3), own.Sigmas(J, 3)) {
		t.Errorf("computed again: ln Z %v, sigma %v; the fit's %v, %v", again.LogEvidence, again.Sigmas(J, 3), own.LogEvidence, own.Sigmas(J, 3))
	}
	other, err := f.LaplaceAt(fillN(len(f.Beta), 2*f.Beta[0]))
	if err != nil || other == f.Laplace || other.LogEvidence == own.LogEvidence {
		t.Errorf("LaplaceAt(other betas): the fit's Laplace or its ln Z (%v)", err)
	}
}

// Above DenseLimit the system of the N x P residual Jacobian is built
// without the model's training program beside it, and a diag step's
// column squares keep it (no Jacobian array to make room for).
func TestSystemReleasesTrain(t *testing.T) {
	t.Parallel()
	f := initialFitAt(t, "heat", Settings{Seed: 1, Hidden: []int{60, 50}})
	f.loss()
	f.diagSystem()
	if f.Model.train == nil {
		t.Error("a diag system released the training program")
	}
	if s := f.system(false); s.J == nil || f.Model.train != nil {
		t.Errorf("the Jacobians' system: %d Jacobians, training program held %v; want them and none", len(s.J), f.Model.train != nil)
	}
}

// Above DenseLimit every step that builds the N x P residual Jacobian
// (the Laplace, a final round, a step under a structure that reads the
// Jacobians) runs the collector once it is done with it; a diag step,
// which builds none, does not. Not parallel: it replaces collect.
func TestJacobiansCollected(t *testing.T) {
	f := initialFitAt(t, "heat", Settings{Seed: 1, Hidden: []int{60, 50}})
	n := 0
	defer func(c func()) { collect = c }(collect)
	collect = func() { n++ }
	steps := []func() error{
		func() error { _, _, err := f.laplace(curv.Dual, f.Beta); return err },
		func() error { _, _, err := f.roundEvidence(curv.Dual); return err },
		func() error { _, _, err := f.evidence(curv.Layers, false); return err },
		func() error { _, _, err := f.evidence(curv.Diag, false); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		if want := min(i+1, 3); n != want {
			t.Errorf("after step %d: %d collections, want %d", i, n, want)
		}
	}
}
