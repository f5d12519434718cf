// Package defaults is the study of docs/results/defaults.md: the schedule
// the trainer derives for a problem nobody measured (bayes.Settings{Seed: 1}
// alone) against the schedules a user would copy, on notebook 07's problems
// and a Poisson problem in its own units. TestDefaultsStudy runs only when
// BPINN_DEFAULTS_STUDY is set (minutes; =holes for poisson-holes-raw):
//
//	BPINN_DEFAULTS_STUDY=1 go test -count=1 -timeout 60m -run TestDefaultsStudy -v ./lab/defaults
package defaults
