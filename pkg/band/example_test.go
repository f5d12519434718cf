package band_test

import (
	"context"
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// The calibrated band of a short heat fit sees the problem's fresh points
// through a FreshDraw, which holds no exact solution; it is never narrower
// than the paper's band.
func ExampleCalibrated() {
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
	train, fresh, err := band.ResidualCheck(f, d)
	if err != nil {
		panic(err)
	}
	fmt.Println("beta groups:", len(train), len(fresh))
	cal, err := band.Calibrated(f, d)
	if err != nil {
		panic(err)
	}
	pts := [][]float64{{0.25, 0.5}, {0.5, 0.5}, {0.75, 0.9}}
	_, paper, _ := f.Predict(pts)
	_, wide, _ := cal.Predict(pts)
	ok := true
	for i := range pts {
		ok = ok && wide[i] >= paper[i]
	}
	fmt.Println("calibrated at least as wide:", ok)
	// Output:
	// beta groups: 1 1
	// calibrated at least as wide: true
}
