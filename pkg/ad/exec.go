package ad

import (
	"fmt"
	"math"
)

// Program evaluates a fixed set of output nodes with preallocated buffers:
// Run allocates nothing. Leaves (Input, Param) are fed with Set (copy) or
// Bind (the Program reads the caller's slice in place, e.g. a network's flat
// weight vector). A Program is not safe for concurrent use; compile one per
// goroutine.
//
// Compile fuses chains of elementwise nodes into single kernels (see
// plan.go); every needed node's value stays available through Value.
type Program struct {
	g     *Graph
	order []*Node // non-leaf nodes to evaluate, in topological order
	val   [][]float64
	need  []bool
	keep  []bool // outputs, and nodes read with Value: always materialized
	live  []bool // materialized by the current plan
	code  []instr
	gen   int // plan generation, to rebuild Segments after a re-plan
	phaseState
}

// Compile returns a Program computing outputs (and what they need).
func (g *Graph) Compile(outputs ...*Node) *Program {
	nn := len(g.nodes)
	p := &Program{g: g, val: make([][]float64, nn), need: make([]bool, nn), keep: make([]bool, nn)}
	var visit func(n *Node)
	visit = func(n *Node) {
		if p.need[n.id] {
			return
		}
		p.need[n.id] = true
		for _, in := range n.in {
			visit(in)
		}
	}
	for _, o := range outputs {
		if o.g != g {
			panic(fmt.Sprintf("ad: Compile: %v belongs to another graph", o))
		}
		visit(o)
		p.keep[o.id] = true
	}
	total := 0
	for id, ok := range p.need {
		if n := g.nodes[id]; ok && (n.op == OpInput || n.op == OpParam) {
			total += n.shape.Size()
		}
	}
	slab := make([]float64, total)
	for id, ok := range p.need {
		if !ok {
			continue
		}
		n := g.nodes[id]
		switch n.op {
		case OpInput, OpParam:
			size := n.shape.Size()
			p.val[id], slab = slab[:size:size], slab[size:]
		case OpFill:
		default:
			p.order = append(p.order, n)
		}
	}
	p.plan()
	return p
}

// Len is the number of nodes the Program evaluates per Run.
func (p *Program) Len() int { return len(p.order) }

func (p *Program) leaf(op string, n *Node, data []float64) {
	if n.op != OpInput && n.op != OpParam {
		panic(fmt.Sprintf("ad: %s: %v is not an Input or Param", op, n))
	}
	if len(data) != n.shape.Size() {
		panic(fmt.Sprintf("ad: %s: %v needs %d values, got %d", op, n, n.shape.Size(), len(data)))
	}
	if !p.need[n.id] {
		panic(fmt.Sprintf("ad: %s: %v is not used by the program's outputs", op, n))
	}
}

// Set copies data (row-major) into the leaf n.
func (p *Program) Set(n *Node, data []float64) {
	p.leaf("Set", n, data)
	copy(p.val[n.id], data)
}

// Bind makes the leaf n read data in place; later changes to data are seen
// by the next Run.
func (p *Program) Bind(n *Node, data []float64) {
	p.leaf("Bind", n, data)
	p.val[n.id] = data
}

// Uses reports whether the program's outputs depend on n.
func (p *Program) Uses(n *Node) bool { return n.id < len(p.need) && p.need[n.id] }

// Value returns the buffer holding n's value after Run (row-major; do not
// keep it across Binds).
//
// The first Value of a node that Compile fused away re-plans the Program so
// that Run keeps that node's buffer up to date from then on, and computes
// the node from the current values; this allocates.
func (p *Program) Value(n *Node) []float64 {
	if n.id >= len(p.need) || !p.need[n.id] {
		panic(fmt.Sprintf("ad: Value: %v is not computed by this program", n))
	}
	if n.op != OpInput && n.op != OpParam && !p.keep[n.id] && !p.live[n.id] {
		p.materialize(n)
	}
	return p.val[n.id]
}

// materialize makes n an output of the plan and computes it (and any other
// node that gains a buffer) from the current values.
func (p *Program) materialize(n *Node) {
	had := make([]bool, len(p.val))
	for id, v := range p.val {
		had[id] = v != nil && (p.live[id] || p.keep[id] || p.g.nodes[id].op == OpInput || p.g.nodes[id].op == OpParam)
	}
	p.keep[n.id] = true
	p.plan()
	for i := range p.code {
		if in := &p.code[i]; !had[in.n.id] {
			p.exec(in)
		}
	}
}

// Scalar returns the value of a 1x1 node.
func (p *Program) Scalar(n *Node) float64 { return p.Value(n)[0] }

// Run evaluates every node (on the threads of SetPool's pool, if any).
func (p *Program) Run() {
	if p.pool != nil {
		p.runPooled()
		return
	}
	for i := range p.code {
		p.exec(&p.code[i])
	}
}

// Segment is the part of a Program that depends on some leaves: rerun it
// after changing only those leaves (e.g. the direction of a Hessian-vector
// product) instead of the whole Program.
type Segment struct {
	p      *Program
	leaves []*Node
	gen    int
	order  []*Node // nodes that depend on the leaves
	code   []int   // instructions that depend on the leaves
}

// Segment returns the nodes of p that depend on any of leaves.
func (p *Program) Segment(leaves ...*Node) *Segment {
	dep := make([]bool, len(p.need))
	for _, l := range leaves {
		dep[l.id] = true
	}
	s := &Segment{p: p, leaves: leaves}
	for _, n := range p.order {
		for _, in := range n.in {
			if dep[in.id] {
				dep[n.id] = true
				s.order = append(s.order, n)
				break
			}
		}
	}
	s.build()
	return s
}

// build selects the instructions of the current plan that depend on the
// segment's leaves.
func (s *Segment) build() {
	p := s.p
	dep := make([]bool, len(p.need))
	for _, l := range s.leaves {
		dep[l.id] = true
	}
	s.code = s.code[:0]
	for i := range p.code {
		in := &p.code[i]
		for _, id := range in.reads {
			if dep[id] {
				dep[in.n.id] = true
				s.code = append(s.code, i)
				break
			}
		}
	}
	s.gen = p.gen
}

// Run evaluates the segment's nodes.
func (s *Segment) Run() {
	if s.gen != s.p.gen {
		s.build()
	}
	for _, i := range s.code {
		s.p.exec(&s.p.code[i])
	}
}

// Len is the number of nodes in the segment.
func (s *Segment) Len() int { return len(s.order) }

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	if x < -30 {
		return math.Exp(x)
	}
	return math.Log1p(math.Exp(x))
}

// elementwise holds the unary functions evaluated by one shared loop (math's
// functions are calls anyway; tanh and the cheap ops keep their own loops).
var elementwise = [numOps]func(float64) float64{
	OpExp: math.Exp, OpLog: math.Log, OpSin: math.Sin, OpCos: math.Cos,
	OpSigmoid: sigmoid, OpSoftplus: softplus, OpAbs: math.Abs, OpSign: sign,
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // 0, or NaN
}

// eval computes node n's value into its buffer.
func (p *Program) eval(n *Node) {
	var b []float64
	if len(n.in) > 1 {
		b = p.val[n.in[1].id]
	}
	evalOn(n, p.val[n.id], p.val[n.in[0].id], b, n.shape.Rows)
}

// evalOn computes rows of node n's value into y from its operands a and b:
// all of them, or (for an op whose rows do not mix, evalRows) a block of
// rows, y and the operands aligned with it cut to that block.
//
// Long because it is the dispatch on the op, one short case per kernel.
func evalOn(n *Node, y, a, b []float64, rows int) {
	switch n.op {
	case OpAdd:
		b = b[:len(y)]
		for i, ai := range a[:len(y)] {
			y[i] = ai + b[i]
		}
	case OpSub:
		b = b[:len(y)]
		for i, ai := range a[:len(y)] {
			y[i] = ai - b[i]
		}
	case OpMul:
		b = b[:len(y)]
		for i, ai := range a[:len(y)] {
			y[i] = ai * b[i]
		}
	case OpDiv:
		b = b[:len(y)]
		for i, ai := range a[:len(y)] {
			y[i] = ai / b[i]
		}
	case OpScale:
		c := n.f
		for i, ai := range a[:len(y)] {
			y[i] = c * ai
		}
	case OpAddConst:
		c := n.f
		for i, ai := range a[:len(y)] {
			y[i] = ai + c
		}
	case OpSquare:
		for i, ai := range a[:len(y)] {
			y[i] = ai * ai
		}
	case OpPow:
		c := n.f
		for i, ai := range a[:len(y)] {
			y[i] = math.Pow(ai, c)
		}
	case OpExp, OpLog, OpSin, OpCos, OpSigmoid, OpSoftplus, OpAbs, OpSign:
		f := elementwise[n.op]
		for i, ai := range a[:len(y)] {
			y[i] = f(ai)
		}
	case OpTanh:
		tanhTo(y, a)
	case OpStopGradient, OpReshape:
		copy(y, a)
	case OpSum:
		s := 0.0
		for _, ai := range a {
			s += ai
		}
		y[0] = s
	case OpSumRows:
		k := n.shape.Cols
		copy(y, a[:k])
		sumRowsTo(y, a[k:], k)
	case OpSumCols:
		k := n.in[0].shape.Cols
		for r := range y {
			s := 0.0
			for _, v := range a[r*k : r*k+k] {
				s += v
			}
			y[r] = s
		}
	case OpBroadcast:
		in := n.in[0].shape
		k := n.shape.Cols
		switch {
		case in.Rows == 1 && in.Cols == 1:
			fill(y, a[0])
		case in.Rows == 1:
			for r := 0; r < len(y); r += k {
				copy(y[r:r+k], a)
			}
		default:
			for r, v := range a {
				fill(y[r*k:r*k+k], v)
			}
		}
	case OpSliceCol:
		k, j := n.in[0].shape.Cols, n.i
		for r := range y {
			y[r] = a[r*k+j]
		}
	case OpPadCol:
		k, j := n.shape.Cols, n.i
		fill(y, 0)
		for r, v := range a {
			y[r*k+j] = v
		}
	case OpMatMul:
		matMul(y, a, b, rows, n.in[0].shape.Cols, n.shape.Cols)
	case OpMatMulT:
		matMulT(y, a, b, rows, n.in[0].shape.Cols, n.shape.Cols)
	case OpMatTMul:
		sa := n.in[0].shape
		matTMul(y, a, b, sa.Rows, sa.Cols, n.shape.Cols)
	case OpRowOuter:
		rowOuterTo(y, a, b, rows, n.in[0].shape.Cols, n.in[1].shape.Cols)
	default:
		panic(fmt.Sprintf("ad: no kernel for %v", n))
	}
}

// Histogram counts the evaluated nodes by op (for profiling the graph).
func (p *Program) Histogram() map[string]int {
	h := map[string]int{}
	for _, n := range p.order {
		h[n.op.String()]++
	}
	return h
}
