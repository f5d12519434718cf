package bayes

import (
	"fmt"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// jacobianBlockFloats sizes the blocks of points of stackedJacobians:
// pkg/ad's Jacobian program of a term holds about 6 times its rows
// (N_t x P: its parameter blocks, their cotangents and the row-major
// copy; 1.35 GB for burgers-wide's 2840 points at 9937 weights), so a
// block of 2^22 / P points costs about 0.2 GB whatever P.
const jacobianBlockFloats = 1 << 22

// jacobianBlock is the number of points of a block at P weights: at
// least 16, so that a block's compiled model is not the larger cost.
func jacobianBlock(P int) int { return max(16, jacobianBlockFloats/P) }

// stackedJacobians returns each beta group's residual Jacobian at m's
// weights (N_t x P row-major, as GroupJacobians) as consecutive parts of
// one new N x P array (jacobianBlocks), so that the memory of the
// Jacobian programs is that of a block. The array is the caller's: the
// dual Laplace (curv.NewDualLaplace) overwrites it.
func (m *Model) stackedJacobians(block int) ([][]float64, error) {
	P := m.NumWeights()
	all := make([]float64, 0, sumInts(m.N)*P)
	if err := m.jacobianBlocks(block, func(_ int, j []float64) { all = append(all, j...) }); err != nil {
		return nil, err
	}
	parts := make([][]float64, len(m.N))
	off := 0
	for g, n := range m.N {
		parts[g] = all[off*P : (off+n)*P] // uncapped: the next group follows in the same array
		off += n
	}
	return parts, nil
}

// columnSquares returns diag(J_t^T J_t) of each beta group's residual
// Jacobian at m's weights (what the Diag structure needs,
// curv.System.ColSquares), summed a block of points at a time
// (jacobianBlocks) without the N x P array: the bits of the column
// squares of stackedJacobians' rows.
func (m *Model) columnSquares(block int) ([][]float64, error) {
	h := make([][]float64, len(m.BetaNames))
	for g := range h {
		h[g] = make([]float64, m.NumWeights())
	}
	err := m.jacobianBlocks(block, func(g int, j []float64) { curv.AddColSquares(h[g], j) })
	if err != nil {
		return nil, err
	}
	return h, nil
}

// jacobianBlocks calls each with the rows of the residual Jacobian at m's
// weights, block points of a term at a time (row-major, P wide; valid
// until the next call), beta group by beta group, in the order of
// GroupJacobians' rows. Each block is computed on a model of its points
// alone (a sibling of m at its weights, in the term's beta group), so
// that the memory of the Jacobian programs is that of a block; a term's
// whole blocks share one such model, fed each block's points in turn
// (its program compiled once, not once a block), and its last, shorter
// block has its own.
func (m *Model) jacobianBlocks(block int, each func(g int, rows []float64)) error {
	for g, name := range m.BetaNames {
		for i, t := range m.Problem.Terms {
			if m.TermGroup[i] != g {
				continue
			}
			var whole *Model // the model of a whole block of term i
			for r := 0; r < len(t.Points); r += block {
				rows := termRows(t, r, min(r+block, len(t.Points)))
				b := whole
				if b != nil && len(rows.Points) == block {
					b.setTerms([]pde.Term{rows})
				} else {
					var err error
					if b, err = m.termModel(i, rows, name); err != nil {
						return err
					}
					if len(rows.Points) == block {
						whole = b
					}
				}
				each(g, b.GroupJacobians()[0])
			}
		}
	}
	return nil
}

// termModel is a sibling of m at its weights whose only term is rows, of
// term i, in beta group name.
func (m *Model) termModel(i int, rows pde.Term, name string) (*Model, error) {
	q := *m.Problem
	q.Terms = []pde.Term{rows}
	b, err := m.sibling(&q, []string{name}, []int{0})
	if err != nil {
		return nil, fmt.Errorf("the Jacobian of term %q: %w", m.Problem.Terms[i].Name, err)
	}
	return b, nil
}

// termRows is t with its points [lo, hi) alone (and their partners,
// targets and fields).
func termRows(t pde.Term, lo, hi int) pde.Term {
	t.Points = t.Points[lo:hi]
	if t.Pairs != nil {
		t.Pairs = t.Pairs[lo:hi]
	}
	if t.Target != nil {
		t.Target = t.Target[lo:hi]
	}
	if t.Fields != nil {
		f := make(map[string][]float64, len(t.Fields))
		for k, v := range t.Fields {
			f[k] = slices.Clone(v[lo:hi])
		}
		t.Fields = f
	}
	return t
}

func sumInts(n []int) int {
	s := 0
	for _, v := range n {
		s += v
	}
	return s
}
