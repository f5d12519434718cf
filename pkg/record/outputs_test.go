package record_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestTwoOutputsRecord: a fit of two outputs records each output's errors
// and bands beside the joint ones, names its outputs and the output each
// data term measures, and is restored from its line to the same
// predictions of both outputs.
func TestTwoOutputsRecord(t *testing.T) {
	t.Parallel()
	f := testfit.TrainOscillator(t)
	r := roundTrip(t, record.NewResult(f, 20))
	if !slices.Equal(r.Outputs, []string{"u", "v"}) || r.Architecture[len(r.Architecture)-1] != 2 {
		t.Errorf("outputs %v, architecture %v", r.Outputs, r.Architecture)
	}
	if r.Terms[3].Output != "v" {
		t.Errorf("term %s measures %q, want v", r.Terms[3].Name, r.Terms[3].Output)
	}
	e := r.Errors
	if e == nil || len(e.Outputs) != 2 {
		t.Fatalf("errors %+v: want each output's", e)
	}
	var num, den float64
	for _, name := range []string{"u", "v"} {
		o := e.Outputs[name]
		if o == nil || o.RelL2 == nil || !(*o.RelL2 < 0.05) || o.Coverage2S == nil || o.Q95 == nil || o.Coverage2SCalibrated == nil {
			t.Fatalf("%s: errors %+v: want rel L2 < 0.05, the paper's and the calibrated band", name, o)
		}
		num += *o.MSE * float64(o.Points)
		den += *o.MSE * float64(o.Points) / (*o.RelL2 * *o.RelL2)
		t.Logf("%s: rel L2 %.3g, coverage %.3g, q95 %.3g, calibrated coverage %.3g", name, *o.RelL2, *o.Coverage2S, *o.Q95, *o.Coverage2SCalibrated)
		// the paper's band covers every point here; the error estimate
		// narrows each output's to its target
		if c := *o.Coverage2SCalibrated; !(c >= 0.9 && c <= 0.99) {
			t.Errorf("%s: calibrated coverage %.3g, want in [0.90, 0.99]", name, c)
		}
	}
	if joint := *e.RelL2; !(joint > 0) || abs(joint*joint-num/den) > 1e-12 {
		t.Errorf("joint L2RE %g, from the outputs' %g", joint, num/den)
	}
	line, err := r.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	var back record.Result
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatal(err)
	}
	g, err := record.Restore(testfit.Oscillator(t), &back)
	if err != nil {
		t.Fatal(err)
	}
	pts := [][]float64{{0.1}, {1.3}, {3}}
	m1, s1, err1 := f.PredictOutputs(pts)
	m2, s2, err2 := g.PredictOutputs(pts)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for k := range m1 {
		if !slices.Equal(m1[k], m2[k]) || !slices.Equal(s1[k], s2[k]) {
			t.Errorf("output %d: restored %v ± %v, trained %v ± %v", k, m2[k], s2[k], m1[k], s1[k])
		}
	}
	pr, err := record.Predict(g, back.Bands, pts)
	if err != nil {
		t.Fatal(err)
	}
	if cols := pr.Columns(); !slices.Equal(cols, []string{"x", "u", "u_sigma", "u_sigma_heldout", "u_sigma_calibrated", "v", "v_sigma", "v_sigma_heldout", "v_sigma_calibrated"}) {
		t.Errorf("columns %v", cols)
	}
	// the bands read back from the record's JSON are the bands the trained
	// fit's assessment gives, bit for bit
	fresh, err := record.Predict(f, nil, pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh.Bands) != len(pr.Bands) {
		t.Fatalf("%d bands from the record, %d assessed", len(pr.Bands), len(fresh.Bands))
	}
	for i, b := range pr.Bands {
		for k := range b.Sigma {
			if b.Method != fresh.Bands[i].Method || !slices.Equal(b.Sigma[k], fresh.Bands[i].Sigma[k]) {
				t.Errorf("band %s output %d: from the record %v, assessed %s %v", b.Method, k, b.Sigma[k], fresh.Bands[i].Method, fresh.Bands[i].Sigma[k])
			}
		}
	}
	var b strings.Builder
	if err := pr.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 1+len(pts) {
		t.Fatalf("table %q", b.String())
	}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		for k, col := range []int{1, 5} {
			got, err := strconv.ParseFloat(f[col], 64)
			if err != nil || got != m1[k][i] {
				t.Errorf("line %q column %d: want %v", l, col, m1[k][i])
			}
		}
		for _, col := range []int{3, 4, 7, 8} {
			c, _ := strconv.ParseFloat(f[col], 64)
			if !(c > 0) || math.IsInf(c, 0) {
				t.Errorf("line %q: held-out or calibrated sigma %v", l, c)
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestPredictBadInput: the library's predict refuses what the CLI refuses
// (a coordinate that is not finite gave NaN), a fresh draw that fails is
// the prediction's error (it was dropped with the calibrated band), and
// a record of grid 0 says why it has no errors (NewResult panicked).
func TestPredictBadInput(t *testing.T) {
	t.Parallel()
	f := testfit.TrainOscillator(t)
	if _, err := record.Predict(f, nil, [][]float64{{0.5}, {math.NaN()}}); err == nil || err.Error() != "point 1: x = NaN; give finite coordinates" {
		t.Errorf("predict at NaN: %v, want an error naming the point", err)
	}
	q := *f.Model.Problem
	q.Fresh = func() (*pde.Problem, error) { return nil, errors.New("no disk space") }
	m := *f.Model
	m.Problem = &q
	g := *f
	g.Model = &m
	if _, err := record.Predict(&g, nil, [][]float64{{0.5}}); err == nil || !strings.HasPrefix(err.Error(), "record: Predict: the bands: fresh draw of \"oscillator\": no disk space") {
		t.Errorf("predict with a failing fresh draw: %v, want its error", err)
	}
	if r := record.NewResult(f, 0); r.Errors != nil || !slices.Contains(r.Warnings, "gridN = 0: no errors on a grid; give gridN >= 1") {
		t.Errorf("grid 0: errors %v, warnings %q; want none and a warning", r.Errors, r.Warnings)
	}
	if _, err := record.Restore(testfit.Oscillator(t), nil); err == nil || !strings.HasPrefix(err.Error(), "record: Restore: ") {
		t.Errorf("restore of no record: %v, want a record: error", err)
	}
}

// TestRecordSaysUncalibrated: a fit of notebook 07's reaction with 20
// measurements given once (WithData) has no check that calibrates its
// band (one fresh condition point, no new measurements, a K-fold interval
// wider than band.KFoldSpan): its record holds the warning, and the
// summary bpinn fit prints (WriteText) shows it.
func TestRecordSaysUncalibrated(t *testing.T) {
	t.Parallel()
	p, _ := testfit.ReactionWithData(20, 1)
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	s := testfit.Notebook07Schedule.Clone()
	s.Epochs = 3000
	f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Schedule: s})
	if err != nil {
		t.Fatal(err)
	}
	r := record.NewResult(f, 20)
	r.Problem = "reaction"
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  warning: "+band.Uncalibrated+" for u: ") {
		t.Errorf("bpinn fit's summary lacks the uncalibrated band:\n%s", b.String())
	}
}
