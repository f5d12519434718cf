package bayes

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// Settings.Curvature: "" and auto resolve to dense for the paper's nets (so
// their fits are unchanged), bad names and the exact Hessian with a
// structure are one-line errors, and a structured fit trains: its Adam-phase
// steps move the hyperparameters like the dense ones, to within the
// structure's error.
func TestSettingsCurvature(t *testing.T) {
	t.Parallel()
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []curv.Kind{"", CurvatureAuto} {
		if s, err := scheduled(p, (Settings{Seed: 1, Curvature: c})).Resolve(p); err != nil || s.Curvature != curv.Dense {
			t.Errorf("curvature %q resolves to %q, %v; want dense", c, s.Curvature, err)
		}
	}
	for _, c := range []Settings{{Seed: 1, Curvature: "kfac"}, {Seed: 1, Curvature: "diag", Hessian: Exact}} {
		if _, err := scheduled(p, c).Resolve(p); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v, want one line", c, err)
		}
	}
	base := Settings{Seed: 3, Epochs: 800, Hyper: HyperSteps{Start: 200, Every: 25}, Recipe: RecipePaper}
	dense, err := Train(context.Background(), p, scheduled(p, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []curv.Kind{curv.Dual, curv.LowRank} { // exact on heat's 25 weights
		s := base
		s.Curvature = k
		f, err := Train(context.Background(), p, scheduled(p, s))
		if err != nil || f.Status != StatusOK {
			t.Fatalf("%s: %v %s", k, err, f.Status)
		}
		if f.Hyper.Steps != dense.Hyper.Steps || rel(f.Alpha[0], dense.Alpha[0]) > 1e-4 || rel(f.Beta[0], dense.Beta[0]) > 1e-4 {
			t.Errorf("%s: %d steps to alpha %g beta %g; dense %d steps to %g %g", k, f.Hyper.Steps, f.Alpha[0], f.Beta[0], dense.Hyper.Steps, dense.Alpha[0], dense.Beta[0])
		}
	}
}

// The polish defaults to Gauss-Newton up to GaussNewtonPolishLimit weights
// (every paper study) and to L-BFGS above; a chosen method stays.
func TestPolishDefaultBySize(t *testing.T) {
	t.Parallel()
	p, err := problems.New("burgers-wide", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		hidden []int
		method PolishMethod
		want   PolishMethod
	}{{[]int{20, 20, 20}, "", PolishLBFGS}, {[]int{6, 6, 6}, "", PolishGaussNewton}, {[]int{20, 20, 20}, PolishGaussNewton, PolishGaussNewton}} {
		s, err := scheduled(p, Settings{Seed: 1, Hidden: c.hidden, Polish: PolishSettings{Method: c.method}}).Resolve(p)
		if err != nil || s.Polish.Method != c.want {
			t.Errorf("hidden %v, method %q: %q, %v; want %s", c.hidden, c.method, s.Polish.Method, err, c.want)
		}
	}
}

func rel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// The default curvature is dense up to DenseLimit weights and what the
// problem's size allows above it (curv.Auto: heat with a 5 x 100 net, 41k
// weights on its few hundred residuals, gets the exact dual form, not a 13
// GB dense A); an inverse problem, which only the dense curvature handles,
// keeps dense; a curvature given stays.
func TestCurvatureDefaultBySize(t *testing.T) {
	t.Parallel()
	big := []int{100, 100, 100, 100, 100}
	for _, c := range []struct {
		p    string
		s    Settings
		want curv.Kind
	}{
		{"heat", Settings{Seed: 1}, curv.Dense},
		{"heat", Settings{Seed: 1, Hidden: big}, curv.Dual},
		{"heat", Settings{Seed: 1, Hidden: big, Curvature: curv.Dense}, curv.Dense},
		{"heat-inverse", Settings{Seed: 1, Hidden: big}, curv.Dense},
	} {
		p, err := problems.New(c.p, problems.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := scheduled(p, c.s).Resolve(p)
		if err != nil || s.Curvature != c.want {
			t.Errorf("%s, hidden %v, curvature %q: %q, %v; want %s", c.p, c.s.Hidden, c.s.Curvature, s.Curvature, err, c.want)
		}
	}
}
