package ad

// The derivative rules: one entry per op. A rule receives the node y = F(a, b)
// and the cotangent v = dL/dy and returns dL/da, dL/db built from the same
// differentiable ops, so every derivative can be differentiated again.
//
// row is the per-row rule used by JacobianRows where a parameter (shared by
// all points) enters a batched value: it returns, for each point n, the
// derivative of output row n with respect to the parameter, flattened, as an
// N x size(param) value.
type rule struct {
	vjp func(y, v *Node) []*Node
	row func(y, v *Node, k int) *Node
}

var rules [numOps]rule

// init fills the rule table. Long because it is the table: one entry per op.
func init() {
	rules = [numOps]rule{
		OpInput: {}, OpParam: {}, OpFill: {},
		// F = a+b -> v, v
		OpAdd: {vjp: func(y, v *Node) []*Node { return []*Node{v, v} }},
		// F = a-b -> v, -v
		OpSub: {vjp: func(y, v *Node) []*Node { return []*Node{v, Neg(v)} }},
		// F = a*b -> v*b, v*a
		OpMul: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, y.in[1]), Mul(v, y.in[0])} }},
		// F = a/b -> v/b, -v*F/b
		OpDiv: {vjp: func(y, v *Node) []*Node {
			vb := Div(v, y.in[1])
			return []*Node{vb, Neg(Mul(vb, y))}
		}},
		// F = c*a -> c*v
		OpScale: {vjp: func(y, v *Node) []*Node { return []*Node{Scale(v, y.f)} }},
		// F = a+c -> v
		OpAddConst: {vjp: func(y, v *Node) []*Node { return []*Node{v} }},
		// F = a^2 -> 2*a*v
		OpSquare: {vjp: func(y, v *Node) []*Node { return []*Node{Scale(Mul(v, y.in[0]), 2)} }},
		// F = a^p -> p*a^(p-1)*v
		OpPow: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, Scale(Pow(y.in[0], y.f-1), y.f))} }},
		// F = e^a -> v*F
		OpExp: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, y)} }},
		// F = ln a -> v/a
		OpLog: {vjp: func(y, v *Node) []*Node { return []*Node{Div(v, y.in[0])} }},
		// F = sin a -> v*cos a
		OpSin: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, Cos(y.in[0]))} }},
		// F = cos a -> -v*sin a
		OpCos: {vjp: func(y, v *Node) []*Node { return []*Node{Neg(Mul(v, Sin(y.in[0])))} }},
		// F = tanh a -> v*(1-F^2)
		OpTanh: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, AddConst(Neg(Square(y)), 1))} }},
		// F = |a| -> v*sign a
		OpAbs: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, Sign(y.in[0]))} }},
		// F = sign a -> 0 (a step: zero wherever it is differentiable)
		OpSign: {vjp: func(y, v *Node) []*Node { return []*Node{nil} }},
		// F = sigmoid a -> v*F*(1-F)
		OpSigmoid: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, Mul(y, AddConst(Neg(y), 1)))} }},
		// F = softplus a -> v*sigmoid a
		OpSoftplus: {vjp: func(y, v *Node) []*Node { return []*Node{Mul(v, Sigmoid(y.in[0]))} }},
		// F = sum a -> v broadcast to a's shape
		OpSum: {vjp: func(y, v *Node) []*Node { return []*Node{Broadcast(v, y.in[0].shape)} }},
		// F = column sums of a -> v (1xK) broadcast to NxK
		OpSumRows: {vjp: func(y, v *Node) []*Node { return []*Node{Broadcast(v, y.in[0].shape)} }},
		// F = row sums of a -> v (Nx1) broadcast to NxK
		OpSumCols: {vjp: func(y, v *Node) []*Node { return []*Node{Broadcast(v, y.in[0].shape)} }},
		// F = A B -> v B^T, A^T v
		OpMatMul: {
			vjp: func(y, v *Node) []*Node { return []*Node{MatMulT(v, y.in[1]), MatTMul(y.in[0], v)} },
			// row n of F depends on B (KxM) through A[n] (outer) v[n]
			row: func(y, v *Node, k int) *Node { return rowIf(k == 1, func() *Node { return RowOuter(y.in[0], v) }) },
		},
		// F = A B^T -> v B, v^T A
		OpMatMulT: {
			vjp: func(y, v *Node) []*Node { return []*Node{MatMul(v, y.in[1]), MatTMul(v, y.in[0])} },
			// row n of F depends on B (MxK) through v[n] (outer) A[n]
			row: func(y, v *Node, k int) *Node { return rowIf(k == 1, func() *Node { return RowOuter(v, y.in[0]) }) },
		},
		// F = A^T B -> B v^T, A v
		OpMatTMul: {vjp: func(y, v *Node) []*Node { return []*Node{MatMulT(y.in[1], v), MatMul(y.in[0], v)} }},
		// F = broadcast a -> v summed back to a's shape
		OpBroadcast: {
			vjp: func(y, v *Node) []*Node { return []*Node{reduceTo(v, y.in[0].shape)} },
			// row n of F is a itself (1xK) or a repeated (1x1)
			row: func(y, v *Node, k int) *Node {
				if y.in[0].shape.Cols == 1 {
					return SumCols(v)
				}
				return v
			},
		},
		// F = a[:, j] -> v in column j
		OpSliceCol: {vjp: func(y, v *Node) []*Node { return []*Node{PadCol(v, y.i, y.in[0].shape.Cols)} }},
		// F = pad a into column j -> column j of v
		OpPadCol: {vjp: func(y, v *Node) []*Node { return []*Node{SliceCol(v, y.i)} }},
		// F[n, i*M+j] = a[n,i] b[n,j] -> sum_j v[n,i*M+j] b[n,j], sum_i v[n,i*M+j] a[n,i]
		OpRowOuter: {vjp: nil}, // only built inside JacobianRows, never differentiated
		// F = a seen in another shape -> v in a's shape
		OpReshape: {vjp: func(y, v *Node) []*Node { return []*Node{Reshape(v, y.in[0].shape.Rows, y.in[0].shape.Cols)} }},
		// F = a, no derivative flows
		OpStopGradient: {vjp: func(y, v *Node) []*Node { return []*Node{nil} }},
	}
}

// reduceTo sums v (the cotangent of a broadcast) back to shape s.
func reduceTo(v *Node, s Shape) *Node {
	switch {
	case s.Rows == 1 && s.Cols == 1:
		return Sum(v)
	case s.Rows == 1:
		return SumRows(v)
	default:
		return SumCols(v)
	}
}

func rowIf(ok bool, f func() *Node) *Node {
	if !ok {
		return nil
	}
	return f()
}
