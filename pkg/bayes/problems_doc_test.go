package bayes_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// The code blocks of docs/problems.md are the functions below between
// "// problems.md:begin NAME" and "// problems.md:end": TestProblemsDoc
// checks that the guide shows each of them verbatim, so every snippet of the
// guide compiles, and runs them on a small problem.

// problems.md:begin variable
// diffusion is -(k u')' = f on [0, 1] with k(x) = 1 + x, u(0) = u(1) = 0 and
// the source f made from u* = sin(pi x): k is built from the coordinate with
// pkg/ad, f is plain Go evaluated at the drawn points into the field "f".
func diffusion() *pde.Problem {
	exact := func(x []float64) float64 { return math.Sin(math.Pi * x[0]) }
	source := func(x []float64) float64 { // -(k u*')' = -u*' - (1 + x) u*''
		return -math.Pi*math.Cos(math.Pi*x[0]) + (1+x[0])*math.Pi*math.Pi*math.Sin(math.Pi*x[0])
	}
	return &pde.Problem{
		Name: "variable-diffusion", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Sampling: pde.LatinHypercube,
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Residual: func(v *pde.Vars) *ad.Node { // -(k u'' + k' u') - f, k' = 1
				k := ad.AddConst(v.X("x"), 1)
				return ad.Neg(ad.Add(ad.Add(ad.Mul(k, v.D2("x", "x")), v.D("x")), v.Field("f")))
			}, Draw: &pde.Draw{Region: pde.Interior(), N: 30, Fields: map[string]func([]float64) float64{"f": source}}},
			// Two points: they share the equation's beta (see "Terms and groups").
			{Name: "ends", Group: "pde", Residual: pde.DataResidual,
				Draw: &pde.Draw{Region: pde.Faces("x"), N: 2, Value: exact}},
		},
		Exact: exact,
	}
}

// diffusionSettings trains diffusion: a 1-8-1 net, 4000 Adam epochs; the
// rest takes Resolve's defaults.
var diffusionSettings = bayes.Settings{Seed: 1, Hidden: []int{8}, Epochs: 4000}

// problems.md:end

// problems.md:begin read
// describe prints what to read from a fit: its status and warnings, the
// hyperparameters and the evidence, the band of u and of u' at x = 0.5, and
// the residuals at fresh points against those at the training points.
func describe(w io.Writer, f *bayes.Fit) error {
	fmt.Fprintf(w, "status %s %s\n", f.Status, f.Reason) // Reason says what went wrong, when something did
	for _, msg := range f.Warnings {
		fmt.Fprintln(w, "warning:", msg)
	}
	if f.Laplace == nil { // no positive-definite A: no band, no evidence
		return nil
	}
	for i, name := range f.Model.BetaNames {
		fmt.Fprintf(w, "%s = %.4g (gamma %.2f)\n", name, f.Beta[i], f.Laplace.GammaBeta[i])
	}
	fmt.Fprintf(w, "ln Z = %.2f, alpha = %.3g\n", f.Laplace.LogEvidence, f.Alpha[0])
	pts := [][]float64{{0.5}}
	u, su, err := f.Predict(pts)
	if err != nil {
		return err
	}
	du, sdu, err := f.PredictQuantity(pts, func(v *pde.Vars) *ad.Node { return v.D("x") })
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "u(0.5) = %.4f ± %.2g, u'(0.5) = %.4f ± %.2g (2 sigma)\n", u[0], 2*su[0], du[0], 2*sdu[0])
	fresh, err := band.FreshDrawOf(f.Model.Problem) // the same terms at new points (Sample sets Fresh)
	if err != nil {
		return err
	}
	train, held, err := band.ResidualCheck(f, fresh)
	if err != nil {
		return err
	}
	for i, name := range f.Model.BetaNames {
		fmt.Fprintf(w, "%s rms residual: training %.3g, fresh %.3g\n", name, train[i], held[i])
	}
	return nil
}

// problems.md:end

// problems.md:begin cancel
// trainFor trains p for at most d of wall time: past it, Train returns the
// fit so far with status cancelled (and its band, where A factorizes).
func trainFor(p *pde.Problem, s bayes.Settings, d time.Duration) (*bayes.Fit, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return bayes.Train(ctx, p, s)
}

// problems.md:end

// problems.md:begin ensemble
// bestOf trains p with settings s and seeds 1..n, two at a time, writes
// every fit as a JSON line to out (record.ReadResults reads them back) and
// returns the fit of highest log evidence.
func bestOf(ctx context.Context, p *pde.Problem, s bayes.Settings, n int, out io.Writer) (*bayes.Fit, error) {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	run, err := runner.TrainEnsemble(ctx, p, s, seeds, runner.EnsembleOptions{Workers: 2, Out: out})
	if err != nil { // invalid input, a cancelled context, or no fit with a defined evidence
		return nil, err
	}
	for _, f := range run.Fits { // every fit, in the order of the seeds
		if f.Status != bayes.StatusOK {
			fmt.Printf("seed %d: %s (%s)\n", f.Settings.Seed, f.Status, f.Reason)
		}
	}
	return run.Best, nil
}

// problems.md:end

// problems.md:begin oscillator
// oscillator is the system u' = v, v' = -u on [0, pi] with u(0) = 0,
// v(0) = 1: two fields, u = sin x and v = cos x.
func oscillator() *pde.Problem {
	at0 := func(value float64) *pde.Draw {
		return &pde.Draw{Region: pde.Initial("x"), N: 1, Value: func([]float64) float64 { return value }}
	}
	return &pde.Problem{Name: "oscillator", Inputs: []string{"x"}, Outputs: []string{"u", "v"},
		Lo: []float64{0}, Hi: []float64{math.Pi},
		Terms: []pde.Term{
			{Name: "u_eq", Group: "pde", Draw: &pde.Draw{Region: pde.Interior(), N: 24}, Residual: pde.Eq("u_x = v")},
			{Name: "v_eq", Group: "pde", Draw: &pde.Draw{Region: pde.Interior(), N: 24}, Residual: pde.Eq("v_x = -u")},
			{Name: "u0", Group: "boundary", Output: "u", Draw: at0(0), Residual: pde.DataResidual},
			{Name: "v0", Group: "boundary", Output: "v", Draw: at0(1), Residual: pde.DataResidual},
		},
		ExactOutputs: func(x []float64) []float64 { return []float64{math.Sin(x[0]), math.Cos(x[0])} },
	}
}

// problems.md:end

// problems.md:begin hard
// hardPoisson is u” = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0 met
// exactly: u = 4x(1-x) N for any weights, the two conditions checked at
// their points and left out by Sample.
func hardPoisson() *pde.Problem {
	return &pde.Problem{Name: "hard", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Transforms: []pde.Transform{{Output: "u", G: "0", D: "4*x*(1-x)", Meets: []string{"dirichlet_x"}}},
		Terms: []pde.Term{
			pde.PDE("u_xx = -pi^2*sin(pi*x)", 40),
			pde.Dirichlet(pde.Faces("x"), 2, 0),
		},
		Exact: func(x []float64) float64 { return math.Sin(math.Pi * x[0]) },
	}
}

// problems.md:end

func TestProblemsDoc(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("problems_doc_test.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/problems.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile(`(?s)// problems\.md:begin (\w+)\n(.*?)// problems\.md:end`).FindAllStringSubmatch(string(src), -1)
	if len(blocks) != 6 {
		t.Fatalf("%d marked blocks, want 6", len(blocks))
	}
	for _, b := range blocks {
		want := strings.TrimSuffix(b[2], "\n")
		if !strings.Contains(string(doc), "```go\n"+want+"```\n") {
			t.Errorf("docs/problems.md does not show block %q of problems_doc_test.go; paste:\n%s", b[1], want)
		}
	}

	// The guide's oscillator is the one the tests of several fields train.
	osc, err := oscillator().Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := testfit.Oscillator(t); !sameTerms(osc, want) {
		t.Errorf("the guide's oscillator differs from testfit.Oscillator")
	}

	p := diffusion()
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "a Draw but no points yet") {
		t.Errorf("the unsampled problem validates (%v); want the error saying to call Sample", err)
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(context.Background(), q, diffusionSettings)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := describe(&sb, f); err != nil {
		t.Fatal(err)
	}
	e, err := f.GridErrors(101)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != bayes.StatusOK || len(f.Beta) != 1 || e.RelL2 > 0.01 || !strings.Contains(sb.String(), "beta_pde = ") {
		t.Errorf("status %s, betas %v, rel L2 %.3g; want ok, one beta, below 0.01; describe printed:\n%s", f.Status, f.Model.BetaNames, e.RelL2, sb.String())
	}
	t.Logf("variable-diffusion: rel L2 %.3g, coverage %.3f\n%s", e.RelL2, e.Coverage2S, sb.String())

	if c, err := trainFor(q, diffusionSettings, time.Nanosecond); err != nil || c.Status != bayes.StatusCancelled {
		t.Errorf("trainFor 1ns: error %v; want a fit with status cancelled", err)
	}

	var lines strings.Builder
	short := diffusionSettings
	short.Epochs = 300 // a short ensemble: it only has to run
	best, err := bestOf(context.Background(), q, short, 2, &lines)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(lines.String(), "\n"); best == nil || n != 2 {
		t.Errorf("ensemble: best %v, %d result lines; want a best fit and 2 lines", best != nil, n)
	}
}

// sameTerms reports whether two sampled problems have the same outputs,
// terms, points, targets and exact values there.
func sameTerms(p, q *pde.Problem) bool {
	if !slices.Equal(p.Outputs, q.Outputs) || len(p.Terms) != len(q.Terms) {
		return false
	}
	for i, t := range p.Terms {
		u := q.Terms[i]
		if t.Name != u.Name || t.Group != u.Group || t.Output != u.Output || !slices.Equal(t.Target, u.Target) ||
			!slices.EqualFunc(t.Points, u.Points, slices.Equal) {
			return false
		}
		for _, x := range t.Points {
			if !slices.Equal(p.ExactValues(x), q.ExactValues(x)) {
				return false
			}
		}
	}
	return true
}
