package ad

import "fmt"

// The plan: how a Program evaluates its nodes.
//
// Compile lowers the needed nodes to a list of instructions. Most nodes are
// one instruction each, but chains of elementwise arithmetic (Add, Sub, Mul,
// Scale, AddConst, Square, Broadcast, SliceCol, StopGradient and constants)
// are fused: each fused instruction evaluates a polynomial
//
//	y = c0 + sum_t coef_t * prod_f x_f
//
// whose factors x_f are materialized values (possibly broadcast), in chunks
// of rows that stay in L1, without writing the intermediate nodes. A matrix
// product whose operand is a PadCol reads the padded column directly.
//
// A node is materialized (has a buffer that Run keeps up to date) when it is
// an output, a leaf, read by an instruction, or was asked for with Value;
// Value re-plans the Program when it is asked for a node that was fused away.
// The plan depends only on the graph and on that set, never on map order, so
// the same Program gives the same bits.

type instrKind uint8

const (
	kEval       instrKind = iota // the node's own kernel (Program.eval)
	kPoly                        // a fused polynomial
	kPadMatMulT                  // MatMulT(PadCol(v, j), b)
	kPadMatMul                   // MatMul(PadCol(v, j), b)
	kMatTMulPad                  // MatTMul(a, PadCol(v, j))
	kPadMatTMul                  // MatTMul(PadCol(v, j), b)
)

// instr computes the value of n (into the buffer of n) from the buffers in
// reads.
type instr struct {
	n     *Node
	kind  instrKind
	reads []int // ids of the nodes whose buffers the instruction reads
	poly  *poly
	pad   *Node       // the PadCol operand of a kPad* instruction
	tmp   []float64   // scratch: tiles of a poly, a column of a padMatMulT
	wtmp  [][]float64 // tmp for each thread of a pool (parallel.go)
}

// Broadcast modes of a polynomial factor.
const (
	modeFull   = iota // same shape as the result
	modeRow           // a row, element k at off+k*stride, repeated for every row
	modeCol           // Nx1 repeated across the columns
	modeScalar        // 1x1: folded into the coefficient at run time
	modeStride        // column off of an N x stride value (the result is Nx1)
)

type factor struct {
	id     int
	mode   uint8
	stride int
	off    int
	tile   int // offset of the factor's tile in instr.tmp (row, col, stride modes)
}

type term struct {
	coef float64
	f    []factor
}

// poly is c0 + sum of terms.
type poly struct {
	c0    float64
	terms []term
	rows  int // chunk height
}

// Limits that keep fused kernels cheap.
const (
	maxTerms   = 8
	maxFactors = 4
	chunkElems = 256
)

func (p *poly) isMonomial() bool { return p.c0 == 0 && len(p.terms) == 1 }

func (p *poly) constant() bool { return len(p.terms) == 0 }

func leafPoly(id int) *poly {
	return &poly{terms: []term{{coef: 1, f: []factor{{id: id, mode: modeFull}}}}}
}

func addPoly(a, b *poly, sb float64) *poly {
	out := &poly{c0: a.c0 + sb*b.c0, terms: make([]term, 0, len(a.terms)+len(b.terms))}
	out.terms = append(out.terms, a.terms...)
	for _, t := range b.terms {
		out.terms = append(out.terms, term{coef: sb * t.coef, f: t.f})
	}
	return out
}

func scalePoly(a *poly, c float64) *poly {
	out := &poly{c0: c * a.c0, terms: make([]term, len(a.terms))}
	for i, t := range a.terms {
		out.terms[i] = term{coef: c * t.coef, f: t.f}
	}
	return out
}

// mulPoly multiplies when one side is a constant or both are monomials.
func mulPoly(a, b *poly) (*poly, bool) {
	switch {
	case a.constant():
		return scalePoly(b, a.c0), true
	case b.constant():
		return scalePoly(a, b.c0), true
	case a.isMonomial() && b.isMonomial():
		ta, tb := a.terms[0], b.terms[0]
		f := make([]factor, 0, len(ta.f)+len(tb.f))
		f = append(append(f, ta.f...), tb.f...)
		return &poly{terms: []term{{coef: ta.coef * tb.coef, f: f}}}, true
	}
	return nil, false
}

// inPlace reports whether every factor is read in place (no tiles) and
// every term fits the kernels (no product scratch).
func (p *poly) inPlace() bool {
	for _, t := range p.terms {
		if len(t.f) > 3 {
			return false
		}
		for _, f := range t.f {
			if f.mode == modeRow || f.mode == modeCol || f.mode == modeStride {
				return false
			}
		}
	}
	return true
}

func (p *poly) fits() bool {
	if len(p.terms) > maxTerms {
		return false
	}
	for _, t := range p.terms {
		if len(t.f) > maxFactors {
			return false
		}
	}
	return true
}

// polyOp reports whether n can be part of a fused polynomial.
func polyOp(n *Node) bool {
	switch n.op {
	case OpAdd, OpSub, OpMul, OpScale, OpAddConst, OpSquare, OpBroadcast, OpSliceCol, OpStopGradient, OpFill:
		return true
	}
	_, ok := rowProduct(n)
	return ok
}

// rowProduct recognizes the matrix products that only repeat a row of their
// right operand: a constant column times a row, MatMul(Fill(c), b) with b
// 1xM, and a constant column padded into column j, MatMulT(PadCol(Fill(c),
// j), w) (row j of w^T) or MatMul(PadCol(Fill(c), j), b) (row j of b). Such
// products are the seeds of input derivatives (du/dx_j); they become a
// broadcast factor instead of a buffer.
func rowProduct(n *Node) (factor, bool) {
	if n.op != OpMatMul && n.op != OpMatMulT {
		return factor{}, false
	}
	a, b := n.in[0], n.in[1]
	j := 0
	if a.op == OpPadCol {
		j, a = a.i, a.in[0]
	}
	if a.op != OpFill || a.shape.Cols != 1 {
		return factor{}, false
	}
	f := factor{id: b.id, mode: modeRow, stride: 1, off: j * n.shape.Cols}
	if n.op == OpMatMulT {
		f.stride, f.off = b.shape.Cols, j
	}
	return f, true
}

// plan lowers the needed nodes of p to instructions and (re)allocates the
// buffers of the nodes that become materialized.
//
// Long because its phases share and mutate one state (uses, forced, polys):
// the fallback of each op's case forces operands the next cases read.
func (p *Program) plan() {
	g := p.g
	nn := len(p.need)
	uses := make([]int, nn)
	forced := make([]bool, nn) // must be materialized if it is evaluated at all
	for _, n := range p.order {
		if f, ok := rowProduct(n); ok {
			uses[f.id]++
			forced[f.id] = true
			continue
		}
		for _, in := range n.in {
			uses[in.id]++
			// Operands of a non-polynomial node, and the value being
			// broadcast or sliced, are read from buffers.
			if !polyOp(n) || n.op == OpBroadcast || n.op == OpSliceCol {
				forced[in.id] = true
			}
		}
	}
	for id, k := range p.keep {
		if k {
			forced[id] = true
		}
	}

	// Polynomials in topological order; an operand is inlined into its
	// consumer when it is a polynomial node used once, or a cheap monomial.
	polys := make([]*poly, nn)
	//lint:ignore S1021 the closure calls itself, so it is declared first
	var operand func(n, x *Node) *poly
	operand = func(n, x *Node) *poly {
		switch {
		case x.op == OpFill:
			return &poly{c0: x.f}
		case forced[x.id] || !polyOp(x) || x.op == OpInput || x.op == OpParam:
			return leafPoly(x.id)
		case uses[x.id] == 1 || (polys[x.id].isMonomial() && len(polys[x.id].terms[0].f) <= 2):
			return polys[x.id]
		}
		forced[x.id] = true
		return leafPoly(x.id)
	}
	for _, n := range p.order {
		if !polyOp(n) || n.op == OpFill {
			continue
		}
		var q *poly
		switch n.op {
		case OpAdd, OpSub:
			a, b := operand(n, n.in[0]), operand(n, n.in[1])
			sb := 1.0
			if n.op == OpSub {
				sb = -1
			}
			q = addPoly(a, b, sb)
			if !q.fits() {
				// Keep the operand with more terms as a buffer.
				x := n.in[0]
				if len(b.terms) > len(a.terms) {
					x = n.in[1]
				}
				forced[x.id] = true
				a, b = operand(n, n.in[0]), operand(n, n.in[1])
				q = addPoly(a, b, sb)
				if !q.fits() {
					forced[n.in[0].id], forced[n.in[1].id] = true, true
					q = addPoly(leafPoly(n.in[0].id), leafPoly(n.in[1].id), sb)
				}
			}
		case OpMul, OpSquare:
			x0, x1 := n.in[0], n.in[0]
			if n.op == OpMul {
				x1 = n.in[1]
			}
			var ok bool
			q, ok = mulPoly(operand(n, x0), operand(n, x1))
			if !ok || !q.fits() {
				// Fall back to the operands' buffers, one then both.
				a := operand(n, x0)
				if len(a.terms) > 1 || a.c0 != 0 {
					forced[x0.id] = true
				} else {
					forced[x1.id] = true
				}
				q, ok = mulPoly(operand(n, x0), operand(n, x1))
				if !ok || !q.fits() {
					forced[x0.id], forced[x1.id] = true, true
					q, _ = mulPoly(leafPoly(x0.id), leafPoly(x1.id))
				}
			}
		case OpScale:
			q = scalePoly(operand(n, n.in[0]), n.f)
		case OpAddConst:
			a := operand(n, n.in[0])
			q = &poly{c0: a.c0 + n.f, terms: a.terms}
		case OpStopGradient:
			q = operand(n, n.in[0])
		case OpBroadcast:
			in := n.in[0].shape
			f := factor{id: n.in[0].id}
			switch {
			case in.Rows == 1 && in.Cols == 1:
				f.mode = modeScalar
			case in.Rows == 1:
				f.mode, f.stride = modeRow, 1
			default:
				f.mode = modeCol
			}
			q = &poly{terms: []term{{coef: 1, f: []factor{f}}}}
		case OpSliceCol:
			in := n.in[0]
			f := factor{id: in.id, mode: modeStride, stride: in.shape.Cols, off: n.i}
			q = &poly{terms: []term{{coef: 1, f: []factor{f}}}}
		case OpMatMul, OpMatMulT:
			f, _ := rowProduct(n)
			c := n.in[0]
			if c.op == OpPadCol {
				c = c.in[0]
			}
			q = &poly{terms: []term{{coef: c.f, f: []factor{f}}}}
		}
		polys[n.id] = q
	}

	// Instructions for the materialized nodes, then liveness from the kept
	// nodes backwards.
	var code []instr
	for _, n := range p.order {
		if polyOp(n) && !forced[n.id] {
			continue // inlined into every consumer
		}
		if n.op == OpFill {
			continue
		}
		code = append(code, p.lower(n, polys[n.id]))
	}
	live := make([]bool, nn)
	copy(live, p.keep)
	var kept []instr
	for i := len(code) - 1; i >= 0; i-- {
		in := code[i]
		if !live[in.n.id] {
			continue
		}
		for _, id := range in.reads {
			live[id] = true
		}
		kept = append(kept, in)
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	p.code = kept
	p.live = live

	// Buffers: keep the existing ones (their values stay valid), allocate
	// one slab for the new ones.
	total := 0
	for id, ok := range live {
		if ok && p.val[id] == nil {
			total += g.nodes[id].shape.Size()
		}
	}
	slab := make([]float64, total)
	for id, ok := range live {
		if !ok || p.val[id] != nil {
			continue
		}
		n := g.nodes[id]
		size := n.shape.Size()
		p.val[id], slab = slab[:size:size], slab[size:]
		if n.op == OpFill {
			fill(p.val[id], n.f)
		}
	}
	p.gen++
}

// lower returns the instruction computing n.
func (p *Program) lower(n *Node, q *poly) instr {
	in := instr{n: n, kind: kEval}
	if q != nil {
		// Copy: the terms of inlined polynomials are shared.
		q = &poly{c0: q.c0, terms: append([]term(nil), q.terms...)}
		for t := range q.terms {
			q.terms[t].f = append([]factor(nil), q.terms[t].f...)
		}
		in.kind, in.poly = kPoly, q
		// Chunks of whole rows; tiles for the factors that are not read in
		// place.
		cols := n.shape.Cols
		q.rows = max(1, chunkElems/cols)
		if q.inPlace() && (len(q.terms) <= 2 || n.shape.Size() <= 8*chunkElems) {
			// One pass over y, or all of it in L1: no chunks (fewer
			// calls, the same operations on every value).
			q.rows = n.shape.Rows
		}
		tile := 0
		for t := range q.terms {
			for f := range q.terms[t].f {
				fa := &q.terms[t].f[f]
				in.reads = append(in.reads, fa.id)
				if fa.mode == modeRow || fa.mode == modeCol || fa.mode == modeStride {
					fa.tile = tile
					tile += q.rows * cols
				}
			}
		}
		in.tmp = make([]float64, tile+q.rows*cols) // the last tile is a product scratch
		return in
	}
	pad := func(k int) bool { return n.in[k].op == OpPadCol }
	switch {
	case n.op == OpMatMulT && pad(0):
		in.kind, in.pad = kPadMatMulT, n.in[0]
		in.tmp = make([]float64, n.shape.Cols)
	case n.op == OpMatMul && pad(0):
		in.kind, in.pad = kPadMatMul, n.in[0]
	case n.op == OpMatTMul && pad(1):
		in.kind, in.pad = kMatTMulPad, n.in[1]
	case n.op == OpMatTMul && pad(0):
		in.kind, in.pad = kPadMatTMul, n.in[0]
	}
	for _, x := range n.in {
		if x == in.pad {
			x = x.in[0]
		}
		in.reads = append(in.reads, x.id)
	}
	return in
}

// exec runs one instruction.
func (p *Program) exec(in *instr) {
	n := in.n
	switch in.kind {
	case kEval:
		p.eval(n)
	case kPoly:
		p.evalPoly(in)
	case kPadMatMulT:
		b := n.in[1]
		padMatMulT(p.val[n.id], p.val[in.pad.in[0].id], p.val[b.id], in.tmp, n.shape.Rows, in.pad.i, b.shape.Cols, b.shape.Rows)
	case kPadMatMul:
		padMatMul(p.val[n.id], p.val[in.pad.in[0].id], p.val[n.in[1].id], n.shape.Rows, in.pad.i, n.shape.Cols)
	case kMatTMulPad:
		a := n.in[0]
		matTMulPad(p.val[n.id], p.val[a.id], p.val[in.pad.in[0].id], a.shape.Rows, a.shape.Cols, in.pad.i, n.shape.Cols)
	case kPadMatTMul:
		padMatTMul(p.val[n.id], p.val[in.pad.in[0].id], p.val[n.in[1].id], n.in[0].shape.Rows, in.pad.i, n.shape.Cols)
	default:
		panic(fmt.Sprintf("ad: bad instruction for %v", n))
	}
}

// evalPoly evaluates a fused polynomial chunk by chunk.
func (p *Program) evalPoly(in *instr) { p.evalPolyRows(in, 0, in.n.shape.Rows, in.tmp) }

// evalPolyRows evaluates rows [lo, hi) of a fused polynomial with the
// scratch tmp (len(in.tmp), one per thread): every value by the same
// operations wherever its chunk starts.
//
// Long because its steps (the row tiles, each chunk's factors, the terms in
// pairs) share the factor arrays it keeps on its stack: split, they would
// be passed by pointer through the hot loop.
func (p *Program) evalPolyRows(in *instr, lo, hi int, tmp []float64) {
	q := in.poly
	y := p.val[in.n.id]
	cols := in.n.shape.Cols
	// Row tiles do not depend on the chunk: fill them once.
	for t := range q.terms {
		for _, f := range q.terms[t].f {
			if f.mode == modeRow {
				src := p.val[f.id]
				tile := tmp[f.tile : f.tile+q.rows*cols]
				for k := range tile[:cols] {
					tile[k] = src[f.off+k*f.stride]
				}
				// Repeat the row by doubling: a few long copies instead
				// of one short copy per row.
				for r := cols; r < len(tile); r *= 2 {
					copy(tile[r:], tile[:r])
				}
			}
		}
	}
	// The factors of every term for one chunk, declared once: only the
	// entries set for the chunk are read.
	var fs [maxTerms][maxFactors][]float64
	var cs [maxTerms]float64
	var nfs [maxTerms]int
	for r0 := lo; r0 < hi; r0 += q.rows {
		r1 := min(hi, r0+q.rows)
		m := (r1 - r0) * cols
		yc := y[r0*cols : r0*cols+m]
		if len(q.terms) == 0 {
			fill(yc, q.c0)
			continue
		}
		// Gather the factors of every term for this chunk, then evaluate
		// the terms two at a time.
		for t, tm := range q.terms {
			c := tm.coef
			nf := 0
			for _, f := range tm.f {
				v := p.val[f.id]
				switch f.mode {
				case modeFull:
					fs[t][nf] = v[r0*cols : r0*cols+m]
				case modeRow:
					fs[t][nf] = tmp[f.tile : f.tile+m]
				case modeCol:
					tile := tmp[f.tile : f.tile+m]
					for i, x := range v[r0:r1] {
						fill(tile[i*cols:i*cols+cols], x)
					}
					fs[t][nf] = tile
				case modeStride:
					tile := tmp[f.tile : f.tile+m]
					for i := range tile {
						tile[i] = v[(r0+i)*f.stride+f.off]
					}
					fs[t][nf] = tile
				case modeScalar:
					c *= v[0]
					continue
				}
				nf++
			}
			cs[t], nfs[t] = c, nf
		}
		c0, set := q.c0, true
		for t := 0; t < len(q.terms); {
			if t+1 < len(q.terms) && nfs[t] >= 1 && nfs[t] <= 3 && nfs[t+1] >= 1 && nfs[t+1] <= 3 {
				polyPair(yc, set, c0, cs[t], cs[t+1], &fs[t], &fs[t+1], nfs[t], nfs[t+1])
				t += 2
			} else {
				polyTerm(tmp, yc, set, c0, cs[t], &fs[t], nfs[t])
				t++
			}
			set = false
		}
	}
}

// polyTerm evaluates one term c*f0*f1*... into y (set: y = c0 + term),
// the end of scratch its product buffer.
func polyTerm(scratch []float64, y []float64, set bool, c0, c float64, fs *[maxFactors][]float64, nf int) {
	if nf >= 1 && nf <= 3 {
		mode := vecAdd
		if set {
			mode = vecSet
		}
		k := polyVecHead(y, mode, c0, c, 0, fs, nil, nf, 0)
		if k == len(y) {
			return
		}
		t := tails(fs, nf, k)
		y, fs = y[k:], &t
	}
	m := len(y)
	switch nf {
	case 0:
		if set {
			fill(y, c+c0)
		} else {
			for i := range y {
				y[i] += c
			}
		}
	case 1:
		if set {
			polySet1(y, c, c0, fs[0])
		} else {
			polyAdd1(y, c, fs[0])
		}
	case 2:
		if set {
			polySet2(y, c, c0, fs[0], fs[1])
		} else {
			polyAdd2(y, c, fs[0], fs[1])
		}
	case 3:
		if set {
			polySet3(y, c, c0, fs[0], fs[1], fs[2])
		} else {
			polyAdd3(y, c, fs[0], fs[1], fs[2])
		}
	default:
		tmp := scratch[len(scratch)-m:]
		polySet3(tmp, c, 0, fs[0], fs[1], fs[2])
		for _, f := range fs[3:nf] {
			f = f[:m]
			for i := range tmp {
				tmp[i] *= f[i]
			}
		}
		if set {
			polySet1(y, 1, c0, tmp)
		} else {
			polyAdd1(y, 1, tmp)
		}
	}
}

func polySet1(y []float64, c, c0 float64, a []float64) {
	a = a[:len(y)]
	for i := range y {
		y[i] = c*a[i] + c0
	}
}

func polySet2(y []float64, c, c0 float64, a, b []float64) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] = c*a[i]*b[i] + c0
	}
}

func polySet3(y []float64, c, c0 float64, a, b, d []float64) {
	a, b, d = a[:len(y)], b[:len(y)], d[:len(y)]
	for i := range y {
		y[i] = c*a[i]*b[i]*d[i] + c0
	}
}

func polyAdd1(y []float64, c float64, a []float64) {
	a = a[:len(y)]
	for i := range y {
		y[i] += c * a[i]
	}
}

func polyAdd2(y []float64, c float64, a, b []float64) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] += c * a[i] * b[i]
	}
}

func polyAdd3(y []float64, c float64, a, b, d []float64) {
	a, b, d = a[:len(y)], b[:len(y)], d[:len(y)]
	for i := range y {
		y[i] += c * a[i] * b[i] * d[i]
	}
}
