package ad

import "fmt"

// Op identifies the operation of a node.
type Op uint8

// The operations. Elementwise binary ops take equal shapes after
// broadcasting (see Broadcast); every op's derivative rule is in rules.go.
const (
	OpInput Op = iota
	OpParam
	OpFill
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpScale    // c*a
	OpAddConst // a+c
	OpSquare
	OpPow // a^c
	OpExp
	OpLog
	OpSin
	OpCos
	OpTanh
	OpSigmoid
	OpSoftplus
	OpSum       // sum of all entries -> 1x1
	OpSumRows   // column sums: NxK -> 1xK
	OpSumCols   // row sums: NxK -> Nx1
	OpMatMul    // A B
	OpMatMulT   // A B^T
	OpMatTMul   // A^T B
	OpBroadcast // 1x1 or 1xK -> NxK, or Nx1 -> NxK
	OpSliceCol  // column j: NxK -> Nx1
	OpPadCol    // Nx1 -> NxK with the value in column j, zeros elsewhere
	OpRowOuter  // row-wise outer product: (NxK, NxM) -> Nx(K*M)
	OpStopGradient
	OpReshape // same row-major data, another shape
	OpAbs
	OpSign // -1, 0 or 1; its derivative is zero
	numOps
)

var opNames = [numOps]string{
	"Input", "Param", "Fill", "Add", "Sub", "Mul", "Div", "Scale", "AddConst",
	"Square", "Pow", "Exp", "Log", "Sin", "Cos", "Tanh", "Sigmoid",
	"Softplus", "Sum", "SumRows", "SumCols", "MatMul", "MatMulT", "MatTMul",
	"Broadcast", "SliceCol", "PadCol", "RowOuter", "StopGradient", "Reshape",
	"Abs", "Sign",
}

// String is the op's name as in the graph builders, e.g. "MatMul".
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

func (o Op) reducesRows() bool {
	return o == OpSum || o == OpSumRows || o == OpMatTMul
}

// broadcastPair makes a and b the same shape, broadcasting a 1x1 or a row
// (1xK) or a column (Nx1) operand; anything else panics naming op.
func broadcastPair(op string, a, b *Node) (*Node, *Node) {
	if a.shape == b.shape {
		return a, b
	}
	if canBroadcast(b.shape, a.shape) {
		return a, Broadcast(b, a.shape)
	}
	if canBroadcast(a.shape, b.shape) {
		return Broadcast(a, b.shape), b
	}
	panic(fmt.Sprintf("ad: %s: shapes %s and %s do not broadcast", op, a.shape, b.shape))
}

func canBroadcast(from, to Shape) bool {
	return (from.Rows == 1 && from.Cols == 1) ||
		(from.Rows == 1 && from.Cols == to.Cols) ||
		(from.Cols == 1 && from.Rows == to.Rows)
}

// Broadcast repeats a (1x1, 1xK or Nx1) to shape s.
func Broadcast(a *Node, s Shape) *Node {
	if a.shape == s {
		return a
	}
	if !canBroadcast(a.shape, s) {
		panic(fmt.Sprintf("ad: Broadcast: cannot broadcast %s to %s", a.shape, s))
	}
	if a.op == OpFill {
		return a.g.Fill(s.Rows, s.Cols, a.f)
	}
	return a.g.node(OpBroadcast, s, 0, 0, a)
}

// Add returns a+b (broadcasting).
func Add(a, b *Node) *Node {
	a, b = broadcastPair("Add", a, b)
	switch {
	case a.isFill(0):
		return b
	case b.isFill(0):
		return a
	case b.op == OpFill:
		return AddConst(a, b.f)
	case a.op == OpFill:
		return AddConst(b, a.f)
	}
	return a.g.node(OpAdd, a.shape, 0, 0, a, b)
}

// Sub returns a-b (broadcasting).
func Sub(a, b *Node) *Node {
	a, b = broadcastPair("Sub", a, b)
	switch {
	case b.isFill(0):
		return a
	case a.isFill(0):
		return Neg(b)
	case b.op == OpFill:
		return AddConst(a, -b.f)
	}
	return a.g.node(OpSub, a.shape, 0, 0, a, b)
}

// Mul returns the elementwise product a*b (broadcasting).
func Mul(a, b *Node) *Node {
	a, b = broadcastPair("Mul", a, b)
	switch {
	case a.op == OpFill:
		return Scale(b, a.f)
	case b.op == OpFill:
		return Scale(a, b.f)
	}
	return a.g.node(OpMul, a.shape, 0, 0, a, b)
}

// Div returns the elementwise quotient a/b (broadcasting).
func Div(a, b *Node) *Node {
	a, b = broadcastPair("Div", a, b)
	if b.op == OpFill {
		if b.f == 0 {
			panic("ad: Div: division by the constant 0")
		}
		return Scale(a, 1/b.f)
	}
	return a.g.node(OpDiv, a.shape, 0, 0, a, b)
}

// Scale returns c*a.
func Scale(a *Node, c float64) *Node {
	switch {
	case c == 1:
		return a
	case a.op == OpFill:
		return a.g.Fill(a.shape.Rows, a.shape.Cols, c*a.f)
	case c == 0:
		return a.g.Fill(a.shape.Rows, a.shape.Cols, 0)
	case a.op == OpScale:
		return Scale(a.in[0], c*a.f)
	}
	return a.g.node(OpScale, a.shape, c, 0, a)
}

// AddConst returns a+c.
func AddConst(a *Node, c float64) *Node {
	if c == 0 {
		return a
	}
	if a.op == OpFill {
		return a.g.Fill(a.shape.Rows, a.shape.Cols, a.f+c)
	}
	return a.g.node(OpAddConst, a.shape, c, 0, a)
}

// Neg returns -a (built as Scale(a, -1)).
func Neg(a *Node) *Node { return Scale(a, -1) }

func unary(op Op, a *Node) *Node { return a.g.node(op, a.shape, 0, 0, a) }

// Square returns a^2.
func Square(a *Node) *Node { return unary(OpSquare, a) }

// Pow returns a^p; for non-integer p, a must be positive.
func Pow(a *Node, p float64) *Node {
	switch p {
	case 0:
		return a.g.Fill(a.shape.Rows, a.shape.Cols, 1)
	case 1:
		return a
	case 2:
		return Square(a)
	}
	return a.g.node(OpPow, a.shape, p, 0, a)
}

// Exp returns e^a.
func Exp(a *Node) *Node { return unary(OpExp, a) }

// Log returns ln a.
func Log(a *Node) *Node { return unary(OpLog, a) }

// Sin returns sin a.
func Sin(a *Node) *Node { return unary(OpSin, a) }

// Cos returns cos a.
func Cos(a *Node) *Node { return unary(OpCos, a) }

// Tanh returns tanh a.
func Tanh(a *Node) *Node { return unary(OpTanh, a) }

// Abs returns |a|; its derivative at 0 is taken as 0.
func Abs(a *Node) *Node { return unary(OpAbs, a) }

// Sign returns -1, 0 or 1 by the sign of a: the derivative of Abs. Its own
// derivative is zero.
func Sign(a *Node) *Node { return unary(OpSign, a) }

// Sigmoid returns 1/(1+e^-a).
func Sigmoid(a *Node) *Node { return unary(OpSigmoid, a) }

// Softplus returns ln(1+e^a).
func Softplus(a *Node) *Node { return unary(OpSoftplus, a) }

// StopGradient returns a, through which no derivative flows.
func StopGradient(a *Node) *Node { return unary(OpStopGradient, a) }

// Sum returns the sum of all entries (1x1).
func Sum(a *Node) *Node {
	if a.shape == (Shape{1, 1}) {
		return a
	}
	return a.g.node(OpSum, Shape{1, 1}, 0, 0, a)
}

// Mean returns the mean of all entries (1x1).
func Mean(a *Node) *Node { return Scale(Sum(a), 1/float64(a.shape.Size())) }

// SumRows returns the column sums, NxK -> 1xK.
func SumRows(a *Node) *Node {
	if a.shape.Rows == 1 {
		return a
	}
	return a.g.node(OpSumRows, Shape{1, a.shape.Cols}, 0, 0, a)
}

// SumCols returns the row sums, NxK -> Nx1.
func SumCols(a *Node) *Node {
	if a.shape.Cols == 1 {
		return a
	}
	return a.g.node(OpSumCols, Shape{a.shape.Rows, 1}, 0, 0, a)
}

// MatMul returns the matrix product a b.
func MatMul(a, b *Node) *Node {
	if a.shape.Cols != b.shape.Rows {
		panic(fmt.Sprintf("ad: MatMul: %s times %s", a.shape, b.shape))
	}
	return a.g.node(OpMatMul, Shape{a.shape.Rows, b.shape.Cols}, 0, 0, a, b)
}

// MatMulT returns a b^T (a layer: points x in times (out x in)^T).
func MatMulT(a, b *Node) *Node {
	if a.shape.Cols != b.shape.Cols {
		panic(fmt.Sprintf("ad: MatMulT: %s times (%s)^T", a.shape, b.shape))
	}
	return a.g.node(OpMatMulT, Shape{a.shape.Rows, b.shape.Rows}, 0, 0, a, b)
}

// MatTMul returns a^T b (sums over rows: the gradient of a weight matrix).
func MatTMul(a, b *Node) *Node {
	if a.shape.Rows != b.shape.Rows {
		panic(fmt.Sprintf("ad: MatTMul: (%s)^T times %s", a.shape, b.shape))
	}
	return a.g.node(OpMatTMul, Shape{a.shape.Cols, b.shape.Cols}, 0, 0, a, b)
}

// SliceCol returns column j of a as an Nx1 value.
func SliceCol(a *Node, j int) *Node {
	if j < 0 || j >= a.shape.Cols {
		panic(fmt.Sprintf("ad: SliceCol: column %d of %s", j, a.shape))
	}
	if a.shape.Cols == 1 {
		return a
	}
	if a.op == OpPadCol {
		if a.i == j {
			return a.in[0]
		}
		return a.g.Fill(a.shape.Rows, 1, 0)
	}
	if a.op == OpFill {
		return a.g.Fill(a.shape.Rows, 1, a.f)
	}
	return a.g.node(OpSliceCol, Shape{a.shape.Rows, 1}, 0, j, a)
}

// PadCol places the Nx1 value a in column j of an NxK value of zeros.
func PadCol(a *Node, j, cols int) *Node {
	if a.shape.Cols != 1 || j < 0 || j >= cols {
		panic(fmt.Sprintf("ad: PadCol: %s into column %d of %d", a.shape, j, cols))
	}
	if cols == 1 {
		return a
	}
	if a.isFill(0) {
		return a.g.Fill(a.shape.Rows, cols, 0)
	}
	return a.g.node(OpPadCol, Shape{a.shape.Rows, cols}, 0, j, a)
}

// RowOuter returns, for each row n, the outer product a[n] b[n] flattened
// row-major: (NxK, NxM) -> Nx(K*M).
func RowOuter(a, b *Node) *Node {
	if a.shape.Rows != b.shape.Rows {
		panic(fmt.Sprintf("ad: RowOuter: %s and %s", a.shape, b.shape))
	}
	return a.g.node(OpRowOuter, Shape{a.shape.Rows, a.shape.Cols * b.shape.Cols}, 0, 0, a, b)
}

// Reshape returns a with the same row-major data seen as rows x cols.
func Reshape(a *Node, rows, cols int) *Node {
	if rows*cols != a.shape.Size() {
		panic(fmt.Sprintf("ad: Reshape: %s into %dx%d", a.shape, rows, cols))
	}
	if a.shape == (Shape{rows, cols}) {
		return a
	}
	if a.op == OpFill {
		return a.g.Fill(rows, cols, a.f)
	}
	return a.g.node(OpReshape, Shape{rows, cols}, 0, 0, a)
}
