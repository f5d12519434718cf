// Package nn holds multilayer perceptrons with their weight classes, their
// initialization, the Adam optimizer, a bridge to gonum's L-BFGS, and JSON
// save/load.
//
// # Weights
//
// A network's weights live in one flat vector W, layer after layer; layer l
// stores its matrix (out x in, row-major) and then its bias (out). Each
// matrix and each bias is a weight class (the paper's classes), so a network
// with L hidden layers has 2(L+1) classes. Alpha groups map classes to the
// prior's hyperparameters alpha: one for all classes, or one per class.
package nn

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// Activation of the hidden units (the output unit is linear).
type Activation string

// The activations.
const (
	Tanh     Activation = "tanh"
	Sin      Activation = "sin"
	Softplus Activation = "softplus"
	Sigmoid  Activation = "sigmoid"
)

// Activations lists the activations, the default first.
var Activations = []Activation{Tanh, Sin, Softplus, Sigmoid}

// ParseActivation checks a name.
func ParseActivation(s string) (Activation, error) {
	switch a := Activation(s); a {
	case Tanh, Sin, Softplus, Sigmoid:
		return a, nil
	case "":
		return Tanh, nil
	}
	return "", fmt.Errorf("unknown activation %q: use tanh, sin, softplus or sigmoid", s)
}

// op is the graph operation of the activation, chosen once per Apply; for
// an unknown activation, one that panics where a layer applies it.
func (a Activation) op() func(*ad.Node) *ad.Node {
	switch a {
	case Tanh, "":
		return ad.Tanh
	case Sin:
		return ad.Sin
	case Softplus:
		return ad.Softplus
	case Sigmoid:
		return ad.Sigmoid
	}
	return func(*ad.Node) *ad.Node { panic(fmt.Sprintf("nn: unknown activation %q", string(a))) }
}

func (a Activation) eval(x float64) float64 {
	switch a {
	case Tanh, "":
		return math.Tanh(x)
	case Sin:
		return math.Sin(x)
	case Softplus:
		if x > 30 {
			return x
		}
		return math.Log1p(math.Exp(x))
	case Sigmoid:
		return 1 / (1 + math.Exp(-x))
	}
	panic(fmt.Sprintf("nn: unknown activation %q", string(a)))
}

// MLP is a fully connected network with Sizes[0] inputs, hidden layers
// Sizes[1:len-1] and Sizes[len-1] outputs.
//
// Fixed maps (not trained, not in W) may surround the layers: the network
// computes u(x) = OutShift + OutScale * N((x - InShift) / InScale), N the
// layers, every operation per component. A nil map is the identity, so a
// network without maps computes N(x) with the same bits as before maps
// existed.
type MLP struct {
	Sizes      []int
	Activation Activation
	W          []float64 // flat weights; see the package doc for the layout
	// InShift and InScale (Sizes[0] each, or nil) map the inputs, e.g. a
	// domain's box to [-1, 1] (BoxMap).
	InShift, InScale []float64
	// OutShift and OutScale (the outputs' count each, or nil) map the
	// layers' outputs to the outputs' physical scale.
	OutShift, OutScale []float64
	// Waves (nil: none) are fixed features of the mapped inputs that the
	// first layer reads after them: sin and cos of each wave's Omega times
	// its input. They let a small network hold oscillations of many
	// periods across the box, which its units reach slowly if ever.
	Waves []Wave
}

// Wave is one Fourier feature pair, sin(Omega z) and cos(Omega z), of the
// mapped input z = Input.
type Wave struct {
	Input int     `json:"input"`
	Omega float64 `json:"omega"`
}

// InWidth is the number of values layer l reads: the inputs and the two
// values of each wave for the first, the previous layer's units after.
func (m *MLP) InWidth(l int) int {
	if l == 0 {
		return m.Sizes[0] + 2*len(m.Waves)
	}
	return m.Sizes[l]
}

// SetWaves sets m's waves and resizes its first layer to read them: the
// new columns' weights are drawn as New draws them (rng nil: zero), the
// others kept.
func (m *MLP) SetWaves(waves []Wave, rng *rand.Rand) {
	for _, w := range waves {
		if w.Input < 0 || w.Input >= m.Sizes[0] || math.IsNaN(w.Omega) || math.IsInf(w.Omega, 0) {
			panic(fmt.Sprintf("nn: SetWaves: wave %+v for a network with %d inputs", w, m.Sizes[0]))
		}
	}
	old := m.Clone()
	m.Waves = slices.Clone(waves)
	m.W = make([]float64, m.NumWeights())
	oin, in, out := old.InWidth(0), m.InWidth(0), m.Sizes[1]
	std := math.Sqrt(2 / float64(in+out))
	for l := 0; l < m.Layers(); l++ {
		ow, ob := old.Layer(l)
		nw, nb := m.Layer(l)
		copy(nb, ob)
		if l > 0 {
			copy(nw, ow)
			continue
		}
		for r := 0; r < out; r++ {
			n := copy(nw[r*in:], ow[r*oin:(r+1)*oin])
			for i := n; i < in && rng != nil; i++ {
				nw[r*in+i] = std * rng.NormFloat64()
			}
		}
	}
}

// BoxMap sets m's input map to the one taking the box [lo, hi] to
// [-1, 1]^d: shift the box's centre, scale its half-widths. A degenerate
// side (lo = hi) keeps scale 1.
func (m *MLP) BoxMap(lo, hi []float64) {
	if len(lo) != m.Sizes[0] || len(hi) != m.Sizes[0] {
		panic(fmt.Sprintf("nn: BoxMap: box of %d and %d sides for a network with %d inputs", len(lo), len(hi), m.Sizes[0]))
	}
	m.InShift, m.InScale = make([]float64, len(lo)), make([]float64, len(lo))
	for i := range lo {
		m.InShift[i] = (lo[i] + hi[i]) / 2
		m.InScale[i] = cmp.Or((hi[i]-lo[i])/2, 1)
	}
}

// SetOutputMap sets m's output map: output k is shift[k] + scale[k] times
// the last layer's output k.
func (m *MLP) SetOutputMap(shift, scale []float64) {
	if n := m.Sizes[len(m.Sizes)-1]; len(shift) != n || len(scale) != n {
		panic(fmt.Sprintf("nn: SetOutputMap: %d shifts and %d scales for a network with %d outputs", len(shift), len(scale), n))
	}
	m.OutShift, m.OutScale = slices.Clone(shift), slices.Clone(scale)
}

// MapInput returns x as the first layer reads it: through the input map
// when m has one, else a copy of x.
func (m *MLP) MapInput(x []float64) []float64 {
	z := slices.Clone(x)
	if m.InShift != nil {
		for i := range z {
			z[i] = (x[i] - m.InShift[i]) * (1 / m.InScale[i])
		}
	}
	return z
}

// Mapped reports whether m has an input or an output map.
func (m *MLP) Mapped() bool { return m.InShift != nil || m.OutShift != nil }

// New returns a network with Xavier/Glorot-normal weights drawn from rng
// (std sqrt(2/(in+out))) and zero biases.
func New(sizes []int, act Activation, rng *rand.Rand) *MLP {
	m := Zero(sizes, act)
	for l := 0; l < m.Layers(); l++ {
		in, out := m.InWidth(l), m.Sizes[l+1]
		w, _ := m.Layer(l)
		std := math.Sqrt(2 / float64(in+out))
		for i := range w {
			w[i] = std * rng.NormFloat64()
		}
	}
	return m
}

// Zero returns a network of the given shape with all weights zero. It panics
// if fewer than two sizes are given or any size is not positive.
func Zero(sizes []int, act Activation) *MLP {
	if len(sizes) < 2 {
		panic(fmt.Sprintf("nn: sizes %v: need at least an input and an output size", sizes))
	}
	for _, s := range sizes {
		if s <= 0 {
			panic(fmt.Sprintf("nn: sizes %v: every layer needs at least one unit", sizes))
		}
	}
	if _, err := ParseActivation(string(act)); err != nil {
		panic("nn: " + err.Error())
	}
	m := &MLP{Sizes: append([]int(nil), sizes...), Activation: act}
	m.W = make([]float64, m.NumWeights())
	return m
}

// Layers is the number of weight layers (hidden layers + 1).
func (m *MLP) Layers() int { return len(m.Sizes) - 1 }

// NumWeights is the length of W.
func (m *MLP) NumWeights() int {
	n := 0
	for l := 0; l < m.Layers(); l++ {
		n += (m.InWidth(l) + 1) * m.Sizes[l+1]
	}
	return n
}

// Hidden returns the sizes of the hidden layers.
func (m *MLP) Hidden() []int { return m.Sizes[1 : len(m.Sizes)-1] }

// Clone returns a deep copy.
func (m *MLP) Clone() *MLP {
	c := *m
	c.Sizes = append([]int(nil), m.Sizes...)
	c.W = append([]float64(nil), m.W...)
	c.InShift, c.InScale = slices.Clone(m.InShift), slices.Clone(m.InScale)
	c.OutShift, c.OutScale = slices.Clone(m.OutShift), slices.Clone(m.OutScale)
	c.Waves = slices.Clone(m.Waves)
	return &c
}

func (m *MLP) offset(l int) int {
	off := 0
	for k := 0; k < l; k++ {
		off += (m.InWidth(k) + 1) * m.Sizes[k+1]
	}
	return off
}

// Layer returns views of layer l's matrix (out x in, row-major) and bias.
func (m *MLP) Layer(l int) (w, b []float64) {
	in, out := m.InWidth(l), m.Sizes[l+1]
	off := m.offset(l)
	return m.W[off : off+in*out], m.W[off+in*out : off+in*out+out]
}

// Class is a contiguous block of W sharing one prior width.
type Class struct {
	Name   string // "W1", "b1", "W2", ...: layer l counted from 1
	Offset int
	Len    int
}

// Classes returns the weight classes: per layer its matrix and its bias.
func (m *MLP) Classes() []Class {
	var cs []Class
	off := 0
	for l := 0; l < m.Layers(); l++ {
		in, out := m.InWidth(l), m.Sizes[l+1]
		cs = append(cs, Class{fmt.Sprintf("W%d", l+1), off, in * out}, Class{fmt.Sprintf("b%d", l+1), off + in*out, out})
		off += (in + 1) * out
	}
	return cs
}

// Params declares the network's parameters in g, in the order of W.
func (m *MLP) Params(g *ad.Graph) ad.Params {
	var ps ad.Params
	for l := 0; l < m.Layers(); l++ {
		in, out := m.InWidth(l), m.Sizes[l+1]
		ps = append(ps, g.Param(fmt.Sprintf("W%d", l+1), out, in), g.Param(fmt.Sprintf("b%d", l+1), 1, out))
	}
	return ps
}

// Apply builds the network's output for the batched input x (N x in) with
// the parameters ps from Params: N x out.
func (m *MLP) Apply(ps ad.Params, x *ad.Node) *ad.Node {
	if x.Shape().Cols != m.Sizes[0] {
		panic(fmt.Sprintf("nn: Apply: input %v for a network with %d inputs", x.Shape(), m.Sizes[0]))
	}
	if len(ps) != 2*m.Layers() {
		panic(fmt.Sprintf("nn: Apply: %d parameters for %d layers", len(ps), m.Layers()))
	}
	act, g := m.Activation.op(), x.Graph()
	h := m.inputNodes(x)
	for l := 0; l < m.Layers(); l++ {
		h = ad.Add(ad.MatMulT(h, ps[2*l]), ps[2*l+1])
		if l < m.Layers()-1 {
			h = act(h)
		}
	}
	if m.OutShift != nil {
		h = ad.Add(ad.Mul(h, g.Row(m.OutScale)), g.Row(m.OutShift))
	}
	return h
}

// inverses returns 1/v elementwise: the input map multiplies by them, in
// Apply and in Eval alike, so that both round the same way.
func inverses(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = 1 / x
	}
	return out
}

// Eval returns the network's outputs at one point, written into out (nil
// allocates it). It is the plain reference evaluation; batches go through a
// compiled graph (Apply).
func (m *MLP) Eval(x []float64, out []float64) []float64 {
	L := m.Layers()
	h := m.Features(x, nil)
	if out == nil {
		out = make([]float64, m.Sizes[L])
	}
	in := m.InWidth(L - 1)
	w, b := m.Layer(L - 1)
	for j := range out {
		s := b[j]
		for i, xi := range h {
			s += w[j*in+i] * xi
		}
		out[j] = s
	}
	if m.OutShift != nil {
		for k := range out {
			out[k] = out[k]*m.OutScale[k] + m.OutShift[k]
		}
	}
	return out
}

// EvalBatch returns the network's outputs at every point (len(points) x
// out, row-major) through one compiled graph (Apply) run on evalChunk
// points at a time: Eval's values to a few ulps (the vectorized
// activation rounds differently), at a fraction of its cost on many
// points.
func (m *MLP) EvalBatch(points [][]float64) []float64 {
	if len(points) == 0 {
		return nil
	}
	rows := min(len(points), evalChunk)
	g := ad.NewGraph()
	x := g.Input("x", rows, m.Sizes[0])
	ps := m.Params(g)
	u := m.Apply(ps, x)
	prog := g.Compile(u)
	ps.Bind(prog, m.W)
	nout := m.Sizes[m.Layers()]
	out := make([]float64, 0, len(points)*nout)
	in := make([]float64, 0, rows*m.Sizes[0])
	for lo := 0; lo < len(points); lo += rows {
		chunk := points[lo:min(lo+rows, len(points))]
		in = in[:0]
		for i := range rows { // the last chunk padded with its last point
			in = append(in, chunk[min(i, len(chunk)-1)]...)
		}
		prog.Set(x, in)
		prog.Run()
		out = append(out, prog.Value(u)[:len(chunk)*nout]...)
	}
	return out
}

// evalChunk is the points EvalBatch evaluates at once: its buffers stay
// in the cache.
const evalChunk = 256

// Features returns the values of the network's last hidden layer at one
// point (its activations; the inputs, mapped, for a network without a
// hidden layer), written into out (nil allocates it): what the output
// layer combines, u = OutShift + OutScale (W h + b).
func (m *MLP) Features(x []float64, out []float64) []float64 {
	if len(x) != m.Sizes[0] {
		panic(fmt.Sprintf("nn: %d inputs for a network with %d", len(x), m.Sizes[0]))
	}
	maxw := m.InWidth(0)
	for _, s := range m.Sizes {
		maxw = max(maxw, s)
	}
	buf := make([]float64, 2*maxw)
	cur, next := buf[:maxw], buf[maxw:]
	m.waveValues(m.MapInput(x), cur)
	for l := 0; l < m.Layers()-1; l++ {
		in, o := m.InWidth(l), m.Sizes[l+1]
		w, b := m.Layer(l)
		for j := 0; j < o; j++ {
			s := b[j]
			for i, xi := range cur[:in] {
				s += w[j*in+i] * xi
			}
			next[j] = m.Activation.eval(s)
		}
		cur, next = next, cur
	}
	H := m.InWidth(m.Layers() - 1)
	if out == nil {
		out = make([]float64, H)
	}
	copy(out, cur[:H])
	return out
}

// waveValues writes what the first layer reads of the mapped input z into
// h: z, then sin and cos of each wave.
func (m *MLP) waveValues(z, h []float64) {
	n := copy(h, z)
	for j, w := range m.Waves {
		h[n+2*j], h[n+2*j+1] = math.Sincos(w.Omega * z[w.Input])
	}
}

// inputNodes is what the first layer reads of the batch x (N x inputs),
// as Features reads it of one point: x mapped (MapInput), then its waves'
// columns beside it (waveValues).
func (m *MLP) inputNodes(x *ad.Node) *ad.Node {
	z := x
	if m.InShift != nil {
		inv, g := inverses(m.InScale), x.Graph()
		z = ad.Mul(ad.Sub(z, g.Row(m.InShift)), g.Row(inv))
	}
	if m.Waves == nil {
		return z
	}
	cols := make([]*ad.Node, 0, m.InWidth(0))
	for i := 0; i < m.Sizes[0]; i++ {
		cols = append(cols, ad.SliceCol(z, i))
	}
	for _, w := range m.Waves {
		a := ad.Scale(ad.SliceCol(z, w.Input), w.Omega)
		cols = append(cols, ad.Sin(a), ad.Cos(a))
	}
	return ad.Cols(cols...)
}
