package par

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestRange: the blocks of every split cover [0, n) once, in order.
func TestRange(t *testing.T) {
	for n := range 20 {
		for threads := 1; threads <= 5; threads++ {
			next := 0
			for w := range threads {
				lo, hi := Range(n, w, threads)
				if lo != next || hi < lo {
					t.Fatalf("n %d, %d threads: block %d is [%d, %d), want from %d", n, threads, w, lo, hi, next)
				}
				next = hi
			}
			if next != n {
				t.Fatalf("n %d, %d threads: blocks end at %d", n, threads, next)
			}
		}
	}
}

// TestPoolRun: every worker runs once per Run, on the pool, inside
// another Run (in turn on the caller) and after Close.
func TestPoolRun(t *testing.T) {
	p := New(3)
	count := func() int64 {
		var seen [3]atomic.Int64
		p.Run(func(w int) { seen[w].Add(1) })
		var sum int64
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("worker %d ran %d times", i, seen[i].Load())
			}
			sum += seen[i].Load()
		}
		return sum
	}
	count()
	p.Run(func(w int) {
		if w == 0 {
			count() // the workers are busy: in turn on this goroutine
		}
	})
	p.Close()
	count()
	if New(1) != nil || New(0).Threads() != 1 {
		t.Error("one thread should be the nil pool")
	}
}

// TestForFit: a runner's share bounds a fit's threads.
func TestForFit(t *testing.T) {
	if got := ForFit(context.Background(), 0); got != runtime.GOMAXPROCS(0) {
		t.Errorf("0 threads: %d, want GOMAXPROCS", got)
	}
	ctx := WithThreads(context.Background(), 2)
	for _, c := range [][2]int{{0, min(2, runtime.GOMAXPROCS(0))}, {1, 1}, {8, 2}} {
		if got := ForFit(ctx, c[0]); got != c[1] {
			t.Errorf("share 2, asked %d: %d threads, want %d", c[0], got, c[1])
		}
	}
	if got := ForFit(WithThreads(context.Background(), 0), 5); got != 1 {
		t.Errorf("share 0: %d threads, want 1", got)
	}
	// Nested bounds: the smaller holds, whichever is outer.
	for _, c := range [][3]int{{1, 4, 1}, {4, 1, 1}, {3, 2, 2}} {
		if got := ForFit(WithThreads(WithThreads(context.Background(), c[0]), c[1]), 8); got != min(c[2], runtime.GOMAXPROCS(0)) {
			t.Errorf("share %d inside share %d: %d threads, want %d", c[1], c[0], got, min(c[2], runtime.GOMAXPROCS(0)))
		}
	}
	// 4096 threads on fewer cores started a goroutine each.
	if got := ForFit(context.Background(), 4096); got != runtime.GOMAXPROCS(0) {
		t.Errorf("4096 threads: %d, want GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}
