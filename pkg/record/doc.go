// Package record writes a trained fit as one JSON record (Result, the
// schema of docs/results-schema.md; its bands and their grid errors
// gathered by band.AssessAndScore, then encoded) and reads records back: a file of JSON
// lines (AppendResult, ReadResults, OpenAppend for resuming, MergeResults
// for shards), an ensemble's summary ranked by log evidence (Summarize,
// Rank, Spearman), and the fit a record describes rebuilt on its problem
// (Restore), the Laplace band included, and its prediction of every field
// at points (Predict: what bpinn predict prints). Every number that may be undefined
// is a null, never NaN, and a record is a function of its RunConfig and
// seed alone (Seconds and Version aside).
package record
