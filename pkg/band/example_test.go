package band_test

import (
	"context"
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// The calibrated band of a short heat fit sees the problem's fresh points
// through a FreshDraw, which holds no exact solution. Heat is linear, so
// the error estimate from the residuals applies, and the calibrated band
// is the paper's scaled by its factor.
func ExampleAssess() {
	heat, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	p := heat.New(problems.Options{})
	s := bayes.Settings{Schedule: heat.Schedule(problems.Options{}), Seed: 1, Epochs: 300, Hyper: bayes.HyperSteps{Start: 100}}
	f, err := bayes.Train(context.Background(), p, s)
	if err != nil {
		panic(err)
	}
	d, err := band.FreshDrawOf(p) // p's fresh points, without its exact solution
	if err != nil {
		panic(err)
	}
	a, err := band.Assess(f, d)
	if err != nil {
		panic(err)
	}
	fmt.Println("beta groups:", len(a.Train), len(a.Fresh))
	fmt.Println("error estimate applies:", a.Estimated != nil)
	pts := [][]float64{{0.25, 0.5}, {0.5, 0.5}, {0.75, 0.9}}
	_, paper, _ := f.Predict(pts)
	g, err := a.Predictor("calibrated")
	if err != nil {
		panic(err)
	}
	_, cal, _ := g.Predict(pts)
	scaled := true
	for i := range pts {
		scaled = scaled && math.Abs(cal[i]/paper[i]-a.Estimated[0]) < 1e-9
	}
	fmt.Println("calibrated = paper's x the estimate's factor:", scaled)
	// Output:
	// beta groups: 1 1
	// error estimate applies: true
	// calibrated = paper's x the estimate's factor: true
}

// A band method of one's own is a Build from the Check every method reads
// (the fit, its fresh draw, the residuals there) and one Register call:
// Assess then builds its band beside the others, and a record stores,
// scores and predicts it (pkg/record). This one widens the paper's band by
// the largest ratio of fresh to training rms residuals over the beta
// groups, at least 1.
func ExampleRegister() {
	remove, err := band.Register(band.Method{Name: "worst-ratio", Build: func(c *band.Check) (*band.Band, error) {
		s := 1.0
		for t := range c.Train {
			s = math.Max(s, c.Fresh[t]/c.Train[t])
		}
		return &band.Band{Scale: []float64{s}}, nil
	}})
	if err != nil {
		panic(err)
	}
	defer remove()
	heat, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	p := heat.New(problems.Options{})
	s := bayes.Settings{Schedule: heat.Schedule(problems.Options{}), Seed: 1, Epochs: 300, Hyper: bayes.HyperSteps{Start: 100}}
	f, err := bayes.Train(context.Background(), p, s)
	if err != nil {
		panic(err)
	}
	d, err := band.FreshDrawOf(p)
	if err != nil {
		panic(err)
	}
	a, err := band.Assess(f, d)
	if err != nil {
		panic(err)
	}
	for _, b := range a.Bands {
		fmt.Println(b.Method)
	}
	pts := [][]float64{{0.5, 0.5}}
	_, paper, _ := f.Predict(pts)
	sigma, err := a.Band("worst-ratio").Sigma(f, pts)
	if err != nil {
		panic(err)
	}
	fmt.Println("wider than the paper's:", sigma[0][0] >= paper[0])
	// Output:
	// heldout
	// calibrated
	// worst-ratio
	// wider than the paper's: true
}
