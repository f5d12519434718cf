package record_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestNewBandMethod: a band method is one Build and one Register row; the
// record then holds its band, scores it on the grid beside the others and
// predicts it from the record's JSON. The method here doubles the paper's
// band, so its sigma is exactly twice the Laplace one and its sigma ratio 2.
func TestNewBandMethod(t *testing.T) {
	remove, err := band.Register(band.Method{Name: "doubled", Build: func(c *band.Check) (*band.Band, error) {
		return &band.Band{Scale: slices.Repeat([]float64{2}, len(c.Fit.Model.Problem.OutputNames()))}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if _, err := band.Register(band.Method{Name: "doubled", Build: func(*band.Check) (*band.Band, error) { return nil, nil }}); err == nil {
		t.Error("a second method named doubled was registered")
	}
	f := testfit.TrainOscillator(t)
	r := record.NewResult(f, 20)
	line, err := r.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	var back record.Result
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(back.Bands, func(b band.Band) bool { return b.Method == "doubled" }); i < 0 {
		t.Fatalf("record bands %v: no doubled band", back.Bands)
	}
	for _, name := range []string{"u", "v"} {
		b := back.Errors.Outputs[name].Bands["doubled"]
		if b == nil || b.SigmaRatio == nil || *b.SigmaRatio != 2 || b.Coverage2S == nil {
			t.Errorf("%s: errors of the doubled band %+v, want sigma ratio 2 and a coverage", name, b)
		}
	}
	g, err := record.Restore(testfit.Oscillator(t), &back)
	if err != nil {
		t.Fatal(err)
	}
	pts := [][]float64{{0.2}, {1.7}}
	pr, err := record.Predict(g, back.Bands, pts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pr.Columns(), "v_sigma_doubled") {
		t.Errorf("columns %v: no v_sigma_doubled", pr.Columns())
	}
	i := slices.IndexFunc(pr.Bands, func(b record.BandSigma) bool { return b.Method == "doubled" })
	for k := range pr.Sigma {
		for j := range pts {
			if got, want := pr.Bands[i].Sigma[k][j], 2*pr.Sigma[k][j]; got != want {
				t.Errorf("output %d at %v: doubled sigma %v, want %v", k, pts[j], got, want)
			}
		}
	}
	remove()
	if slices.ContainsFunc(band.Methods(), func(m band.Method) bool { return m.Name == "doubled" }) {
		t.Error("doubled is still registered after remove")
	}
}
