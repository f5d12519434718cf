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

// An ensemble of 5 seeds from 11 split into the 2 shards of a job array.
func ExampleShard() {
	seeds, err := runner.Seeds(11, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 2 {
		sh, _ := runner.Shard(seeds, i, 2)
		fmt.Printf("shard %d/2: %v\n", i, sh)
	}
	fmt.Println(runner.CheckSeeds([]uint64{1, 0}))
	// Output:
	// shard 0/2: [11 13 15]
	// shard 1/2: [12 14]
	// seed 0: seeds start at 1
}
