package bayes

import (
	"context"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"gonum.org/v1/gonum/mat"
)

// fitState is what a final MacKay round changes: the weights, the
// hyperparameters, the round counters and the polish's end point.
type fitState struct {
	w, alpha, beta []float64
	rounds         int
	move           float64
	polishF        float64
	polishStatus   string
}

func (f *Fit) state() *fitState {
	st := &fitState{w: slices.Clone(f.Model.Theta), alpha: slices.Clone(f.Alpha), beta: slices.Clone(f.Beta),
		rounds: f.Hyper.FinalRounds, move: f.Hyper.FinalMove}
	if f.Polish != nil {
		st.polishF, st.polishStatus = f.Polish.F, f.Polish.Status
	}
	return st
}

// restore goes back to st; the polish's iteration counts stay the work done.
func (f *Fit) restore(st *fitState) {
	copy(f.Model.Theta, st.w)
	copy(f.Alpha, st.alpha)
	copy(f.Beta, st.beta)
	f.Hyper.FinalRounds, f.Hyper.FinalMove = st.rounds, st.move
	if f.Polish != nil {
		f.Polish.F, f.Polish.Status = st.polishF, st.polishStatus
	}
	f.Status, f.Reason = StatusOK, ""
}

// polish minimizes E_T over w (Gauss-Newton or L-BFGS, Settings.Polish.Method) at the
// current hyperparameters. A context that ends stops it where it is; the
// caller reads ctx for the fit's cancellation.
func (f *Fit) polish(ctx context.Context) {
	ps := &nn.PolishSettings{MaxIter: f.Settings.Polish.Iter, Store: f.Settings.Polish.Memory}
	if f.Settings.Polish.Method == PolishGaussNewton {
		ps.Hessian = f.gaussNewtonMatrix()
	}
	r, err := nn.Polish(ctx, f.Model.Theta, func(w, g []float64) float64 { return f.lossAndGrad(g) }, ps)
	if f.Polish == nil {
		f.Polish = &r
	} else {
		f.Polish.F = r.F
		f.Polish.Iterations += r.Iterations
		f.Polish.Evals += r.Evals
		f.Polish.Status = r.Status
	}
	if err != nil && ctx.Err() == nil {
		f.Status, f.Reason = StatusPolishFailed, err.Error()
	}
}

// gaussNewtonMatrix returns a function that writes the Gauss-Newton matrix
// of E_T, sum_t beta_t J_t^T J_t + diag(alpha), at the current weights.
func (f *Fit) gaussNewtonMatrix() func(h *mat.SymDense) {
	m := f.Model
	P := m.NumWeights()
	hs := make([][]float64, len(f.Beta))
	for t := range hs {
		hs[t] = make([]float64, P*P)
	}
	return func(h *mat.SymDense) {
		m.Hessians(GaussNewton, hs)
		for i := 0; i < P; i++ {
			for j := i; j < P; j++ {
				v := 0.0
				for t, b := range f.Beta {
					v += b * hs[t][i*P+j]
				}
				if gi := m.AlphaOf[i]; i == j && gi >= 0 {
					v += f.Alpha[gi]
				}
				h.SetSym(i, j, v)
			}
		}
	}
}
