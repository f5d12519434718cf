package runner_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/runner"
)

// Ensemble runs a function of each seed on two workers; done sees every
// result, one at a time, in the order the runs end.
func ExampleEnsemble() {
	sum := uint64(0)
	runner.Ensemble([]uint64{1, 2, 3, 4}, 2, func(seed uint64) uint64 { return seed * seed },
		func(seed, square uint64) { sum += square })
	fmt.Println("sum of squares:", sum)
	// Output: sum of squares: 30
}
