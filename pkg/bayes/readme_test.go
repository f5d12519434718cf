package bayes_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// myHeat is the README's "Define your own PDE" code, between the markers:
// TestReadmeExample checks that the README shows these lines, so the
// README's example compiles and does what it says.
//
// README:begin
func myHeat(ctx context.Context) (*bayes.Fit, error) {
	p := &pde.Problem{
		Name: "my-heat", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Sampling: pde.LatinHypercube, // how every term below draws its points
		Terms: []pde.Term{
			pde.PDE("u_t = 0.1*u_xx", 60),           // at 60 interior points: beta_pde
			pde.Dirichlet(pde.Boundary("t"), 20, 0), // u(0,t) = u(1,t) = 0: beta_boundary
			pde.InitialValue("t", 20, "sin(pi*x)"),  // u(x,0), in the group "boundary" too
		},
		Exact: func(x []float64) float64 { return math.Sin(math.Pi*x[0]) * math.Exp(-0.1*math.Pi*math.Pi*x[1]) },
	}
	q, err := p.Sample(1) // draws the points; q.Fresh and q.Redraw come with them
	if err != nil {
		return nil, err
	}
	return bayes.Train(ctx, q, bayes.Settings{Seed: 1}) // the net, epochs and starting betas derived from the problem
}

// README:end

func TestReadmeExample(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(between(string(src), "// README:begin\n", "// README:end"), "\n")
	if want == "" || !strings.Contains(string(readme), "```go\n"+want+"```\n") {
		t.Fatalf("README.md's \"Define your own PDE\" block is not the code of myHeat; paste this:\n%s", want)
	}

	f, err := myHeat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != bayes.StatusOK || strings.Join(f.Model.BetaNames, ",") != "beta_pde,beta_boundary" {
		t.Fatalf("status %s (%s), betas %v; want ok with beta_pde and beta_boundary", f.Status, f.Reason, f.Model.BetaNames)
	}
	e, err := f.GridErrors(100)
	if err != nil {
		t.Fatal(err)
	}
	if e.RelL2 > 0.02 {
		t.Errorf("rel L2 %.3g, want below 0.02", e.RelL2)
	}
	t.Logf("README example: rel L2 %.4g, coverage %.3f, ln Z %.2f, betas %v", e.RelL2, e.Coverage2S, f.Laplace.LogEvidence, f.Beta)
}

func between(s, begin, end string) string {
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return ""
	}
	return s[i+len(begin) : j]
}
