package bayes

import (
	"fmt"
	"math"
)

// ConditionsFirst is how many times the equations' betas the conditions'
// start at in the restart of a fit that left a condition unmet
// (Fit.restarts): the Adam epochs train toward the conditions first, and
// the evidence releases them from the first hyperparameter step on.
const ConditionsFirst = 100

// restarts is the unmet conditions (Condition.Unmet) for which Train fits
// f's problem again with its conditions first, f having ended ok from
// balanced betas (a derived schedule, Hyper.Balance); none otherwise. A
// schedule's fit, whose betas start at Beta0, is never restarted.
func (f *Fit) restarts() []string {
	if f.Status != StatusOK || !f.Settings.Hyper.Balance {
		return nil
	}
	return f.unmet()
}

// unmet is the names of f's unmet conditions (none when they cannot be
// checked).
func (f *Fit) unmet() []string {
	cs, _ := f.unmetConditions()
	var names []string
	for _, c := range cs {
		names = append(names, c.Term)
	}
	return names
}

// raiseConditions multiplies the starting betas of the inferred groups
// that hold a condition with values (pde.Problem.Values) by
// ConditionsFirst.
func (f *Fit) raiseConditions() {
	m := f.Model
	for k, t := range m.Problem.Terms {
		g := m.TermGroup[k]
		if _, ok := m.Problem.Values(t); ok && !t.Measured && f.Inferred(g) {
			f.Beta[g] = math.Min(f.Beta[g]*ConditionsFirst, MaxHyper)
		}
	}
}

// keepStart is the fit Train returns of first, from balanced betas, and
// again, its refit with the conditions first, started when first left the
// conditions unmet unmet (when: after which round, "" for at its end):
// first when it meets every condition by its end (possible only after a
// refit started before its end), else again when it meets every
// condition, else the one of higher log evidence; the fit kept says in its
// warnings what was done.
func keepStart(first, again *Fit, unmet []string, when string) *Fit {
	keep, why := first, "its conditions were not met either and its log evidence is no higher"
	switch {
	case first.Status == StatusOK && len(first.unmet()) == 0:
		why = "this fit met every condition by the end of its final rounds"
	case again.Status != StatusOK:
		why = fmt.Sprintf("it ended %s", again.Status)
	case len(again.unmet()) == 0:
		keep, why = again, "it meets every condition"
	case logEvidence(again) > logEvidence(first):
		keep, why = again, "its conditions were not met either but its log evidence is higher"
	}
	verb := "kept"
	if keep == first {
		verb = "not kept"
	}
	if when != "" {
		when = " " + when
	}
	keep.Warnings = append(keep.Warnings, fmt.Sprintf(
		"the fit from balanced betas left %v unmet%s (log evidence %.6g); refitted with the conditions' betas %dx the equations' at the start (log evidence %.6g), %s: %s",
		unmet, when, logEvidence(first), ConditionsFirst, logEvidence(again), verb, why))
	keep.Seconds = math.Max(first.Seconds, again.Seconds)
	return keep
}

// keepEarly is again, the refit with the conditions first of a fit from
// balanced betas that left the conditions unmet unmet before its end
// (when: after which round), kept because it meets every condition: the
// first fit's remaining final rounds were not run.
func keepEarly(unmet []string, when string, again *Fit) *Fit {
	again.Warnings = append(again.Warnings, fmt.Sprintf(
		"the fit from balanced betas left %v unmet %s; refitted with the conditions' betas %dx the equations' at the start (log evidence %.6g), kept: it meets every condition (the first fit's remaining final rounds were not run)",
		unmet, when, ConditionsFirst, logEvidence(again)))
	return again
}

// after says when a watched fit paused: after its first polish (round 0)
// or after its final round round.
func after(round int) string {
	if round == 0 {
		return "after its Adam epochs and first polish"
	}
	return fmt.Sprintf("after final round %d", round)
}

// logEvidence is f's log evidence, -Inf without a valid Laplace
// approximation.
func logEvidence(f *Fit) float64 {
	if f.Laplace == nil || !f.Laplace.OccamOK {
		return math.Inf(-1)
	}
	return f.Laplace.LogEvidence
}
