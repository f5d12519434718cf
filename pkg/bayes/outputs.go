package bayes

import (
	"fmt"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// PredictOutput is Predict for the named output of the problem
// (Problem.Outputs; "" is the first): its mean and Laplace sigma at
// points, from the same A as every other output's.
func (f *Fit) PredictOutput(name string, points [][]float64) (mean, sigma []float64, err error) {
	q, k, err := f.outputQuantity(name)
	if err != nil {
		return nil, nil, err
	}
	mean, sigma, err = f.predictBlocks(points, q)
	if err != nil || sigma == nil {
		return mean, sigma, err
	}
	f.widenOutputAt(k, points, sigma)
	return mean, sigma, nil
}

// JacobianOutputBlocks is JacobianBlocks for the named output ("" is the
// first): its values and Jacobian block by block.
func (f *Fit) JacobianOutputBlocks(name string, points [][]float64, fn func(lo int, mean, J []float64) error) error {
	q, _, err := f.outputQuantity(name)
	if err != nil {
		return err
	}
	return f.JacobianBlocks(points, q, fn)
}

// WidenOutput is Widen for the named output's sigma at points: the
// widening of that output where f has one per output (WithOutputBand).
func (f *Fit) WidenOutput(name string, points [][]float64, sigma []float64) {
	f.widenOutputAt(f.Model.Problem.OutputIndex(name), points, sigma)
}

// widenOutputAt is WidenOutput for output k (Problem.OutputNames; -1, a
// name the problem lacks, widens as Widen does).
func (f *Fit) widenOutputAt(k int, points [][]float64, sigma []float64) {
	if k > 0 && f.widenOutput != nil {
		f.widenOutput(k, points, sigma)
		return
	}
	f.Widen(points, sigma)
}

// PredictOutputs is PredictOutput for every output, in the order of
// Problem.OutputNames: mean[k] and sigma[k] are output k's (sigma nil
// without a Laplace approximation).
func (f *Fit) PredictOutputs(points [][]float64) (mean, sigma [][]float64, err error) {
	names := f.Model.Problem.OutputNames()
	mean = make([][]float64, len(names))
	sigma = make([][]float64, len(names))
	for k, name := range names {
		if mean[k], sigma[k], err = f.PredictOutput(name, points); err != nil {
			return nil, nil, err
		}
	}
	if sigma[0] == nil {
		sigma = nil
	}
	return mean, sigma, nil
}

// JacobianOutput is Jacobian for the named output ("" is the first).
func (f *Fit) JacobianOutput(name string, points [][]float64) (mean, J []float64, err error) {
	q, _, err := f.outputQuantity(name)
	if err != nil {
		return nil, nil, err
	}
	return f.meanJacobian(points, q)
}

// outputQuantity is the quantity of the named output and its index k
// (Problem.OutputNames); the first is output (v.U), so a one-output fit
// predicts through the graph it always did.
func (f *Fit) outputQuantity(name string) (q pde.Residual, k int, err error) {
	p := f.Model.Problem
	k = p.OutputIndex(name)
	switch {
	case k < 0:
		return nil, k, fmt.Errorf("problem %q has no output %q; its outputs are %s", p.Name, name, strings.Join(p.OutputNames(), ", "))
	case k == 0:
		return output, k, nil
	}
	name = p.OutputNames()[k]
	return func(v *pde.Vars) *ad.Node { return v.Out(name) }, k, nil
}
