package nn

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// jsonMLP is the saved form: layers with W as out x in rows and b.
type jsonMLP struct {
	Sizes      []int       `json:"sizes"`
	Activation Activation  `json:"activation"`
	Layers     []jsonLayer `json:"layers"`
}

type jsonLayer struct {
	W [][]float64 `json:"W"`
	B []float64   `json:"b"`
}

// MarshalJSON writes {"sizes", "activation", "layers": [{"W": rows, "b"}]}.
func (m *MLP) MarshalJSON() ([]byte, error) {
	j := jsonMLP{Sizes: m.Sizes, Activation: m.Activation}
	for l := 0; l < m.Layers(); l++ {
		in, out := m.Sizes[l], m.Sizes[l+1]
		w, b := m.Layer(l)
		rows := make([][]float64, out)
		for r := range rows {
			rows[r] = append([]float64(nil), w[r*in:(r+1)*in]...)
		}
		j.Layers = append(j.Layers, jsonLayer{W: rows, B: append([]float64(nil), b...)})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the saved form, checking every shape and value.
func (m *MLP) UnmarshalJSON(data []byte) error {
	var j jsonMLP
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("network JSON: %v", err)
	}
	if len(j.Layers) == 0 {
		return fmt.Errorf("network JSON: no layers: want {\"layers\": [{\"W\": [[...]], \"b\": [...]}]}")
	}
	sizes := []int{}
	for l, L := range j.Layers {
		if len(L.W) == 0 || len(L.W[0]) == 0 {
			return fmt.Errorf("network JSON: layers[%d].W is empty", l)
		}
		in, out := len(L.W[0]), len(L.W)
		if l == 0 {
			sizes = append(sizes, in)
		} else if in != sizes[l] {
			return fmt.Errorf("network JSON: layers[%d].W has %d columns, want %d (the previous layer's outputs)", l, in, sizes[l])
		}
		for r, row := range L.W {
			if len(row) != in {
				return fmt.Errorf("network JSON: layers[%d].W row %d has %d values, want %d", l, r, len(row), in)
			}
		}
		if len(L.B) != out {
			return fmt.Errorf("network JSON: layers[%d].b has %d values, want %d (rows of W)", l, len(L.B), out)
		}
		sizes = append(sizes, out)
	}
	if j.Sizes != nil && fmt.Sprint(j.Sizes) != fmt.Sprint(sizes) {
		return fmt.Errorf("network JSON: sizes %v do not match the layers' shapes %v", j.Sizes, sizes)
	}
	act, err := ParseActivation(string(j.Activation))
	if err != nil {
		return fmt.Errorf("network JSON: %v", err)
	}
	n := Zero(sizes, act)
	for l, L := range j.Layers {
		w, b := n.Layer(l)
		in := sizes[l]
		for r, row := range L.W {
			copy(w[r*in:], row)
		}
		copy(b, L.B)
	}
	for i, v := range n.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("network JSON: weight %d is %v", i, v)
		}
	}
	*m = *n
	return nil
}

// Save writes m as indented JSON.
func (m *MLP) Save(w io.Writer) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Load reads a network saved by Save.
func Load(r io.Reader) (*MLP, error) {
	var m MLP
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		if !strings.HasPrefix(err.Error(), "network JSON") {
			err = fmt.Errorf("network JSON: %v", err)
		}
		return nil, err
	}
	return &m, nil
}
