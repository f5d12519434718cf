package nn

import (
	"fmt"

	"gonum.org/v1/gonum/optimize"
)

// PolishSettings configures Polish. The zero value gives the defaults.
type PolishSettings struct {
	MaxIter int     // major iterations; 0 means 2000
	Store   int     // L-BFGS memory; 0 means 15 (gonum's default)
	GradTol float64 // stop when |grad|_inf < GradTol; 0 means 1e-9
}

// PolishResult reports what L-BFGS did.
type PolishResult struct {
	F0, F      float64 // objective before and after
	Iterations int
	Evals      int
	Status     string
}

// Polish minimizes f (returning the value and writing the gradient) from w
// with gonum's L-BFGS and leaves the minimizer in w. Every trial point is
// copied into w before f is called with it, so f may read the weights in
// place (a network's bound programs do). It is meant to finish what Adam
// started: Adam rarely reaches the exact minimum the Laplace approximation
// expands around.
func Polish(w []float64, f func(w, grad []float64) float64, s *PolishSettings) (PolishResult, error) {
	var d PolishSettings
	if s != nil {
		d = *s
	}
	if d.MaxIter == 0 {
		d.MaxIter = 2000
	}
	if d.GradTol == 0 {
		d.GradTol = 1e-9
	}
	if d.MaxIter < 0 || d.Store < 0 || d.GradTol < 0 {
		return PolishResult{}, fmt.Errorf("polish settings %+v: values must be non-negative", d)
	}
	grad := make([]float64, len(w))
	w0 := append([]float64(nil), w...)
	f0 := f(w, grad)
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			copy(w, x)
			return f(w, grad)
		},
		Grad: func(g, x []float64) {
			copy(w, x)
			f(w, g)
		},
	}
	res, err := optimize.Minimize(p, append([]float64(nil), w0...), &optimize.Settings{
		MajorIterations:   d.MaxIter,
		GradientThreshold: d.GradTol,
	}, &optimize.LBFGS{Store: d.Store})
	if res == nil {
		return PolishResult{F0: f0, F: f0}, fmt.Errorf("L-BFGS failed: %v", err)
	}
	r := PolishResult{F0: f0, F: res.F, Iterations: res.Stats.MajorIterations, Evals: res.Stats.FuncEvaluations + res.Stats.GradEvaluations, Status: res.Status.String()}
	if res.F <= f0 {
		copy(w, res.X)
	} else {
		copy(w, w0)
		r.F = f0
	}
	// A line search that cannot improve further is the normal end of a polish.
	if err != nil && res.F > f0 {
		return r, fmt.Errorf("L-BFGS: %v", err)
	}
	return r, nil
}
