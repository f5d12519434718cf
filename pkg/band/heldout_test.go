package band_test

import (
	"math"
	"slices"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// HeldOut lowers each inferred beta to 1/rms^2 of the residuals at the
// fresh points (never raises it, never moves a known one), so its band is
// at least as wide as the evidence's everywhere; on the training points
// themselves nothing changes at the fixed point (1/rms^2 = N/2E_D exceeds
// MacKay's beta = (N - gamma)/2E_D), and f itself is left alone. A fit
// restored from its record keeps its known beta too.
func TestHeldOut(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "burgers", bayes.Settings{Seed: 1, Epochs: 60, Hyper: bayes.HyperSteps{Start: 50, Every: 5}, KnownNoise: map[string]float64{"data": 0.02}})
	p := f.Model.Problem
	beta0, lnZ0 := slices.Clone(f.Beta), f.Laplace.LogEvidence
	q, err := band.FreshDrawOf(p)
	if err != nil {
		t.Fatal(err)
	}
	_, held, err := band.ResidualCheck(f, q)
	if err != nil {
		t.Fatal(err)
	}
	g, err := band.HeldOut(f, q)
	if err != nil {
		t.Fatal(err)
	}
	for k, name := range f.Model.BetaNames {
		want := math.Min(f.Beta[k], 1/(held[k]*held[k]))
		if name == "beta_data" {
			want = 1 / (0.02 * 0.02)
		}
		if g.Beta[k] != want {
			t.Errorf("%s: held-out beta %g, want %g (fitted %g, fresh rms %g)", name, g.Beta[k], want, f.Beta[k], held[k])
		}
	}
	if !slices.Equal(f.Beta, beta0) || f.Laplace.LogEvidence != lnZ0 || g.Laplace == f.Laplace {
		t.Errorf("HeldOut changed the fit it was given")
	}
	rec := record.NewResult(f, 10)
	back, err := record.Restore(p, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if gb, err := band.HeldOut(back, q); err != nil || !slices.Equal(gb.Beta, g.Beta) {
		t.Errorf("restored fit: held-out beta %v (%v), want %v", gb.Beta, err, g.Beta)
	}
	if e, eb := rec.Errors, record.NewResult(back, 10).Errors; *e.Coverage2SHeldOut != *eb.Coverage2SHeldOut {
		t.Errorf("restored fit's held-out coverage %g, the record's %g", *eb.Coverage2SHeldOut, *e.Coverage2SHeldOut)
	}
	pts, _ := p.Grid(15)
	_, s := testfit.Predict(t, f, pts)
	_, sh := testfit.Predict(t, g, pts)
	wider := 0
	for i := range s {
		if sh[i] < s[i]*(1-1e-9) {
			t.Fatalf("at %v the held-out sigma %g is below the evidence's %g", pts[i], sh[i], s[i])
		}
		if sh[i] > 1.5*s[i] {
			wider++
		}
	}
	if wider == 0 {
		t.Errorf("the held-out band is nowhere 1.5x wider: the fresh residuals did not reach it")
	}

	// Trained to the joint fixed point, the training points give the same band.
	h := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	same, err := band.HeldOut(h, drawOf(t, h.Model.Problem))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(same.Beta, h.Beta) {
		t.Errorf("on its own training points: beta %v, want the fitted %v", same.Beta, h.Beta)
	}

	// The record carries the held-out coverage, at least the evidence's.
	r := record.NewResult(h, 20)
	e := r.Errors
	if e.Coverage2SHeldOut == nil || e.SigmaRatioHeldOut == nil || *e.Coverage2SHeldOut < *e.Coverage2S || *e.SigmaRatioHeldOut < 1 {
		t.Errorf("record: coverage %v, held-out coverage %v, sigma ratio %v", record.Val(e.Coverage2S), record.Val(e.Coverage2SHeldOut), record.Val(e.SigmaRatioHeldOut))
	}
}

// drawOf is band.NewFreshDraw of q, failing t on an error.
func drawOf(t *testing.T, q *pde.Problem) band.FreshDraw {
	t.Helper()
	d, err := band.NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
