package report_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/report"
)

// The plans of bpinn reproduce: how many fits each study trains, and the
// studies a report holds.
func ExamplePlan() {
	for _, p := range []report.Plan{report.Full(), report.Quick(), report.Tiny()} {
		fmt.Printf("%s: %d fits per study\n", p.Name, p.Fits)
	}
	fmt.Println(report.Names()[:4])
	// Output:
	// full: 100 fits per study
	// quick: 12 fits per study
	// tiny: 3 fits per study
	// [hmc heat heat-lhs wave]
}
