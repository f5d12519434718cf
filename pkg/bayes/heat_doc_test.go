package bayes_test

import (
	"context"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// problems.md:begin heat
// paperHeat is the paper's heat problem, u_t = kappa u_xx on [0, 1]^2 with
// u = 0 at x = 0 and 1 and u(x, 0) = sin(pi x), 50 interior points and 50
// on the walls and the initial line (one beta for both), written with
// equations as text.
func paperHeat() *pde.Problem {
	return &pde.Problem{
		Name: "my-heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Params: map[string]float64{"kappa": 0.1},
		Terms: []pde.Term{
			pde.PDE("u_t = kappa*u_xx", 50),
			pde.Dirichlet(pde.Boundary("t"), 25, 0),
			pde.InitialValue("t", 25, "sin(pi*x)"),
		},
		Exact: func(x []float64) float64 { return math.Exp(-0.1*math.Pi*math.Pi*x[1]) * math.Sin(math.Pi*x[0]) },
	}
}

// heatInverse infers kappa from 30 measurements of u with noise 0.01:
// kappa is an Unknown (inferred with the weights, on the log scale as it
// is positive) where paperHeat has a parameter, and the equation reads it
// by name.
func heatInverse() *pde.Problem {
	p := paperHeat()
	truth := 0.1
	p.Name, p.Params = "my-heat-inverse", nil
	p.Unknowns = []pde.Unknown{{Name: "kappa", Init: 0.5, Positive: true, Truth: &truth}}
	p.Terms = append(p.Terms, pde.Term{Name: "data", Group: "data", Residual: pde.DataResidual,
		Draw: &pde.Draw{Region: pde.Interior(), N: 30, Noise: 0.01, Value: p.Exact}})
	return p
}

// problems.md:end

// TestHeatDoc: docs/problems.md shows the heat blocks verbatim; the forward
// problem fits, and the inverse one recovers kappa within its interval.
func TestHeatDoc(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("heat_doc_test.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/problems.md")
	if err != nil {
		t.Fatal(err)
	}
	b := regexp.MustCompile(`(?s)// problems\.md:begin heat\n(.*?)// problems\.md:end`).FindStringSubmatch(string(src))
	if want := strings.TrimSuffix(b[1], "\n"); !strings.Contains(string(doc), "```go\n"+want+"```\n") {
		t.Errorf("docs/problems.md does not show the heat block of heat_doc_test.go; paste:\n%s", want)
	}
	if testing.Short() {
		t.Skip("trains two fits")
	}
	s := bayes.Settings{Seed: 1, Hidden: []int{6}, Epochs: 6000}
	for _, p := range []*pde.Problem{paperHeat(), heatInverse()} {
		q, err := p.Sample(1)
		if err != nil {
			t.Fatal(err)
		}
		f, err := bayes.Train(context.Background(), q, s)
		if err != nil {
			t.Fatal(err)
		}
		e, err := f.GridErrors(50)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: status %s, rel L2 %.3g, betas %v %v, unknowns %v", p.Name, f.Status, e.RelL2, f.Model.BetaNames, f.Beta, f.Unknowns())
		if f.Status != bayes.StatusOK || e.RelL2 > 0.02 {
			t.Errorf("%s: status %s, rel L2 %.3g; want ok below 0.02", p.Name, f.Status, e.RelL2)
		}
		// A quantity written as text reads the problem's parameters and
		// unknowns by name, as its equation does.
		pts := [][]float64{{0.25, 0.5}, {0.5, 0.5}}
		byName, _, err := f.PredictQuantity(pts, pde.Eq("kappa*u_xx"))
		if err != nil {
			t.Fatal(err)
		}
		kappa := 0.1
		if us := f.Unknowns(); len(us) > 0 {
			kappa = us[0].Value
		}
		uxx, _, err := f.PredictQuantity(pts, pde.Eq("u_xx"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range pts {
			if math.Abs(byName[i]-kappa*uxx[i]) > 1e-12*math.Abs(uxx[i]) {
				t.Errorf("%s: kappa*u_xx at %v = %g, want %g", p.Name, pts[i], byName[i], kappa*uxx[i])
			}
		}
		if us := f.Unknowns(); len(p.Unknowns) > 0 && (len(us) != 1 || !us[0].Covers() || us[0].RelErr() > 0.1) {
			t.Errorf("%s: unknowns %v; want kappa within 10 %% of 0.1, inside its interval", p.Name, us)
		}
	}
}
