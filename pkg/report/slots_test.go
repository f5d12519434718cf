package report

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSlotsCostliestFirst: with the one slot held, waiting fits get it
// costliest first, ties in the order they asked; each study's time is
// what its fits held.
func TestSlotsCostliestFirst(t *testing.T) {
	s := newSlots(1, 10)
	release, err := s.acquire(context.Background(), "a", 1, "a seed 1")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 3)
	for i, w := range []struct {
		what string
		cost float64
	}{{"small", 1}, {"big", 5}, {"big too", 5}} {
		go func() {
			r, err := s.acquire(context.Background(), "b", w.cost, w.what)
			if err != nil {
				t.Error(err)
				return
			}
			got <- w.what
			r()
		}()
		waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiting) == i+1 })
	}
	if st := s.status(); len(st.Running) != 1 || st.Running[0] != "a seed 1" || st.Ended != 0 {
		t.Errorf("status while one holds the slot: %+v", st)
	}
	release()
	release() // a second release is a no-op
	for _, want := range []string{"big", "big too", "small"} {
		if g := <-got; g != want {
			t.Errorf("slot went to %q, want %q", g, want)
		}
	}
	waitFor(t, func() bool { return s.status().Ended == 4 })
	if s.free != 1 {
		t.Errorf("%d free slots after every release, want 1", s.free)
	}
	if s.seconds("a") <= 0 || s.seconds("b") <= 0 || s.seconds("c") != 0 {
		t.Errorf("busy seconds a %g, b %g, c %g", s.seconds("a"), s.seconds("b"), s.seconds("c"))
	}
}

// TestSlotsCancelled: a fit whose context ends while it waits gets the
// context's error and never the slot, which goes to the next.
func TestSlotsCancelled(t *testing.T) {
	s := newSlots(1, 3)
	release, _ := s.acquire(context.Background(), "a", 1, "first")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := s.acquire(ctx, "a", 9, "cancelled")
		errc <- err
	}()
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiting) == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want context.Canceled", err)
	}
	granted := make(chan struct{})
	go func() {
		r, err := s.acquire(context.Background(), "a", 1, "next")
		if err == nil {
			close(granted)
			r()
		}
	}()
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiting) == 2 })
	release()
	select {
	case <-granted:
	case <-time.After(10 * time.Second):
		t.Fatal("the slot never reached the fit after the cancelled one")
	}
}

// TestSlotsLeft: the estimate of the time left is the expected seconds
// not yet done, scaled by measured over expected, over the workers.
func TestSlotsLeft(t *testing.T) {
	s := newSlots(2, 100)
	s.done, s.took = 20, 40 // what ended took twice its expected time
	if got, want := s.status().Left, 80*time.Second; got != want {
		t.Errorf("left %v, want %v ((100 - 20) x 2 / 2 workers)", got, want)
	}
}

// waitFor polls cond until it holds (10 s at most).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition never held")
		}
	}
}
