package report

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// The PINNacle suite's studies: each problem with the defaults and with
// PINNacle's loss (every mean square at weight 1, alpha at its least),
// one fit each at SuiteQuickScale in the quick plan, seeds 1-3 whole in
// the full plan, none in the tiny plan.
func TestSuiteStudies(t *testing.T) {
	t.Parallel()
	quick, full := Config{Plan: Quick()}, Config{Plan: Full()}
	quick.defaults()
	full.defaults()
	for _, name := range SuiteProblems {
		ours, base := newStudy(name, &quick), newStudy(name+"-fixed", &quick)
		if ours.Problem != name || base.Problem != name || len(ours.Seeds) != 1 || len(base.Seeds) != 1 {
			t.Errorf("quick %s: problems %s, %s with %d, %d fits; want %s with 1 each", name, ours.Problem, base.Problem, len(ours.Seeds), len(base.Seeds), name)
		}
		if ours.Base.Fixed.On || !reflect.ValueOf(ours.Base.Schedule).IsZero() {
			t.Errorf("%s: settings %+v, want the defaults (no schedule, the evidence)", name, ours.Base)
		}
		if f := base.Base.Fixed; !f.On || !f.Mean || f.Alpha != bayes.MinHyper || f.Beta != 1 {
			t.Errorf("%s-fixed: fixed %+v, want PINNacle's loss", name, f)
		}
		if s := epochScale(name, &quick); s != SuiteQuickScale {
			t.Errorf("quick %s: scale %g, want %g", name, s, SuiteQuickScale)
		}
		if f := newStudy(name, &full); len(f.Seeds) != 3 || f.Seeds[0] != 1 || epochScale(name, &full) != 1 {
			t.Errorf("full %s: seeds %v at scale %g, want 1-3 at 1", name, f.Seeds, epochScale(name, &full))
		}
	}
	if !strings.Contains(Quick().About, "PINNacle suite") {
		t.Errorf("the quick plan's About does not say what it runs of the suite: %q", Quick().About)
	}
	rep, err := Run(context.Background(), Config{Plan: Tiny(), Out: t.TempDir(), Only: suiteNames()})
	if err != nil || len(rep.Studies) != 0 {
		t.Errorf("tiny plan ran %d suite studies (%v), want none", len(rep.Studies), err)
	}
}

// A suite study runs the schedule derived from its problem, scaled by the
// plan: burgers1d-fixed at 1/200 of it (10 Adam epochs, polishes of 10
// iterations), on the derived 2-22-22-1 net with the defaults' maps, and
// the PINNacle table shows its fit beside PINNacle's listed figure.
func TestSuiteStudyRuns(t *testing.T) {
	t.Parallel()
	plan := Tiny()
	plan.Recipe, plan.SuiteFits = "", 1
	plan.Scales = map[string]float64{"burgers1d-fixed": 0.005}
	rep, err := Run(context.Background(), Config{Plan: plan, Out: t.TempDir(), Workers: 1, Only: []string{"burgers1d-fixed"}})
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Study("burgers1d-fixed")
	if st == nil || st.Err != nil || len(st.Fits) != 1 {
		t.Fatalf("study %+v", st)
	}
	s := st.Resolved
	if !slices.Equal(s.Hidden, []int{22, 22}) || s.Epochs != 10 || s.Polish.Iter != 10 || s.Scale != bayes.ScaleAuto || !s.Fixed.Mean {
		t.Errorf("resolved: hidden %v, %d epochs, polishes of %d, scale %s, fixed %+v; want the derived net, 10, 10, auto, PINNacle's loss",
			s.Hidden, s.Epochs, s.Polish.Iter, s.Scale, s.Fixed)
	}
	tables := rep.Tables()
	i := slices.IndexFunc(tables, func(tb Table) bool { return tb.ID == "pinnacle" })
	if i < 0 {
		t.Fatal("no pinnacle table")
	}
	tb := tables[i]
	if len(tb.Rows) != 1 || tb.Rows[0][0].Text != "burgers1d" || len(tb.Rows[0]) != len(tb.Head) {
		t.Fatalf("rows %v", tb.Rows)
	}
	row := tb.Rows[0]
	if !row[5].Num || row[3].Text != "not run" || row[9].Text != "n/a" || !strings.Contains(row[11].Text, "0.0145") {
		t.Errorf("row %v: want PINNacle's loss's L2RE, ours not run, the listed 0.0145", row)
	}
	if !slices.ContainsFunc(Names(), func(n string) bool { return n == "burgers1d-fixed" }) {
		t.Error("Names does not list the suite's studies")
	}
}

// The PINNacle table: the median over seeds of each side, each seed's
// figure, and the table only when a suite study ran.
func TestPinnacleTable(t *testing.T) {
	fits := func(e ...float64) []FitRecord {
		var out []FitRecord
		for i, v := range e {
			out = append(out, FitRecord{Seed: uint64(i + 1), RelL2: v, Coverage: 0.9, Seconds: 10,
				OutputCoverage: map[string]float64{"u": 0.8, "a": float64(i) / 10}})
		}
		return out
	}
	r := &Report{Studies: []*Study{{Name: "poisson-inv", Fits: fits(0.03, 0.01, math.NaN()), sizes: []int{2, 21, 21, 2}},
		{Name: "poisson-inv-fixed", Fits: fits(0.5, 0.2, 0.4)}}}
	tb := r.pinnacleTable()
	if len(tb.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(tb.Rows))
	}
	row := tb.Rows[0]
	got := []string{row[3].Text, row[4].Text, row[5].Text, row[6].Text, row[9].Text, row[10].Text}
	want := []string{"0.02", "0.03, 0.01, n/a", "0.4", "0.5, 0.2, 0.4", "2-21-21-2", "0.9 (a 0.1, u 0.8)"}
	if !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	has := func(r *Report) bool {
		return slices.ContainsFunc(r.Tables(), func(tb Table) bool { return tb.ID == "pinnacle" })
	}
	if !has(r) || has(&Report{Studies: []*Study{{Name: "heat"}}}) {
		t.Errorf("pinnacle table with suite studies %v, without %v; want true, false", has(r), has(&Report{Studies: []*Study{{Name: "heat"}}}))
	}
}
