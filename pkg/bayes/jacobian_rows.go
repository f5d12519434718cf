package bayes

import (
	"fmt"
	"slices"

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
// one new N x P array, each term computed block points at a time
// on a model of those points alone (a sibling of m at its weights, in
// the term's beta group), so that the memory of the Jacobian
// programs is that of a block. The array is the caller's: the dual
// Laplace (curv.NewDualLaplace) overwrites it.
func (m *Model) stackedJacobians(block int) ([][]float64, error) {
	P := m.NumWeights()
	all := make([]float64, 0, sumInts(m.N)*P)
	parts := make([][]float64, len(m.BetaNames))
	for g, name := range m.BetaNames {
		lo := len(all)
		for i, t := range m.Problem.Terms {
			if m.TermGroup[i] != g {
				continue
			}
			for r := 0; r < len(t.Points); r += block {
				j, err := m.termRowsJacobian(i, r, min(r+block, len(t.Points)), name)
				if err != nil {
					return nil, err
				}
				all = append(all, j...)
			}
		}
		parts[g] = all[lo:] // uncapped: the next group follows in the same array
	}
	return parts, nil
}

// termRowsJacobian is the Jacobian of points [lo, hi) of term i (in beta
// group name) at m's weights, from a sibling model of those points alone.
func (m *Model) termRowsJacobian(i, lo, hi int, name string) ([]float64, error) {
	q := *m.Problem
	q.Terms = []pde.Term{termRows(m.Problem.Terms[i], lo, hi)}
	b, err := m.sibling(&q, []string{name}, []int{0})
	if err != nil {
		return nil, fmt.Errorf("the Jacobian of term %q: %w", m.Problem.Terms[i].Name, err)
	}
	return b.GroupJacobians()[0], nil
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
