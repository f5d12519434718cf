package viz

import (
	"slices"
	"testing"

	"gonum.org/v1/plot"
)

// labels returns the labels of the labelled ticks.
func labels(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestLinearTicks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{2500, 7600, []string{"2500", "5000", "7500"}}, // DefaultTicks: 2500.00, 5000.00, 7500.00
		{-280, 20, []string{"-250", "0"}},              // DefaultTicks: -250.00, 0.00
		{0, 1, []string{"0.0", "0.5", "1.0"}},          // a common number of decimals
		{0, 20000, []string{"0", "10000", "20000"}},
		{-0.016, 0.016, []string{"-0.015", "0", "0.015"}}, // %g labels are kept
		{1e7, 4e7, []string{"1e+07", "2e+07", "3e+07", "4e+07"}},
	} {
		got := labels(linearTicks{}.Ticks(tc.lo, tc.hi))
		if !slices.Equal(got, tc.want) {
			t.Errorf("Ticks(%g, %g): got labels %q, want %q (DefaultTicks: %q)",
				tc.lo, tc.hi, got, tc.want, labels(plot.DefaultTicks{}.Ticks(tc.lo, tc.hi)))
		}
	}
}

func TestLogLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{1000, "1000"}, {2e5, "200000"}, {3 * 0.01, "0.03"}, {0.0001, "0.0001"}, {1, "1"},
		{1234.5, "1230"}, {1e6, "1e+06"}, {2e-5, "2e-05"},
	} {
		if got := logLabel(tc.v); got != tc.want {
			t.Errorf("logLabel(%v): got %q, want %q", tc.v, got, tc.want)
		}
	}
}
