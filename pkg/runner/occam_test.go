package runner_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// A fit whose Occam argument is not positive has no log evidence: its
// record writes nulls (never NaN), it ranks last and the runner does not
// take it for the best.
func TestOccamInvalidFit(t *testing.T) {
	t.Parallel()
	// The same state in a fit: a short heat fit whose curvature has N_t = 0
	// in its first beta group, so that group's Occam argument is
	// -1/2 beta_t^2 tr((A^-1 H_t)^2) < 0 while A is unchanged.
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2, Epochs: 300, Hyper: bayes.HyperSteps{Start: 100}, Recipe: bayes.RecipePaper})
	if f.Laplace == nil || !f.Laplace.OccamOK {
		t.Fatalf("the reference fit needs a defined evidence: %s %s", f.Status, f.Reason)
	}
	cf := f.Hessians()
	cf.N = append([]int(nil), cf.N...)
	cf.N[0] = 0
	bad, err := curv.NewLaplace(cf, f.Alpha, f.Beta)
	if err != nil {
		t.Fatal(err)
	}
	if bad.OccamOK || !(bad.OccamArgBeta[0] < 0) {
		t.Fatalf("N_0 = 0: OccamOK %v, argument %g; want false, negative", bad.OccamOK, bad.OccamArgBeta[0])
	}
	fb := *f
	fb.Laplace, fb.Status = bad, bayes.StatusOccamInvalid
	fb.Settings.Seed = 1 // lowest seed: wins every tie
	if runner.LaplaceOK(&fb) != nil {
		t.Error("laplaceOK of a fit with undefined evidence is not nil")
	}
	good, invalid := record.NewResult(f, 5), record.NewResult(&fb, 5)
	js, err := json.Marshal(&invalid)
	if err != nil {
		t.Fatal(err)
	}
	if nonFiniteRE.Match(js) {
		t.Errorf("NaN or Inf in the JSON: %s", nonFiniteRE.Find(js))
	}
	var m struct {
		LogEvidence *float64            `json:"log_evidence"`
		LnSigmaBeta map[string]*float64 `json:"ln_sigma_beta"`
		OccamOK     bool                `json:"occam_ok"`
	}
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	b0 := invalid.BetaNames[0]
	if v, ok := m.LnSigmaBeta[b0]; !ok || v != nil || m.LogEvidence != nil || m.OccamOK {
		t.Errorf("JSON log_evidence %v, ln_sigma_beta[%s] %v (present %v), occam_ok %v; want null, null, false",
			m.LogEvidence, b0, v, ok, m.OccamOK)
	}
	// record.Ranked by the record: undefined evidence (NaN) last, below a much
	// lower defined one.
	order := record.Rank([]record.Ranked{
		{Seed: invalid.Seed, LogEvidence: record.Val(invalid.LogEvidence)},
		{Seed: good.Seed, LogEvidence: record.Val(good.LogEvidence)},
		{Seed: 9, LogEvidence: record.Val(good.LogEvidence) - 50},
	})
	if order[len(order)-1].Seed != invalid.Seed || order[0].Seed != good.Seed {
		t.Errorf("rank order %+v: want seed %d first and the undefined seed %d last", order, good.Seed, invalid.Seed)
	}
	s, err := record.Summarize([]record.Result{invalid, good})
	if err != nil {
		t.Fatal(err)
	}
	if s.Best == nil || s.Best.Seed != good.Seed || s.WithZ != 1 || s.Ranked[1].Seed != invalid.Seed {
		t.Errorf("Summarize: best %+v, with evidence %d, ranked %+v; want seed %d best and seed %d last", s.Best, s.WithZ, s.Ranked, good.Seed, invalid.Seed)
	}
}

// nonFiniteRE matches a NaN or infinity written as a JSON value.
var nonFiniteRE = regexp.MustCompile(`[:,\[]\s*"?[-+]?(NaN|Inf|Infinity)"?\s*[,}\]]`)
