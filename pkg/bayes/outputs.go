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
	k, err := f.outputIndex(name)
	if err != nil {
		return nil, nil, err
	}
	return f.predictOutputAt(k, points)
}

// predictOutputAt is PredictOutput for output k (Problem.OutputNames).
func (f *Fit) predictOutputAt(k int, points [][]float64) (mean, sigma []float64, err error) {
	mean, sigma, err = f.predictBlocks(points, f.outputQuantityAt(k))
	if err != nil || sigma == nil {
		return mean, sigma, err
	}
	f.widenOutputAt(k, points, sigma)
	return mean, sigma, nil
}

// JacobianOutputBlocks is JacobianBlocks for the named output ("" is the
// first): its values and Jacobian block by block.
func (f *Fit) JacobianOutputBlocks(name string, points [][]float64, fn func(lo int, mean, J []float64) error) error {
	k, err := f.outputIndex(name)
	if err != nil {
		return err
	}
	return f.JacobianBlocks(points, f.outputQuantityAt(k), fn)
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
	n := len(f.Model.Problem.OutputNames())
	mean = make([][]float64, n)
	sigma = make([][]float64, n)
	for k := range n {
		if mean[k], sigma[k], err = f.predictOutputAt(k, points); err != nil {
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
	k, err := f.outputIndex(name)
	if err != nil {
		return nil, nil, err
	}
	return f.meanJacobian(points, f.outputQuantityAt(k))
}

// outputIndex is the index of the named output (Problem.OutputNames), or
// an error that lists the outputs.
func (f *Fit) outputIndex(name string) (int, error) {
	p := f.Model.Problem
	k := p.OutputIndex(name)
	if k < 0 {
		return k, fmt.Errorf("problem %q has no output %q; its outputs are %s", p.Name, name, strings.Join(p.OutputNames(), ", "))
	}
	return k, nil
}

// outputQuantityAt is the quantity of output k; the first is output
// (v.U), so a one-output fit predicts through the graph it always did.
func (f *Fit) outputQuantityAt(k int) pde.Residual {
	if k == 0 {
		return output
	}
	name := f.Model.Problem.OutputNames()[k]
	return func(v *pde.Vars) *ad.Node { return v.Out(name) }
}
