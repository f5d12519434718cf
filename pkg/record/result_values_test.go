package record_test

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// rvRecord is a Result as a reader of the JSON sees it: decoded into generic
// maps, so a null is nil and not a zero.
type rvRecord map[string]any

func rvDecode(t *testing.T, r record.Result) rvRecord {
	t.Helper()
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	var m rvRecord
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// num is the number at a path of object keys; null or missing fails the test.
func (m rvRecord) num(t *testing.T, path ...string) float64 {
	t.Helper()
	var v any = map[string]any(m)
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object above %q", path, k)
		}
		v = o[k]
	}
	x, ok := v.(float64)
	if !ok {
		t.Fatalf("%v = %v, want a number", path, v)
	}
	return x
}

// obj is the object at key k.
func (m rvRecord) obj(t *testing.T, k string) rvRecord {
	t.Helper()
	o, ok := m[k].(map[string]any)
	if !ok {
		t.Fatalf("%s = %v, want an object", k, m[k])
	}
	return o
}

// sum adds the numbers of object k, each required non-null.
func (m rvRecord) sum(t *testing.T, k string) float64 {
	t.Helper()
	s := 0.0
	for name := range m.obj(t, k) {
		s += m.num(t, k, name)
	}
	return s
}

// rvFloats converts a JSON array of numbers; a null element fails the test.
func rvFloats(t *testing.T, what string, v any) []float64 {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("%s = %v, want an array", what, v)
	}
	out := make([]float64, len(a))
	for i, e := range a {
		x, ok := e.(float64)
		if !ok {
			t.Fatalf("%s[%d] = %v, want a number", what, i, e)
		}
		out[i] = x
	}
	return out
}

func rvStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, len(a))
	for i, e := range a {
		out[i], _ = e.(string)
	}
	return out
}

func rvKeys(m rvRecord) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// rvCheckCommon checks what every problem's record must satisfy: group maps
// keyed exactly by the names, non-null hyperparameters, N_t equal to the
// points of the terms in group t, log_p_const from that N, the log evidence
// equal to its parts, log_p = -e_hyp, gamma = sum gamma_alpha (its
// definition in Laplace) = sum gamma_beta, comb from the architecture alone.
func rvCheckCommon(t *testing.T, m rvRecord) {
	t.Helper()
	alphaNames, betaNames := rvStrings(m["alpha_names"]), rvStrings(m["beta_names"])
	if len(alphaNames) == 0 || len(betaNames) == 0 {
		t.Fatalf("alpha_names %v beta_names %v", m["alpha_names"], m["beta_names"])
	}
	for _, c := range []struct {
		names []string
		maps  []string
	}{
		{alphaNames, []string{"alpha", "e_w", "gamma_alpha", "ln_sigma_alpha", "alpha_sizes"}},
		{betaNames, []string{"beta", "e_d", "gamma_beta", "ln_sigma_beta", "beta_sizes"}},
	} {
		for _, k := range c.maps {
			if got, want := rvKeys(m.obj(t, k)), slices.Sorted(slices.Values(c.names)); !slices.Equal(got, want) {
				t.Errorf("%s keyed by %v, want %v", k, got, want)
			}
			for _, n := range c.names {
				if x := m.num(t, k, n); (k == "alpha" || k == "beta") && !(x > 0) {
					t.Errorf("%s[%s] = %g, want positive", k, n, x)
				}
			}
		}
	}
	// N_t counts the scalar residuals of the terms weighted by beta t.
	n := map[string]int{}
	total := 0
	for _, term := range m["terms"].([]any) {
		tm := term.(map[string]any)
		k := len(tm["points"].([]any))
		n[tm["beta_group"].(string)] += k
		total += k
	}
	for _, b := range betaNames {
		if got := m.num(t, "beta_sizes", b); int(got) != n[b] {
			t.Errorf("beta_sizes[%s] = %g, want %d points in its terms", b, got, n[b])
		}
	}
	if got, want := m.num(t, "log_p_const"), -float64(total)/2*math.Log(2*math.Pi); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("log_p_const = %.15g, want -N/2 ln 2pi = %.15g", got, want)
	}
	var comb float64
	arch := rvFloats(t, "architecture", m["architecture"])
	for _, h := range arch[1 : len(arch)-1] {
		lg, _ := math.Lgamma(h + 1)
		comb += lg + h*math.Ln2
	}
	if got := m.num(t, "comb"); math.Abs(got-comb) > 1e-12*comb {
		t.Errorf("comb = %.15g, want sum ln M! + M ln 2 = %.15g", got, comb)
	}
	if m["occam_ok"] != true {
		t.Fatalf("occam_ok = %v", m["occam_ok"])
	}
	logP, logZ := m.num(t, "log_p"), m.num(t, "log_evidence")
	if e := m.num(t, "e_hyp"); logP != -e {
		t.Errorf("log_p = %.17g, want -e_hyp = %.17g", logP, -e)
	}
	want := logP + m.sum(t, "ln_sigma_alpha") + m.sum(t, "ln_sigma_beta") + m.num(t, "comb")
	if math.Abs(logZ-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("log_evidence = %.15g, want log_p + sum ln sigma + comb = %.15g", logZ, want)
	}
	if g, want := m.num(t, "gamma"), m.sum(t, "gamma_alpha"); math.Abs(g-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("gamma = %.15g, want sum gamma_alpha = %.15g", g, want)
	}
	// Both sums are the same gamma: sum_i (W_i - alpha_i tr_i A^-1) =
	// tr(A^-1 (A - diag alpha)) = sum_t beta_t tr(A^-1 H_t).
	if ga, gb := m.sum(t, "gamma_alpha"), m.sum(t, "gamma_beta"); math.Abs(ga-gb) > 1e-6*(1+math.Abs(ga)) {
		t.Errorf("sum gamma_alpha = %.15g, sum gamma_beta = %.15g: want equal", ga, gb)
	}
}

// rvTanhMLP is a tanh MLP read straight from the record's weights (W out x in).
func rvTanhMLP(t *testing.T, weights rvRecord, x []float64) float64 {
	t.Helper()
	h := x
	layers := weights["layers"].([]any)
	for l, layer := range layers {
		lm := layer.(map[string]any)
		b := rvFloats(t, "b", lm["b"])
		rows := lm["W"].([]any)
		next := make([]float64, len(rows))
		for j, row := range rows {
			w := rvFloats(t, "W row", row)
			s := b[j]
			for i := range w {
				s += w[i] * h[i]
			}
			if l < len(layers)-1 {
				s = math.Tanh(s)
			}
			next[j] = s
		}
		h = next
	}
	return h[0]
}

// TestResultValuesHeat checks the record's values, not only its keys: a
// field written as null, zero or from the wrong variable passes the schema
// tests but not these.
func TestResultValuesHeat(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 1, Epochs: 600, Hyper: bayes.HyperSteps{Start: 300}})
	if f.Status != bayes.StatusOK {
		t.Fatalf("status %q: %s", f.Status, f.Reason)
	}
	m := rvDecode(t, record.NewResult(f, 100))
	p := f.Model.Problem

	if kappa := m.num(t, "params", "kappa"); kappa != 0.1 {
		t.Errorf("params.kappa = %v, want 0.1", kappa)
	}
	if got := rvStrings(m["inputs"]); !slices.Equal(got, []string{"x", "t"}) {
		t.Errorf("inputs %v, want [x t]", got)
	}
	if got := rvFloats(t, "architecture", m["architecture"]); !slices.Equal(got, []float64{2, 6, 1}) {
		t.Errorf("architecture %v, want [2 6 1]", got)
	}
	rvCheckCommon(t, m)

	// Weights: W is out x in; by hand they give the fit's prediction.
	w := m.obj(t, "weights")
	l0 := w["layers"].([]any)[0].(map[string]any)
	rows := l0["W"].([]any)
	if len(rows) != 6 || len(rows[0].([]any)) != 2 || len(rvFloats(t, "b", l0["b"])) != 6 {
		t.Errorf("layer 0: W %d x %d, b %d; want 6 x 2 and 6", len(rows), len(rows[0].([]any)), len(rvFloats(t, "b", l0["b"])))
	}
	pts := [][]float64{{0.1, 0.2}, {0.5, 0.5}, {0.93, 0.07}, {0.3, 1}}
	mean, _ := testfit.Predict(t, f, pts)
	for i, x := range pts {
		if got := rvTanhMLP(t, w, x); math.Abs(got-mean[i]) > 1e-12 {
			t.Errorf("weights at %v give %.15g, the fit predicts %.15g", x, got, mean[i])
		}
	}
	// e_w of the single alpha is half the squared norm of those weights.
	var ew float64
	for _, layer := range w["layers"].([]any) {
		lm := layer.(map[string]any)
		for _, row := range lm["W"].([]any) {
			for _, v := range rvFloats(t, "W", row) {
				ew += v * v / 2
			}
		}
		for _, v := range rvFloats(t, "b", lm["b"]) {
			ew += v * v / 2
		}
	}
	if got := m.num(t, "e_w", "alpha"); math.Abs(got-ew) > 1e-12*ew {
		t.Errorf("e_w.alpha = %.15g, want 1/2 |w|^2 = %.15g", got, ew)
	}
	// The hyperparameters are the fit's, under their names.
	for i, n := range rvStrings(m["alpha_names"]) {
		if got := m.num(t, "alpha", n); got != f.Alpha[i] {
			t.Errorf("alpha[%s] = %v, fit has %v", n, got, f.Alpha[i])
		}
	}
	for i, n := range rvStrings(m["beta_names"]) {
		if got := m.num(t, "beta", n); got != f.Beta[i] {
			t.Errorf("beta[%s] = %v, fit has %v", n, got, f.Beta[i])
		}
	}

	// Terms: the problem's points and targets, bit for bit; the boundary
	// targets are the exact solution sin(pi x) exp(-kappa pi^2 t).
	terms := m["terms"].([]any)
	if len(terms) != len(p.Terms) {
		t.Fatalf("%d terms, want %d", len(terms), len(p.Terms))
	}
	for i, term := range terms {
		tm, pt := term.(map[string]any), p.Terms[i]
		if tm["name"] != pt.Name || tm["group"] != pt.Group {
			t.Errorf("term %d: %v/%v, want %s/%s", i, tm["name"], tm["group"], pt.Name, pt.Group)
		}
		var points [][]float64
		for _, row := range tm["points"].([]any) {
			points = append(points, rvFloats(t, "point", row))
		}
		if !reflect.DeepEqual(points, pt.Points) {
			t.Errorf("term %s: points differ from the problem's", pt.Name)
		}
		if pt.Target == nil {
			if _, ok := tm["target"]; ok {
				t.Errorf("term %s has no targets but the rvRecord has %v", pt.Name, tm["target"])
			}
			continue
		}
		target := rvFloats(t, "target", tm["target"])
		if !slices.Equal(target, pt.Target) {
			t.Errorf("term %s: targets differ from the problem's", pt.Name)
		}
		for k, x := range points {
			if want := math.Sin(math.Pi*x[0]) * math.Exp(-0.1*math.Pi*math.Pi*x[1]); math.Abs(target[k]-want) > 1e-15 {
				t.Errorf("term %s point %v: target %.17g, exact %.17g", pt.Name, x, target[k], want)
			}
		}
	}

	// Errors: the grid errors of the fit, recomputed.
	e, err := f.GridErrors(100)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"rel_l2": e.RelL2, "mse": e.MSE, "max_abs": e.MaxAbs, "coverage_2sigma": e.Coverage2S} {
		if got := m.num(t, "errors", k); got != want {
			t.Errorf("errors.%s = %.17g, GridErrors gives %.17g", k, got, want)
		}
	}
	if got := m.num(t, "errors", "points"); got != 10000 || e.GridN != 10000 {
		t.Errorf("errors on %v points (GridErrors %d), want 10000", got, e.GridN)
	}
}

// TestResultValuesBurgers: the physical parameters and the three beta
// groups of Burgers reach the record with their values.
func TestResultValuesBurgers(t *testing.T) {
	t.Parallel()
	// The paper recipe: the tuned one's Gauss-Newton polish takes seconds here.
	f := testfit.Train(t, "burgers", bayes.Settings{Seed: 1, Recipe: bayes.RecipePaper, Epochs: 50, Hyper: bayes.HyperSteps{Start: 25, Every: 5}})
	if f.Status != bayes.StatusOK {
		t.Fatalf("status %q: %s", f.Status, f.Reason)
	}
	m := rvDecode(t, record.NewResult(f, 10))
	if nu := m.num(t, "params", "nu"); nu != 0.01/math.Pi {
		t.Errorf("params.nu = %v, want 0.01/pi", nu)
	}
	if s := m.num(t, "params", "noise_std"); s != 0.02 {
		t.Errorf("params.noise_std = %v, want 0.02", s)
	}
	if got := rvFloats(t, "architecture", m["architecture"]); !slices.Equal(got, []float64{2, 8, 8, 1}) {
		t.Errorf("architecture %v, want [2 8 8 1]", got)
	}
	if got := rvStrings(m["beta_names"]); !slices.Equal(got, []string{"beta_pde", "beta_boundary", "beta_data"}) {
		t.Errorf("beta_names %v", got)
	}
	for b, want := range map[string]float64{"beta_pde": 200, "beta_boundary": 200, "beta_data": 60} {
		if got := m.num(t, "beta_sizes", b); got != want {
			t.Errorf("beta_sizes[%s] = %v, want %v", b, got, want)
		}
	}
	rvCheckCommon(t, m)
}
