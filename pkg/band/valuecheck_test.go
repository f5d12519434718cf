package band_test

import (
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// isValueResidual accepts u - target and target - u (target nil is 0) to
// rounding, and nothing else: a derivative condition, a scaled or shifted
// residual.
func TestIsValueResidual(t *testing.T) {
	u := []float64{0.5, -1.25, 3e-7, 0}
	y := []float64{0.25, -1, 0, 0}
	sub := func(a, b []float64, scale float64) []float64 {
		out := make([]float64, len(a))
		for i := range a {
			out[i] = scale * (a[i] - b[i])
		}
		return out
	}
	for _, c := range []struct {
		name        string
		res, target []float64
		want        bool
	}{
		{"u - y", sub(u, y, 1), y, true},
		{"y - u", sub(y, u, 1), y, true},
		{"u, no target", sub(u, make([]float64, 4), 1), nil, true},
		{"2 (u - y)", sub(u, y, 2), y, false},
		{"u - y + 1e-6", sub(u, sub(y, []float64{1e-6, 1e-6, 1e-6, 1e-6}, 1), 1), y, false},
		{"another length", sub(u, y, 1)[:3], y, false},
	} {
		if got := band.IsValueResidual(c.res, u, c.target); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The value check widens the calibrated band by sqrt(q95/2), q95 that of
// |r|/sigma at the fresh points of the value terms (the geometric mean of
// no widening and the one that would make q95 2 there), when q95 > 2; it
// uses those terms only (wave-full's initial-velocity condition and the
// equation are not conditions on u) and never narrows.
func TestValueCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem string
		s       bayes.Settings
		acts    bool
	}{
		{"wave-full", bayes.Settings{Seed: 1}, true},
		{"wave", bayes.Settings{Seed: 1}, false},
	} {
		f := testfit.Train(t, c.problem, c.s)
		cal, q, _, _ := calibratedOnFresh(t, f)
		m2, err := f.ModelOn(q)
		if err != nil {
			t.Fatal(err)
		}
		res := m2.Residuals()
		noBand := f.WithBand(f.Beta, nil, nil) // a fit without a Laplace approximation (diverged): nothing to check
		if q, ok := band.ValueQ95(noBand, m2, res); ok {
			t.Errorf("%s without a band: value q95 %g, want none", c.problem, q)
		}
		w, err := band.CalibratedWidening(f, drawOf(t, q))
		if err != nil {
			t.Fatal(err)
		}
		before := f.WithBand(cal.Beta, cal.Laplace, w.Local) // the calibrated band before the value check
		var zBefore, zAfter []float64
		for k, tm := range q.Terms {
			u, s0, _ := before.Predict(tm.Points)
			_, s1, _ := cal.Predict(tm.Points)
			value := band.IsValueResidual(res[k], u, tm.Target)
			if want := tm.Name == "boundary" || tm.Name == "initial"; value != want {
				t.Errorf("%s term %s: value term %v, want %v", c.problem, tm.Name, value, want)
			}
			for i, r := range res[k] {
				if value {
					zBefore, zAfter = append(zBefore, math.Abs(r)/s0[i]), append(zAfter, math.Abs(r)/s1[i])
				}
				if s1[i] < s0[i] {
					t.Fatalf("%s: the value check narrows the band at %v: %g < %g", c.problem, tm.Points[i], s1[i], s0[i])
				}
			}
		}
		qb, qa := score.Quantile(zBefore, 0.95), score.Quantile(zAfter, 0.95)
		t.Logf("%s: %d value points, q95 of |r|/sigma %.3f -> %.3f, factor %.3f", c.problem, len(zBefore), qb, qa, w.Scale)
		if acts := qb > 2; acts != c.acts {
			t.Fatalf("%s: q95 %.3f before the check: want the check to act %v", c.problem, qb, c.acts)
		}
		if want := math.Sqrt(qb / 2); c.acts && (math.Abs(qa-math.Sqrt(2*qb)) > 1e-9*qa || math.Abs(w.Scale-want) > 1e-12*want) {
			t.Errorf("%s: q95 after the check %.12g, factor %g: want %g and %g", c.problem, qa, w.Scale, math.Sqrt(2*qb), want)
		}
		if !c.acts && w.Scale != 1 {
			t.Errorf("%s: factor %g where q95 %.3f <= 2: want 1", c.problem, w.Scale, qb)
		}
	}
}

// A record warns once when its band is likely overconfident: from the
// residual ratios when they say so (wave), else from the value check when
// 95 % of the errors at the value terms' fresh points reach beyond
// ValueOverconfident sigma (wave-full, whose ratios stay below
// OverconfidentRatio), and not at all when neither does (heat seed 1).
func TestValueWarning(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		problem string
		seed    uint64
		want    string // "" for no overconfidence warning
	}{
		{"wave-full", 1, "conditions on u itself"},
		{"wave", 1, "larger at fresh points"},
		{"heat", 1, ""},
	} {
		f := testfit.Train(t, c.problem, bayes.Settings{Seed: c.seed})
		_, q, train, held := calibratedOnFresh(t, f)
		m2, err := f.ModelOn(q)
		if err != nil {
			t.Fatal(err)
		}
		vq, _ := band.ValueQ95(f, m2, m2.Residuals())
		_, at := band.Overconfident(f.Inferred, train, held)
		r, err := band.Assess(f, band.WithoutEstimate(drawOf(t, q))) // the checks' warnings
		if err != nil {
			t.Fatal(err)
		}
		n := overconfidentCount(r.Warnings)
		switch {
		case c.want == "" && n != 0, c.want != "" && n != 1:
			t.Errorf("%s seed %d (ratio gate %d, value q95 %.3g): warnings %q", c.problem, c.seed, at, vq, r.Warnings)
		case c.want != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), c.want):
			t.Errorf("%s seed %d: warnings %q, want one saying %q", c.problem, c.seed, r.Warnings, c.want)
		}
		if c.want == "conditions on u itself" && (at >= 0 || !(vq > band.ValueOverconfident)) {
			t.Errorf("%s seed %d: ratio gate %d, value q95 %.3g: want the value check alone to warn", c.problem, c.seed, at, vq)
		}
	}
}
