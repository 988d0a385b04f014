package client

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// limiter is the request budget of one Client: a steady rate, a cap on
// requests in flight, and a pause that a 429 imposes on every caller.
//
// The API's own limit is not documented, so a 429 also halves the rate
// (never below minRate), which then climbs back to the configured budget by
// recoveryPerSecond requests per second every second after the 429: a
// server that allows less than the budget is not hit again as soon as the
// pause ends, and a server that allows the budget keeps it.
type limiter struct {
	rate     *rate.Limiter
	budget   float64 // configured requests per second: the ceiling
	inFlight chan struct{}
	clock    poll.Clock

	mu          sync.Mutex
	pausedUntil time.Time
	current     float64   // requests per second allowed now
	adjusted    time.Time // when current last changed
}

const (
	minRate           = 1.0 // requests per second, or the budget if lower
	recoveryPerSecond = 0.5
)

func newLimiter(requestsPerSecond float64, concurrency int, clock poll.Clock) *limiter {
	return &limiter{
		rate:     rate.NewLimiter(rate.Limit(requestsPerSecond), burstOf(requestsPerSecond)),
		budget:   requestsPerSecond,
		current:  requestsPerSecond,
		inFlight: make(chan struct{}, concurrency),
		clock:    clock,
	}
}

// burstOf is half a second's worth of requests: a server that counts with a
// bucket of its own, refilled out of step with ours, keeps room for the
// difference, where a burst of a whole second's worth would meet an
// emptier bucket with a 429.
func burstOf(requestsPerSecond float64) int {
	return int(math.Max(1, math.Ceil(requestsPerSecond/2)))
}

// acquire waits for a pause to end, a token and a free slot, in that order,
// and returns the function that frees the slot.
func (l *limiter) acquire(ctx context.Context) (func(), error) {
	for {
		l.mu.Lock()
		now := l.clock.Now()
		wait := l.pausedUntil.Sub(now)
		if wait <= 0 {
			l.recoverLocked(now)
		}
		l.mu.Unlock()
		if wait <= 0 {
			break
		}
		if err := poll.Sleep(ctx, l.clock, wait); err != nil {
			return nil, err
		}
	}
	if err := l.rate.Wait(ctx); err != nil {
		if ctx.Err() == nil {
			// The limiter refuses waits that would outlast the deadline.
			return nil, fmt.Errorf("%w (the request budget has no room before the deadline)", context.DeadlineExceeded)
		}
		return nil, ctx.Err()
	}
	select {
	case l.inFlight <- struct{}{}:
		return func() { <-l.inFlight }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// recordThrottle records a 429: every caller is held for d (a pause is extended,
// never shortened), and the rate is halved unless a pause is already in
// place: answers to requests sent before it say nothing new.
func (l *limiter) recordThrottle(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if !now.Before(l.pausedUntil) {
		l.setRateLocked(now, math.Max(l.current/2, math.Min(minRate, l.budget)))
	}
	if until := now.Add(d); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
}

// recoverLocked raises a halved rate back towards the budget.
func (l *limiter) recoverLocked(now time.Time) {
	if l.current >= l.budget {
		return
	}
	if elapsed := now.Sub(l.adjusted).Seconds(); elapsed > 0 {
		l.setRateLocked(now, math.Min(l.budget, l.current+recoveryPerSecond*elapsed))
	}
}

func (l *limiter) setRateLocked(now time.Time, r float64) {
	l.current, l.adjusted = r, now
	l.rate.SetLimit(rate.Limit(r))
	l.rate.SetBurst(burstOf(r))
}

// jitter lengthens the wait of the caller that met a 429 by up to 20%, so
// that its retry does not land exactly when the others are released.
func (l *limiter) jitter(d time.Duration) time.Duration {
	return d + time.Duration(rand.Float64()*0.2*float64(d))
}
