package record_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// A short heat-inverse fit: kappa moves from its start toward the truth,
// the record carries it with its interval, and Restore rebuilds it (the
// same unknowns, band and log evidence).
func TestInverseFitRestore(t *testing.T) {
	t.Parallel()
	p := problems.HeatInverse(problems.Options{})
	f, err := bayes.Train(context.Background(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1, Epochs: 1500, Hyper: bayes.HyperSteps{Start: 500}, Hidden: []int{6}}))
	if err != nil {
		t.Fatal(err)
	}
	if f.Laplace == nil || !f.Laplace.OccamOK {
		t.Fatalf("no log evidence: %s %s", f.Status, f.Reason)
	}
	us := f.Unknowns()
	if len(us) != 1 || us[0].Name != "kappa" {
		t.Fatalf("unknowns %v", us)
	}
	k := us[0]
	if !(k.RelErr() < 0.2) || !(k.SD > 0) || !(k.Lo95 < k.Value && k.Value < k.Hi95) || k.Value != math.Exp(k.Theta) {
		t.Errorf("kappa %v: want within 20%% of 0.1 (from 0.05) with an interval around it", k)
	}
	if got := math.Log(k.Hi95/k.Value) / 1.959963984540054; math.Abs(got-k.SD) > 1e-12 {
		t.Errorf("interval [%g, %g] is not exp(ln kappa +- 1.96 sd) for sd %g", k.Lo95, k.Hi95, k.SD)
	}
	r := roundTrip(t, record.NewResult(f, 10))
	ru, ok := r.Unknowns["kappa"]
	if !ok || record.Val(ru.Value) != k.Value || record.Val(ru.SD) != k.SD || ru.Scale != "log" || record.Val(ru.Truth) != 0.1 {
		t.Fatalf("record's unknowns %+v, want kappa %v", r.Unknowns, k)
	}
	g, err := record.Restore(problems.HeatInverse(problems.Options{}), &r)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Unknowns(); got[0].Theta != k.Theta || got[0].SD != k.SD {
		t.Errorf("restored kappa %v, want %v", got[0], k)
	}
	pts := [][]float64{{0.3, 0.4}, {0.7, 0.9}}
	m1, s1, err1 := f.Predict(pts)
	m2, s2, err2 := g.Predict(pts)
	if err1 != nil || err2 != nil || !slices.Equal(m1, m2) || !slices.Equal(s1, s2) || !(s1[0] > 0) {
		t.Errorf("restored band %v +- %v, want %v +- %v (%v, %v)", m2, s2, m1, s1, err1, err2)
	}
	// A quantity that reads the unknown carries its uncertainty: kappa
	// itself has mean kappa and, by the delta method on ln kappa, sigma
	// kappa * sd.
	km, ks, err := f.PredictQuantity(pts, func(v *pde.Vars) *ad.Node { return v.Unknown("kappa") })
	if err != nil || math.Abs(km[1]-k.Value) > 1e-15 || math.Abs(ks[1]-k.Value*k.SD) > 1e-9*k.Value*k.SD {
		t.Errorf("PredictQuantity(kappa) = %v +- %v (%v), want %g +- %g", km, ks, err, k.Value, k.Value*k.SD)
	}
	delete(r.Unknowns, "kappa")
	if _, err := record.Restore(problems.HeatInverse(problems.Options{}), &r); err == nil || !strings.Contains(err.Error(), "unknown kappa is missing") {
		t.Errorf("a record without its unknown: %v", err)
	}
}
