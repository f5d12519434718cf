package curv

// ExactSquareRows lets a test take the Hutchinson squares of
// NewLowRankLaplace on a small system.
var ExactSquareRows = &exactSquareRows
