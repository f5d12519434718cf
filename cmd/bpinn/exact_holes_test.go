package main

import (
	"strings"
	"testing"
)

// bpinn exact poisson-holes prints the reference on the plate and refuses
// a point in a hole, where there is no solution.
func TestExactHoles(t *testing.T) {
	t.Parallel()
	code, out, errOut := exact(t, "0 0.5\n0 0\n", "poisson-holes")
	if lines := strings.Fields(out); code != 0 || len(lines) != 2 || lines[0] != "1" {
		t.Errorf("exit %d, output %q (%s); want 1 on the square and a value at the centre", code, out, errOut)
	}
	code, out, errOut = exact(t, "0 0\n0.3 0.3\n", "poisson-holes")
	if code != 2 || out != "" || !strings.Contains(errOut, "point [0.3 0.3] is outside the domain of poisson-holes") {
		t.Errorf("a point in a hole: exit %d, output %q, error %q", code, out, errOut)
	}
}
