package client

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// Time is virtual inside each synctest bubble: a sleep moves it exactly.

func TestRateLimitedAnswerHalvesTheRateUntilItRecovers(t *testing.T) {
	synctest.Test(t, testRateLimitedAnswerHalvesTheRateUntilItRecovers)
}

func testRateLimitedAnswerHalvesTheRateUntilItRecovers(t *testing.T) {
	l := newLimiter(20, 4, poll.RealClock)
	rateNow := func() float64 { return float64(l.rate.Limit()) }

	l.recordThrottle(time.Second)
	if got := rateNow(); got != 10 {
		t.Fatalf("rate after a 429 = %v, want 10", got)
	}
	if got := l.rate.Burst(); got != 5 {
		t.Errorf("burst after a 429 = %d, want half a second's worth, 5", got)
	}
	// Answers to requests sent before the pause do not halve it again.
	time.Sleep(500 * time.Millisecond)
	l.recordThrottle(time.Second)
	if got := rateNow(); got != 10 {
		t.Fatalf("rate after a second 429 within the pause = %v, want 10", got)
	}

	// The rate climbs back from the first 429 on; the pause ends 1.5s after it.
	time.Sleep(time.Second)
	acquireNow(t, l)
	if got, want := rateNow(), 10+1.5*recoveryPerSecond; got != want {
		t.Errorf("rate as the pause ends = %v, want %v", got, want)
	}
	time.Sleep(4 * time.Second)
	acquireNow(t, l)
	if got, want := rateNow(), 10+5.5*recoveryPerSecond; got != want {
		t.Errorf("rate 4s after the pause = %v, want %v", got, want)
	}
	time.Sleep(time.Hour)
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
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct{ budget, floor float64 }{{20, minRate}, {1.5, minRate}, {0.5, 0.5}} {
			l := newLimiter(tc.budget, 4, poll.RealClock)
			for range 10 {
				l.recordThrottle(time.Second)
				time.Sleep(time.Second)
			}
			if got := l.rate.Limit(); got != rate.Limit(tc.floor) {
				t.Errorf("budget %v: rate after many 429s = %v, want %v", tc.budget, got, tc.floor)
			}
			time.Sleep(time.Hour)
			acquireNow(t, l)
			if got := l.rate.Limit(); got != rate.Limit(tc.budget) {
				t.Errorf("budget %v: rate long after = %v, want the budget", tc.budget, got)
			}
		}
	})
}

// acquireNow takes a request slot, failing if it would have to wait for a
// pause (time moves only when the test sleeps).
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
