package problems

import (
	"reflect"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// burgers-wide has DeepXDE's point counts on the right lines, and the
// burgers study's measured points of the same data seed.
func TestBurgersWidePoints(t *testing.T) {
	t.Parallel()
	for _, smp := range []pde.Sampler{pde.Uniform, pde.LatinHypercube} {
		o := Options{DataSeed: 3, Sampling: smp}
		w, b := BurgersWide(o), Burgers(o)
		counts := map[string]int{}
		for _, term := range w.Terms {
			counts[term.Name] = len(term.Points)
		}
		if want := map[string]int{"pde": 2540, "boundary": 80, "initial": 160, "data": 60}; !reflect.DeepEqual(counts, want) {
			t.Errorf("%s: points %v, want %v", smp, counts, want)
		}
		if !reflect.DeepEqual(w.Terms[3].Points, b.Terms[2].Points) || !reflect.DeepEqual(w.Terms[3].Target, b.Terms[2].Target) {
			t.Errorf("%s: the measured points differ from burgers'", smp)
		}
		for i, x := range w.Terms[1].Points {
			if (x[0] != -1 && x[0] != 1) || x[1] < 0 || x[1] > 1 || w.Terms[1].Target[i] != 0 {
				t.Errorf("%s: boundary point %v target %g", smp, x, w.Terms[1].Target[i])
			}
		}
		for _, x := range w.Terms[2].Points {
			if x[1] != 0 || x[0] < -1 || x[0] > 1 {
				t.Errorf("%s: initial point %v", smp, x)
			}
		}
		if err := w.Validate(); err != nil {
			t.Error(err)
		}
	}
}
