package defaults_test

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// poissonBox is a Poisson problem nobody measured, written in the units it
// comes in: u_xx + u_yy = (1 - pi^2) exp(-x) sin(pi y) on [0, 2] x [0, 1],
// u = exp(-x) sin(pi y) on the boundary.
func poissonBox() *pde.Problem {
	exact := func(x []float64) float64 { return math.Exp(-x[0]) * math.Sin(math.Pi*x[1]) }
	return &pde.Problem{
		Name: "poisson-box", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{2, 1},
		Terms: []pde.Term{
			pde.PDE("u_xx + u_yy = (1 - pi^2)*exp(-x)*sin(pi*y)", 200),
			pde.Dirichlet(pde.Boundary(), 80, exact),
		},
		Exact: exact,
	}
}

// TestDefaultsStudy measures the derived schedule (Settings{Seed: 1}
// alone) against the schedules a user would copy (notebook 07's, heat's)
// and against itself with every beta starting at 1, on problems with none, for docs/results/defaults.md:
// BPINN_DEFAULTS_STUDY=1 go test -count=1 -timeout 60m -run TestDefaultsStudy -v ./lab/defaults
// (BPINN_DEFAULTS_STUDY=holes adds poisson-holes-raw with the derived
// schedule alone: minutes). Not a unit test: it skips without the variable.
func TestDefaultsStudy(t *testing.T) {
	study := os.Getenv("BPINN_DEFAULTS_STUDY")
	if study == "" {
		t.Skip("BPINN_DEFAULTS_STUDY not set")
	}
	heat, err := problems.Lookup("heat")
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		name string
		s    schedule.Schedule
	}
	copied := []run{{"derived", schedule.Schedule{}}, {"notebook 07's", testfit.Notebook07Schedule}, {"heat's", heat.Schedule(problems.Options{})}}
	ps := append(testfit.Notebook07(), poissonBox())
	if study == "holes" {
		raw, err := problems.New("poisson-holes-raw", problems.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps = []*pde.Problem{raw}
	}
	for _, p := range ps {
		q := p
		if len(p.Terms[0].Points) == 0 {
			if q, err = p.Sample(1); err != nil {
				t.Fatal(err)
			}
		}
		unbalanced := schedule.Derive(schedule.Facts{Inputs: q.Dim(), Outputs: len(q.OutputNames()), Points: q.NumPoints()})
		unbalanced.BalanceBetas = false
		for _, c := range append(copied, run{"derived, betas from 1", unbalanced}) {
			if study == "holes" && c.name != "derived" {
				continue
			}
			f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Schedule: c.s.Clone()})
			if err != nil {
				t.Fatal(err)
			}
			e, err := f.GridErrors(100)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("| %s | %s | %v | %d | %.3g | %.1f | %s | %q |", q.Name, c.name, f.Settings.Hidden, f.Settings.Epochs, e.RelL2, f.Seconds, f.Status, f.Warnings)
		}
	}
}
