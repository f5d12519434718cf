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
// of pde.Problem.OutputNames) its mean, its Laplace sigma and each other
// band's sigma (band.Band, as its record assessed it). Mean[k][i] is
// output k at point i.
type Prediction struct {
	Inputs, Outputs []string
	Points          [][]float64
	Mean            [][]float64
	Sigma           [][]float64 // nil without a Laplace approximation
	// Bands are the other bands' sigmas, in the order of the bands given.
	Bands []BandSigma
}

// BandSigma is one band's sigma at a Prediction's points: Sigma[k][i] is
// output k's at point i.
type BandSigma struct {
	Method string
	Sigma  [][]float64
}

// Predict is f's Prediction at points (each the problem's inputs in
// order) with the bands given, a record's Bands (band.Band values, read
// back without assessing them again), so a fit restored from its record
// (Restore) predicts what the fit that wrote it did. Nil bands, from a
// record written before records kept them, are assessed at the problem's
// fresh draw as NewResult does; a fresh draw that fails is then an error.
// A band whose A does not factorize is left out. Points with a coordinate
// that is not finite are an error, as in bayes.Fit.Predict.
func Predict(f *bayes.Fit, bands []band.Band, points [][]float64) (*Prediction, error) {
	p := f.Model.Problem
	pr := &Prediction{Inputs: p.Inputs, Outputs: p.OutputNames(), Points: points}
	var err error
	if pr.Mean, pr.Sigma, err = f.PredictOutputs(points); err != nil {
		return nil, err
	}
	if pr.Sigma == nil {
		return pr, nil
	}
	if bands == nil && p.Fresh != nil {
		a, err := band.AssessFresh(f)
		if err != nil {
			return nil, fmt.Errorf("record: Predict: the bands: %w", err)
		}
		for _, b := range a.Bands {
			bands = append(bands, *b)
		}
	}
	for _, b := range bands {
		sigma, err := b.Sigma(f, points)
		if err != nil {
			continue // its A does not factorize: NewResult left it out too
		}
		pr.Bands = append(pr.Bands, BandSigma{Method: b.Method, Sigma: sigma})
	}
	return pr, nil
}

// Columns are the names of WriteTable's columns: the inputs, then for each
// output u its mean u, u_sigma and u_sigma_METHOD for each other band
// (those present).
func (pr *Prediction) Columns() []string {
	cols := append([]string(nil), pr.Inputs...)
	for _, name := range pr.Outputs {
		cols = append(cols, name)
		if pr.Sigma != nil {
			cols = append(cols, name+"_sigma")
		}
		for _, b := range pr.Bands {
			cols = append(cols, name+"_sigma_"+b.Method)
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
			for _, b := range pr.Bands {
				put(b.Sigma[k][i])
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
