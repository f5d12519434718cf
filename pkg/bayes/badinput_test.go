package bayes

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// poisson1D is -u” = pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0 (exact
// u = sin(pi x)), its source built from the coordinate: the smallest
// problem a user writes.
func poisson1D() *pde.Problem {
	var xs [][]float64
	for i := range 16 {
		xs = append(xs, []float64{(float64(i) + 0.5) / 16})
	}
	return &pde.Problem{
		Name: "poisson-1d", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Points: xs, Residual: func(v *pde.Vars) *ad.Node {
				f := ad.Scale(ad.Sin(ad.Scale(v.X("x"), math.Pi)), math.Pi*math.Pi)
				return ad.Add(v.D2("x", "x"), f) // u'' + f
			}},
			{Name: "boundary", Group: "boundary", Points: [][]float64{{0}, {1}}, Target: []float64{0, 0}, Residual: pde.DataResidual},
		},
		Exact: func(x []float64) float64 { return math.Sin(math.Pi * x[0]) },
	}
}

// poissonSchedule is poisson1D's schedule. One beta: a group of two
// boundary points would have its own beta determined by gamma close to
// its N (docs/problems.md).
var poissonSchedule = schedule.Schedule{Hidden: []int{6}, Epochs: 400, HyperStart: 200, BetaMode: "single"}

// TestBadInput: every mistake a user can make in a problem or its settings
// is a one-line error from Train naming what is wrong, never a panic and
// never a silent fit.
func TestBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(p *pde.Problem, s *Settings)
		want string
	}{
		{"no epochs", func(p *pde.Problem, s *Settings) { s.Schedule = schedule.Schedule{Hidden: []int{4}} }, "no epochs: set Settings.Epochs or Settings.Schedule.Epochs"},
		{"hyper-start beyond epochs", func(p *pde.Problem, s *Settings) { s.Epochs, s.Hyper.Start = 100, 200 }, "hyper-start = 200 is beyond epochs = 100"},
		{"inputs nil", func(p *pde.Problem, s *Settings) { p.Inputs = nil }, "0 inputs; a problem has 1 to 6 inputs"},
		{"seven inputs", func(p *pde.Problem, s *Settings) { p.Inputs = []string{"a", "b", "c", "d", "e", "f", "g"} }, "7 inputs; a problem has 1 to 6 inputs"},
		{"infinite bound", func(p *pde.Problem, s *Settings) { p.Hi[0] = math.Inf(1) }, "need finite Lo < Hi"},
		{"duplicate input", func(p *pde.Problem, s *Settings) {
			p.Inputs, p.Lo, p.Hi = []string{"x", "x"}, []float64{0, 0}, []float64{1, 1}
		}, "every input needs its own non-empty name"},
		{"duplicate term", func(p *pde.Problem, s *Settings) { p.Terms[1].Name = "pde" }, `two terms are named "pde"`},
		{"empty group, split betas", func(p *pde.Problem, s *Settings) { p.Terms[1].Group, s.BetaMode = "", "split" }, `term "boundary": no Group, and betas are split`},
		{"unknown input name", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return v.D("t") }
		}, `term "pde": D("t"): no input named "t"; the inputs are x`},
		{"unknown name in D2", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return v.D2("x", "y") }
		}, `D2("y"): no input named "y"`},
		{"derivative by index beyond the inputs", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return v.Jet().D(2) }
		}, `term "pde": the residual panicked: ad: Jet.D: input 2 of 1`},
		{"a residual that panics", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { panic("my bug") }
		}, `term "pde": the residual panicked: my bug`},
		{"a term with both Points and a Draw", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Draw = &pde.Draw{Region: pde.Interior(), N: 8}
		}, `term "pde": both Points and a Draw; Sample draws the points`},
		{"data residual without targets", func(p *pde.Problem, s *Settings) { p.Terms[1].Target = nil }, `term "boundary": DataResidual needs targets`},
		{"residual ignores u", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return v.X("x") }
		}, `term "pde": the residual does not depend on u`},
		{"nil residual result", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return nil }
		}, "the residual returned nil"},
		{"residual of the wrong shape", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return ad.Sum(v.U) }
		}, "the residual has shape 1x1, want 16x1"},
		// A per-point residual minus the mean of u over the points: before
		// Validate built the per-point Jacobian, this panicked in Train
		// ("ad: JacobianRows: parameter value ... enters Broadcast").
		{"a reduction over the points in a per-point residual", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return ad.Sub(v.D2("x", "x"), ad.Mean(v.U)) }
		}, `term "pde": the residual mixes the points: a reduction over them`},
		{"unknown field", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return ad.Sub(v.D2("x", "x"), v.Field("f")) }
		}, `Field("f"): the term has no field "f"; its fields are none`},
		{"field of the wrong length", func(p *pde.Problem, s *Settings) { p.Terms[0].Fields = map[string][]float64{"f": {1}} }, `field "f" has 1 values for 16 points`},
		{"unknown coefficient not declared", func(p *pde.Problem, s *Settings) {
			p.Terms[0].Residual = func(v *pde.Vars) *ad.Node { return ad.Sub(v.D2("x", "x"), v.Unknown("k")) }
		}, `Unknown("k"): the problem has no unknown "k"`},
		{"unknown coefficient no residual reads", func(p *pde.Problem, s *Settings) {
			p.Unknowns = []pde.Unknown{{Name: "k", Init: 1}}
		}, `unknown "k": no residual reads it`},
		{"unknown named like an input", func(p *pde.Problem, s *Settings) {
			p.Unknowns = []pde.Unknown{{Name: "x", Init: 1}}
		}, `unknown "x": the name is also an input`},
		{"positive unknown at zero", func(p *pde.Problem, s *Settings) {
			p.Unknowns = []pde.Unknown{{Name: "k", Positive: true}}
		}, `unknown "k": initial value 0 for a positive unknown`},
		{"transform of no field", func(p *pde.Problem, s *Settings) {
			p.Transforms = []pde.Transform{{Output: "w", D: "x*(1-x)"}}
		}, `problem "poisson-1d": a transform of output "w"; the outputs are u`},
		{"transform reads an unknown name", func(p *pde.Problem, s *Settings) {
			p.Transforms = []pde.Transform{{D: "x*(1-y)"}}
		}, `problem "poisson-1d" transform of "u": D: equation "x*(1-y)": col 6: y: unknown name; a transform reads inputs x`},
		{"transform not finite", func(p *pde.Problem, s *Settings) {
			p.Transforms = []pde.Transform{{G: "log(x)", D: "x*(1-x)"}}
		}, `problem "poisson-1d" transform of "u": G = -Inf, D = 0 at [0] (term "boundary"); give expressions finite on the domain`},
		{"transform D not vanishing at a met term", func(p *pde.Problem, s *Settings) {
			p.Transforms = []pde.Transform{{D: "x", Meets: []string{"boundary"}}}
		}, `problem "poisson-1d" transform of "u": D = 1 at [1], a point of term "boundary"; D must vanish where the term states the value`},
		{"transform met term kept", func(p *pde.Problem, s *Settings) {
			p.Transforms = []pde.Transform{{D: "x*(1-x)", Meets: []string{"boundary"}}}
		}, `problem "poisson-1d" term "boundary": met exactly by the transform of "u" (residual zero, no beta); draw the problem with Sample, which leaves it out, or remove the term`},
		{"beta mode", func(p *pde.Problem, s *Settings) { s.BetaMode = "each" }, `unknown beta mode "each": use single or split`},
		{"alpha mode", func(p *pde.Problem, s *Settings) { s.AlphaMode = "layers" }, `unknown alpha mode "layers": use single or classes`},
		// Seed 0 was once read as seed 1, so seeds {0, 1} trained one fit twice.
		{"seed 0", func(p *pde.Problem, s *Settings) { s.Seed = 0 }, "seed 0: seeds start at 1; set Settings.Seed"},
		{"LR NaN", func(p *pde.Problem, s *Settings) { s.LR = math.NaN() }, "setting LR = NaN: give a finite number"},
		{"HyperLR infinite", func(p *pde.Problem, s *Settings) { s.Hyper.LR = math.Inf(1) }, "setting Hyper.LR = +Inf"},
		{"Alpha0 NaN", func(p *pde.Problem, s *Settings) { s.Hyper.Alpha0 = math.NaN() }, "setting Hyper.Alpha0 = NaN"},
		{"Beta0 infinite", func(p *pde.Problem, s *Settings) { s.Hyper.Beta0 = math.Inf(-1) }, "setting Hyper.Beta0 = -Inf"},
		{"FixedAlpha NaN", func(p *pde.Problem, s *Settings) { s.Fixed.On, s.Fixed.Alpha = true, math.NaN() }, "setting Fixed.Alpha = NaN"},
		{"FixedBeta infinite", func(p *pde.Problem, s *Settings) { s.Fixed.On, s.Fixed.Beta = true, math.Inf(1) }, "setting Fixed.Beta = +Inf"},
		{"FinalTol NaN", func(p *pde.Problem, s *Settings) { s.Final.Tol = math.NaN() }, "setting Final.Tol = NaN"},
		{"LRDecay NaN", func(p *pde.Problem, s *Settings) { s.LRDecay = math.NaN() }, "setting LRDecay = NaN"},
		{"KnownNoise infinite", func(p *pde.Problem, s *Settings) {
			s.KnownNoise = map[string]float64{"boundary": math.Inf(1)}
		}, `setting KnownNoise["boundary"] = +Inf: give a finite standard deviation`},
		{"polish settings without a polish", func(p *pde.Problem, s *Settings) { s.Recipe, s.Polish.Iter = RecipePaper, 10 }, "need polish in the paper's recipe"},
		{"polish method without a polish", func(p *pde.Problem, s *Settings) { s.Recipe, s.Polish.Method = RecipePaper, PolishLBFGS }, "need polish in the paper's recipe"},
		{"alpha0 with fixed", func(p *pde.Problem, s *Settings) { s.Fixed.On, s.Hyper.Alpha0 = true, 0.1 }, "alpha0 and beta0 do not apply with fixed"},
		{"beta0 with fixed", func(p *pde.Problem, s *Settings) { s.Fixed.On, s.Hyper.Beta0 = true, 2 }, "alpha0 and beta0 do not apply with fixed"},
		{"balance with fixed", func(p *pde.Problem, s *Settings) { s.Fixed.On, s.Hyper.Balance = true, true }, "Hyper.Balance does not apply with fixed"},
		{"fixed alpha without fixed", func(p *pde.Problem, s *Settings) { s.Fixed.Alpha = 0.1 }, "fixed-alpha, fixed-beta and fixed-mean need fixed"},
		{"fixed beta without fixed", func(p *pde.Problem, s *Settings) { s.Fixed.Beta = 2 }, "fixed-alpha, fixed-beta and fixed-mean need fixed"},
		{"fixed mean without fixed", func(p *pde.Problem, s *Settings) { s.Fixed.Mean = true }, "fixed-alpha, fixed-beta and fixed-mean need fixed"},
		{"LR negative", func(p *pde.Problem, s *Settings) { s.LR = -1e-3 }, "setting LR = -0.001: must be positive"},
		{"HyperLR negative", func(p *pde.Problem, s *Settings) { s.Hyper.LR = -0.05 }, "setting Hyper.LR = -0.05: must be positive"},
		{"LR above 1", func(p *pde.Problem, s *Settings) { s.LR = 5 }, "setting LR = 5: above 1 Adam moves every weight"},
		{"HyperLR above 1", func(p *pde.Problem, s *Settings) { s.Hyper.LR = 1.5 }, "setting Hyper.LR = 1.5: above 1 one step"},
		{"Resample below -1", func(p *pde.Problem, s *Settings) { s.Resample = -100 }, "setting Resample = -100: give K > 0 epochs between redraws"},
		// A typo in a layer's size exhausted memory.
		{"hidden layer too large", func(p *pde.Problem, s *Settings) { s.Hidden = []int{1 << 40} }, "hidden sizes [1099511627776]: more than 100000000 weights; give smaller layers"},
		{"measurement std not positive", func(p *pde.Problem, s *Settings) {
			p.Terms[1] = pde.Measurements(&pde.Data{Points: [][]float64{{0}, {1}}, U: []float64{0, 0}, Std: []float64{0.1, -1}})
		}, `term "data": standard deviation 1 is -1; give each a finite number > 0`},
		{"unknown truth NaN", func(p *pde.Problem, s *Settings) {
			nan := math.NaN()
			p.Unknowns = []pde.Unknown{{Name: "k", Init: 1, Truth: &nan}}
		}, `unknown "k": truth NaN; give a finite Truth or nil`},
		{"threads negative", func(p *pde.Problem, s *Settings) { s.Threads = -1 }, "threads = -1: must be 0 (every core) or more"},
		// A syntax error pointed past the end of the text in go/parser's words.
		{"equation missing an operand", func(p *pde.Problem, s *Settings) { p.Terms[0].Residual = pde.Eq("u_xx + = 0") },
			`term "pde": equation "u_xx + = 0": col 6: + needs an operand on its right`},
		// A value reading the solution fitted to garbage and ended ok.
		{"condition value reads u", func(p *pde.Problem, s *Settings) { withBoundary(p, pde.Dirichlet(pde.Boundary(), 2, "u + 1")) },
			`term "dirichlet_boundary": equation "u + 1": col 1: u: an output, which moves with the solution; a condition's value reads inputs x; constants e, pi`},
		// Values and parameters that are not finite trained and diverged at epoch 1.
		{"condition value not finite", func(p *pde.Problem, s *Settings) { withBoundary(p, pde.Dirichlet(pde.Boundary(), 2, "log(x - 2)")) },
			`term "dirichlet_boundary": value "log(x - 2)" is NaN at [`},
		{"condition value infinite number", func(p *pde.Problem, s *Settings) { withBoundary(p, pde.InitialValue("x", 2, math.Inf(-1))) },
			`term "initial_x": value -Inf; give a finite number`},
		{"Robin coefficient NaN", func(p *pde.Problem, s *Settings) { withBoundary(p, pde.Robin("x", pde.Hi, 2, 1, math.NaN(), 0.0)) },
			`term "robin_x_hi": Robin coefficient b = NaN; give a finite number`},
		{"parameter infinite", func(p *pde.Problem, s *Settings) { p.Params = map[string]float64{"D": math.Inf(1)} },
			`problem "poisson-1d" parameter "D" = +Inf; give a finite number in Params`},
		// Too few exact values panicked in GridOutputs after training.
		{"exact outputs too few", func(p *pde.Problem, s *Settings) { p.ExactOutputs = func([]float64) []float64 { return nil } },
			`problem "poisson-1d": ExactOutputs gives 0 values at [0.03125] for 1 outputs (u); give one per output, in Outputs order`},
		// A condition labelled v that reads u landed on u in silence.
		{"term's output not read", func(p *pde.Problem, s *Settings) {
			p.Outputs, p.Exact = []string{"u", "v"}, nil
			p.Terms[0].Residual = pde.Eq("u_xx + v + pi^2*sin(pi*x) = 0")
			p.Terms[1].Output = "v"
			p.Terms[1].Residual = func(v *pde.Vars) *ad.Node { return ad.Sub(v.U, v.Target) }
		}, `term "boundary": Output "v", and the residual does not read v; build it from v (pde.DataResidual, v.Out("v")) or write a one-line condition's field with .For("v")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := poisson1D()
			s := Settings{Seed: 1, Schedule: poissonSchedule}
			c.edit(p, &s)
			var f *Fit
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Train panicked: %v", r)
					}
				}()
				f, err = Train(context.Background(), p, s)
			}()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got fit %v, error %v; want an error containing %q", f != nil, err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

// withBoundary replaces p's boundary term by tm, drawn with p: the
// problem a user writes with a one-line condition.
func withBoundary(p *pde.Problem, tm pde.Term) {
	p.Terms[1] = tm
	q, err := p.Sample(1)
	if err != nil {
		panic(err)
	}
	*p = *q
}

// TestSettingsDefaults: what Resolve fills in for a problem that says
// little: one beta per named group, a hyperparameter start inside the
// epochs when only Epochs is set, the step every 25 epochs.
func TestSettingsDefaults(t *testing.T) {
	t.Parallel()
	p := poisson1D()
	sch := schedule.Schedule{Hidden: []int{4}, Epochs: 15000, HyperStart: 5000}
	s, err := Settings{Seed: 1, Epochs: 300, Schedule: sch}.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Hyper.Start != 100 || s.Hyper.Every != 25 || s.BetaMode != "split" || s.AlphaMode != "single" {
		t.Errorf("resolved start %d, every %d, betas %q, alphas %q; want 100, 25, split, single", s.Hyper.Start, s.Hyper.Every, s.BetaMode, s.AlphaMode)
	}
	sch = schedule.Schedule{Hidden: []int{4}, Epochs: 900} // no beta mode: split by the named groups
	if s, err = (Settings{Seed: 1, Schedule: sch}).Resolve(p); err != nil || s.Hyper.Start != 300 {
		t.Errorf("no start anywhere: got %d (%v), want a third of the epochs, 300", s.Hyper.Start, err)
	}
	if s, err = (Settings{Seed: 1, Schedule: sch}).Resolve(p); err != nil || s.BetaMode != "split" {
		t.Errorf("terms with groups: beta mode %q (%v), want split", s.BetaMode, err)
	}
	p.Terms[0].Group, p.Terms[1].Group = "", ""
	if s, err = (Settings{Seed: 1, Schedule: sch}).Resolve(p); err != nil || s.BetaMode != "single" {
		t.Errorf("terms without groups: beta mode %q (%v), want single", s.BetaMode, err)
	}
	if s, err = (Settings{Seed: 1, Hidden: []int{}, Schedule: sch}).Resolve(p); err != nil || len(s.Hidden) != 0 {
		t.Errorf("an empty hidden list asked for: got %v (%v), want none", s.Hidden, err)
	}
}

// TestSettingsProblemSchedule: a schedule's PolishIter, Curvature,
// KnownNoise, Resample and RoundBetas fill the zero settings; given settings
// win, an empty KnownNoise map infers every beta, a negative Resample is
// never, and a fixed fit takes no known noise.
func TestSettingsProblemSchedule(t *testing.T) {
	t.Parallel()
	p, err := problems.New("burgers", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sch := scheduled(p, Settings{}).Schedule
	sch.PolishIter, sch.Curvature, sch.Resample = 123, "diag", 50
	sch.KnownNoise = map[string]float64{"data": 0.02}
	sch.RoundBetas = string(RoundBetasHeldOut)
	s, err := Settings{Seed: 1, Schedule: sch}.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Polish.Iter != 123 || s.Curvature != "diag" || s.Resample != 50 || s.KnownNoise["data"] != 0.02 || s.Final.Betas != RoundBetasHeldOut {
		t.Errorf("resolved polish %d, curvature %q, resample %d, known noise %v, round betas %s; want the problem's 123, diag, 50, data 0.02, held-out", s.Polish.Iter, s.Curvature, s.Resample, s.KnownNoise, s.Final.Betas)
	}
	s.KnownNoise["data"] = 1 // the settings' own copy
	if sch.KnownNoise["data"] != 0.02 {
		t.Error("Resolve shares the schedule's KnownNoise map")
	}
	s, err = (Settings{Seed: 1, Schedule: sch, Polish: PolishSettings{Iter: 7}, Curvature: "dense", Resample: -1, KnownNoise: map[string]float64{}, Final: FinalRounds{Betas: RoundBetasTraining}}).Resolve(p)
	if err != nil || s.Polish.Iter != 7 || s.Curvature != "dense" || s.Resample != 0 || len(s.KnownNoise) != 0 || s.Final.Betas != RoundBetasTraining {
		t.Errorf("given settings resolved to polish %d, curvature %q, resample %d, known noise %v, round betas %s (%v); want 7, dense, 0, none, training", s.Polish.Iter, s.Curvature, s.Resample, s.KnownNoise, s.Final.Betas, err)
	}
	if s, err = (Settings{Seed: 1, Schedule: sch, Fixed: FixedWeights{On: true}}).Resolve(p); err != nil || len(s.KnownNoise) != 0 {
		t.Errorf("fixed fit: known noise %v (%v), want none", s.KnownNoise, err)
	}
}

// TestUserProblemFits: the problem a user writes in a few lines trains,
// with a beta per named group and a solution near the exact one.
func TestUserProblemFits(t *testing.T) {
	t.Parallel()
	p := poisson1D()
	f, err := Train(context.Background(), p, scheduled(p, Settings{Seed: 1, Epochs: 3000, Hyper: HyperSteps{Start: 1000}}))
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != StatusOK {
		t.Fatalf("status %s (%s), want ok", f.Status, f.Reason)
	}
	e, err := f.GridErrors(101)
	if err != nil {
		t.Fatal(err)
	}
	if e.RelL2 > 0.02 {
		t.Errorf("rel L2 %.3g, want below 0.02", e.RelL2)
	}
	// Its derivative u' = pi cos(pi x) with a band from the same posterior.
	pts := [][]float64{{0.25}, {0.5}}
	du, sd, err := f.PredictQuantity(pts, func(v *pde.Vars) *ad.Node { return v.D("x") })
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range pts {
		want := math.Pi * math.Cos(math.Pi*x[0])
		if math.Abs(du[i]-want) > 0.1 || !(sd[i] > 0) {
			t.Errorf("u'(%g) = %.4g ± %.2g, want %.4g with a positive sigma", x[0], du[i], sd[i], want)
		}
	}
	if _, _, err := f.Predict([][]float64{{0.5, 0.5}}); err == nil || !strings.Contains(err.Error(), "point 0 has 2 coordinates") {
		t.Errorf("predict at a 2-D point: %v, want an error naming the width", err)
	}
	// A NaN point gave a NaN prediction where the CLI refuses the point.
	for _, x := range []float64{math.NaN(), math.Inf(-1)} {
		if _, _, err := f.PredictQuantity([][]float64{{0.5}, {x}}, func(v *pde.Vars) *ad.Node { return v.D("x") }); err == nil || err.Error() != fmt.Sprintf("point 1: x = %v; give finite coordinates", x) {
			t.Errorf("predict at x = %v: %v, want an error naming the point", x, err)
		}
	}
}

// TestWarnings: a hyperparameter at the clamp and final rounds that hit
// their cap are listed on a fit whose status is ok.
func TestWarnings(t *testing.T) {
	t.Parallel()
	f, err := Train(context.Background(), poisson1D(), scheduled(poisson1D(), Settings{Seed: 1, Epochs: 200, Hyper: HyperSteps{Start: 100}, Final: FinalRounds{Rounds: 1, Tol: 1e-12}}))
	if err != nil || f.Status != StatusOK {
		t.Fatalf("fit: %v %v", f.Status, err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "the final rounds did not settle: 1 rounds") {
		t.Errorf("warnings %q, want one saying the rounds did not settle", f.Warnings)
	}
	f.Warnings = nil
	f.Beta[0] = MaxHyper
	f.Hyper.FinalMove = 0
	f.warn()
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "beta = 1e+08 is at the clamp") {
		t.Errorf("warnings %q, want one naming beta at the clamp", f.Warnings)
	}
}

// TestCancel: a fit whose context ends returns promptly with what it has,
// marked cancelled.
func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s := Settings{Seed: 1, Epochs: 1 << 30, Hyper: HyperSteps{Start: 100}}
	s.Progress = func(epoch, _ int) {
		if epoch == 500 {
			cancel()
		}
	}
	f, err := Train(ctx, poisson1D(), scheduled(poisson1D(), s))
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != StatusCancelled || f.Epochs != 500 || !strings.Contains(f.Reason, "context canceled after 500 of") {
		t.Errorf("status %s after %d epochs (%s), want cancelled after 500", f.Status, f.Epochs, f.Reason)
	}
}

// TestCancelPolish: a context that ends during a polish (after Adam, or
// in a final round) stops it at its next iteration, and the fit ends
// cancelled, not polish-failed, without another round.
func TestCancelPolish(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"polish", "final round 2 of at most 20"} {
		ctx, cancel := context.WithCancel(context.Background())
		s := Settings{Seed: 1, Epochs: 300, Polish: PolishSettings{Method: PolishLBFGS, Iter: 100000}}
		s.Stage = func(stage string) {
			if stage == at {
				cancel()
			}
		}
		f, err := Train(ctx, poisson1D(), scheduled(poisson1D(), s))
		if err != nil {
			t.Fatal(err)
		}
		rounds := 0
		if at != "polish" {
			rounds = 2
		}
		if f.Status != StatusCancelled || f.Hyper.FinalRounds != rounds || f.Polish == nil {
			t.Fatalf("cancelled at %q: status %s (%s), %d final rounds (want %d)", at, f.Status, f.Reason, f.Hyper.FinalRounds, rounds)
		}
		if at == "polish" && f.Polish.Iterations > 2 {
			t.Errorf("cancelled at the polish: it ran %d iterations, want at most 2", f.Polish.Iterations)
		}
	}
}

// TestPolishMemory: the L-BFGS polish takes LBFGSMemory unless given one,
// a Gauss-Newton polish has none (and its settings map no key, so its
// records compare equal to those written before the field), and a memory
// for a Gauss-Newton polish or a negative one is an error naming it.
func TestPolishMemory(t *testing.T) {
	t.Parallel()
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in      Settings
		want    int
		wantErr string
	}{
		{Settings{Seed: 1, Polish: PolishSettings{Method: PolishLBFGS}}, LBFGSMemory, ""},
		{Settings{Seed: 1, Polish: PolishSettings{Method: PolishLBFGS, Memory: 7}}, 7, ""},
		{Settings{Seed: 1}, 0, ""},
		{Settings{Seed: 1, Polish: PolishSettings{Memory: 7}}, 0, "polish-memory = 7"},
		{Settings{Seed: 1, Polish: PolishSettings{Method: PolishLBFGS, Memory: -1}}, 0, "polish-memory = -1"},
	} {
		s, err := scheduled(p, c.in).Resolve(p)
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v: error %v, want one naming %q", c.in, err, c.wantErr)
		case c.wantErr == "" && (err != nil || s.Polish.Memory != c.want):
			t.Errorf("%+v: memory %d (%v), want %d", c.in, s.Polish.Memory, err, c.want)
		}
	}
}

// TestResolveAgain: settings Resolve returned, and a fit's (a fixed fit's
// hold Alpha0 and the paper recipe's hold the polish defaults, which the
// checks of the settings as given refuse; a Resample of -1 under a
// resampling schedule resolves to 0, which must stay never), resolve again
// to themselves.
func TestResolveAgain(t *testing.T) {
	t.Parallel()
	p := poisson1D()
	resampling := poissonSchedule
	resampling.Resample = 50
	for _, in := range []Settings{
		{Seed: 1, Schedule: poissonSchedule},
		{Seed: 1, Schedule: poissonSchedule, Fixed: FixedWeights{On: true, Mean: true}},
		{Seed: 1, Schedule: poissonSchedule, Recipe: RecipePaper},
		{Seed: 1, Schedule: resampling, Resample: -1},
	} {
		s, err := in.Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.Resolve(p)
		if err != nil {
			t.Errorf("%+v resolved again: %v", in, err)
			continue
		}
		if fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", s) {
			t.Errorf("resolved again: %+v, want %+v", again, s)
		}
	}
}
