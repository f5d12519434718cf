package nn

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/internal/choice"
)

// AlphaMode says how weight classes share the prior's alphas.
type AlphaMode string

// The alpha groupings of the paper.
const (
	AlphaSingle  AlphaMode = "single"  // one alpha for all weights
	AlphaClasses AlphaMode = "classes" // one alpha per class (matrix or bias of a layer)
)

// AlphaModes lists the alpha modes, the default (one alpha) first.
var AlphaModes = []AlphaMode{AlphaSingle, AlphaClasses}

// ParseAlphaMode returns the alpha mode named s.
func ParseAlphaMode(s string) (AlphaMode, error) { return choice.Parse("alpha mode", s, AlphaModes) }

// Group is a set of classes sharing one alpha.
type Group struct {
	Name    string
	Classes []Class
}

// Len is the number of weights in the group (W_i in the paper).
func (g Group) Len() int {
	n := 0
	for _, c := range g.Classes {
		n += c.Len
	}
	return n
}

// Groups returns the alpha groups of m for the mode, a mode parsed at the
// edge (ParseAlphaMode); one outside AlphaModes is refused with
// ParseAlphaMode's error, without parsing it again.
func (m *MLP) Groups(mode AlphaMode) ([]Group, error) {
	cs := m.Classes()
	switch mode {
	case AlphaSingle, "":
		return []Group{{Name: "alpha", Classes: cs}}, nil
	case AlphaClasses:
		gs := make([]Group, len(cs))
		for i, c := range cs {
			gs[i] = Group{Name: "alpha_" + c.Name, Classes: []Class{c}}
		}
		return gs, nil
	}
	return nil, choice.Unknown("alpha mode", string(mode), AlphaModes)
}

// GroupIndex returns, for each weight, the index of its group.
func GroupIndex(groups []Group, numWeights int) []int {
	idx := make([]int, numWeights)
	seen := 0
	for gi, g := range groups {
		for _, c := range g.Classes {
			for k := c.Offset; k < c.Offset+c.Len; k++ {
				idx[k] = gi
			}
			seen += c.Len
		}
	}
	if seen != numWeights {
		panic(fmt.Sprintf("nn: GroupIndex: groups cover %d of %d weights", seen, numWeights))
	}
	return idx
}
