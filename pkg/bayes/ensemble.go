package bayes

import (
	"gonum.org/v1/gonum/stat"

	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"sync"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Ensemble runs fit(seed) for the given seeds on workers goroutines (0 means
// one per core) and calls done for each result in the order the fits end;
// done is never called concurrently. The results are independent of the
// number of workers: each fit depends on its seed alone.
func Ensemble[T any](seeds []uint64, workers int, fit func(seed uint64) T, done func(seed uint64, r T)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan uint64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				r := fit(s)
				mu.Lock()
				done(s, r)
				mu.Unlock()
			}
		}()
	}
	for _, s := range seeds {
		jobs <- s
	}
	close(jobs)
	wg.Wait()
}

// TrainEnsemble trains one fit of p per seed (s with its Seed set; s.Progress
// is not used) on one goroutine per core and returns the fit of highest log
// evidence, ties broken by the lower seed, or nil when no fit has a defined
// one. Unless out is nil, each fit is appended to out as one JSON line
// (NewResult on the paper's 100 x 100 grid, AppendResult) the moment it
// ends, so an interrupted run keeps the fits that ended.
//
// progress, if not nil, is called as the fits run, never concurrently, with
// the epochs run so far summed over the fits and the number of fits done; a
// fit that ends (diverged or not) counts all its planned epochs, so the
// last call has epochs = len(seeds) * the resolved s.Epochs.
//
// The error is the first of Train (invalid settings) or of writing out;
// the fits running then finish, and nothing more is appended.
func TrainEnsemble(p *pde.Problem, s Settings, seeds []uint64, out *os.File, progress func(epochs, fits int)) (*Fit, error) {
	var (
		mu          sync.Mutex // guards the counts, updated from every fit's goroutine
		at          = make(map[uint64]int, len(seeds))
		epochs, ran int
	)
	update := func(seed uint64, epoch int) { // mu is held
		epochs += epoch - at[seed]
		at[seed] = epoch
		if progress != nil {
			progress(epochs, ran)
		}
	}
	type outcome struct {
		f   *Fit
		r   Result
		err error
	}
	var (
		best     *Fit
		firstErr error
	)
	Ensemble(seeds, 0, func(seed uint64) outcome {
		s := s
		s.Seed = seed
		s.Progress = func(epoch, _ int) {
			mu.Lock()
			defer mu.Unlock()
			update(seed, epoch)
		}
		f, err := Train(p, s)
		if err != nil {
			return outcome{err: fmt.Errorf("seed %d: %w", seed, err)}
		}
		o := outcome{f: f}
		if out != nil {
			o.r = NewResult(f, 100)
		}
		return o
	}, func(seed uint64, o outcome) {
		if o.err == nil && out != nil && firstErr == nil {
			o.err = AppendResult(out, o.r)
		}
		if o.err != nil && firstErr == nil {
			firstErr = o.err
		}
		if l := o.f.laplaceOK(); o.err == nil && l != nil {
			if b := best; b == nil || l.LogEvidence > b.Laplace.LogEvidence ||
				l.LogEvidence == b.Laplace.LogEvidence && seed < b.Settings.Seed {
				best = o.f
			}
		}
		mu.Lock()
		defer mu.Unlock()
		ran++
		planned := at[seed]
		if o.f != nil {
			planned = o.f.Settings.Epochs
		}
		update(seed, planned)
	})
	return best, firstErr
}

// laplaceOK returns the fit's Laplace approximation if its log evidence is
// defined, else nil (for a nil fit too).
func (f *Fit) laplaceOK() *Laplace {
	if f == nil || f.Laplace == nil || !f.Laplace.OccamOK {
		return nil
	}
	return f.Laplace
}

// Ranked is one ensemble member for ranking.
type Ranked struct {
	Seed        uint64
	LogEvidence float64 // NaN when undefined
	Error       float64 // true relative L2 error (NaN when unknown)
}

// Rank sorts members by decreasing log evidence (undefined evidence last,
// ties by seed) and returns the order.
func Rank(ms []Ranked) []Ranked {
	out := append([]Ranked(nil), ms...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		an, bn := math.IsNaN(a.LogEvidence), math.IsNaN(b.LogEvidence)
		if an != bn {
			return bn
		}
		if !an && a.LogEvidence != b.LogEvidence {
			return a.LogEvidence > b.LogEvidence
		}
		return a.Seed < b.Seed
	})
	return out
}

// Spearman is the rank correlation of x and y over the pairs where both are
// finite (average ranks for ties); NaN with fewer than 3 pairs.
func Spearman(x, y []float64) float64 {
	var xs, ys []float64
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsInf(x[i], 0) && !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	if len(xs) < 3 {
		return math.NaN()
	}
	// Pearson's correlation of the ranks (NaN when a side is constant).
	return stat.Correlation(ranks(xs), ranks(ys), nil)
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}
