package poll

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Observation is what one poll saw.
type Observation struct {
	Status string
	// Final is decided by the caller (e.g. completed or failed). Unknown
	// statuses must not be final: the wait stays bounded by the context.
	Final     bool
	Progress  *float64 // percent, 0..100, if reported
	PageCount *int
}

// CheckFunc performs one poll. Errors marked with Permanent stop the wait at
// once; any other error is transient and counts against
// Policy.MaxConsecutiveErrors.
type CheckFunc func(ctx context.Context) (Observation, error)

// Until polls check until it reports Final, returns a permanent error,
// exhausts the error budget, or ctx ends. The first check happens at once.
//
// It returns the final observation, or the last successful one together with
// the error: the permanent error itself, an *ErrorBudgetError or a
// *TimeoutError.
func Until(ctx context.Context, p Policy, check CheckFunc) (Observation, error) {
	s := NewScheduler(p)
	p = s.Policy()
	w := waiter{ctx: ctx, p: p, start: p.Clock.Now()}

	for {
		if err := ctx.Err(); err != nil {
			return w.last, w.timeout(err)
		}
		obs, err := check(ctx)
		w.polls++
		var d Decision
		if err != nil {
			var pe *PermanentError
			if errors.As(err, &pe) {
				if err == error(pe) {
					return w.last, pe.Err
				}
				return w.last, err
			}
			if ctx.Err() != nil {
				// The check failed because the wait ended, not the service.
				w.lastErr = err
				return w.last, w.timeout(ctx.Err())
			}
			w.lastErr = err
			d = s.DecideError(p.Clock.Now())
			w.logf("poll failed", map[string]any{"error": err.Error(), "consecutive_errors": s.errors, "wait": d.Wait.String()})
			if s.errors >= p.MaxConsecutiveErrors {
				return w.last, &ErrorBudgetError{Last: w.last, Seen: w.seen, Errors: s.errors, Err: err, Waited: w.waited()}
			}
		} else {
			w.last, w.seen, w.lastErr = obs, true, nil
			if obs.Final {
				return obs, nil
			}
			w.checkStatus(obs.Status)
			d = s.Decide(p.Clock.Now(), obs)
			w.logDecision(obs, d)
		}
		if err := Sleep(ctx, p.Clock, d.Wait); err != nil {
			return w.last, w.timeout(err)
		}
	}
}

// waiter holds what Until reports about a wait in progress.
type waiter struct {
	ctx     context.Context
	p       Policy
	start   time.Time
	last    Observation
	seen    bool
	polls   int
	lastErr error
	unknown map[string]bool
}

func (w *waiter) waited() time.Duration { return w.p.Clock.Now().Sub(w.start) }

func (w *waiter) timeout(cause error) error {
	return &TimeoutError{Last: w.last, Seen: w.seen, Waited: w.waited(), Polls: w.polls, Cause: cause, LastErr: w.lastErr}
}

// checkStatus logs a status the caller does not know, once per status.
func (w *waiter) checkStatus(status string) {
	if len(w.p.KnownStatuses) == 0 || slices.Contains(w.p.KnownStatuses, status) || w.unknown[status] {
		return
	}
	if w.unknown == nil {
		w.unknown = map[string]bool{}
	}
	w.unknown[status] = true
	w.logf("unknown status, treated as not final", map[string]any{"status": status, "known_statuses": w.p.KnownStatuses})
}

func (w *waiter) logDecision(obs Observation, d Decision) {
	if w.p.Logf == nil {
		return
	}
	fields := map[string]any{"status": obs.Status, "mode": string(d.Mode), "wait": d.Wait.String(), "poll": w.polls}
	if obs.Progress != nil {
		fields["progress"] = *obs.Progress
	}
	if d.Mode == ModeEstimate {
		fields["rate_percent_per_second"] = d.Rate
		fields["eta"] = d.ETA.Sub(w.p.Clock.Now()).Round(time.Millisecond).String()
	}
	w.logf("waiting before next poll", fields)
}

func (w *waiter) logf(msg string, fields map[string]any) {
	if w.p.Logf != nil {
		w.p.Logf(w.ctx, msg, fields)
	}
}
