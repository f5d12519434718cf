// Package ensemble is the study driver of docs/results.md: TestStudy trains
// ensembles of the paper's problems under settings read from BPINN_STUDY_*
// variables and writes one record per fit. The studies are heavy and run
// only when BPINN_STUDY is set:
//
//	BPINN_STUDY=heat,wave BPINN_STUDY_N=100 go test -run TestStudy -timeout 2h -v ./lab/ensemble/
//	BPINN_STUDY=full go test -run TestStudy -timeout 6h -v ./lab/ensemble/
//
// The test's studyVars is every variable the study reads, in one table; a
// BPINN_STUDY_* variable not in it (a misspelt knob) fails the test rather
// than being ignored. An unset variable keeps the default Settings.
//
// TestStudy is also run as a binary, the docs' /tmp/ensemble.test:
//
//	go test -c -o /tmp/ensemble.test ./lab/ensemble/
//
// Every record carries, besides rel L2 and the 2-sigma coverage, the mean
// absolute error on the grid and the quantiles of |u - u*| / sigma over the
// grid (ratio_q50/q90/q95): a calibrated Gaussian band has q95 = 1.96; the
// factor by which sigma would have to grow to cover 95 % is q95 / 1.96.
package ensemble
