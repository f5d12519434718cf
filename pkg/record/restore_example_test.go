package record_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

// ExampleRestore trains a small ensemble into a results file, as one
// notebook cell does, and rebuilds the best fit from the file, as a later
// cell does: GoNB runs every cell as a new program, so only the file
// carries the fits from one to the next.
func ExampleRestore() {
	heat, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	p := heat.New(problems.Options{})
	dir, err := os.MkdirTemp("", "bpinn-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "heat.jsonl")

	// One cell: train and write.
	out, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	s := bayes.Settings{Schedule: heat.Schedule(problems.Options{}), Epochs: 200, Hyper: bayes.HyperSteps{Start: 100}}
	run, err := runner.TrainEnsemble(context.Background(), p, s, []uint64{1, 2, 3}, runner.EnsembleOptions{Out: out})
	out.Close()
	if err != nil {
		panic(err)
	}

	// A later cell: read and rebuild.
	rs, _, err := record.ReadResults(path)
	if err != nil {
		panic(err)
	}
	best, err := record.Restore(p, record.BestResult(rs))
	if err != nil {
		panic(err)
	}
	fmt.Println("fits in the file:", len(rs))
	fmt.Println("same best seed:", best.Settings.Seed == run.Best.Settings.Seed)
	fmt.Println("same log evidence:", best.Laplace.LogEvidence == run.Best.Laplace.LogEvidence)
	x := [][]float64{{0.3, 0.5}}
	m1, s1, err := run.Best.Predict(x)
	if err != nil {
		panic(err)
	}
	m2, s2, err := best.Predict(x)
	if err != nil {
		panic(err)
	}
	fmt.Println("same band at (0.3, 0.5):", m1[0] == m2[0], fmt.Sprintf("%.6g", s1[0]) == fmt.Sprintf("%.6g", s2[0]))
	// Output:
	// fits in the file: 3
	// same best seed: true
	// same log evidence: true
	// same band at (0.3, 0.5): true true
}
