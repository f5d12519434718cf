package band_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// TestCalibNoiseDraws measures the paper's and the calibrated band of
// notebook 07's nonlinear reaction problem over noise draws (data seeds
// 1..N), for docs/results/coverage.md: BPINN_CALIB_DRAWS=20 go test -run
// TestCalibNoiseDraws -v ./pkg/band. Not a unit test: it skips without the
// variable. Its measurements fix one direction of the solution, so on one
// draw |u - u*|/sigma is nearly the same number everywhere and the grid is
// covered all or nothing; coverage and q95 mean something only pooled over
// draws, which this prints.
func TestCalibNoiseDraws(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("BPINN_CALIB_DRAWS"))
	if n <= 0 {
		t.Skip("BPINN_CALIB_DRAWS not set")
	}
	var pb pooledBands
	for seed := uint64(1); seed <= uint64(n); seed++ {
		q, err := reactionProblem().Sample(seed)
		if err != nil {
			t.Fatal(err)
		}
		f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Schedule: notebook07Schedule})
		if err != nil {
			t.Fatal(err)
		}
		pts, exact := q.Grid(100)
		line, err := pb.add(f, q, pts, exact)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("data seed %2d: %s%s, warnings %q", seed, f.Status, line, f.Warnings)
	}
	t.Logf("%s", &pb)
}

// pooledBands gathers the paper's band [0] and the calibrated one [1] of
// fits on equal grids, one per noise draw: |u - u*|/sigma at every grid
// point, and the summed coverage.
type pooledBands struct {
	z   [2][]float64
	cov [2]float64
	n   int
}

// add scores f's two bands on pts, the calibrated one on p's fresh draw,
// and returns the draw's coverage and q95 of each as ", paper coverage ...".
func (b *pooledBands) add(f *bayes.Fit, p *pde.Problem, pts [][]float64, exact []float64) (string, error) {
	d, err := band.FreshDrawOf(p)
	if err != nil {
		return "", err
	}
	cal, err := band.Calibrated(f, d)
	if err != nil {
		return "", err
	}
	line := ""
	for i, g := range [2]*bayes.Fit{f, cal} {
		mean, sigma, err := g.Predict(pts)
		if err != nil {
			return "", err
		}
		z, cov := band.ZScores(mean, sigma, exact), score.Compute(mean, sigma, exact).Coverage2S
		b.z[i], b.cov[i] = append(b.z[i], z...), b.cov[i]+cov
		line += fmt.Sprintf(", %s coverage %.3f q95 %.2f", [2]string{"paper", "calibrated"}[i], cov, band.Quantile(z, 0.95))
	}
	b.n++
	return line, nil
}

// String is both bands' coverage and q95 pooled over the draws.
func (b *pooledBands) String() string {
	return fmt.Sprintf("pooled over %d draws: paper coverage %.3f q95 %.2f; calibrated coverage %.3f q95 %.2f",
		b.n, b.cov[0]/float64(b.n), band.Quantile(b.z[0], 0.95), b.cov[1]/float64(b.n), band.Quantile(b.z[1], 0.95))
}

// notebook07Schedule is the schedule of notebook 07's problems below: 8000
// epochs of a net with one hidden layer of 8.
var notebook07Schedule = schedule.Schedule{Hidden: []int{8}, Epochs: 8000}

// reactionProblem is notebook 07's -u” + u^3 = f on [0, 1], u(0) = 0, with
// 20 measurements of u (noise 0.05) fixing the missing condition, written
// as the notebook writes it.
func reactionProblem() *pde.Problem {
	exact := func(x []float64) float64 { return x[0] + 0.5*math.Sin(4*math.Pi*x[0]) }
	source := func(x []float64) float64 {
		return 8*math.Pi*math.Pi*math.Sin(4*math.Pi*x[0]) + math.Pow(exact(x), 3)
	}
	return &pde.Problem{
		Name: "reaction", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1}, Sampling: pde.LatinHypercube,
		Terms: []pde.Term{
			pde.PDE("u^3 - u_xx = f", 30).WithField("f", source),
			pde.Dirichlet(pde.Face("x", pde.Lo), 1, 0).InGroup("pde"),
			{Name: "data", Group: "data", Residual: pde.DataResidual,
				Draw: &pde.Draw{Region: pde.Interior(), N: 20, Noise: 0.05, Value: exact}},
		},
		Exact: exact,
	}
}

// TestCalibNotebook07 prints the candidate bands of calibCandidates2 on
// notebook 07's three problems as the notebook fits them (poisson-2d: the
// best of seeds 1-4; advection-diffusion and reaction: seed 1, data seed
// 1): BPINN_CALIB_NB07=1 go test -run TestCalibNotebook07 -v ./pkg/bayes.
// Not a unit test: it skips without the variable.
func TestCalibNotebook07(t *testing.T) {
	if os.Getenv("BPINN_CALIB_NB07") == "" {
		t.Skip("BPINN_CALIB_NB07 not set")
	}
	for _, c := range []struct {
		p     *pde.Problem
		seeds int
	}{{poisson2DProblem(), 4}, {advectionDiffusionProblem(), 1}, {reactionProblem(), 1}} {
		q, err := c.p.Sample(1)
		if err != nil {
			t.Fatal(err)
		}
		var best *bayes.Fit
		for s := 1; s <= c.seeds; s++ {
			f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: uint64(s), Schedule: notebook07Schedule})
			if err != nil {
				t.Fatal(err)
			}
			if f.Laplace != nil && (best == nil || f.Laplace.LogEvidence > best.Laplace.LogEvidence) {
				best = f
			}
		}
		calibReport(t, q.Name, best, q, calibCandidates2)
	}
}

// poisson2DProblem is notebook 07's -(u_xx + u_yy) = f on the unit square
// with u = 0 on the boundary, written as the notebook writes it.
func poisson2DProblem() *pde.Problem {
	return &pde.Problem{
		Name: "poisson-2d", Inputs: []string{"x", "y"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Sampling: pde.Halton,
		Terms: []pde.Term{
			pde.PDE("u_xx + u_yy + 5*pi^2*sin(2*pi*x)*sin(pi*y) = 0", 100),
			pde.Dirichlet(pde.Boundary(), 40, 0),
		},
		Exact: func(x []float64) float64 { return math.Sin(2*math.Pi*x[0]) * math.Sin(math.Pi*x[1]) },
	}
}

// advectionDiffusionProblem is notebook 07's u_t + a u_x = D u_xx (a = 1,
// D = 0.05) with a decaying travelling sine wave as exact solution, written
// as the notebook writes it.
func advectionDiffusionProblem() *pde.Problem {
	const a, d, k = 1.0, 0.05, math.Pi
	travelling := func(x []float64) float64 { return math.Exp(-d*k*k*x[1]) * math.Sin(k*(x[0]-a*x[1])) }
	return &pde.Problem{
		Name: "advection-diffusion", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Sampling: pde.Halton, Params: map[string]float64{"a": a, "D": d},
		Terms: []pde.Term{
			pde.PDE("u_t + a*u_x = D*u_xx", 100),
			pde.Dirichlet(pde.Boundary("t"), 20, travelling),
			pde.InitialValue("t", 20, travelling),
		},
		Exact: travelling,
	}
}
