package main

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
)

// FuzzExactInput checks the point parser of "bpinn exact": it never panics,
// every error is bad input naming a line, and every accepted point has the
// right number of finite coordinates inside the domain.
func FuzzExactInput(f *testing.F) {
	for _, s := range []string{"0.5 0.1\n", "0 0\n1 1\n", "# c\n\n 0.25\t1 \n", "0.5\n", "1e-3 abc\n", "NaN 0\n", "2 0\n", "0x1p-2 0.5\n", "+.5 -0"} {
		f.Add(s)
	}
	inputs, lo, hi := []string{"x", "t"}, []float64{-1, 0}, []float64{1, 1}
	f.Fuzz(func(t *testing.T, s string) {
		pts, err := parsePoints(strings.NewReader(s), inputs, lo, hi)
		if err != nil {
			var u errUsage
			if !errors.As(err, &u) || !strings.HasPrefix(u.msg, "line ") || strings.Contains(u.msg, "\n") {
				t.Fatalf("error %q is not a one-line usage error naming a line", err)
			}
			return
		}
		for _, x := range pts {
			if len(x) != 2 {
				t.Fatalf("point %v has %d coordinates", x, len(x))
			}
			for i, v := range x {
				if math.IsNaN(v) || v < lo[i] || v > hi[i] {
					t.Fatalf("accepted %v outside the domain", x)
				}
			}
		}
	})
}

// FuzzLoadNetwork checks nn.Load: no panic on any input, and a network it
// accepts saves and loads back to the same weights.
func FuzzLoadNetwork(f *testing.F) {
	for _, s := range []string{
		`{"sizes":[1,2,1],"activation":"tanh","layers":[{"W":[[0.5],[-1]],"b":[0,0.1]},{"W":[[1,2]],"b":[0.3]}]}`,
		`{"layers":[{"W":[[1,2]],"b":[0]}]}`,
		`{"layers":[{"W":[[1],[2,3]],"b":[0,0]}]}`,
		`{"layers":[]}`,
		`{"activation":"relu","layers":[{"W":[[1]],"b":[0]}]}`,
		`{"sizes":[2,1],"layers":[{"W":[[1]],"b":[0]}]}`,
		`[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := nn.Load(bytes.NewReader(data))
		if err != nil {
			if m != nil {
				t.Fatalf("Load returned a network with error %v", err)
			}
			return
		}
		if m.NumWeights() != len(m.W) {
			t.Fatalf("NumWeights %d, len(W) %d", m.NumWeights(), len(m.W))
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatalf("an accepted network does not save: %v", err)
		}
		back, err := nn.Load(&buf)
		if err != nil {
			t.Fatalf("a saved network does not load: %v", err)
		}
		if len(back.W) != len(m.W) || back.Activation != m.Activation {
			t.Fatalf("round trip changed the network")
		}
		for i := range m.W {
			if math.Float64bits(back.W[i]) != math.Float64bits(m.W[i]) {
				t.Fatalf("weight %d: %v became %v", i, m.W[i], back.W[i])
			}
		}
	})
}
