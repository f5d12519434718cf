package record

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// A record names the structure its evidence and band come from, and a
// record without a Laplace approximation names none; the low rank's
// record holds its gap, no other.
func TestLaplaceStructureRecorded(t *testing.T) {
	for _, c := range []struct {
		l    *curv.Laplace
		want string
	}{
		{&curv.Laplace{Kind: curv.Dual, LogDetGap: 0}, `"laplace_structure":"dual"`},
		{&curv.Laplace{Kind: curv.LowRank, LogDetGap: 0.25}, `"laplace_structure":"lowrank","log_det_gap":0.25`},
		{&curv.Laplace{Kind: curv.Dense}, `"laplace_structure":"dense"`},
		{nil, ""},
	} {
		r := &Result{AlphaNames: []string{"alpha"}, BetaNames: []string{"beta"}}
		if c.l != nil {
			r.setLaplace(c.l)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "laplace_structure"); c.want == "" && got || c.want != "" && !strings.Contains(string(b), c.want) {
			t.Errorf("Laplace %v: the record holds laplace_structure %v, want %q", c.l != nil, got, c.want)
		}
		if gap := strings.Contains(string(b), "log_det_gap"); gap != (c.l != nil && c.l.Kind == curv.LowRank) {
			t.Errorf("Laplace %v: the record holds log_det_gap %v, want it for lowrank only", c.l != nil, gap)
		}
	}
}
