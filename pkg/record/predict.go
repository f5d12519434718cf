package record

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// Prediction is a fit's outputs at points: for each output (in the order
// of pde.Problem.OutputNames) its mean, its Laplace sigma and, where the fit
// has one, the sigma of the calibrated band (band.Calibrated, as its record
// assessed it). Mean[k][i] is output k at point i.
type Prediction struct {
	Inputs, Outputs []string
	Points          [][]float64
	Mean            [][]float64
	Sigma           [][]float64 // nil without a Laplace approximation
	Calibrated      [][]float64 // nil without fresh points (Problem.Fresh) or a calibrated band
}

// Predict is f's Prediction at points (each the problem's inputs in
// order). The calibrated band is the one NewResult assesses from the
// problem's fresh draw, so a fit restored from its record (Restore)
// predicts what the fit that wrote it did; a fresh draw that fails is an
// error. Points with a coordinate that is not finite are an error, as in
// bayes.Fit.Predict.
func Predict(f *bayes.Fit, points [][]float64) (*Prediction, error) {
	p := f.Model.Problem
	pr := &Prediction{Inputs: p.Inputs, Outputs: p.OutputNames(), Points: points}
	var err error
	if pr.Mean, pr.Sigma, err = f.PredictOutputs(points); err != nil {
		return nil, err
	}
	if pr.Sigma == nil {
		return pr, nil
	}
	if p.Fresh == nil { // no fresh draw: no calibrated band
		return pr, nil
	}
	a, err := band.AssessFresh(f)
	if err != nil {
		return nil, fmt.Errorf("record: Predict: the calibrated band: %w", err)
	}
	if a.Calibrated == nil { // its A does not factorize: the record has none either
		return pr, nil
	}
	if _, pr.Calibrated, err = a.Calibrated.PredictOutputs(points); err != nil {
		return nil, err
	}
	return pr, nil
}

// Columns are the names of WriteTable's columns: the inputs, then for each
// output u its mean u, u_sigma and u_sigma_calibrated (those present).
func (pr *Prediction) Columns() []string {
	cols := append([]string(nil), pr.Inputs...)
	for _, name := range pr.Outputs {
		cols = append(cols, name)
		if pr.Sigma != nil {
			cols = append(cols, name+"_sigma")
		}
		if pr.Calibrated != nil {
			cols = append(cols, name+"_sigma_calibrated")
		}
	}
	return cols
}

// WriteTable writes a header line of the Columns, then one line per point,
// values separated by one blank, each in the shortest form that reads
// back exactly.
func (pr *Prediction) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(pr.Columns(), " "))
	bw.WriteByte('\n')
	var b []byte
	for i, x := range pr.Points {
		b = b[:0]
		put := func(v float64) {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendFloat(b, v+0, 'g', -1, 64) // +0: no "-0"
		}
		for _, v := range x {
			put(v)
		}
		for k := range pr.Outputs {
			put(pr.Mean[k][i])
			if pr.Sigma != nil {
				put(pr.Sigma[k][i])
			}
			if pr.Calibrated != nil {
				put(pr.Calibrated[k][i])
			}
		}
		b = append(b, '\n')
		bw.Write(b)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the prediction: %v", err)
	}
	return nil
}
