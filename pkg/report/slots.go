package report

import (
	"container/heap"
	"context"
	"slices"
	"sync"
	"time"
)

// slots shares a run's workers among its studies, which run at once: a
// fit holds a slot while it trains and its record is built. A waiting fit
// of larger expected cost is given the next free slot first (longest
// first, so that no core idles at the end behind one long fit), ties in
// the order they asked. slots also keeps what the run's progress line
// needs: the expected cost of the whole run, of what ended and of what
// runs.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting waitHeap
	asked   int

	total    float64 // expected seconds of every fit and comparison of the run
	done     float64 // expected seconds of what ended
	took     float64 // measured seconds of what ended
	ended    int
	running  map[*waiter]time.Time
	started  time.Time
	nWorkers int
	busy     map[string]float64 // seconds each study's fits held slots
}

// waiter is one fit waiting for, then holding, a slot.
type waiter struct {
	study string
	cost  float64 // expected seconds
	what  string  // "study seed N", for the progress line
	order int
	ready chan struct{}
	gone  bool // its context ended while it waited
}

func newSlots(workers int, total float64) *slots {
	return &slots{free: workers, nWorkers: workers, total: total, running: map[*waiter]time.Time{}, started: time.Now(),
		busy: map[string]float64{}}
}

// acquire waits for a slot for a fit of study of expected cost seconds,
// described by what; release gives it back. The error is the context's,
// when it ended first.
func (s *slots) acquire(ctx context.Context, study string, cost float64, what string) (release func(), err error) {
	w := &waiter{study: study, cost: cost, what: what, ready: make(chan struct{})}
	s.mu.Lock()
	w.order = s.asked
	s.asked++
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.running[w] = time.Now()
		s.mu.Unlock()
		return s.releaser(w), nil
	}
	heap.Push(&s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return s.releaser(w), nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.ready: // granted as the context ended: hand it on
			s.handOn(w)
		default:
			w.gone = true
		}
		return nil, context.Cause(ctx)
	}
}

// releaser returns w's release, which counts w as ended.
func (s *slots) releaser(w *waiter) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			t := time.Since(s.running[w]).Seconds()
			s.took += t
			s.busy[w.study] += t
			s.done += w.cost
			s.ended++
			s.handOn(w)
		})
	}
}

// seconds returns the seconds study's fits held slots.
func (s *slots) seconds(study string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy[study]
}

// handOn gives w's slot to the costliest waiting fit, or frees it. The
// caller holds s.mu.
func (s *slots) handOn(w *waiter) {
	delete(s.running, w)
	for len(s.waiting) > 0 {
		next := heap.Pop(&s.waiting).(*waiter)
		if next.gone {
			continue
		}
		s.running[next] = time.Now()
		close(next.ready)
		return
	}
	s.free++
}

// Status is a run's progress: what ended, what runs, and an estimate of
// the time left.
type Status struct {
	Elapsed time.Duration
	Ended   int      // fits and comparisons that ended
	Running []string // what holds a slot now, costliest first
	// Left estimates the time to the end: the expected seconds of what has
	// not ended (less what the running fits did of theirs), scaled by how
	// long what ended took against its expected seconds, over the workers.
	Left time.Duration
}

// status returns the run's progress now.
func (s *slots) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	ratio := 1.0 // measured seconds per expected second
	if s.done > 0 {
		ratio = s.took / s.done
	}
	left := s.total - s.done
	run := make([]*waiter, 0, len(s.running))
	for w, t := range s.running {
		left -= min(w.cost, now.Sub(t).Seconds()/ratio)
		run = append(run, w)
	}
	slices.SortFunc(run, func(a, b *waiter) int {
		if before(a, b) {
			return -1
		}
		return 1
	})
	st := Status{Elapsed: now.Sub(s.started).Round(time.Second), Ended: s.ended}
	for _, w := range run {
		st.Running = append(st.Running, w.what)
	}
	st.Left = time.Duration(max(0, left) * ratio / float64(s.nWorkers) * float64(time.Second)).Round(time.Second)
	return st
}

// waitHeap orders waiting fits costliest first, then by arrival.
type waitHeap []*waiter

func (h waitHeap) Len() int           { return len(h) }
func (h waitHeap) Less(i, j int) bool { return before(h[i], h[j]) }
func (h waitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *waitHeap) Push(x any)        { *h = append(*h, x.(*waiter)) }
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	return w
}

// before says whether a goes before b: costlier, or as costly and asked
// earlier.
func before(a, b *waiter) bool {
	if a.cost != b.cost {
		return a.cost > b.cost
	}
	return a.order < b.order
}
