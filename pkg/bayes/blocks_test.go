package bayes

import (
	"slices"
	"testing"
)

// TestJacobianBlocks: the values and Jacobian of points taken in blocks
// are those of one pass over all of them, bit for bit, so a prediction or
// a grid's bands do not depend on JacobianBlockValues; a bad point is
// named by its index among all the points.
func TestJacobianBlocks(t *testing.T) {
	t.Parallel()
	f := resultTestFit(t, "heat", Settings{Seed: 1})
	pts, _ := f.Model.Problem.Grid(7)
	var whole [2][]float64
	if err := f.jacobianBlocks(pts, output, len(pts), func(lo int, mean, J []float64) error {
		whole = [2][]float64{mean, J}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	P := f.Model.NumWeights()
	var got [2][]float64
	calls := 0
	if err := f.jacobianBlocks(pts, output, 5, func(lo int, mean, J []float64) error {
		if lo != len(got[0]) || len(mean) > 5 || len(J) != len(mean)*P {
			t.Fatalf("block at %d: %d values, %d Jacobian entries", lo, len(mean), len(J))
		}
		got[0], got[1] = append(got[0], mean...), append(got[1], J...)
		calls++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if calls != (len(pts)+4)/5 || !slices.Equal(got[0], whole[0]) || !slices.Equal(got[1], whole[1]) {
		t.Errorf("%d blocks: values or Jacobian differ from one pass", calls)
	}
	bad := slices.Clone(pts)
	bad[12] = []float64{0.5}
	if err := f.jacobianBlocks(bad, output, 5, func(int, []float64, []float64) error { return nil }); err == nil || err.Error()[:9] != "point 12 " {
		t.Errorf("a bad 13th point: %v, want an error naming point 12", err)
	}
}
