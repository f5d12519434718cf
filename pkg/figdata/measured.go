package figdata

import (
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

// Measured are the measurements of a problem of one input, one entry per
// output in OutputNames order (the points and targets of its measured
// terms), for viz.SlicesMeasured beside Curves.
func Measured(p *pde.Problem) []viz.Measured {
	out := make([]viz.Measured, len(p.OutputNames()))
	for _, t := range p.Terms {
		k := p.OutputIndex(t.Output)
		if !t.Measured || t.Target == nil || k < 0 {
			continue
		}
		for i, x := range t.Points {
			out[k].X, out[k].Y = append(out[k].X, x[0]), append(out[k].Y, t.Target[i])
		}
	}
	return out
}
