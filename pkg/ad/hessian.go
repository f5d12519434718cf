package ad

import "fmt"

// Params is an ordered list of parameters whose values are stored end to end
// in one flat vector (the layout of a network's weight vector).
type Params []*Node

// Size is the total number of scalars.
func (ps Params) Size() int {
	n := 0
	for _, p := range ps {
		n += p.shape.Size()
	}
	return n
}

// Bind binds each parameter of prog to its slice of the flat vector w.
// Parameters that the program does not use are skipped.
func (ps Params) Bind(prog *Program, w []float64) {
	if len(w) != ps.Size() {
		panic(fmt.Sprintf("ad: Params.Bind: %d values for %d parameters", len(w), ps.Size()))
	}
	off := 0
	for _, p := range ps {
		size := p.shape.Size()
		if prog.Uses(p) {
			prog.Bind(p, w[off:off+size:off+size])
		}
		off += size
	}
}

// Gather copies the values of nodes (one per parameter, same shapes) into
// the flat vector dst.
func (ps Params) Gather(prog *Program, nodes []*Node, dst []float64) {
	off := 0
	for k, p := range ps {
		size := p.shape.Size()
		copy(dst[off:off+size], prog.Value(nodes[k]))
		off += size
	}
}

// Jacobian evaluates d r / d w (N x P, row-major) for a batched residual r.
type Jacobian struct {
	Prog   *Program
	params Params
	blocks []*Node
	n      int
}

// NewJacobian compiles the Jacobian of r (N x 1) with respect to params,
// using one reverse pass (see JacobianRows). Feed the program's inputs and
// parameters through Prog.
func NewJacobian(r *Node, params Params) *Jacobian {
	blocks := JacobianRows(r, params...)
	return &Jacobian{Prog: r.g.Compile(append(blocks, r)...), params: params, blocks: blocks, n: r.shape.Rows}
}

// Rows is N, the number of residuals.
func (j *Jacobian) Rows() int { return j.n }

// ComputeTo runs the program and writes the Jacobian into dst (N*P).
func (j *Jacobian) ComputeTo(dst []float64) {
	P := j.params.Size()
	if len(dst) != j.n*P {
		panic(fmt.Sprintf("ad: Jacobian.ComputeTo: dst has %d values, want %dx%d", len(dst), j.n, P))
	}
	j.Prog.Run()
	off := 0
	for k, p := range j.params {
		size := p.shape.Size()
		b := j.Prog.Value(j.blocks[k])
		for r := 0; r < j.n; r++ {
			copy(dst[r*P+off:r*P+off+size], b[r*size:r*size+size])
		}
		off += size
	}
}

// Hessian evaluates the exact Hessian of a 1x1 loss with respect to params,
// one column per Hessian-vector product built reverse-over-reverse:
// H v = d/dw (grad L . v). The forward pass and the gradient are evaluated
// once; only the part that depends on v is rerun for each of the P columns.
//
// The direction is one-hot, so while the columns of one parameter block are
// computed, only the nodes that depend on that block's direction change:
// each block reruns its own Segment.
//
// Every node that depends on v is linear in v (it is a cotangent of the
// second reverse pass, whose seed grad L . v is linear in v, times values
// that do not depend on v), so its value for v = 0 is zero. After a block,
// the nodes its Segment wrote are reset to that state by clearing the
// buffers that the next block's Segment does not recompute, instead of
// rerunning the Segment with v = 0.
type Hessian struct {
	Prog   *Program
	params Params
	v      []float64
	hv     []*Node
	segs   []*Segment // per parameter block; nil where the loss is linear in it
	clear  [][]int    // per block: ids of the buffers to clear after it
	cgen   int        // plan generation of clear
}

// NewHessian compiles the Hessian of loss (1x1) with respect to params.
func NewHessian(loss *Node, params Params) *Hessian {
	g := loss.g
	grads := Grad(loss, params...)
	var dot *Node
	vs := make(Params, len(params))
	for k, p := range params {
		vs[k] = g.Param(fmt.Sprintf("v_%s", p.name), p.shape.Rows, p.shape.Cols)
		dot = accumulate(dot, Sum(Mul(grads[k], vs[k])))
	}
	hv := Grad(dot, params...)
	prog := g.Compile(append(append([]*Node{loss}, grads...), hv...)...)
	h := &Hessian{Prog: prog, params: params, v: make([]float64, params.Size()), hv: hv}
	for k, v := range vs {
		if !prog.Uses(v) {
			// The loss is linear in this parameter block: its v never matters.
			vs[k] = nil
		}
	}
	h.segs = make([]*Segment, len(vs))
	off := 0
	for k, v := range vs {
		size := params[k].shape.Size()
		if v != nil {
			prog.Bind(v, h.v[off:off+size:off+size])
			h.segs[k] = prog.Segment(v)
		}
		off += size
	}
	h.prepare()
	return h
}

// ComputeTo runs the program and writes the P x P Hessian into dst.
func (h *Hessian) ComputeTo(dst []float64) {
	P := len(h.v)
	if len(dst) != P*P {
		panic(fmt.Sprintf("ad: Hessian.ComputeTo: dst has %d values, want %dx%d", len(dst), P, P))
	}
	fill(h.v, 0)
	h.Prog.Run()
	h.prepare()
	// Invariant: at the start of each block every node holds its value for
	// v = 0.
	c := 0
	for k, p := range h.params {
		seg := h.segs[k]
		for end := c + p.shape.Size(); c < end; c++ {
			if seg != nil {
				h.v[c] = 1
				seg.Run()
				h.v[c] = 0
			}
			// Without a segment the column is H 0 = 0, as computed by Run.
			h.params.Gather(h.Prog, h.hv, dst[c*P:(c+1)*P])
		}
		for _, id := range h.clear[k] {
			fill(h.Prog.val[id], 0)
		}
	}
}

// prepare (re)builds the Segments and the lists of buffers to clear after
// each block when the plan has changed (see Program.Value). The nodes of
// block k's Segment that block k+1's Segment also computes need no
// clearing: that Segment rewrites them before anything reads them, and
// clears them after its own block.
func (h *Hessian) prepare() {
	p := h.Prog
	if h.clear != nil && h.cgen == p.gen {
		return
	}
	h.clear = make([][]int, len(h.segs))
	inNext := make([]bool, len(p.code))
	for k, seg := range h.segs {
		if seg == nil || k+1 == len(h.segs) {
			continue
		}
		if seg.gen != p.gen {
			seg.build()
		}
		clear(inNext)
		if next := h.segs[k+1]; next != nil {
			if next.gen != p.gen {
				next.build()
			}
			for _, i := range next.code {
				inNext[i] = true
			}
		}
		for _, i := range seg.code {
			if !inNext[i] {
				h.clear[k] = append(h.clear[k], p.code[i].n.id)
			}
		}
	}
	h.cgen = p.gen
}
