package ad

import (
	"sync/atomic"

	"github.com/evidence-pinn/bpinn/internal/par"
)

// Running a Program on several threads, with the same bits as on one.
//
// An instruction whose rows do not mix (elementwise ops, fused polynomials,
// products with a row operand on the left, slices, broadcasts of a column)
// is split into blocks of its rows, worker w of T always taking block w
// (par.Range): every value is computed by the same operations as on one
// thread. An instruction that sums over rows (Sum, SumRows, the weight
// gradients A^T B) or reshapes runs whole on one worker, several of them
// side by side. The instructions are grouped into phases that alternate
// between the two kinds, each phase taking every instruction whose operands
// are ready (instructions own their buffers, so this reordering changes no
// value): in a row phase a worker reads only rows it wrote itself in that
// phase, or values finished before it, so the workers meet once per phase.

// phase is a group of instructions run between two meetings of the workers.
type phase struct {
	code   []int // indices into Program.code, in an order that respects their reads
	rows   bool  // split by rows; else whole instructions taken in turn
	serial bool  // too little work to be worth waking the workers
}

// SetPool makes Run spread the program's rows over the threads of pool (nil:
// run on the calling goroutine). The values are the same bits either way.
func (p *Program) SetPool(pool *par.Pool) {
	p.pool = pool
	p.phaseGen = -1
}

// splitsRows reports whether in can be split into blocks of its rows.
func splitsRows(in *instr) bool {
	switch in.kind {
	case kPoly, kPadMatMulT, kPadMatMul:
		return true
	case kEval:
		switch in.n.op {
		case OpSum, OpSumRows, OpMatTMul, OpReshape:
			return false
		}
		return true
	}
	return false
}

// aligned reports whether operand k of a row-split instruction computing n
// is read at the rows being computed (else it is read whole).
func aligned(n *Node, k int) bool {
	if k == 1 && (n.op == OpMatMul || n.op == OpMatMulT) {
		return false // the right operand of a product is read whole
	}
	return n.in[k].shape.Rows == n.shape.Rows
}

// readsAligned reports, for an instruction that splits by rows, whether its
// read of node id is row-aligned.
func (p *Program) readsAligned(in *instr, id int) bool {
	if in.kind == kPoly {
		for _, t := range in.poly.terms {
			for _, f := range t.f {
				if f.id == id && (f.mode == modeRow || f.mode == modeScalar) {
					return false
				}
			}
		}
		return p.g.nodes[id].shape.Rows == in.n.shape.Rows
	}
	n := in.n
	if in.pad != nil && id == in.pad.in[0].id {
		return n.shape.Rows == in.pad.shape.Rows // the padded column
	}
	for k, x := range n.in {
		if x.id == id && !aligned(n, k) {
			return false
		}
	}
	return true
}

// buildPhases groups the current plan's instructions into phases.
func (p *Program) buildPhases() {
	nn := len(p.need)
	done := make([]bool, nn) // finished before the phase being built
	for id := range done {
		done[id] = true
	}
	for i := range p.code {
		done[p.code[i].n.id] = false
	}
	here := make([]bool, nn) // written by the row phase being built
	todo := make([]int, len(p.code))
	for i := range todo {
		todo[i] = i
	}
	p.phases = p.phases[:0]
	for len(todo) > 0 {
		for _, rows := range []bool{true, false} {
			ph := phase{rows: rows}
			var rest []int
			size := 0
			for _, i := range todo {
				in := &p.code[i]
				ok := splitsRows(in) == rows
				for _, id := range in.reads {
					if !ok {
						break
					}
					ok = done[id] || (rows && here[id] && p.readsAligned(in, id))
				}
				if !ok {
					rest = append(rest, i)
					continue
				}
				ph.code = append(ph.code, i)
				size += in.n.shape.Size()
				if !rows { // a reduction's work is in what it reads
					for _, id := range in.reads {
						size += p.g.nodes[id].shape.Size()
					}
				}
				if rows {
					here[in.n.id] = true
				}
			}
			for _, i := range ph.code {
				done[p.code[i].n.id] = true
				here[p.code[i].n.id] = false
			}
			todo = rest
			if len(ph.code) > 0 {
				ph.serial = size < par.MinWork || (!rows && len(ph.code) == 1)
				p.phases = append(p.phases, ph)
			}
		}
	}
	// Scratch for each thread of the instructions that use it.
	t := p.pool.Threads()
	for i := range p.code {
		in := &p.code[i]
		in.wtmp = make([][]float64, t)
		for w := range in.wtmp {
			in.wtmp[w] = make([]float64, len(in.tmp))
		}
	}
	p.phaseGen = p.gen
	p.work = p.runPhase
}

// runPooled is Run on the pool's threads.
func (p *Program) runPooled() {
	if p.phaseGen != p.gen {
		p.buildPhases()
	}
	for i := range p.phases {
		ph := &p.phases[i]
		if ph.serial {
			for _, c := range ph.code {
				p.exec(&p.code[c])
			}
			continue
		}
		p.cur = ph
		p.next.Store(0)
		p.pool.Run(p.work)
	}
	p.cur = nil
}

// runPhase is worker w's part of the current phase.
func (p *Program) runPhase(w int) {
	ph := p.cur
	if !ph.rows {
		for {
			k := int(p.next.Add(1)) - 1
			if k >= len(ph.code) {
				return
			}
			p.exec(&p.code[ph.code[k]])
		}
	}
	t := p.pool.Threads()
	for _, c := range ph.code {
		in := &p.code[c]
		if lo, hi := par.Range(in.n.shape.Rows, w, t); lo < hi {
			p.execRows(in, lo, hi, in.wtmp[w])
		}
	}
}

// execRows runs rows [lo, hi) of an instruction that splits by rows, with
// tmp as its scratch.
func (p *Program) execRows(in *instr, lo, hi int, tmp []float64) {
	n := in.n
	cols := n.shape.Cols
	y := p.val[n.id][lo*cols : hi*cols]
	switch in.kind {
	case kPoly:
		p.evalPolyRows(in, lo, hi, tmp)
	case kPadMatMulT:
		b := n.in[1]
		padMatMulT(y, p.val[in.pad.in[0].id][lo:hi], p.val[b.id], tmp, hi-lo, in.pad.i, b.shape.Cols, b.shape.Rows)
	case kPadMatMul:
		padMatMul(y, p.val[in.pad.in[0].id][lo:hi], p.val[n.in[1].id], hi-lo, in.pad.i, cols)
	default:
		a := p.rowsOf(n, 0, lo, hi)
		var b []float64
		if len(n.in) > 1 {
			b = p.rowsOf(n, 1, lo, hi)
		}
		evalOn(n, y, a, b, hi-lo)
	}
}

// rowsOf is operand k of n cut to rows [lo, hi) where it is row-aligned.
func (p *Program) rowsOf(n *Node, k, lo, hi int) []float64 {
	x := n.in[k]
	v := p.val[x.id]
	if !aligned(n, k) {
		return v
	}
	c := x.shape.Cols
	return v[lo*c : hi*c]
}

// phaseState is the part of a Program that runs it on a pool.
type phaseState struct {
	pool     *par.Pool
	phases   []phase
	phaseGen int
	cur      *phase
	next     atomic.Int64
	work     func(w int)
}
