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
type limiter struct {
	rate     *rate.Limiter
	inFlight chan struct{}
	clock    poll.Clock

	mu          sync.Mutex
	pausedUntil time.Time
}

func newLimiter(requestsPerSecond float64, concurrency int, clock poll.Clock) *limiter {
	burst := int(math.Max(1, math.Ceil(requestsPerSecond)))
	return &limiter{
		rate:     rate.NewLimiter(rate.Limit(requestsPerSecond), burst),
		inFlight: make(chan struct{}, concurrency),
		clock:    clock,
	}
}

// acquire waits for a pause to end, a token and a free slot, in that order,
// and returns the function that frees the slot.
func (l *limiter) acquire(ctx context.Context) (func(), error) {
	for {
		l.mu.Lock()
		wait := l.pausedUntil.Sub(l.clock.Now())
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

// pause holds every caller for d (extending, never shortening, a pause).
func (l *limiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.clock.Now().Add(d); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
}

// jitter spreads d by up to +20% so callers released by one pause do not
// arrive together.
func (l *limiter) jitter(d time.Duration) time.Duration {
	return d + time.Duration(rand.Float64()*0.2*float64(d))
}
