package record

import (
	"fmt"
	"strings"
)

// ResidualRMS is one beta group's rms residual at the training points and
// at fresh points of the same kinds (Problem.Fresh).
type ResidualRMS struct {
	Train *float64 `json:"train"`
	Fresh *float64 `json:"fresh"`
}

// ResidualLine lists each beta group's rms residual at the training and at
// fresh points and their ratio, e.g. "pde 0.034 -> 1.28 (x37), ..."; "" when
// the record has no residual check.
func (r *Result) ResidualLine() string {
	if len(r.ResidualRMS) == 0 {
		return ""
	}
	var parts []string
	for _, n := range r.BetaNames {
		c := r.ResidualRMS[n]
		s := fmt.Sprintf("%s %s -> %s", strings.TrimPrefix(n, "beta_"), fmtNum(Val(c.Train), "%.3g"), fmtNum(Val(c.Fresh), "%.3g"))
		if c.Train != nil && c.Fresh != nil && *c.Train > 0 {
			s += fmt.Sprintf(" (x%.2g)", *c.Fresh / *c.Train)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
