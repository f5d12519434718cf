package score_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// OnGrid scores any prediction of a problem's fields against its exact
// solution; here a prediction of u = x that is 0.01 too high everywhere,
// with a band of sigma 0.01 (the 2σ band covers every point).
func ExampleOnGrid() {
	p := &pde.Problem{Name: "line", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Exact: func(x []float64) float64 { return x[0] }}
	predict := func(output string, pts [][]float64) (mean, sigma []float64, err error) {
		for _, x := range pts {
			mean, sigma = append(mean, x[0]+0.01), append(sigma, 0.01)
		}
		return mean, sigma, nil
	}
	e, err := score.OnGrid(p, 11, predict)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d points, max error %.2f, coverage %.0f %%\n", e.GridN, e.MaxAbs, 100*e.Coverage2S)
	// Output: 11 points, max error 0.01, coverage 100 %
}

// An unknown inferred on the log scale: its interval is exp of the ends of
// theta ± 1.96 sd.
func ExampleNewUnknown() {
	truth := 0.1
	u := pde.Unknown{Name: "kappa", Init: 0.5, Positive: true, Truth: &truth}
	k := score.NewUnknown(u, -2.3, 0.05)
	fmt.Println(k, k.Covers())
	// Output: kappa = 0.10026 (sd 0.05 on ln, 95% [0.0909, 0.11058], truth 0.1, rel. error 0.0026) true
}

// SummarizeUnknowns is the coverage of the intervals over fits to
// repeated draws of the data.
func ExampleSummarizeUnknowns() {
	truth := 1.0
	fits := [][]score.Unknown{
		{{Name: "c", Value: 1.01, SD: 0.02, Lo95: 0.97, Hi95: 1.05, Truth: &truth}},
		{{Name: "c", Value: 0.9, SD: 0.02, Lo95: 0.86, Hi95: 0.94, Truth: &truth}},
	}
	s := score.SummarizeUnknowns(fits)[0]
	fmt.Printf("%s: %d of %d intervals hold the truth, mean rel. error %.3f\n", s.Name, s.Covered, s.Fits, s.MeanRelErr)
	// Output: c: 1 of 2 intervals hold the truth, mean rel. error 0.055
}
