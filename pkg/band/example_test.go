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
