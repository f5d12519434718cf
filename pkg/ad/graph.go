package ad

import (
	"fmt"
	"math"
)

// Shape is the size of a value: Rows x Cols, stored row-major.
type Shape struct{ Rows, Cols int }

// Size is Rows*Cols.
func (s Shape) Size() int { return s.Rows * s.Cols }

// String writes the shape as rows x cols, e.g. "100x1".
func (s Shape) String() string { return fmt.Sprintf("%dx%d", s.Rows, s.Cols) }

// Graph holds the nodes of a computation. Building a node never computes
// anything; Compile turns a set of output nodes into a Program.
//
// Identical nodes (same op, inputs and attributes) are built only once
// (hash-consing), so the derivative graphs built by Grad share their common
// subexpressions. A Graph is not safe for concurrent building; a compiled
// Program owns its buffers and can run concurrently with other Programs.
type Graph struct {
	nodes []*Node
	memo  map[nodeKey]*Node
}

type nodeKey struct {
	op   Op
	a, b int
	rows int
	cols int
	f    float64
	i    int
}

// Node is one value in a Graph.
type Node struct {
	g     *Graph
	id    int
	op    Op
	in    []*Node
	shape Shape
	f     float64 // float attribute (Scale, AddConst, Pow, Fill)
	i     int     // int attribute (SliceCol column, PadCol column)
	name  string
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{memo: map[nodeKey]*Node{}} }

// Shape of the node's value.
func (n *Node) Shape() Shape { return n.shape }

// Op of the node.
func (n *Node) Op() Op { return n.op }

// ID is the node's index in its graph.
func (n *Node) ID() int { return n.id }

// Name is the name given to an Input or Param.
func (n *Node) Name() string { return n.name }

// Graph the node belongs to.
func (n *Node) Graph() *Graph { return n.g }

// String names the node for messages: its op, its name or id, its shape.
func (n *Node) String() string {
	if n.name != "" {
		return fmt.Sprintf("%s(%s %s)", n.op, n.name, n.shape)
	}
	return fmt.Sprintf("%s#%d(%s)", n.op, n.id, n.shape)
}

// Len is the number of nodes built so far.
func (g *Graph) Len() int { return len(g.nodes) }

func (g *Graph) add(n *Node) *Node {
	n.g = g
	n.id = len(g.nodes)
	g.nodes = append(g.nodes, n)
	return n
}

// node builds (or finds) a non-leaf node.
func (g *Graph) node(op Op, shape Shape, f float64, i int, in ...*Node) *Node {
	if math.IsNaN(f) {
		panic(fmt.Sprintf("ad: %s with a NaN attribute", op))
	}
	k := nodeKey{op: op, a: -1, b: -1, rows: shape.Rows, cols: shape.Cols, f: f, i: i}
	for j, x := range in {
		if x.g != g {
			panic(fmt.Sprintf("ad: %s: operand %d belongs to another graph", op, j))
		}
	}
	if len(in) > 0 {
		k.a = in[0].id
	}
	if len(in) > 1 {
		k.b = in[1].id
	}
	if m, ok := g.memo[k]; ok {
		return m
	}
	n := g.add(&Node{op: op, in: in, shape: shape, f: f, i: i})
	g.memo[k] = n
	return n
}

// Input is a leaf fed with data at run time whose rows are points (batched).
// Derivatives with respect to an Input are per-point derivatives.
func (g *Graph) Input(name string, rows, cols int) *Node {
	checkShape("Input", rows, cols)
	return g.add(&Node{op: OpInput, shape: Shape{rows, cols}, name: name})
}

// Param is a leaf fed at run time that is shared by all points (weights).
func (g *Graph) Param(name string, rows, cols int) *Node {
	checkShape("Param", rows, cols)
	return g.add(&Node{op: OpParam, shape: Shape{rows, cols}, name: name})
}

// Fill is a constant value c of the given shape.
func (g *Graph) Fill(rows, cols int, c float64) *Node {
	checkShape("Fill", rows, cols)
	return g.node(OpFill, Shape{rows, cols}, c, 0)
}

// Scalar is a 1x1 constant.
func (g *Graph) Scalar(c float64) *Node { return g.Fill(1, 1, c) }

// Row is the constant row v (1 x len(v)), built from constants (Scalar,
// then Cols) so that no program has an input to set; a 1x1 constant for
// one value. It broadcasts over the rows of a batch, as a per-column shift
// or scale does.
func (g *Graph) Row(v []float64) *Node {
	cs := make([]*Node, len(v))
	for j, c := range v {
		cs[j] = g.Scalar(c)
	}
	return Cols(cs...)
}

// Cols is the columns cs (each N x 1) side by side, N x len(cs): each
// padded into its place (PadCol) and summed left to right.
func Cols(cs ...*Node) *Node {
	var out *Node
	for j, c := range cs {
		col := PadCol(c, j, len(cs))
		if out == nil {
			out = col
		} else {
			out = Add(out, col)
		}
	}
	return out
}

func checkShape(op string, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		panic(fmt.Sprintf("ad: %s: shape %dx%d must be positive", op, rows, cols))
	}
}

func (n *Node) isFill(c float64) bool { return n.op == OpFill && n.f == c }
