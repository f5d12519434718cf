package ad

import "fmt"

// Jet gives a batched output u (N x 1) of the batched input x (N x D) with
// its input derivatives, built on demand and cached: D(i) = du/dx_i,
// D2(i, j) = d2u/dx_i dx_j. Every derivative is a node of the graph, so a
// loss built from them can be differentiated with respect to the weights.
type Jet struct {
	X, U *Node
	grad *Node         // N x D, row n = du[n]/dx[n,:]
	d    map[int]*Node // column i of grad
	hess map[int]*Node // InputGrad of d[i]
}

// NewJet returns the jet of u with respect to x.
func NewJet(u, x *Node) *Jet {
	if u.shape.Cols != 1 || u.shape.Rows != x.shape.Rows {
		panic(fmt.Sprintf("ad: NewJet: output %v and input %v: want N x 1 and N x D", u, x))
	}
	return &Jet{X: x, U: u, d: map[int]*Node{}, hess: map[int]*Node{}}
}

// Dim is the number of inputs D.
func (j *Jet) Dim() int { return j.X.shape.Cols }

func (j *Jet) check(op string, i int) {
	if i < 0 || i >= j.Dim() {
		panic(fmt.Sprintf("ad: Jet.%s: input %d of %d", op, i, j.Dim()))
	}
}

// In returns input column i (N x 1).
func (j *Jet) In(i int) *Node {
	j.check("In", i)
	return SliceCol(j.X, i)
}

// D returns du/dx_i (N x 1).
func (j *Jet) D(i int) *Node {
	j.check("D", i)
	if n, ok := j.d[i]; ok {
		return n
	}
	if j.grad == nil {
		j.grad = InputGrad(j.U, j.X)
	}
	n := SliceCol(j.grad, i)
	j.d[i] = n
	return n
}

// D2 returns d2u/dx_i dx_k (N x 1).
func (j *Jet) D2(i, k int) *Node {
	j.check("D2", i)
	j.check("D2", k)
	if k < i {
		i, k = k, i // symmetric: build the mixed derivative once
	}
	h, ok := j.hess[i]
	if !ok {
		h = InputGrad(j.D(i), j.X)
		j.hess[i] = h
	}
	return SliceCol(h, k)
}
