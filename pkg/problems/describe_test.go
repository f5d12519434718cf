package problems

import (
	"bytes"
	"strings"
	"testing"
)

// WithInit starts a problem's unknowns where asked, and names the unknown
// first in each of its errors; WriteExact writes one value per line for
// one field, a header and the inputs for several; Takers names the
// problems an option changes.
func TestDescribe(t *testing.T) {
	p := HeatInverse(Options{})
	q, err := WithInit(p, map[string]float64{"kappa": 0.3})
	if err != nil || q.Unknowns[0].Init != 0.3 || p.Unknowns[0].Init == 0.3 {
		t.Fatalf("WithInit: init %v (original %v), %v", q.Unknowns[0].Init, p.Unknowns[0].Init, err)
	}
	for init, want := range map[float64]string{-1: "kappa=-1: kappa is inferred on a log scale"} {
		if _, err := WithInit(p, map[string]float64{"kappa": init}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("kappa=%g: %v, want %q", init, err, want)
		}
	}
	if _, err := WithInit(p, map[string]float64{"nu": 1}); err == nil || !strings.HasPrefix(err.Error(), `nu: problem "heat-inverse" has no unknown "nu"; its unknowns: kappa`) {
		t.Errorf("nu: %v", err)
	}
	if _, err := WithInit(Heat(Options{}), map[string]float64{"nu": 1}); err == nil || err.Error() != `nu: problem "heat" has no unknown coefficients` {
		t.Errorf("heat: %v", err)
	}
	var b bytes.Buffer
	if err := WriteExact(&b, Heat(Options{}), [][]float64{{0, 0}, {0.5, 0.5}}); err != nil || strings.Count(b.String(), "\n") != 2 || strings.Contains(b.String(), "x") {
		t.Errorf("heat: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := WriteExact(&b, LotkaVolterraInverse(Options{}), [][]float64{{0}}); err != nil || !strings.HasPrefix(b.String(), "tau u v\n0 ") {
		t.Errorf("lotka-volterra-inverse: %q, %v", b.String(), err)
	}
	if got := Takers("Reaction"); got != "heat2-inverse, heat2-reaction" {
		t.Errorf("Takers(Reaction) = %q", got)
	}
	if s := Schedules(); !strings.Contains(s, "heat-inverse     x,t     8,8     15000   5000         25           single   split") {
		t.Errorf("Schedules lacks heat-inverse's row:\n%s", s)
	}
}
