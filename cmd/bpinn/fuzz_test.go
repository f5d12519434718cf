package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
)

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
