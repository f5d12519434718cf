// Package schedule holds a problem's training schedule: the network, the
// Adam epochs, when the hyperparameters move, and where a problem needs
// them its own polish length, curvature, known noise, resampling period and
// final rounds. A schedule is what a problem's author measured to work; it
// is data beside the problem (pkg/problems registers one per paper
// problem), not part of it, so that pkg/pde knows nothing of training.
//
// bayes.Settings carries a schedule (Settings.Schedule) and its Resolve
// fills what the settings leave zero from it, then the toolkit's defaults:
// an explicit setting wins over the schedule, the schedule over the
// defaults. The fields' meanings are those of the bayes.Settings fields of
// the same names, where Settings groups them: HyperStart and HyperEvery
// are Settings.Hyper.Start and Hyper.Every, FinalHyper and RoundBetas
// Settings.Final.Rounds and Final.Betas, PolishIter Settings.Polish.Iter.
package schedule

import (
	"maps"
	"slices"
)

// Schedule is a problem's training schedule; zero fields leave the choice
// to the toolkit's defaults (bayes.Settings.Resolve).
type Schedule struct {
	Hidden     []int  // hidden layer sizes
	Epochs     int    // Adam epochs
	HyperStart int    // first epoch with a hyperparameter update
	HyperEvery int    // epochs between hyperparameter updates
	AlphaMode  string // "single" or "classes"
	// BetaMode is "single" (one beta for every term) or "split" (one beta
	// per term group); "" leaves it to the problem (pde.Problem.DefaultBetaMode).
	BetaMode string
	// FinalHyper caps the tuned recipe's final MacKay rounds where the
	// default (20) does not suit the problem.
	FinalHyper int
	PolishIter int
	Curvature  string
	// KnownNoise holds the betas of groups whose measurements have a
	// stated noise standard deviation, by group name.
	KnownNoise map[string]float64
	Resample   int
	RoundBetas string
}

// ForData is the schedule for the problem with its measurements replaced
// by a user's (pde.Problem.WithData): the stated noise of the problem's own
// data is not the user's, so it is dropped, and the betas are left to the
// problem (split by term group: the data's noise is not the equation's).
func (s Schedule) ForData() Schedule {
	s.KnownNoise = nil
	s.BetaMode = ""
	return s
}

// Clone returns a copy of s that shares no slice or map with it.
func (s Schedule) Clone() Schedule {
	s.Hidden = slices.Clone(s.Hidden)
	s.KnownNoise = maps.Clone(s.KnownNoise)
	return s
}
