package problems_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/problems"
)

// A problem of the paper by name, its schedule beside it: the schedule goes
// into bayes.Settings.Schedule, and an explicit setting overrides it.
func ExampleLookup() {
	e, err := problems.Lookup("heat")
	if err != nil {
		panic(err)
	}
	p := e.New(problems.Options{DataSeed: 1})
	s := e.Schedule(problems.Options{})
	fmt.Println(p.Name, p.Inputs, len(p.Terms[0].Points), "equation points")
	fmt.Println("net", s.Hidden, "epochs", s.Epochs, "hyper start", s.HyperStart)
	fmt.Println("takes kappa:", e.Takes("Kappa"), "reaction:", e.Takes("Reaction"))
	// Output:
	// heat [x t] 50 equation points
	// net [6] epochs 15000 hyper start 5000
	// takes kappa: true reaction: false
}

// Known turns an inverse problem into its forward problem: the unknowns
// held at their truths.
func ExampleKnown() {
	p, err := problems.New("heat-inverse", problems.Options{})
	if err != nil {
		panic(err)
	}
	q, err := problems.Known(p)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Unknowns[0].Name, len(p.Unknowns), "->", len(q.Unknowns), "unknowns;", q.Validate())
	// Output:
	// kappa 1 -> 0 unknowns; <nil>
}
