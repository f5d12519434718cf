package runner

import (
	"errors"
	"fmt"
	"math"
)

// InputError is a mistake in what a run was asked to do (its seeds, its
// shard, its output file): the caller's to fix, not a failure of a fit.
type InputError struct{ Msg string }

// Error is the mistake, in one line.
func (e *InputError) Error() string { return e.Msg }

func inputf(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// CheckSeeds refuses the seed lists that would not give one fit per seed:
// none at all, seed 0 (seeds start at 1, as bayes.Settings.Seed does)
// and a seed given twice.
func CheckSeeds(seeds []uint64) error {
	if len(seeds) == 0 {
		return inputf("no seeds: a run needs at least one fit")
	}
	seen := make(map[uint64]bool, len(seeds))
	for _, s := range seeds {
		if s == 0 {
			return inputf("seed 0: seeds start at 1")
		}
		if seen[s] {
			return inputf("seed %d is given twice: every fit of an ensemble needs its own seed", s)
		}
		seen[s] = true
	}
	return nil
}

// Seeds is base, base+1, ..., base+n-1: the seeds of an ensemble of n fits
// (or the data seeds of a sweep of n draws).
func Seeds(base uint64, n int) ([]uint64, error) {
	switch {
	case n < 1:
		return nil, inputf("%d fits: a run needs at least one", n)
	case base == 0:
		return nil, inputf("seed 0: seeds start at 1")
	case uint64(n-1) > math.MaxUint64-base:
		return nil, inputf("%d seeds from %d: the last overflows 64 bits; start lower", n, base)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = base + uint64(i)
	}
	return seeds, nil
}

// Shard is shard i of n of seeds: the seeds at the positions p with
// p mod n == i, so that the shards of a job array split one ensemble and
// together hold each of its seeds once.
func Shard(seeds []uint64, i, n int) ([]uint64, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, inputf("shard %d/%d: want I/N with 0 <= I < N", i, n)
	}
	var out []uint64
	for p, s := range seeds {
		if p%n == i {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, inputf("shard %d/%d of %d seeds holds none: use at most %d shards", i, n, len(seeds), len(seeds))
	}
	return out, nil
}

// IsInput says whether err is an InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
