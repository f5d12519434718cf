package ad

import "fmt"

// Grad returns dy/dx for each x in xs, as nodes of the same graph with x's
// shape. y must be 1x1 (reduce with Sum or Mean first). Because the rules
// are built from ordinary ops, the result can be differentiated again.
// A result is a zero Fill where y does not depend on x.
func Grad(y *Node, xs ...*Node) []*Node {
	if y.shape != (Shape{1, 1}) {
		panic(fmt.Sprintf("ad: Grad: output %v must be 1x1; reduce it with Sum or Mean", y))
	}
	cot, _ := backprop(y, y.g.Scalar(1), xs, false)
	out := make([]*Node, len(xs))
	for k, x := range xs {
		out[k] = orZero(y.g, cot[x.id], x.shape.Rows, x.shape.Cols)
	}
	return out
}

// InputGrad returns the per-point derivatives of a batched y (N x K) with
// respect to the input x (N x D): row n holds d(sum_k y[n,k])/dx[n,:]. This is
// how a network's input derivatives u_x, u_t are built (D is N x D).
func InputGrad(y, x *Node) *Node {
	if x.op != OpInput || y.shape.Rows != x.shape.Rows {
		panic(fmt.Sprintf("ad: InputGrad: %v must have one row per point of the Input %v", y, x))
	}
	return Grad(Sum(y), x)[0]
}

// D returns the derivative of the batched y (N x 1) with respect to column j
// of the input x: d y[n] / d x[n, j], as N x 1.
func D(y, x *Node, j int) *Node { return SliceCol(InputGrad(y, x), j) }

// JacobianRows returns, for each parameter p, the N x size(p) value whose
// row n is d r[n] / d p (p flattened row-major), for a residual r (N x 1)
// whose row n depends on the points only through point n. It costs one
// reverse pass: because points never mix, the per-point cotangents of that
// pass are exactly the rows of the Jacobian, kept apart where a parameter
// enters (MatMul, MatMulT, Broadcast) instead of summed.
//
// It panics if the path from the parameters to r reduces over rows (Sum,
// SumRows, MatTMul), or a parameter is used other than directly through
// MatMul/MatMulT (as the right operand) or Broadcast.
func JacobianRows(r *Node, params ...*Node) []*Node {
	if r.shape.Cols != 1 {
		panic(fmt.Sprintf("ad: JacobianRows: residual %v must be Nx1", r))
	}
	for _, p := range params {
		if p.op != OpParam {
			panic(fmt.Sprintf("ad: JacobianRows: %v is not a Param", p))
		}
	}
	n := r.shape.Rows
	if n == 1 {
		// One point: its Jacobian row is the gradient. (With one row a
		// broadcast is the identity, so parameters may enter any op.)
		gs := Grad(r, params...)
		out := make([]*Node, len(params))
		for k, p := range params {
			out[k] = Reshape(gs[k], 1, p.shape.Size())
		}
		return out
	}
	_, rows := backprop(r, r.g.Fill(n, 1, 1), params, true)
	out := make([]*Node, len(params))
	for k, p := range params {
		out[k] = orZero(r.g, rows[p.id], n, p.shape.Size())
	}
	return out
}

func orZero(g *Graph, n *Node, rows, cols int) *Node {
	if n == nil {
		return g.Fill(rows, cols, 0)
	}
	return n
}

// backprop accumulates cotangents from y (seeded with seed) back to xs. In
// per-row mode the parameters' cotangents are kept per point in rows.
func backprop(y, seed *Node, xs []*Node, perRow bool) (cot, rows map[int]*Node) {
	g := y.g
	dep := make([]bool, y.id+1)
	for _, x := range xs {
		if x.g != g {
			panic(fmt.Sprintf("ad: Grad: %v belongs to another graph", x))
		}
		if x.id <= y.id {
			dep[x.id] = true
		}
	}
	for id := 0; id <= y.id; id++ {
		n := g.nodes[id]
		if n.op == OpStopGradient {
			continue
		}
		for _, in := range n.in {
			if dep[in.id] {
				dep[n.id] = true
				break
			}
		}
	}
	cot = map[int]*Node{y.id: seed}
	rows = map[int]*Node{}
	for id := y.id; id >= 0; id-- {
		n := g.nodes[id]
		v := cot[id]
		if v == nil || len(n.in) == 0 || !dep[id] {
			continue
		}
		if perRow && n.op.reducesRows() {
			panic(fmt.Sprintf("ad: JacobianRows: %v mixes points", n))
		}
		r := rules[n.op]
		var grads []*Node
		for k, in := range n.in {
			if !dep[in.id] {
				continue
			}
			if perRow && (in.op == OpParam || sharedOperand(n, k)) {
				var c *Node
				if r.row != nil && in.op == OpParam {
					c = r.row(n, v, k)
				}
				if c == nil {
					panic(fmt.Sprintf("ad: JacobianRows: parameter value %v enters %v; use parameters directly in MatMul, MatMulT or Broadcast", in, n))
				}
				rows[in.id] = accumulate(rows[in.id], c)
				continue
			}
			if grads == nil {
				if r.vjp == nil {
					panic(fmt.Sprintf("ad: Grad: %v has no derivative rule", n))
				}
				grads = r.vjp(n, v)
			}
			if grads[k] != nil {
				cot[in.id] = accumulate(cot[in.id], grads[k])
			}
		}
	}
	return cot, rows
}

func accumulate(sum, v *Node) *Node {
	if sum == nil {
		return v
	}
	return Add(sum, v)
}

// sharedOperand reports whether operand k of n is shared by all rows of n
// (the right operand of a matrix product, or a broadcast row or scalar).
func sharedOperand(n *Node, k int) bool {
	switch n.op {
	case OpMatMul, OpMatMulT:
		return k == 1
	case OpBroadcast:
		return n.in[0].shape.Rows == 1 && n.shape.Rows > 1
	}
	return false
}
