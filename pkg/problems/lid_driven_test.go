package problems_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/refsol"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// lid-driven-soft has its three equations, the lid and wall conditions on
// the right edges with the right values, the gauge at the origin, a group
// per equation and condition, and the project's cavity as reference.
func TestLidDrivenSoftTerms(t *testing.T) {
	t.Parallel()
	p, err := problems.New("lid-driven-soft", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		group, output string
		n             int
	}{
		"momentum_x": {"momentum_x", "", 1000}, "momentum_y": {"momentum_y", "", 1000}, "continuity": {"continuity", "", 1000},
		"lid_u": {"lid", "u", 100}, "lid_v": {"lid", "v", 100}, "sides_u": {"walls", "u", 200}, "sides_v": {"walls", "v", 200},
		"bottom_u": {"walls", "u", 100}, "bottom_v": {"walls", "v", 100},
		"gauge": {"walls", "p", 1},
	}
	if len(p.Terms) != len(want) {
		t.Fatalf("%d terms, want %d", len(p.Terms), len(want))
	}
	for _, term := range p.Terms {
		w, ok := want[term.Name]
		if !ok || term.Group != w.group || term.Output != w.output || len(term.Points) != w.n {
			t.Errorf("term %s: group %q, output %q, %d points; want %+v", term.Name, term.Group, term.Output, len(term.Points), w)
			continue
		}
		for i, x := range term.Points {
			onLid, onWall := x[1] == 1, (x[0] == 0 || x[0] == 1 || x[1] == 0) && x[1] < 1
			var bad bool
			switch term.Group {
			case "lid":
				wantT := 0.0
				if term.Output == "u" {
					wantT = 4 * x[0] * (1 - x[0])
				}
				bad = !onLid || term.Target[i] != wantT
			case "walls":
				bad = !onWall || term.Target[i] != 0 || term.Name == "gauge" && (x[0] != 0 || x[1] != 0)
			default:
				bad = x[0] <= 0 || x[0] >= 1 || x[1] <= 0 || x[1] >= 1
			}
			if bad {
				t.Errorf("term %s: point %v target %v", term.Name, x, term.Target)
				break
			}
		}
	}
	c, err := refsol.DefaultLidDriven()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0.5, 1}, {0.3, 0.7}, {0, 0}} {
		got := p.ExactValues(x)
		ref, _ := c.Values(x[0], x[1])
		if len(got) != 3 || got[0] != ref[0] || got[1] != ref[1] || got[2] != ref[2] {
			t.Errorf("exact at %v: %v, want the cavity's %v", x, got, ref)
		}
	}
}

// lid-driven is lid-driven-soft with the lid and the walls met by
// transforms of u and v: the equations and the gauge (a group of its own)
// are left, at lid-driven-soft's points; u and v are transformed, p not;
// the reference is the same cavity.
func TestLidDriven(t *testing.T) {
	t.Parallel()
	soft, err := problems.New("lid-driven-soft", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := problems.New("lid-driven", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	names := []string{"momentum_x", "momentum_y", "continuity", "gauge"} // each its own group
	if len(p.Terms) != len(names) || len(p.Transforms) != 2 {
		t.Fatalf("%d terms and %d transforms, want %v and two", len(p.Terms), len(p.Transforms), names)
	}
	for i, term := range p.Terms {
		s := soft.Terms[slices.IndexFunc(soft.Terms, func(t pde.Term) bool { return t.Name == term.Name })]
		if term.Name != names[i] || term.Group != names[i] || !slices.EqualFunc(term.Points, s.Points, slices.Equal) {
			t.Errorf("term %d: %s in group %s, want %s in its own group at lid-driven-soft's points", i, term.Name, term.Group, names[i])
		}
	}
	if !p.Transformed(0) || !p.Transformed(1) || p.Transformed(2) {
		t.Errorf("transformed outputs u %v, v %v, p %v; want u and v", p.Transformed(0), p.Transformed(1), p.Transformed(2))
	}
	for _, x := range [][]float64{{0.5, 1}, {0.3, 0.7}, {0, 0}} {
		if got, want := p.ExactValues(x), soft.ExactValues(x); !slices.Equal(got, want) {
			t.Errorf("exact at %v: %v, want lid-driven-soft's %v", x, got, want)
		}
	}
}

// The lid-driven problems draw a Latin hypercube unless told otherwise,
// and their redraws too; uniform when asked, as every other problem by
// default.
func TestLidDrivenSampling(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"lid-driven", "lid-driven-soft"} {
		for _, c := range []struct {
			sampling, want pde.Sampler
		}{{"", pde.LatinHypercube}, {pde.LatinHypercube, pde.LatinHypercube}, {pde.Uniform, pde.Uniform}} {
			p, err := problems.New(name, problems.Options{Sampling: c.sampling})
			if err != nil {
				t.Fatal(err)
			}
			q, err := p.Redraw(1)
			if err != nil {
				t.Fatal(err)
			}
			if p.Sampling != c.want || q.Sampling != c.want {
				t.Errorf("%s, sampling %q: drawn %q, redrawn %q; want %q", name, c.sampling, p.Sampling, q.Sampling, c.want)
			}
		}
	}
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sampling != pde.Uniform {
		t.Errorf("heat by default: sampling %q, want uniform", p.Sampling)
	}
}

// A short schedule of lid-driven's whole pipeline: the fit trains, and its
// record holds each field's error against the reference on the grid and
// the joint L2RE they make.
func TestLidDrivenPipeline(t *testing.T) {
	t.Parallel()
	p, err := problems.New("lid-driven", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := bayes.Settings{Schedule: schedule.Schedule{Hidden: []int{6, 6}, Epochs: 40, HyperStart: 20, HyperEvery: 10,
		BetaMode: "split", FinalHyper: 1, PolishIter: 5}, Seed: 1}
	f, err := bayes.Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	const n = 11
	r := record.NewResult(f, n)
	if want := []string{"beta_momentum_x", "beta_momentum_y", "beta_continuity", "beta_gauge"}; !slices.Equal(r.BetaNames, want) {
		t.Errorf("betas %v: want %v, one per equation and the gauge's", r.BetaNames, want)
	}
	e := r.Errors
	if e == nil || e.RelL2 == nil || len(e.Outputs) != 3 {
		t.Fatalf("errors %+v: want the joint and each field's", e)
	}
	pts, exact, err := p.GridOutputs(n)
	if err != nil {
		t.Fatal(err)
	}
	mean, _, err := f.PredictOutputs(pts)
	if err != nil {
		t.Fatal(err)
	}
	var num, den float64
	for k, name := range []string{"u", "v", "p"} {
		var nk, dk float64
		for i := range pts {
			d := mean[k][i] - exact[k][i]
			nk, dk = nk+d*d, dk+exact[k][i]*exact[k][i]
		}
		o := e.Outputs[name]
		if o == nil || o.RelL2 == nil || math.Abs(*o.RelL2-math.Sqrt(nk/dk)) > 1e-9*math.Sqrt(nk/dk) {
			t.Errorf("%s: recorded %+v, want rel L2 %g against the reference on the grid", name, o, math.Sqrt(nk/dk))
		}
		num, den = num+nk, den+dk
	}
	if joint := math.Sqrt(num / den); math.Abs(*e.RelL2-joint) > 1e-9*joint {
		t.Errorf("joint L2RE %g, want %g", *e.RelL2, joint)
	}
	t.Logf("joint L2RE %.3g (u %.3g, v %.3g, p %.3g) after %d epochs", *e.RelL2, *e.Outputs["u"].RelL2, *e.Outputs["v"].RelL2, *e.Outputs["p"].RelL2, s.Schedule.Epochs)
}
