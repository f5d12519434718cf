package bayes

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// After redraw, every compiled program (the training program and the
// Gauss-Newton Jacobians built before the redraw) computes what a model
// built on the redrawn points computes, to the bit, and the Measured term
// keeps its points.
func TestRedrawFeedsEveryProgram(t *testing.T) {
	t.Parallel()
	p, err := problems.New("burgers", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	own := *p
	own.Terms = slices.Clone(p.Terms)
	net := nn.New([]int{2, 5, 5, 1}, nn.Tanh, rand.New(rand.NewPCG(3, 0)))
	m, err := NewModel(&own, net, "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	P := m.NumWeights()
	hs := [][]float64{make([]float64, P*P), make([]float64, P*P), make([]float64, P*P)}
	m.Hessians(GaussNewton, hs) // builds the Jacobian programs at draw 0
	if err := m.redraw(3); err != nil {
		t.Fatal(err)
	}
	q, err := p.Redraw(3)
	if err != nil {
		t.Fatal(err)
	}
	want := *p
	want.Terms = slices.Clone(p.Terms)
	for i := range want.Terms {
		if !want.Terms[i].Measured {
			want.Terms[i].Points, want.Terms[i].Target = q.Terms[i].Points, q.Terms[i].Target
		}
	}
	ref, err := NewModel(&want, net, "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	beta := []float64{2, 3, 5}
	ed, edRef := make([]float64, 3), make([]float64, 3)
	g, gRef := make([]float64, P), make([]float64, P)
	m.DataLoss(beta, ed, g)
	ref.DataLoss(beta, edRef, gRef)
	if !slices.Equal(ed, edRef) || !slices.Equal(g, gRef) {
		t.Errorf("after redraw E_D %v, a model on the redrawn points %v", ed, edRef)
	}
	hsRef := [][]float64{make([]float64, P*P), make([]float64, P*P), make([]float64, P*P)}
	m.Hessians(GaussNewton, hs)
	ref.Hessians(GaussNewton, hsRef)
	if !reflect.DeepEqual(hs, hsRef) {
		t.Error("after redraw the Gauss-Newton Hessians differ from a model on the redrawn points")
	}
	for i, tm := range m.Problem.Terms {
		if moved := !reflect.DeepEqual(tm.Points, p.Terms[i].Points); moved == tm.Measured {
			t.Errorf("term %q (measured %v): moved %v", tm.Name, tm.Measured, moved)
		}
	}
}

// A resampled fit trains on other points (other weights than without), is
// deterministic, ends on the problem's own points (its E_D is the one of a
// model built on them), and leaves the caller's problem as it was, also
// when it diverges mid-way.
func TestResampleTrain(t *testing.T) {
	t.Parallel()
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(p.Terms[0].Points)
	s := Settings{Seed: 2, Epochs: 300, Hyper: HyperSteps{Start: 100}, Final: FinalRounds{Rounds: 2}, Resample: 50}
	a, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), p, scheduled(p, s))
	if err != nil {
		t.Fatal(err)
	}
	s0 := s
	s0.Resample = 0
	c, err := Train(context.Background(), p, scheduled(p, s0))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Model.Net.W, b.Model.Net.W) || a.Laplace == nil || b.Laplace == nil ||
		math.Float64bits(a.Laplace.LogEvidence) != math.Float64bits(b.Laplace.LogEvidence) {
		t.Error("the same resampled fit twice gave different weights or evidence")
	}
	if slices.Equal(a.Model.Net.W, c.Model.Net.W) {
		t.Error("resampling every 50 epochs left the weights as without it")
	}
	if !reflect.DeepEqual(p.Terms[0].Points, before) {
		t.Error("the caller's problem changed")
	}
	for i, tm := range a.Model.Problem.Terms {
		if !reflect.DeepEqual(tm.Points, p.Terms[i].Points) || !slices.Equal(tm.Target, p.Terms[i].Target) {
			t.Errorf("term %q: the fit ends on other points than the problem's", tm.Name)
		}
	}
	ref, err := NewModel(p, a.Model.Net, a.Settings.AlphaMode, a.Settings.BetaMode)
	if err != nil {
		t.Fatal(err)
	}
	ed := make([]float64, len(a.ED))
	ref.DataLoss(a.Beta, ed, make([]float64, a.Model.NumWeights()))
	if math.Abs(ed[0]-a.ED[0]) > 1e-12*ed[0] {
		t.Errorf("E_D %g at the end, %g on the problem's points", a.ED[0], ed[0])
	}

	d, err := Train(fault.WithNaNAt(context.Background(), 120), p, scheduled(p, Settings{Seed: 2, Epochs: 300, Hyper: HyperSteps{Start: 100}, Resample: 50}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != StatusDiverged || !reflect.DeepEqual(d.Model.Problem.Terms[0].Points, p.Terms[0].Points) {
		t.Errorf("diverged resampled fit: status %q, ends on the problem's points: %v", d.Status,
			reflect.DeepEqual(d.Model.Problem.Terms[0].Points, p.Terms[0].Points))
	}
}

func TestResampleErrors(t *testing.T) {
	t.Parallel()
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Redraw = nil
	if _, err := Train(context.Background(), &q, scheduled(&q, Settings{Seed: 1, Resample: 100})); err == nil || !strings.Contains(err.Error(), "Redraw is nil") {
		t.Errorf("no Redraw: %v", err)
	}
	// Negative is never: no redraws asked of a problem that cannot make them.
	if s, err := scheduled(&q, (Settings{Seed: 1, Resample: -1})).Resolve(&q); err != nil || s.Resample != 0 {
		t.Errorf("resample -1 without Redraw: resolved to %d (%v), want 0 (never)", s.Resample, err)
	}
}
