package bayes

import (
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// scheduled returns s with the schedule of p when s names none of its own:
// the registered one of a paper's problem (by name), what the CLI and the
// report do, or that of one of the tests' own problems (testSchedules).
func scheduled(p *pde.Problem, s Settings) Settings {
	if s.Schedule.Epochs != 0 || s.Schedule.Hidden != nil {
		return s
	}
	if e, err := problems.Lookup(p.Name); err == nil {
		s.Schedule = e.Schedule(problems.Options{})
	} else if sch, ok := testSchedules[p.Name]; ok {
		s.Schedule = sch.Clone()
	}
	return s
}

// testSchedules are the schedules of the tests' own problems, by name.
var testSchedules = map[string]schedule.Schedule{
	"poisson-1d": poissonSchedule,
}
