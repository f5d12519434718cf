package bayes

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// ConditionsFirst is how many times the equations' betas the conditions'
// start at in the restart of a fit that left a condition unmet
// (Fit.restarts): the Adam epochs train toward the conditions first, and
// the evidence releases them from the first hyperparameter step on. A fit
// that left only equations unmet (Equation.Unmet: their source read as
// noise) is restarted with those equations' betas raised as many times.
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
// checked), then of its unmet equations with a source. An equation
// without one whose addends do not cancel is warned of, not refitted:
// raising its beta pulls toward u = 0, which solves it, so the
// conditions judge it.
func (f *Fit) unmet() []string {
	cs, es, _ := f.unmetTerms(false)
	var names []string
	for _, c := range cs {
		names = append(names, c.Term)
	}
	for _, e := range es {
		names = append(names, e.Term)
	}
	return names
}

// raiseFirst multiplies by ConditionsFirst the starting betas of the
// inferred groups that hold a condition with values
// (pde.Problem.Values), or, when the terms unmet names hold an equation,
// those of the unmet equations; it returns which it raised, as the
// restart's warnings say it. An equation left unmet comes first: a fit
// that reads its source as noise settles near u = 0, where a homogeneous
// condition's misfit is as large as the field and so reads unmet too
// (PINNacle's Helmholtz2D after its first polish), and raising the
// conditions would keep it there.
func (f *Fit) raiseFirst(unmet []string) string {
	m := f.Model
	unmetEquation := func(t pde.Term) bool {
		_, ok := m.Problem.Values(t)
		return !ok && slices.Contains(unmet, t.Name)
	}
	equations := slices.ContainsFunc(m.Problem.Terms, unmetEquation)
	for k, t := range m.Problem.Terms {
		g := m.TermGroup[k]
		_, ok := m.Problem.Values(t)
		if !equations && ok && !t.Measured || equations && unmetEquation(t) {
			if f.Inferred(g) {
				f.Beta[g] = math.Min(f.Beta[g]*ConditionsFirst, MaxHyper)
			}
		}
	}
	if equations {
		return equationsFirst
	}
	return conditionsFirst
}

// What a restart raised (raiseFirst), as its warnings say it.
var (
	conditionsFirst = fmt.Sprintf("the conditions' betas %dx the equations'", ConditionsFirst)
	equationsFirst  = fmt.Sprintf("the unmet equations' betas %dx the conditions'", ConditionsFirst)
)

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
		"the fit from balanced betas left %v unmet%s (log evidence %.6g); refitted with %s at the start (log evidence %.6g), %s: %s",
		unmet, when, logEvidence(first), again.raised, logEvidence(again), verb, why))
	keep.Seconds = math.Max(first.Seconds, again.Seconds)
	return keep
}

// keepEarly is again, the refit with the conditions first of a fit from
// balanced betas that left the conditions unmet unmet before its end
// (when: after which round), kept because it meets every condition: the
// first fit's remaining final rounds were not run.
func keepEarly(unmet []string, when string, again *Fit) *Fit {
	again.Warnings = append(again.Warnings, fmt.Sprintf(
		"the fit from balanced betas left %v unmet %s; refitted with %s at the start (log evidence %.6g), kept: it meets every condition (the first fit's remaining final rounds were not run)",
		unmet, when, again.raised, logEvidence(again)))
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
