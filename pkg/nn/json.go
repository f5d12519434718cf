package nn

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// jsonMLP is the saved form: layers with W as out x in rows and b, and
// the maps when the network has them (a record without them is a network
// without maps).
type jsonMLP struct {
	Sizes      []int       `json:"sizes"`
	Activation Activation  `json:"activation"`
	Layers     []jsonLayer `json:"layers"`
	InShift    []float64   `json:"in_shift,omitempty"`
	InScale    []float64   `json:"in_scale,omitempty"`
	OutShift   []float64   `json:"out_shift,omitempty"`
	OutScale   []float64   `json:"out_scale,omitempty"`
	Waves      []Wave      `json:"waves,omitempty"`
}

type jsonLayer struct {
	W [][]float64 `json:"W"`
	B []float64   `json:"b"`
}

// MarshalJSON writes {"sizes", "activation", "layers": [{"W": rows, "b"}]}
// and, for a mapped network, "in_shift", "in_scale", "out_shift",
// "out_scale"; for one with waves, "waves" (the first layer's W then has
// two columns more per wave).
func (m *MLP) MarshalJSON() ([]byte, error) {
	j := jsonMLP{Sizes: m.Sizes, Activation: m.Activation,
		InShift: m.InShift, InScale: m.InScale, OutShift: m.OutShift, OutScale: m.OutScale, Waves: m.Waves}
	for l := 0; l < m.Layers(); l++ {
		in, out := m.InWidth(l), m.Sizes[l+1]
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
			if in <= 2*len(j.Waves) {
				return fmt.Errorf("network JSON: layers[0].W has %d columns for %d waves; want the inputs and 2 per wave", in, len(j.Waves))
			}
			sizes = append(sizes, in-2*len(j.Waves))
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
	for _, w := range j.Waves {
		if w.Input < 0 || w.Input >= sizes[0] || math.IsNaN(w.Omega) || math.IsInf(w.Omega, 0) {
			return fmt.Errorf("network JSON: wave %+v: want an input below %d and a finite omega", w, sizes[0])
		}
	}
	if len(j.Waves) > 0 {
		n.SetWaves(j.Waves, nil)
	}
	for l, L := range j.Layers {
		w, b := n.Layer(l)
		in := n.InWidth(l)
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
	if err := n.readMaps(j); err != nil {
		return err
	}
	*m = *n
	return nil
}

// readMaps sets n's maps from j (a record without them leaves n without
// maps).
func (n *MLP) readMaps(j jsonMLP) (err error) {
	if n.InShift, n.InScale, err = readMap("in", j.InShift, j.InScale, n.Sizes[0]); err != nil {
		return err
	}
	n.OutShift, n.OutScale, err = readMap("out", j.OutShift, j.OutScale, n.Sizes[len(n.Sizes)-1])
	return err
}

// readMap checks a saved map: shift and scale both or neither, want
// values each, finite, every scale nonzero.
func readMap(name string, shift, scale []float64, want int) ([]float64, []float64, error) {
	if shift == nil && scale == nil {
		return nil, nil, nil
	}
	if len(shift) != want || len(scale) != want {
		return nil, nil, fmt.Errorf("network JSON: %s_shift has %d values and %s_scale %d; want %d each (or neither)", name, len(shift), name, len(scale), want)
	}
	for i := range shift {
		if a, b := shift[i], scale[i]; math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) || b == 0 {
			return nil, nil, fmt.Errorf("network JSON: %s map %d is shift %v, scale %v; want finite values and a nonzero scale", name, i, a, b)
		}
	}
	return shift, scale, nil
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
