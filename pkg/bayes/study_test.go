package bayes

// Fast checks of the trainer on the paper's problems (the studies that
// run ensembles are in pkg/runner).

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/problems"
	"gonum.org/v1/gonum/mat"
)

// Bounds of TestStudyHeatReduced: seed 1 measured rel L2 0.0215 and
// coverage 0.933 (50x50 grid); the full schedule reaches 0.008-0.01.
const (
	heatReducedMaxErr = 0.05
	heatReducedMinCov = 0.5
)

// A heat fit with a reduced schedule reaches a small error with a calibrated
// enough band and a valid evidence.
func TestStudyHeatReduced(t *testing.T) {
	f := resultTestFit(t, "heat", Settings{Seed: 1, Epochs: 6000, Hyper: HyperSteps{Start: 2000}})
	if f.Status != StatusOK {
		t.Fatalf("status %s: %s", f.Status, f.Reason)
	}
	e, err := f.GridErrors(50)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("heat 6000 epochs: rel L2 %.3g coverage %.3f alpha %.3g beta %.3g log evidence %.2f, %.2f s",
		e.RelL2, e.Coverage2S, f.Alpha, f.Beta, f.Laplace.LogEvidence, f.Seconds)
	if e.RelL2 > heatReducedMaxErr || e.Coverage2S < heatReducedMinCov {
		t.Errorf("rel L2 %.3g (want <= %g), coverage %.3f (want >= %g)", e.RelL2, heatReducedMaxErr, e.Coverage2S, heatReducedMinCov)
	}
	if f.Hyper.NotPD != 0 {
		t.Errorf("Gauss-Newton A not positive definite at %d of %d steps", f.Hyper.NotPD, f.Hyper.Steps)
	}
}

// The evidence prefers a reasonable network (1-6-1) to one clearly too small
// (1-1-1) on the regression data: issue 3's evidence ranking test. A net
// clearly too large (1-20-1) does not lose: its extra units stay at the
// prior, so ln Z - comb is that of 1-6-1 (the Occam factors of the unused
// weights cancel), and comb = sum ln M! + M ln 2 then ranks it first
// (docs/results/regression.md).
func TestStudyEvidenceRanking(t *testing.T) {
	p, err := problems.New("regression", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type best struct{ lnZ, comb, gamma float64 }
	fit := func(hidden []int) best {
		b := best{lnZ: math.Inf(-1)}
		for seed := uint64(1); seed <= 3; seed++ {
			f, err := Train(context.Background(), p, scheduled(p, Settings{Seed: seed, Hidden: hidden, Epochs: 6000, Hyper: HyperSteps{Start: 1000}}))
			if err != nil {
				t.Fatal(err)
			}
			if l := f.Laplace; l != nil && l.OccamOK && l.LogEvidence > b.lnZ {
				b = best{l.LogEvidence, l.Comb, l.Gamma}
			}
		}
		return b
	}
	small, good, large := fit([]int{1}), fit([]int{6}), fit([]int{20})
	t.Logf("best ln Z (comb, gamma): 1-1-1 %.2f (%.2f, %.2f), 1-6-1 %.2f (%.2f, %.2f), 1-20-1 %.2f (%.2f, %.2f)",
		small.lnZ, small.comb, small.gamma, good.lnZ, good.comb, good.gamma, large.lnZ, large.comb, large.gamma)
	if !(good.lnZ > small.lnZ+5) {
		t.Errorf("log evidence of 1-6-1 (%.2f) does not beat 1-1-1 (%.2f) by 5", good.lnZ, small.lnZ)
	}
	if d := (large.lnZ - large.comb) - (good.lnZ - good.comb); math.Abs(d) > 2 {
		t.Errorf("ln Z - comb: 1-20-1 differs from 1-6-1 by %.2f nats, want the plateau (|d| <= 2)", d)
	}
	if math.Abs(large.gamma-good.gamma) > 1 {
		t.Errorf("gamma: 1-20-1 %.2f, 1-6-1 %.2f: want the same well-determined parameters", large.gamma, good.gamma)
	}
	if !(large.lnZ > good.lnZ+20) {
		t.Errorf("ln Z of 1-20-1 (%.2f) does not exceed 1-6-1's (%.2f) by its larger comb", large.lnZ, good.lnZ)
	}
}

// The fixed-weight baseline of Table 3 keeps alpha = 0.05 and beta = 1.
func TestStudyFixedBaseline(t *testing.T) {
	f := resultTestFit(t, "heat", Settings{Seed: 2, Epochs: 1500, Hyper: HyperSteps{Start: 500}, Fixed: FixedWeights{On: true}})
	if f.Hyper.Steps != 0 {
		t.Errorf("%d hyperparameter steps in a fixed fit", f.Hyper.Steps)
	}
	for _, a := range f.Alpha {
		if a != 0.05 {
			t.Errorf("alpha %v, want 0.05", f.Alpha)
		}
	}
	for _, b := range f.Beta {
		if b != 1 {
			t.Errorf("beta %v, want 1", f.Beta)
		}
	}
	for _, h := range f.History {
		if h.Alpha[0] != 0.05 || h.Beta[0] != 1 {
			t.Fatalf("history at epoch %d: alpha %v beta %v", h.Epoch, h.Alpha, h.Beta)
		}
	}
}

// A NaN injected at an epoch ends the fit as diverged, naming the epoch.
func TestStudyNaNInjection(t *testing.T) {
	f := nanTestFit(t, "heat", Settings{Seed: 1, Epochs: 200, Hyper: HyperSteps{Start: 50}}, 77)
	if f.Status != StatusDiverged || f.Epochs != 77 || !strings.Contains(f.Reason, "epoch 77") {
		t.Errorf("status %q epochs %d reason %q; want diverged at epoch 77", f.Status, f.Epochs, f.Reason)
	}
	if f.Laplace != nil {
		t.Error("a diverged fit has a Laplace approximation")
	}
}

// Two fits with the same seed are bitwise identical; another seed differs.
func TestStudyDeterminism(t *testing.T) {
	p, err := problems.New("wave", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Seed: 5, Epochs: 300, Hyper: HyperSteps{Start: 100}, Polish: PolishSettings{On: true}, Final: FinalRounds{Rounds: 1}}
	a, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if !same(a.Model.Net.W, b.Model.Net.W) || !same(a.Alpha, b.Alpha) || !same(a.Beta, b.Beta) {
		t.Errorf("same seed, different fits: alpha %v/%v beta %v/%v", a.Alpha, b.Alpha, a.Beta, b.Beta)
	}
	if a.Laplace == nil || b.Laplace == nil || math.Float64bits(a.Laplace.LogEvidence) != math.Float64bits(b.Laplace.LogEvidence) {
		t.Error("same seed, different log evidence")
	}
	s.Seed = 6
	c, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	if same(a.Model.Net.W, c.Model.Net.W) {
		t.Error("seeds 5 and 6 gave the same weights")
	}
}

// The final rounds stop when the hyperparameters settle (Final.Tol) and
// leave them at MacKay's fixed point of the final w_MP (to the accuracy of
// one more step); a cap of Final.Rounds rounds is respected.
func TestStudyFinalHyperFixedPoint(t *testing.T) {
	f := resultTestFit(t, "regression", Settings{Seed: 1, Epochs: 3000, Hyper: HyperSteps{Start: 1000}})
	if f.Status != StatusOK {
		t.Fatalf("status %s: %s", f.Status, f.Reason)
	}
	t.Logf("%d final rounds, last move %.3g", f.Hyper.FinalRounds, f.Hyper.FinalMove)
	if f.Hyper.FinalRounds >= f.Settings.Final.Rounds || f.Hyper.FinalMove > f.Settings.Final.Tol {
		t.Errorf("final rounds %d of at most %d, last move %.3g: want them to end on the tolerance %g",
			f.Hyper.FinalRounds, f.Settings.Final.Rounds, f.Hyper.FinalMove, f.Settings.Final.Tol)
	}
	c := f.Hessians()
	alpha, beta := f.Laplace.MacKay(c.Loss)
	for i := range alpha {
		if r := alpha[i] / f.Alpha[i]; math.Abs(r-1) > 5*f.Settings.Final.Tol {
			t.Errorf("alpha %.6g, MacKay's fixed point %.6g", f.Alpha[i], alpha[i])
		}
	}
	for i := range beta {
		if r := beta[i] / f.Beta[i]; math.Abs(r-1) > 5*f.Settings.Final.Tol {
			t.Errorf("beta %.6g, MacKay's fixed point %.6g", f.Beta[i], beta[i])
		}
	}
	capped := resultTestFit(t, "regression", Settings{Seed: 1, Epochs: 3000, Hyper: HyperSteps{Start: 1000}, Final: FinalRounds{Rounds: 2, Tol: 1e-12}})
	if capped.Hyper.FinalRounds != 2 {
		t.Errorf("FinalHyper 2 with a tolerance never met: %d rounds", capped.Hyper.FinalRounds)
	}
}

// Heat with one alpha per weight class: the MacKay rounds drive a class's
// alpha toward 0 until A is numerically singular after round 6. The fit
// steps back to round 5, where the evidence is defined, and that state is
// bit for bit the fit that was told to stop after 5 rounds.
func TestStudyFinalRoundsStepBack(t *testing.T) {
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Seed: 1, Epochs: 1000, Hyper: HyperSteps{Start: 500}, AlphaMode: "classes", Final: FinalRounds{Rounds: 6}}
	f, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %s, %d rounds, backoff %q", f.Status, f.Hyper.FinalRounds, f.Hyper.FinalBackoff)
	if f.Status != StatusOK || f.Laplace == nil || math.IsNaN(f.Laplace.LogEvidence) {
		t.Fatalf("status %s (%s): want ok with an evidence after stepping back", f.Status, f.Reason)
	}
	if f.Hyper.FinalRounds != 5 || !strings.Contains(f.Hyper.FinalBackoff, "after round 6: ") {
		t.Fatalf("rounds %d, backoff %q: want reported at round 5 after round 6 failed", f.Hyper.FinalRounds, f.Hyper.FinalBackoff)
	}
	s.Final.Rounds = 5
	g, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	if g.Hyper.FinalBackoff != "" || g.Hyper.FinalRounds != 5 {
		t.Fatalf("5 rounds: %d rounds, backoff %q", g.Hyper.FinalRounds, g.Hyper.FinalBackoff)
	}
	if !slices.Equal(f.Model.Net.W, g.Model.Net.W) || !slices.Equal(f.Alpha, g.Alpha) || !slices.Equal(f.Beta, g.Beta) ||
		f.Laplace.LogEvidence != g.Laplace.LogEvidence || f.Polish.F != g.Polish.F || f.Hyper.FinalMove != g.Hyper.FinalMove {
		t.Errorf("stepped back to round 5: ln Z %.17g alpha %v, E_T %.17g; stopped at round 5: ln Z %.17g alpha %v, E_T %.17g",
			f.Laplace.LogEvidence, f.Alpha, f.Polish.F, g.Laplace.LogEvidence, g.Alpha, g.Polish.F)
	}
}

// Known noise: the held beta never moves, and the other hyperparameters are
// set as if the held group were not there. With one alpha and one free
// beta, tying the groups (Adam on the summed gradient, MacKay pooled over
// the free groups) must then change nothing, to the bit. In the final
// rounds alpha reaches MacKay's fixed point with beta held.
func TestStudyKnownNoise(t *testing.T) {
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, up := range []Updater{UpdaterAdam, UpdaterMacKay} {
		s := Settings{Seed: 1, Epochs: 1500, Hyper: HyperSteps{Start: 500}, BetaMode: "split", Updater: up, Recipe: RecipePaper,
			KnownNoise: map[string]float64{"boundary": 1e-3}}
		f, err := Train(context.Background(), p, scheduled(p, s))
		if err != nil {
			t.Fatal(err)
		}
		s.Hyper.UntieAt = s.Epochs + 1
		g, err := Train(context.Background(), p, scheduled(p, s))
		if err != nil {
			t.Fatal(err)
		}
		b := slices.Index(f.Model.BetaNames, "beta_boundary")
		for _, h := range append(f.History, g.History...) {
			if std := 1e-3; h.Beta[b] != 1/(std*std) {
				t.Fatalf("%s: beta_boundary %g at epoch %d: want it held at 1/0.001^2", up, h.Beta[b], h.Epoch)
			}
		}
		if f.Beta[1-b] == s.Hyper.Beta0 || f.Hyper.Steps == 0 {
			t.Errorf("%s: beta_pde never moved (%g)", up, f.Beta[1-b])
		}
		if !slices.Equal(f.Model.Net.W, g.Model.Net.W) || !slices.Equal(f.Alpha, g.Alpha) || !slices.Equal(f.Beta, g.Beta) {
			t.Errorf("%s: tied and untied differ: alpha %v / %v, beta %v / %v", up, f.Alpha, g.Alpha, f.Beta, g.Beta)
		}
	}
	r, err := problems.New("regression", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Train(context.Background(), r, scheduled(r, Settings{Seed: 1, Epochs: 3000, Hyper: HyperSteps{Start: 1000}, KnownNoise: map[string]float64{"beta": 0.05}}))
	if err != nil {
		t.Fatal(err)
	}
	if std := 0.05; f.Status != StatusOK || f.Beta[0] != 1/(std*std) {
		t.Fatalf("status %s, beta %g: want ok and beta held at 400", f.Status, f.Beta[0])
	}
	c := f.Hessians()
	alpha, _ := f.Laplace.MacKay(c.Loss)
	if r := alpha[0] / f.Alpha[0]; math.Abs(r-1) > 5*f.Settings.Final.Tol {
		t.Errorf("alpha %.6g, MacKay's fixed point with beta held %.6g", f.Alpha[0], alpha[0])
	}
}

// The Gauss-Newton polish leaves w at the minimum of E_T to well within the
// posterior's width (the Newton step A^-1 grad, in units of each weight's
// posterior std, is negligible: the Laplace expansion point is right), as
// low as L-BFGS's in far fewer iterations, and its matrix is the Laplace
// approximation's A.
func TestStudyGaussNewtonPolish(t *testing.T) {
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := Settings{Seed: 2, Epochs: 3000, Hyper: HyperSteps{Start: 1000}, Recipe: RecipePaper, Polish: PolishSettings{On: true}}
	gnS, lbS := base, base
	gnS.Polish.Method, lbS.Polish.Method = PolishGaussNewton, PolishLBFGS
	gn, err := Train(context.Background(), p, scheduled(p, gnS))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := Train(context.Background(), p, scheduled(p, lbS))
	if err != nil {
		t.Fatal(err)
	}
	if gn.Status != StatusOK || lb.Status != StatusOK {
		t.Fatalf("statuses %s (%s), %s (%s)", gn.Status, gn.Reason, lb.Status, lb.Reason)
	}
	t.Logf("E_T after Gauss-Newton %.10g (%d iterations), after L-BFGS %.10g (%d iterations)",
		gn.Polish.F, gn.Polish.Iterations, lb.Polish.F, lb.Polish.Iterations)
	if gn.Polish.F > lb.Polish.F*(1+1e-9) || 2*gn.Polish.Iterations > lb.Polish.Iterations {
		t.Errorf("Gauss-Newton: E_T %.10g in %d iterations; L-BFGS %.10g in %d: want as low in half the iterations",
			gn.Polish.F, gn.Polish.Iterations, lb.Polish.F, lb.Polish.Iterations)
	}
	P := gn.Model.NumWeights()
	grad := make([]float64, P)
	gn.lossAndGrad(grad)
	var step mat.VecDense
	if err := gn.Laplace.Chol.SolveVecTo(&step, mat.NewVecDense(P, grad)); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := 0; i < P; i++ {
		worst = math.Max(worst, math.Abs(step.AtVec(i))/math.Sqrt(gn.Laplace.AInv.At(i, i)))
	}
	t.Logf("Newton step from the polished w: at most %.3g posterior std", worst)
	if worst > 1e-3 {
		t.Errorf("Newton step A^-1 grad from the polished w is %.3g posterior std: not at the minimum", worst)
	}
	h := mat.NewSymDense(P, nil)
	gn.gaussNewtonMatrix()(h)
	var a mat.SymDense
	gn.Laplace.Chol.ToSym(&a)
	if !mat.EqualApprox(h, &a, 1e-9*mat.Norm(&a, math.Inf(1))) {
		t.Error("the polish's Gauss-Newton matrix is not the Laplace approximation's A")
	}
}
