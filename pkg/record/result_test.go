package record_test

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// nonFiniteRE matches a NaN or infinity written as a JSON value.
var nonFiniteRE = regexp.MustCompile(`[:,\[]\s*"?[-+]?(NaN|Inf|Infinity)"?\s*[,}\]]`)

// resultSchemaFields are the top-level keys docs/results-schema.md promises.
var resultSchemaFields = []string{"seed", "status", "epochs", "problem", "data_seed", "inputs", "params", "architecture",
	"activation", "hessian", "updater", "alpha_mode", "beta_mode", "epochs_planned", "hyper_start", "hyper_every",
	"alpha_names", "beta_names", "alpha", "beta", "e_w", "e_d", "log_evidence", "log_p", "log_p_convention",
	"log_p_const", "e_hyp", "ln_sigma_alpha", "ln_sigma_beta", "comb", "gamma", "gamma_alpha", "gamma_beta",
	"errors", "residual_rms", "hyper", "seconds", "version", "weights", "terms", "history"}

func TestNewResultSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem string
		s       bayes.Settings
	}{
		{"heat", bayes.Settings{Seed: 1}},
		{"regression", bayes.Settings{Seed: 1, AlphaMode: "classes"}},
		{"burgers", bayes.Settings{Seed: 1, Epochs: 60, Hyper: bayes.HyperSteps{Start: 50, Every: 5}}},
	} {
		f := testfit.Train(t, c.problem, c.s)
		r := record.NewResult(f, 10)
		b, err := json.Marshal(&r)
		if err != nil {
			t.Fatalf("%s: marshal: %v", c.problem, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range resultSchemaFields {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: field %q missing", c.problem, k)
			}
		}
		// Group names key the maps.
		for _, n := range r.AlphaNames {
			if _, ok := r.Alpha[n]; !ok {
				t.Errorf("%s: alpha has no %q: %v", c.problem, n, r.Alpha)
			}
		}
		for _, n := range r.BetaNames {
			if r.Beta[n] == nil || r.ED[n] == nil || r.BetaSizes[n] == 0 {
				t.Errorf("%s: beta group %q missing in beta, e_d or beta_sizes", c.problem, n)
			}
		}
		if got, want := len(r.Terms), len(f.Model.Problem.Terms); got != want {
			t.Errorf("%s: %d terms, want %d", c.problem, got, want)
		}
		want := 100 // 10x10
		if len(r.Inputs) == 1 {
			want = 20
		}
		if r.Errors == nil || r.Errors.Points != want {
			t.Errorf("%s: errors %+v, want %d grid points", c.problem, r.Errors, want)
		}
		// A round trip through JSON gives the same bytes.
		var back record.Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: unmarshal: %v", c.problem, err)
		}
		b2, _ := json.Marshal(&back)
		if !bytes.Equal(b, b2) {
			t.Errorf("%s: JSON round trip changed the record", c.problem)
		}
	}
}

// TestResidualCheck: at the training points the check is sqrt(2 E_D / N) of
// the fit; on a copy of the training points the fresh rms equals it; on
// fresh points it differs; a problem with other beta groups is an error.
func TestResidualCheck(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "burgers", bayes.Settings{Seed: 1, Epochs: 60, Hyper: bayes.HyperSteps{Start: 50, Every: 5}})
	p := f.Model.Problem
	train, held, err := band.ResidualCheck(f, fresh(t, p))
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range f.Model.N {
		if want := math.Sqrt(2 * f.ED[k] / float64(n)); math.Abs(train[k]-want) > 1e-12*want {
			t.Errorf("group %d: train rms %g, want sqrt(2 E_D/N) = %g", k, train[k], want)
		}
		if held[k] != train[k] {
			t.Errorf("group %d: rms on the training points again %g, want %g", k, held[k], train[k])
		}
	}
	// Independently of the loss graph: the rms of u - target over the data
	// terms of each group, with u from the network's prediction.
	sq, cnt := make([]float64, len(train)), make([]int, len(train))
	for i, term := range p.Terms {
		if term.Target == nil || term.Name == "pde" {
			continue
		}
		u, _ := testfit.Predict(t, f, term.Points)
		k := f.Model.TermGroup[i]
		for j, y := range term.Target {
			sq[k] += (u[j] - y) * (u[j] - y)
			cnt[k]++
		}
	}
	checked := 0
	for k := range sq {
		if cnt[k] == 0 {
			continue
		}
		checked++
		if want := math.Sqrt(sq[k] / float64(cnt[k])); math.Abs(train[k]-want) > 1e-9*want {
			t.Errorf("group %s: train rms %g, want %g from the predictions", f.Model.BetaNames[k], train[k], want)
		}
	}
	if checked != 2 {
		t.Errorf("checked %d data groups, want 2 (boundary, data)", checked)
	}
	q, err := p.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	if q.Terms[0].Points[0][0] == p.Terms[0].Points[0][0] {
		t.Fatalf("fresh points equal the training points")
	}
	_, held, err = band.ResidualCheck(f, fresh(t, q))
	if err != nil {
		t.Fatal(err)
	}
	for k := range held {
		if !(held[k] > 0) || held[k] == train[k] {
			t.Errorf("group %d: fresh rms %g (train %g)", k, held[k], train[k])
		}
	}
	r := record.NewResult(f, 10)
	for k, n := range r.BetaNames {
		if c := r.ResidualRMS[n]; c.Train == nil || *c.Train != train[k] || c.Fresh == nil || *c.Fresh != held[k] {
			t.Errorf("record %s: %+v, want train %g fresh %g", n, c, train[k], held[k])
		}
	}
	q.Terms = q.Terms[:2]
	if _, _, err := band.ResidualCheck(f, fresh(t, q)); err == nil {
		t.Errorf("fresh problem with 2 of 3 beta groups: no error")
	}
}

func TestNewResultDeterministic(t *testing.T) {
	t.Parallel()
	a := record.NewResult(testfit.Train(t, "heat", bayes.Settings{Seed: 3}), 10)
	b := record.NewResult(testfit.Train(t, "heat", bayes.Settings{Seed: 3}), 10)
	c := record.NewResult(testfit.Train(t, "heat", bayes.Settings{Seed: 4}), 10)
	if !record.SameApartFromSeconds(a, b) {
		t.Errorf("two fits with seed 3 differ apart from seconds")
	}
	if record.SameApartFromSeconds(a, c) {
		t.Errorf("fits with seeds 3 and 4 are identical")
	}
}

// NewResult records the fit's configuration as the fit holds it
// (Fit.Config), without resolving its settings again: settings a
// resolution would refuse are recorded as they are, not a panic.
func TestNewResultRecordsConfig(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 3, Epochs: 60, Hyper: bayes.HyperSteps{Start: 30}})
	want := record.NewResult(f, 5)
	f.Settings.LR = 5 // above Resolve's limit of 1
	got := record.NewResult(f, 5)
	if got.LR != 5 || got.Settings["LR"] != 5.0 {
		t.Errorf("LR recorded %g (settings %v), want the fit's 5", got.LR, got.Settings["LR"])
	}
	got.LR, got.Settings["LR"] = want.LR, want.Settings["LR"]
	if !record.SameApartFromSeconds(got, want) {
		t.Error("a fit's record changed beyond its LR")
	}
}

func TestNewResultDiverged(t *testing.T) {
	t.Parallel()
	f := testfit.TrainNaN(t, "heat", bayes.Settings{Seed: 1}, 40)
	r := record.NewResult(f, 10)
	if r.Status != string(bayes.StatusDiverged) || r.Epochs != 40 || !strings.Contains(r.Reason, "epoch 40") {
		t.Errorf("status %q epochs %d reason %q, want diverged at epoch 40", r.Status, r.Epochs, r.Reason)
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatalf("a diverged fit must marshal: %v", err)
	}
	if nonFiniteRE.Match(b) {
		t.Errorf("JSON holds a non-finite value: %s", nonFiniteRE.Find(b))
	}
	if !bytes.Contains(b, []byte(`"log_evidence":null`)) {
		t.Errorf("log_evidence of a diverged fit is not null")
	}
	if v, ok := r.Settings["NaNAt"]; !ok || v != 0 {
		t.Errorf("settings NaNAt = %v (present %t), want 0 as in every record", v, ok)
	}
}

func TestNum(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		x   float64
		nil bool
	}{{1, false}, {0, false}, {math.NaN(), true}, {math.Inf(1), true}, {math.Inf(-1), true}} {
		if got := record.Num(c.x) == nil; got != c.nil {
			t.Errorf("Num(%v) == nil is %v, want %v", c.x, got, c.nil)
		}
	}
	if v := record.Val(nil); v == v {
		t.Errorf("Val(nil) = %v, want NaN", v)
	}
}

// The settings map records PolishMemory only where the polish has a
// memory (L-BFGS): a Gauss-Newton polish's records keep comparing equal to
// older ones.
func TestSettingsMapPolishMemory(t *testing.T) {
	t.Parallel()
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   bayes.Settings
		want bool
	}{
		{bayes.Settings{Seed: 1, Polish: bayes.PolishSettings{Method: bayes.PolishLBFGS}}, true},
		{bayes.Settings{Seed: 1, Polish: bayes.PolishSettings{Method: bayes.PolishLBFGS, Memory: 7}}, true},
		{bayes.Settings{Seed: 1}, false},
	} {
		s, err := testfit.Scheduled(p, c.in).Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := record.SettingsMap(s)["PolishMemory"]; ok != c.want {
			t.Errorf("%+v: settings map has PolishMemory %v, want %v", c.in, ok, c.want)
		}
	}
}

// The settings map records BalanceBetas only for a fit that started its
// betas balanced (a derived schedule): a measured schedule's records keep
// comparing equal to older ones; the key reads back.
func TestSettingsMapBalanceBetas(t *testing.T) {
	t.Parallel()
	heat, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	own := *heat // the same problem without a schedule: a derived one
	own.Name = "own"
	for _, c := range []struct {
		p    *pde.Problem
		s    bayes.Settings
		want bool
	}{
		{heat, testfit.Scheduled(heat, bayes.Settings{Seed: 1}), false},
		{&own, bayes.Settings{Seed: 1}, true},
	} {
		s, err := c.s.Resolve(c.p)
		if err != nil {
			t.Fatal(err)
		}
		m := record.SettingsMap(s)
		if _, ok := m["BalanceBetas"]; ok != c.want {
			t.Errorf("%s: settings map has BalanceBetas %v, want %v", c.p.Name, ok, c.want)
		}
		back, err := record.ReadSettings(m)
		if err != nil {
			t.Fatal(err)
		}
		if back.Hyper.Balance != c.want {
			t.Errorf("%s: BalanceBetas read back as %v, want %v", c.p.Name, back.Hyper.Balance, c.want)
		}
	}
}

// fresh is band.NewFreshDraw of q, failing t on an error.
func fresh(t *testing.T, q *pde.Problem) band.FreshDraw {
	t.Helper()
	d, err := band.NewFreshDraw(q)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestErrorsOf: the one call a user makes for a fit's errors gives the
// record's numbers as plain fields, the calibrated and held-out bands
// included, and an error naming the problem when it has no exact solution.
func TestErrorsOf(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 2})
	e, err := record.ErrorsOf(f, 20)
	if err != nil {
		t.Fatal(err)
	}
	g := record.NewResult(f, 20).Errors
	same := func(a float64, b *float64) bool { return b != nil && a == *b }
	if !same(e.RelL2, g.RelL2) || !same(e.MSE, g.MSE) || !same(e.MaxAbs, g.MaxAbs) || !same(e.Coverage2S, g.Coverage2S) ||
		!same(e.Q95, g.Q95) || !same(e.Coverage2SHeldOut, g.Coverage2SHeldOut) || !same(e.SigmaRatioHeldOut, g.SigmaRatioHeldOut) ||
		!same(e.Coverage2SCalibrated, g.Coverage2SCalibrated) || !same(e.Q95Calibrated, g.Q95Calibrated) ||
		!same(e.SigmaRatioCalibrated, g.SigmaRatioCalibrated) || e.GridN != g.Points {
		t.Errorf("ErrorsOf %+v, the record's %+v", e, *g)
	}
	plain, err := f.GridErrors(20)
	if err != nil || plain.RelL2 != e.RelL2 || plain.Coverage2S != e.Coverage2S || !math.IsNaN(plain.Q95) || !math.IsNaN(plain.Coverage2SCalibrated) {
		t.Errorf("Fit.GridErrors %+v (%v): want the same errors and coverage, NaN for q95 and the other bands", plain, err)
	}
	noExact := *f
	m := *f.Model
	p := *m.Problem
	p.Exact, m.Problem, noExact.Model = nil, &p, &m
	if _, err := record.ErrorsOf(&noExact, 20); err == nil || !strings.Contains(err.Error(), `problem "heat" has no exact solution`) {
		t.Errorf("no exact solution: %v, want an error naming the problem", err)
	}
}

// TestRunConfigDiff: Diff names the field that differs with both values,
// a setting by its key inside settings, and a setting added to the
// records later compares as its older value when absent.
func TestRunConfigDiff(t *testing.T) {
	base := func() record.RunConfig {
		return record.RunConfig{Problem: "heat", EpochsPlan: 100, Architecture: []int{2, 8, 1},
			Settings: map[string]any{"Epochs": 100, "Resample": 0}}
	}
	for _, c := range []struct {
		name string
		edit func(c *record.RunConfig)
		want string
	}{
		{"same", func(*record.RunConfig) {}, ""},
		{"a column", func(c *record.RunConfig) { c.EpochsPlan = 200 }, "epochs_planned 200, not 100"},
		{"a setting", func(c *record.RunConfig) { c.Settings["Resample"] = 100 }, "settings.Resample 100, not 0"},
		{"a setting absent", func(c *record.RunConfig) { delete(c.Settings, "Epochs") }, "settings.Epochs absent, not 100"},
		{"a setting added later", func(c *record.RunConfig) { delete(c.Settings, "Resample") }, ""},
	} {
		a, b := base(), base()
		c.edit(&a)
		if got := a.Diff(b); got != c.want {
			t.Errorf("%s: Diff %q, want %q", c.name, got, c.want)
		}
		if a.Equal(b) != (c.want == "") {
			t.Errorf("%s: Equal %v, Diff %q", c.name, a.Equal(b), c.want)
		}
	}
}

// TestRecordAtTestPoints: a problem with TestPoints is scored there, and
// its record and summary say so; on a grid they say grid points.
func TestRecordAtTestPoints(t *testing.T) {
	f := testfit.TrainOscillator(t)
	q := *f.Model.Problem
	q.TestPoints = [][]float64{{0.5}, {1.5}, {2.5}}
	m := *f.Model
	m.Problem = &q
	g := *f
	g.Model = &m
	for _, c := range []struct {
		fit    *bayes.Fit
		points int
		test   bool
		says   string
	}{{f, 40, false, "on 40 grid points"}, {&g, 3, true, "at the problem's 3 test points"}} {
		r := record.NewResult(c.fit, 20)
		if r.Errors == nil || r.Errors.Points != c.points || r.Errors.TestPoints != c.test {
			t.Fatalf("errors %+v: want %d points, test points %v", r.Errors, c.points, c.test)
		}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.says) {
			t.Errorf("summary %q: want %q", b.String(), c.says)
		}
	}
}
