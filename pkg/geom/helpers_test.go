package geom_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

// must returns v and panics on err: for values built from inputs known
// to be good, where an error is a bug of the test or the package.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func src(seed uint64) rand.Source { return rand.NewPCG(seed, 1) }

// square is [-0.5, 0.5]^2 named "square".
func square(t testing.TB) geom.Domain {
	return must(geom.Named("square", must(geom.NewBox([]float64{-0.5, -0.5}, []float64{0.5, 0.5}))))
}

// holes is PINNacle's Poisson2d-C domain: the square minus four disks of
// radius 0.1 at (+-0.3, +-0.3), the disks named hole0 to hole3.
func holes(t testing.TB) geom.Domain {
	var ds []geom.Domain
	for i, c := range [][2]float64{{-0.3, -0.3}, {0.3, -0.3}, {-0.3, 0.3}, {0.3, 0.3}} {
		disk := must(geom.NewDisk(c[0], c[1], 0.1))
		ds = append(ds, must(geom.Named("hole"+string(rune('0'+i)), geom.Domain(disk))))
	}
	u := must(geom.Union(ds...))
	return must(geom.Difference(square(t), must(geom.Named("holes", u))))
}

// twoDisks are unit disks centred at (0, 0) and (1, 0), named a and b:
// each circle meets the other at angles -+pi/3 from the line of centres.
func twoDisks(t testing.TB) (a, b geom.Domain) {
	a = must(geom.Named("a", geom.Domain(must(geom.NewDisk(0, 0, 1)))))
	b = must(geom.Named("b", geom.Domain(must(geom.NewDisk(1, 0, 1)))))
	return a, b
}

// lShape is the L-shaped polygon [0,2]x[0,1] u [0,1]x[1,2], clockwise when
// cw.
func lShape(t testing.TB, cw bool) *geom.Polygon {
	v := [][2]float64{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}
	if cw {
		for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
			v[i], v[j] = v[j], v[i]
		}
	}
	return must(geom.NewPolygon(v))
}

// domainCase is a named domain with its analytic boundary measure (NaN
// when not known) and the tolerance of its computed measure.
type domainCase struct {
	name    string
	d       geom.Domain
	measure float64
	tol     float64
}

func domains(t testing.TB) []domainCase {
	a, b := twoDisks(t)
	box3 := must(geom.NewBox([]float64{0, 0, 0}, []float64{1, 2, 3}))
	ball := must(geom.NewBall([]float64{0.5, 1, 1.5}, 0.4))
	upper := must(geom.NewBox([]float64{-2, -2, 0}, []float64{2, 2, 2}))
	unitBall := must(geom.NewBall([]float64{0, 0, 0}, 1))
	// The analytic measures of CSG results are met to about Offset where
	// curves cross (tolerance 1e-5), exactly where no operand's boundary
	// crosses another's, and to the midpoint grid's resolution on surfaces.
	return []domainCase{
		{"box1", must(geom.NewBox([]float64{-1}, []float64{2})), 2, 0},
		{"interval-difference", must(geom.Difference(must(geom.NewBox([]float64{0}, []float64{3})), must(geom.NewBox([]float64{1}, []float64{2})))), 4, 0},
		{"box2", must(geom.NewBox([]float64{0, 0}, []float64{2, 1})), 6, 1e-12},
		{"box3", box3, 2 * (2 + 3 + 6), 1e-12},
		{"box4", must(geom.NewBox([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1})), 8, 1e-12},
		{"disk", must(geom.NewDisk(1, -1, 0.5)), math.Pi, 1e-12},
		{"ball", unitBall, 4 * math.Pi, 1e-12},
		{"polygon", lShape(t, false), 8, 1e-12},
		{"polygon-cw", lShape(t, true), 8, 1e-12},
		{"union", must(geom.Union(a, b)), 8 * math.Pi / 3, 1e-5},
		{"intersection", must(geom.Intersection(a, b)), 4 * math.Pi / 3, 1e-5},
		{"difference", must(geom.Difference(a, b)), 2 * math.Pi, 1e-5},
		{"holes", holes(t), 4 + 4*2*math.Pi*0.1, 1e-9},
		{"box-ball", must(geom.Difference(box3, ball)), 22 + 4*math.Pi*0.16, 1e-9},
		{"hemisphere", must(geom.Intersection(unitBall, upper)), 3 * math.Pi, 2e-3},
		{"union-boxes", must(geom.Union(must(geom.NewBox([]float64{0, 0}, []float64{1, 1})), must(geom.NewBox([]float64{1, -1}, []float64{2, 2})))), 10, 1e-5},
		{"union-cubes", must(geom.Union(must(geom.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})), must(geom.NewBox([]float64{1, 0, 0}, []float64{2, 1, 1})))), 10, 1e-9},
		{"overlap-polygons", must(geom.Union(lShape(t, false), must(geom.NewBox([]float64{0, 0}, []float64{2, 2})))), 8, 1e-5},
		{"nested", must(geom.Union(must(geom.Difference(a, b)), must(geom.NewBox([]float64{-0.8, -0.3}, []float64{-0.2, 0.3})))), 2 * math.Pi, 1e-5},
	}
}
