package client

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

// Time is virtual inside each synctest bubble: a sleep moves it exactly, and
// a caller that had to wait shows it as time passed.

// rateLog records the gate's rate changes.
type rateLog struct {
	mu      sync.Mutex
	changes []map[string]any
}

func (r *rateLog) Debug(_ context.Context, msg string, fields map[string]any) {
	if msg != "request rate changed" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, fields)
}

func (r *rateLog) last() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.changes) == 0 {
		return nil
	}
	return r.changes[len(r.changes)-1]
}

// sendSteadily acquires n slots, one every interval at most, and reports when the
// last one was sent.
func sendSteadily(t *testing.T, l *gate, n int, interval time.Duration) time.Time {
	t.Helper()
	var sent time.Time
	for i := range n {
		if i > 0 {
			time.Sleep(interval)
		}
		sent = acquire(t, l)
	}
	return sent
}

// sendFor acquires slots, one every interval at most, for d.
func sendFor(t *testing.T, l *gate, d, interval time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(interval) {
		acquire(t, l)
	}
}

// throttledAt20 is an adaptive gate that sent 21 requests in a second and
// met a 429 on the last: 20 accepted. It returns the refused request's send
// time.
func throttledAt20(t *testing.T) (*gate, *rateLog, time.Time) {
	t.Helper()
	log := &rateLog{}
	l := newGate(0, 4, clock.RealClock, log)
	sent := sendSteadily(t, l, 21, 45*time.Millisecond)
	l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
	return l, log, sent
}

func TestNoRateUntilTheServerPushesBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newGate(0, 4, clock.RealClock, &rateLog{})
		start := time.Now()
		for range 1000 {
			acquireNow(t, l)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("1000 requests without a 429 waited %s, want no wait at all", waited)
		}
	})
}

func TestCeilingBoundsTheRequestsOfAnySecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newGate(5, 4, clock.RealClock, &rateLog{})
		start := time.Now()
		var sent []time.Time
		for range 11 {
			sent = append(sent, acquire(t, l))
		}
		// A burst within the ceiling leaves at once; the next waits until the
		// first leaves the second (widened by the skew margin).
		for i, at := range sent {
			want := start.Add(time.Duration(i/5) * (sendWindow + skewMargin))
			if !at.Equal(want) {
				t.Errorf("request %d at a ceiling of 5/s left after %s, want %s", i, at.Sub(start), want.Sub(start))
			}
		}
	})
}

func TestFractionalCeilingsSpaceRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, ceiling := range []float64{0.5, 1.5} {
			l := newGate(ceiling, 4, clock.RealClock, &rateLog{})
			gap := time.Duration(float64(time.Second) / ceiling)
			prev := acquire(t, l)
			for i := 1; i < 4; i++ {
				at := acquire(t, l)
				if at.Sub(prev) < gap {
					t.Errorf("ceiling %v/s: requests %d and %d left %s apart, want at least %s", ceiling, i-1, i, at.Sub(prev), gap)
				}
				prev = at
			}
		}
	})
}

func TestLearnedLimitIsForgottenWithoutA429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, log, _ := throttledAt20(t)
		time.Sleep(forgetAfter - time.Second)
		acquire(t, l)
		if !l.paced() {
			t.Fatalf("limit forgotten %s after its 429, want it kept until %s", forgetAfter-time.Second, forgetAfter)
		}
		time.Sleep(2 * time.Second)
		acquire(t, l)
		if l.paced() || !math.IsInf(l.currentRate(), 1) {
			t.Errorf("rate %s after the last 429 = %v, paced %v; want the limit forgotten", forgetAfter+time.Second, l.currentRate(), l.paced())
		}
		if c := log.last(); c["new_rate"] != "unlimited" {
			t.Errorf("logged change = %v, want new_rate unlimited", c)
		}
	})
}

func TestRateLimitedAnswerLowersTheRateUntilItRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, log, sent := throttledAt20(t)
		if got := l.currentRate(); got != 14 {
			t.Fatalf("rate after a 429 to 20 requests/s = %v, want 0.7 x 20 = 14", got)
		}
		if c := log.last(); c["old_rate"] != "unlimited" || c["new_rate"] != 14.0 || c["reason"] == "" {
			t.Errorf("logged change = %v, want old_rate unlimited, new_rate 14 and a reason", c)
		}
		// A request of that second refused with it was counted as accepted:
		// the limit is one lower, however late its answer.
		time.Sleep(1200 * time.Millisecond)
		l.recordThrottle(t.Context(), sent.Add(-45*time.Millisecond), time.Second, "HTTP 429 to GET /x")
		if got := l.currentRate(); math.Abs(got-0.7*19) > 1e-9 {
			t.Fatalf("rate after a 429 to another request of that second = %v, want 0.7 x 19 = 13.3", got)
		}
		// One sent long before says nothing.
		l.recordThrottle(t.Context(), sent.Add(-5*time.Second), time.Second, "HTTP 429 to GET /x")
		if got := l.currentRate(); math.Abs(got-0.7*19) > 1e-9 {
			t.Fatalf("rate after a 429 to a request sent seconds before = %v, want it unchanged at 13.3", got)
		}

		// The curve regains 19 about 2.5s after the 429 and stays near it.
		time.Sleep(time.Second) // the pause
		sendSteadily(t, l, 30, 50*time.Millisecond)
		if got := l.currentRate(); got < 18 || got > 20 {
			t.Errorf("rate 2.5s after the 429 = %v, want back near 19", got)
		}
		if c := log.last(); c["reason"] == "" {
			t.Errorf("a recovery step was logged without a reason: %v", c)
		}

		// Past the rate of the last 429 it grows only while callers ask for it.
		before := l.currentRate()
		time.Sleep(time.Minute)
		acquireNow(t, l)
		if got := l.currentRate(); got != before {
			t.Errorf("rate after a minute idle = %v, want it unchanged at %v", got, before)
		}
		sendSteadily(t, l, 40, 25*time.Millisecond) // 40/s, if the rate allows
		if got := l.currentRate(); got > 20 {
			t.Errorf("rate a second into callers wanting more = %v, want it held near 19 for %s first", got, firstPlateau)
		}
		sendSteadily(t, l, 400, 25*time.Millisecond)
		if got := l.currentRate(); got <= 20 {
			t.Errorf("rate while callers want more for 10s = %v, want it probing above 19", got)
		}

		// A 429 to a request sent after the last one lowers it again.
		sent = acquire(t, l)
		before = l.currentRate()
		l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
		if got := l.currentRate(); got >= before {
			t.Errorf("rate after a later 429 = %v, want below %v", got, before)
		}
	})
}

func TestFailedProbeReturnsToTheLimitAndWaitsLongerBeforeTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, log, _ := throttledAt20(t)
		time.Sleep(time.Second)
		// Callers want 40/s until the rate probes above 20.
		for l.currentRate() <= 20 {
			sendSteadily(t, l, 10, 25*time.Millisecond)
		}
		// The server still accepts 20 in a second: the probe's 429.
		sent := acquire(t, l)
		l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
		if got := l.currentRate(); got < 19 || got > 21 {
			t.Fatalf("rate after a failed probe = %v, want back at about 20, the limit, not 0.7 of it", got)
		}
		if l.ctl.plateau != 2*firstPlateau {
			t.Errorf("hold before the next probe = %s, want twice %s", l.ctl.plateau, firstPlateau)
		}
		if c := log.last(); !strings.Contains(fmt.Sprint(c["reason"]), "limit stands") {
			t.Errorf("logged reason = %v, want it to say the limit stands", c["reason"])
		}
		// The rate holds at the limit for the doubled plateau while callers
		// want more, then probes again.
		time.Sleep(time.Second) // the pause
		sendFor(t, l, 8*time.Second, 25*time.Millisecond)
		if got := l.currentRate(); got > 21 {
			t.Errorf("rate 9s after the failed probe = %v, want it still held at about 20", got)
		}
		sendFor(t, l, 4*time.Second, 25*time.Millisecond)
		if got := l.currentRate(); got <= 21 {
			t.Errorf("rate 13s after the failed probe = %v, want it probing again", got)
		}
	})
}

func TestRequestsRefusedTogetherCountOnceAndNotAsAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newGate(0, 30, clock.RealClock, &rateLog{})
		// 20 accepted, then 3 sent at once that are all refused.
		sendSteadily(t, l, 20, 45*time.Millisecond)
		time.Sleep(10 * time.Millisecond)
		refused := []time.Time{acquireNow(t, l), acquireNow(t, l), acquireNow(t, l)}
		for _, sent := range refused {
			l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
		}
		if got := l.currentRate(); got != 14 {
			t.Errorf("rate after 3 simultaneous 429s over 20 accepted = %v, want 0.7 x 20 = 14", got)
		}
		if l.ctl.limit != 20 {
			t.Errorf("limit learned = %v, want the 20 accepted", l.ctl.limit)
		}
	})
}

func TestPauseHoldsEveryCallerAndReleasesThemGradually(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newGate(0, 20, clock.RealClock, &rateLog{})
		sent := sendSteadily(t, l, 11, 90*time.Millisecond) // 10 accepted, 1 refused
		throttled := time.Now()
		l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
		if got := l.currentRate(); got != 7 {
			t.Fatalf("rate after a 429 to 10 requests/s = %v, want 7", got)
		}

		var mu sync.Mutex
		var released []time.Time
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				acquire(t, l)
				mu.Lock()
				released = append(released, time.Now())
				mu.Unlock()
			})
		}
		wg.Wait()
		// The rate climbs from 7/s back towards 10/s meanwhile: callers
		// leave no closer than about a tenth of a second apart.
		for i, at := range released {
			if at.Sub(throttled) < time.Second {
				t.Fatalf("a caller went %s after the 429, within its 1s pause", at.Sub(throttled))
			}
			if i > 0 && at.Sub(released[i-1]) < 90*time.Millisecond {
				t.Errorf("callers %d and %d were released %s apart, want them spaced at the rate, about 100ms or more", i-1, i, at.Sub(released[i-1]))
			}
		}
	})
}

func TestPauseIsExtendedNeverShortened(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newGate(0, 4, clock.RealClock, &rateLog{})
		sent := acquireNow(t, l)
		start := time.Now()
		l.recordThrottle(t.Context(), sent, 5*time.Second, "HTTP 429 to GET /x")
		l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
		acquire(t, l)
		if waited := time.Since(start); waited != 5*time.Second {
			t.Errorf("held for %s, want the longer pause, 5s", waited)
		}
	})
}

func TestRateNeverFallsBelowTheFloorOrRisesAboveTheCeiling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct{ ceiling, floor float64 }{{0, minRate}, {20, minRate}, {1.5, minRate}, {0.5, 0.5}} {
			l := newGate(tc.ceiling, 4, clock.RealClock, &rateLog{})
			for range 10 {
				sent := acquire(t, l)
				l.recordThrottle(t.Context(), sent, time.Second, "HTTP 429 to GET /x")
				time.Sleep(time.Second)
			}
			if got := l.currentRate(); got != tc.floor {
				t.Errorf("ceiling %v: rate after many 429s = %v, want %v", tc.ceiling, got, tc.floor)
			}
			if tc.ceiling == 0 {
				continue
			}
			time.Sleep(time.Hour)
			sendSteadily(t, l, 50, 10*time.Millisecond)
			if got := l.currentRate(); got != tc.ceiling {
				t.Errorf("ceiling %v: rate long after, with callers wanting more = %v, want the ceiling", tc.ceiling, got)
			}
		}
	})
}

func (g *gate) currentRate() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ctl.rate
}

// acquire takes a request slot, waiting as the gate says, and frees it.
func acquire(t *testing.T, l *gate) time.Time {
	t.Helper()
	sent, release, err := l.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	release()
	return sent
}

// acquireNow takes a request slot, failing if it had to wait.
func acquireNow(t *testing.T, l *gate) time.Time {
	t.Helper()
	start := time.Now()
	at := acquire(t, l)
	if waited := at.Sub(start); waited > 0 {
		t.Fatalf("a request waited %s, want none", waited)
	}
	return at
}
