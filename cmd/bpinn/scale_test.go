package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
)

// fit --scale box records the maps (the setting and the network's), and
// predict reads them back: its mean at a point is the record's network
// there, through the maps. Without the flag heat records neither.
func TestFitScaleFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		flags  []string
		mapped bool
	}{{[]string{"--scale", "box"}, true}, {nil, false}} {
		path := filepath.Join(dir, "heat"+strings.Join(c.flags, "")+".json")
		var out, stderr bytes.Buffer
		args := with(with([]string{"heat", "--json", path}, quick...), c.flags...)
		if code := cmdWith("fit", args, nil, &out, &stderr); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, stderr.String())
		}
		rec, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(rec, []byte(`"in_shift"`)) && bytes.Contains(rec, []byte(`"Scale": "box"`)); got != c.mapped {
			t.Errorf("fit %v: the record holds the maps %v, want %v", args, got, c.mapped)
		}
		out.Reset()
		if code := cmdWith("predict", []string{path}, strings.NewReader("0.5 0.5\n"), &out, &stderr); code != 0 {
			t.Fatalf("predict: exit %d: %s", code, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("predict: %q, want a header and one line", out.String())
		}
		var r struct {
			Weights *nn.MLP `json:"weights"`
		}
		if err := json.Unmarshal(rec, &r); err != nil || r.Weights == nil {
			t.Fatalf("the record's weights: %v", err)
		}
		want := r.Weights.Eval([]float64{0.5, 0.5}, nil)[0]
		got, err := strconv.ParseFloat(strings.Fields(lines[1])[2], 64)
		if err != nil || math.Abs(got-want) > 1e-12*(1+math.Abs(want)) || r.Weights.Mapped() != c.mapped {
			t.Errorf("predict's u %v (%v), the record's network %v (mapped %v)", got, err, want, r.Weights.Mapped())
		}
	}
}
