package poll

import (
	"context"
	"errors"
	"testing"
	"time"
)

// within fails the test if f does not return within a second of real time.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatalf("%s did not return promptly", what)
	}
}

func TestSleepWaitsForTheClock(t *testing.T) {
	c := NewFakeClock(simEpoch)
	errc := make(chan error, 1)
	go func() { errc <- Sleep(context.Background(), c, 5*time.Second) }()

	within(t, "BlockUntilWaiters", func() { c.BlockUntilWaiters(1) })
	c.Advance(4 * time.Second)
	select {
	case err := <-errc:
		t.Fatalf("Sleep returned %v before its time", err)
	case <-time.After(10 * time.Millisecond):
	}
	c.Advance(time.Second)
	within(t, "Sleep", func() {
		if err := <-errc; err != nil {
			t.Errorf("Sleep = %v, want nil", err)
		}
	})
}

func TestSleepStopsWhenContextEnds(t *testing.T) {
	c := NewFakeClock(simEpoch)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Sleep(ctx, c, time.Hour) }()
	within(t, "BlockUntilWaiters", func() { c.BlockUntilWaiters(1) })
	cancel()
	within(t, "Sleep", func() {
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep = %v, want context.Canceled", err)
		}
	})
}

func TestSleepOnDoneContextReturnsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{0, time.Hour} {
		if err := Sleep(ctx, RealClock, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(%s) = %v, want context.Canceled", d, err)
		}
	}
	if err := Sleep(context.Background(), NewFakeClock(simEpoch), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}

func TestSleepRealClock(t *testing.T) {
	start := time.Now()
	if err := Sleep(context.Background(), RealClock, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 2*time.Millisecond {
		t.Errorf("slept %s, want at least 2ms", elapsed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	within(t, "Sleep", func() {
		if err := Sleep(ctx, RealClock, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Sleep = %v, want context.DeadlineExceeded", err)
		}
	})
}

func TestFakeClockFiresDueWaitersInOrder(t *testing.T) {
	c := NewFakeClock(simEpoch)
	late, early := c.After(3*time.Second), c.After(time.Second)
	if n := c.Waiters(); n != 2 {
		t.Fatalf("Waiters = %d, want 2", n)
	}
	d, ok := c.AdvanceToNext()
	if !ok || d != time.Second {
		t.Fatalf("AdvanceToNext = %s, %v; want 1s, true", d, ok)
	}
	select {
	case at := <-early:
		if !at.Equal(simEpoch.Add(time.Second)) {
			t.Errorf("fired at %s", at)
		}
	default:
		t.Fatal("due waiter did not fire")
	}
	select {
	case <-late:
		t.Fatal("waiter fired early")
	default:
	}
	c.Advance(5 * time.Second)
	<-late
	if got := c.Now(); !got.Equal(simEpoch.Add(6 * time.Second)) {
		t.Errorf("Now = %s", got)
	}
	if _, ok := c.AdvanceToNext(); ok {
		t.Error("AdvanceToNext with no waiters reported one")
	}
}

func TestFakeClockAutoAdvance(t *testing.T) {
	c := NewFakeClock(simEpoch)
	c.SetAutoAdvance(true)
	if err := Sleep(context.Background(), c, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(simEpoch); got != time.Minute {
		t.Errorf("clock moved %s, want 1m", got)
	}
	if n := c.Waiters(); n != 0 {
		t.Errorf("Waiters = %d after auto advance", n)
	}
}
