package client

import (
	"context"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

func TestRateLimitedAnswerHalvesTheRateUntilItRecovers(t *testing.T) {
	clock := poll.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := newLimiter(20, 4, clock)
	rateNow := func() float64 { return float64(l.rate.Limit()) }

	l.recordThrottle(time.Second)
	if got := rateNow(); got != 10 {
		t.Fatalf("rate after a 429 = %v, want 10", got)
	}
	if got := l.rate.Burst(); got != 5 {
		t.Errorf("burst after a 429 = %d, want half a second's worth, 5", got)
	}
	// Answers to requests sent before the pause do not halve it again.
	clock.Advance(500 * time.Millisecond)
	l.recordThrottle(time.Second)
	if got := rateNow(); got != 10 {
		t.Fatalf("rate after a second 429 within the pause = %v, want 10", got)
	}

	// The rate climbs back from the first 429 on; the pause ends 1.5s after it.
	clock.Advance(time.Second)
	acquireNow(t, l)
	if got, want := rateNow(), 10+1.5*recoveryPerSecond; got != want {
		t.Errorf("rate as the pause ends = %v, want %v", got, want)
	}
	clock.Advance(4 * time.Second)
	acquireNow(t, l)
	if got, want := rateNow(), 10+5.5*recoveryPerSecond; got != want {
		t.Errorf("rate 4s after the pause = %v, want %v", got, want)
	}
	clock.Advance(time.Hour)
	acquireNow(t, l)
	if got := rateNow(); got != 20 {
		t.Errorf("rate long after = %v, want the budget, 20", got)
	}

	// A 429 after the pause ended halves the rate again.
	l.recordThrottle(time.Second)
	if got := rateNow(); got != 10 {
		t.Errorf("rate after a later 429 = %v, want 10", got)
	}
}

func TestRateNeverFallsBelowTheFloorOrRisesAboveTheBudget(t *testing.T) {
	for _, tc := range []struct{ budget, floor float64 }{{20, minRate}, {1.5, minRate}, {0.5, 0.5}} {
		clock := poll.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		l := newLimiter(tc.budget, 4, clock)
		for range 10 {
			l.recordThrottle(time.Second)
			clock.Advance(time.Second)
		}
		if got := l.rate.Limit(); got != rate.Limit(tc.floor) {
			t.Errorf("budget %v: rate after many 429s = %v, want %v", tc.budget, got, tc.floor)
		}
		clock.Advance(time.Hour)
		acquireNow(t, l)
		if got := l.rate.Limit(); got != rate.Limit(tc.budget) {
			t.Errorf("budget %v: rate long after = %v, want the budget", tc.budget, got)
		}
	}
}

// acquireNow takes a request slot, failing if it would have to wait for a
// pause (the fake clock does not move by itself).
func acquireNow(t *testing.T, l *limiter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l.mu.Lock()
	paused := l.clock.Now().Before(l.pausedUntil)
	l.mu.Unlock()
	if paused {
		t.Fatal("still paused")
	}
	release, err := l.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release()
}
