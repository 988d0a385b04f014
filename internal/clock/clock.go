package clock

import (
	"context"
	"time"
)

// Clock is the source of time for every wait, injectable so tests and
// simulations run without real sleeping.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has elapsed.
	// It does not observe any context; Sleep adds that.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock.
var RealClock Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Sleep waits for d on c, returning early with ctx.Err() when ctx is done.
// A non-positive d only checks ctx.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	if c == nil {
		c = RealClock
	}
	if c == RealClock {
		// A stoppable timer releases its resources at once on cancellation.
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.After(d):
		return nil
	}
}
