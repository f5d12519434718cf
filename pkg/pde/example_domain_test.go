package pde_test

import (
	"fmt"
	"log"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/geom"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// problems.md:begin plate
// poissonHoles is PINNacle's Poisson2d-C: Laplace's equation on the square
// [-0.5, 0.5]^2 minus four disks of radius 0.1 at (+-0.3, +-0.3), u = 1 on
// the square and u = 0 on the circles.
func poissonHoles() *pde.Problem {
	square := geom.Must(geom.NewBox([]float64{-0.5, -0.5}, []float64{0.5, 0.5}))
	var disks []geom.Domain
	for _, c := range [][2]float64{{-0.3, -0.3}, {0.3, -0.3}, {-0.3, 0.3}, {0.3, 0.3}} {
		disks = append(disks, geom.Must(geom.NewDisk(c[0], c[1], 0.1)))
	}
	holes := geom.Must(geom.Named("holes", geom.Must(geom.Union(disks...))))
	plate := geom.Must(geom.Difference(geom.Must(geom.Named("square", square)), holes))
	return &pde.Problem{Name: "poisson-holes", Inputs: []string{"x", "y"}, Domain: plate, Sampling: pde.Halton,
		Terms: []pde.Term{
			pde.PDE("u_xx + u_yy = 0", 2000),
			pde.Dirichlet(pde.On("square"), 400, 1),
			pde.Dirichlet(pde.On("holes"), 200, 0),
		}}
}

// problems.md:end

// A problem on a domain with holes: the terms draw on the plate and on its
// named boundary parts, each boundary point with its outward normal.
func Example_domain() {
	q, err := poissonHoles().Sample(1)
	if err != nil {
		log.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("box", q.Lo, q.Hi)
	for _, t := range q.Terms {
		fmt.Printf("%-16s %4d points, normals %v\n", t.Name, len(t.Points), q.Normals(t) != nil)
	}
	// on a circle, the plate's outward normal points to the hole's centre
	t := q.Terms[2]
	x, n := t.Points[0], q.Normals(t)[0]
	c := []float64{0.3 * math.Copysign(1, x[0]), 0.3 * math.Copysign(1, x[1])}
	fmt.Printf("|x - c| = %.3f, n . (x - c)/|x - c| = %.3f\n", math.Hypot(x[0]-c[0], x[1]-c[1]), (n[0]*(x[0]-c[0])+n[1]*(x[1]-c[1]))/0.1)
	// Output:
	// box [-0.5 -0.5] [0.5 0.5]
	// pde              2000 points, normals false
	// dirichlet_square  400 points, normals true
	// dirichlet_holes   200 points, normals true
	// |x - c| = 0.100, n . (x - c)/|x - c| = -1.000
}
