package geom_test

import (
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/geom"
)

func BenchmarkSampleInteriorHoles(b *testing.B) { benchSample(b, false) }

func BenchmarkSampleBoundaryHoles(b *testing.B) { benchSample(b, true) }

// benchSample draws 1000 points of PINNacle's Poisson2d-C plate by Halton
// per iteration, inside or on the boundary.
func benchSample(b *testing.B, boundary bool) {
	d := holes(b)
	s := src(1)
	for b.Loop() {
		var err error
		if boundary {
			_, err = geom.SampleBoundary(d, 1000, geom.Halton, s)
		} else {
			_, err = geom.SampleInterior(d, 1000, geom.Halton, s)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
