package geom_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

// PINNacle's Poisson2d-C domain: the square [-0.5, 0.5]^2 minus four disks
// of radius 0.1 at (+-0.3, +-0.3). A Dirichlet term picks the square's
// parts, another the holes'.
func Example() {
	square, err := geom.NewBox([]float64{-0.5, -0.5}, []float64{0.5, 0.5})
	if err != nil {
		log.Fatal(err)
	}
	var disks []geom.Domain
	for _, c := range [][2]float64{{-0.3, -0.3}, {0.3, -0.3}, {-0.3, 0.3}, {0.3, 0.3}} {
		d, err := geom.NewDisk(c[0], c[1], 0.1)
		if err != nil {
			log.Fatal(err)
		}
		disks = append(disks, d)
	}
	holes, err := geom.Union(disks...)
	if err != nil {
		log.Fatal(err)
	}
	outer, err := geom.Named("square", square)
	if err != nil {
		log.Fatal(err)
	}
	inner, err := geom.Named("holes", holes)
	if err != nil {
		log.Fatal(err)
	}
	plate, err := geom.Difference(outer, inner)
	if err != nil {
		log.Fatal(err)
	}

	for _, p := range geom.Parts(plate) {
		fmt.Printf("%-13s length %.4g\n", p.Name, p.Measure)
	}
	fmt.Printf("perimeter %.4g\n", geom.Measure(plate))

	src := rand.NewPCG(1, 1)
	x, err := geom.SampleInterior(plate, 2000, geom.Halton, src)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("interior points:", len(x))
	bp, err := geom.SampleBoundary(plate, 1000, geom.Halton, src)
	if err != nil {
		log.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range bp.Part {
		count[p]++
	}
	fmt.Println("boundary points per part:", count)
	wall, err := geom.SampleBoundary(plate, 5, geom.Uniform, src, "holes")
	if err != nil {
		log.Fatal(err)
	}
	// The normal of a hole points into the hole: out of the plate.
	fmt.Printf("a hole point %.3f, its normal %.3f\n", wall.X[0], wall.Normal[0])

	// Output:
	// square/x-     length 1
	// square/x+     length 1
	// square/y-     length 1
	// square/y+     length 1
	// holes/circle  length 2.513
	// perimeter 6.513
	// interior points: 2000
	// boundary points per part: map[holes/circle:385 square/x+:154 square/x-:153 square/y+:154 square/y-:154]
	// a hole point [-0.213 0.350], its normal [-0.868 -0.496]
}
