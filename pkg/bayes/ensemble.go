package bayes

import (
	"math"
	"runtime"
	"sort"
	"sync"
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
	rx, ry := ranks(xs), ranks(ys)
	mx, my := mean(rx), mean(ry)
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
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
