// Package runner runs many fits of a problem. Run is the one loop over
// fits: a Job per key (a network seed, or a data seed in a sweep) on worker
// goroutines, each fit's record written as one fsynced JSON line (pkg/record)
// the moment it ends, so a long run never loses finished work, and a context
// that stops the run keeps what ended. Around it: the seeds of an ensemble
// (Seeds, CheckSeeds), its shards for job arrays (Shard), resuming a file
// (Resume, Todo), the coverage study over draws of an inverse problem's data
// (Sweep), what shard files hold (Status), and TrainEnsemble, which trains
// one fit per seed and picks the fit of highest log evidence. The records
// are independent of the number of workers: each fit depends on its key
// alone.
package runner
