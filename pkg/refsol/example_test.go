package refsol_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/refsol"
)

// The cavity's flow and the plate's potential at their centres.
func Example() {
	cavity, err := refsol.DefaultLidDriven()
	if err != nil {
		panic(err)
	}
	u, v, p, err := cavity.At(0.5, 0.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("cavity at (0.5, 0.5): u %.3f, v %.3f, p %.3f\n", u, v, p)
	plate, err := refsol.DefaultPoissonHoles()
	if err != nil {
		panic(err)
	}
	w, err := plate.At(0, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("plate at (0, 0): u %.4f\n", w)
	// Output:
	// cavity at (0.5, 0.5): u -0.179, v 0.054, p -0.028
	// plate at (0, 0): u 0.2336
}
