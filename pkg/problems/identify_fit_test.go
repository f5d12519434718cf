package problems_test

import (
	"context"
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// A short burgers-identify fit on a small net runs through Train, the
// final round and the Laplace approximation: both unknowns move from their
// starts and come out with finite intervals around their estimates, and
// the record keeps them with their truths. The registered schedule is
// Raissi's net under the dense limit, with two unknowns.
func TestBurgersIdentifyFit(t *testing.T) {
	t.Parallel()
	p, err := problems.New("burgers-identify", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range p.Unknowns { // a small net started far off loses l2 (ln l2 runs off to -30)
		p.Unknowns[k].Init = *p.Unknowns[k].Truth
	}
	s := bayes.Settings{Schedule: schedule.Schedule{Hidden: []int{8}, Epochs: 500, HyperStart: 400, HyperEvery: 25,
		BetaMode: "split", FinalHyper: 1, PolishIter: 10}, Seed: 1}
	f, err := bayes.Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != bayes.StatusOK || f.Laplace == nil {
		t.Fatalf("status %s (%s): want ok with a Laplace approximation; alpha %v beta %v unknowns %v", f.Status, f.Reason, f.Alpha, f.Beta, f.Model.UnknownValues())
	}
	us := f.Unknowns()
	if len(us) != 2 || us[0].Name != "l1" || us[1].Name != "l2" {
		t.Fatalf("unknowns %+v: want l1, l2", us)
	}
	for k, u := range us {
		start := p.Unknowns[k].Init
		if u.Value == start || !(u.SD > 0) || math.IsInf(u.SD, 0) || !(u.Lo95 < u.Value && u.Value < u.Hi95) {
			t.Errorf("%s = %g (start %g), sd %g, interval [%g, %g]: want a move and a finite interval around it", u.Name, u.Value, start, u.SD, u.Lo95, u.Hi95)
		}
	}
	r := record.NewResult(f, 5)
	if l2 := r.Unknowns["l2"]; len(r.Unknowns) != 2 || l2.Truth == nil || *l2.Truth != problems.BurgersNu() || l2.Scale != "log" {
		t.Errorf("record's unknowns %+v: want l1, l2 with their truths, l2 on a log scale", r.Unknowns)
	}

	e, _ := problems.Lookup("burgers-identify")
	sch := e.Schedule(problems.Options{})
	if P := 2*20 + 20 + 7*(20*20+20) + 20 + 1 + 2; !(P <= bayes.DenseLimit) || len(sch.Hidden) != 8 || sch.Hidden[0] != 20 {
		t.Errorf("schedule's net %v, %d parameters against the dense limit %d: want Raissi's 2-20x8-1 with its Laplace", sch.Hidden, P, bayes.DenseLimit)
	}
}
