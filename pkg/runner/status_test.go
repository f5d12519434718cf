package runner_test

import (
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/runner"
)

func TestFmtSeeds(t *testing.T) {
	for _, c := range []struct {
		seeds []uint64
		max   int
		want  string
	}{
		{nil, 5, ""},
		{[]uint64{4}, 5, "4"},
		{[]uint64{1, 2, 3, 5, 7, 8}, 5, "1-3, 5, 7-8"},
		{[]uint64{1, 3, 5, 7}, 2, "1, 3, ..."},
	} {
		if got := runner.FmtSeeds(c.seeds, c.max); got != c.want {
			t.Errorf("runner.FmtSeeds(%v, %d) = %q, want %q", c.seeds, c.max, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 chains", 1: "1 chain", 4: "4 chains"} {
		if got := runner.Plural(n, "chain"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
