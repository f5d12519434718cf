package bayes

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// NewConfig resolves once: its settings are Resolve's, its beta groups the
// problem's under the resolved mode, and what its methods return is a copy
// that changes no Config.
func TestConfigResolvedOnce(t *testing.T) {
	t.Parallel()
	p := poisson1D()
	s := Settings{Seed: 1, Schedule: poissonSchedule, BetaMode: pde.BetaSplit, KnownNoise: map[string]float64{"boundary": 0.1}}
	cfg, err := NewConfig(p, s)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Settings()
	if !slices.Equal(got.Hidden, rs.Hidden) || got.Epochs != rs.Epochs || got.BetaMode != rs.BetaMode || got.Curvature != rs.Curvature || cfg.Problem() != p {
		t.Errorf("Config's settings %+v, want Resolve's %+v", got, rs)
	}
	wantNames, wantGroups, _ := p.BetaGroups(pde.BetaSplit)
	names, termGroup := cfg.BetaGroups()
	if !slices.Equal(names, wantNames) || !slices.Equal(termGroup, wantGroups) {
		t.Errorf("BetaGroups %v %v, want %v %v", names, termGroup, wantNames, wantGroups)
	}
	got.Hidden[0], got.KnownNoise["boundary"], names[0], termGroup[0] = -1, -1, "changed", 9
	again := cfg.Settings()
	names, termGroup = cfg.BetaGroups()
	if again.Hidden[0] == -1 || again.KnownNoise["boundary"] == -1 || names[0] == "changed" || termGroup[0] == 9 {
		t.Errorf("changing what a Config returned changed the Config: %v %v %v %v", again.Hidden, again.KnownNoise, names, termGroup)
	}
	if w := cfg.WithSeed(7); w.Settings().Seed != 7 || cfg.Settings().Seed != 1 {
		t.Errorf("WithSeed(7): seed %d, and the Config's own became %d (want 7 and 1)", w.Settings().Seed, cfg.Settings().Seed)
	}
	if _, err := NewConfig(p, Settings{Seed: 1, Schedule: poissonSchedule, BetaMode: "both"}); err == nil || !strings.Contains(err.Error(), "beta mode") {
		t.Errorf("beta mode both: %v, want an error naming the beta mode", err)
	}
}

// NewConfig is where a fit's problem is validated: a problem Validate
// refuses is refused there with Validate's error (so TrainConfig need not
// check again), and so is no problem.
func TestNewConfigValidates(t *testing.T) {
	t.Parallel()
	s := Settings{Seed: 1, Schedule: poissonSchedule}
	p := poisson1D()
	p.Terms = append(slices.Clone(p.Terms), p.Terms[0]) // two terms of one name
	want := p.Validate()
	if want == nil {
		t.Fatal("a problem with two terms of one name passed Validate")
	}
	if _, err := NewConfig(p, s); err == nil || err.Error() != want.Error() {
		t.Errorf("NewConfig of an invalid problem: %v, want Validate's %v", err, want)
	}
	if _, err := NewConfig(nil, s); err == nil || !strings.Contains(err.Error(), "no problem") {
		t.Errorf("NewConfig(nil): %v, want an error saying there is no problem", err)
	}
}

// TrainConfig of NewConfig's configuration is Train's fit, bit for bit,
// and the fit carries that configuration; a zero Config and seed 0 are
// refused.
func TestTrainConfigIsTrain(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := scheduled(p, Settings{Seed: 2, Epochs: 60, Hyper: HyperSteps{Start: 20}, Recipe: RecipePaper})
	want, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	first := s
	first.Seed = 1
	cfg, err := NewConfig(p, first)
	if err != nil {
		t.Fatal(err)
	}
	got, err := TrainConfig(context.Background(), cfg.WithSeed(2))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Model.Theta, want.Model.Theta) || !slices.Equal(got.Beta, want.Beta) || got.Status != want.Status {
		t.Errorf("TrainConfig: a fit other than Train's (status %s, want %s)", got.Status, want.Status)
	}
	if c := got.Config(); c.Problem() != p || c.Settings().Seed != 2 || !slices.Equal(c.Settings().Hidden, got.Settings.Hidden) {
		t.Errorf("the fit's Config: problem %p seed %d hidden %v, want %p 2 %v", c.Problem(), c.Settings().Seed, c.Settings().Hidden, p, got.Settings.Hidden)
	}
	if _, err := TrainConfig(context.Background(), Config{}); err == nil || !strings.Contains(err.Error(), "NewConfig") {
		t.Errorf("TrainConfig of a zero Config: %v, want an error naming NewConfig", err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("WithSeed(0) did not panic")
		}
	}()
	cfg.WithSeed(0)
}
