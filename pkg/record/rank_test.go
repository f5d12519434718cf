package record_test

import (
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/record"
	"gonum.org/v1/gonum/floats/scalar"
)

func TestSpearman(t *testing.T) {
	t.Parallel()
	cases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{9, 4, 1, 0}, -1},
		// Ties get the average rank; NaN pairs are skipped.
		{[]float64{1, 2, 2, 3, math.NaN()}, []float64{1, 3, 2, 4, 7}, 0.9486832980505138},
	}
	for _, c := range cases {
		if got := record.Spearman(c.x, c.y); !scalar.EqualWithinAbsOrRel(got, c.want, 1e-12, 1e-12) {
			t.Errorf("Spearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if got := record.Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(got) {
		t.Errorf("constant side: got %v, want NaN", got)
	}
	if got := record.Spearman([]float64{1, 2}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("two pairs: got %v, want NaN", got)
	}
}
