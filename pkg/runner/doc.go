// Package runner runs many fits of a problem: Ensemble runs any function
// of a seed on worker goroutines, the results independent of the number of
// workers; TrainEnsemble trains one fit per seed, writes each as a JSON
// line (pkg/record) the moment it ends, reports progress, and picks the
// fit of highest log evidence.
package runner
