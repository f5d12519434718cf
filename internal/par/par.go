// Package par runs the row work of one fit on a small fixed set of
// goroutines. Work is always split by a fixed rule (Range: worker w of T
// owns the same rows every time), and callers split only dimensions that
// are not summed, so results are the same bits for any number of threads.
package par

import (
	"context"
	"runtime"
	"sync"
)

// MinWork is the least number of values a step writes (or, for a
// reduction, reads) for it to be spread over the threads: waking the
// workers costs about as much as evaluating a few thousand values. Tests
// set it to 0 to split every step.
var MinWork = 4096

// Pool is a fixed set of workers. A nil Pool runs everything on the
// calling goroutine, and so does a Run that finds the workers busy with
// another Run (a second goroutine, or a Run inside a Run), calling f for
// each worker in turn: the same work, so the same results.
type Pool struct {
	n      int
	work   []chan func(int)
	wg     sync.WaitGroup
	busy   sync.Mutex
	closed bool
}

// Threads resolves a thread setting: 0 (or less) means GOMAXPROCS, and
// more is capped there: a thread beyond the cores only waits its turn,
// and a typo such as 1e9 would start a goroutine each.
func Threads(n int) int {
	if n <= 0 || n > runtime.GOMAXPROCS(0) {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// New starts a pool of n threads (the caller counts as one); n < 2 gives
// nil, the sequential pool. Close stops it.
func New(n int) *Pool {
	if n < 2 {
		return nil
	}
	p := &Pool{n: n, work: make([]chan func(int), n-1)}
	for i := range p.work {
		ch := make(chan func(int))
		p.work[i] = ch
		go func(w int) {
			for f := range ch {
				f(w)
				p.wg.Done()
			}
		}(i + 1)
	}
	return p
}

// Threads is the number of workers (1 for nil).
func (p *Pool) Threads() int {
	if p == nil {
		return 1
	}
	return p.n
}

// Run calls f(w) for every worker w concurrently, f(0) on the caller, and
// returns when all have returned.
func (p *Pool) Run(f func(w int)) {
	if p == nil {
		f(0)
		return
	}
	if !p.busy.TryLock() {
		p.inTurn(f)
		return
	}
	defer p.busy.Unlock()
	if p.closed {
		p.inTurn(f)
		return
	}
	p.wg.Add(p.n - 1)
	for _, ch := range p.work {
		ch <- f
	}
	f(0)
	p.wg.Wait()
}

// inTurn calls f for every worker on the calling goroutine.
func (p *Pool) inTurn(f func(w int)) {
	for w := range p.n {
		f(w)
	}
}

// For splits [0, n) into the pool's fixed ranges and calls f on each
// non-empty one concurrently.
func (p *Pool) For(n int, f func(lo, hi int)) {
	t := p.Threads()
	if t == 1 || n < 2 {
		f(0, n)
		return
	}
	p.Run(func(w int) {
		if lo, hi := Range(n, w, t); lo < hi {
			f(lo, hi)
		}
	})
}

// Range is worker w's share [lo, hi) of n items split among t workers.
func Range(n, w, t int) (lo, hi int) { return n * w / t, n * (w + 1) / t }

// Close stops the workers; a Run after it calls f for each worker on the
// calling goroutine.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.busy.Lock()
	defer p.busy.Unlock()
	if !p.closed {
		p.closed = true
		for _, ch := range p.work {
			close(ch)
		}
	}
}

// threadsKey is the context key of WithThreads.
type threadsKey struct{}

// WithThreads returns ctx carrying a bound on the threads of each fit run
// under it: a runner of W fits at once gives each GOMAXPROCS/W. Bounds
// nest: under a bound already in ctx the smaller holds, so a runner inside
// a plan that shares the cores among several runners keeps the plan's.
func WithThreads(ctx context.Context, n int) context.Context {
	n = max(1, n)
	if b, ok := ctx.Value(threadsKey{}).(int); ok {
		n = min(n, b)
	}
	return context.WithValue(ctx, threadsKey{}, n)
}

// ForFit is the number of threads of one fit under ctx asked for n (0:
// GOMAXPROCS), bounded by WithThreads.
func ForFit(ctx context.Context, n int) int {
	t := Threads(n)
	if b, ok := ctx.Value(threadsKey{}).(int); ok {
		t = min(t, b)
	}
	return t
}
