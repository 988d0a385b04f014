package poll

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// Observation is what one poll saw.
type Observation struct {
	Status string
	// Final is decided by the caller (e.g. completed or failed). Unknown
	// statuses must not be final, so the wait stays bounded by the context.
	Final    bool
	Progress *float64 // percent, 0..100, if reported
	// Counts are what the caller's kind of job reports besides progress,
	// such as an export's pages: shown in messages, never interpreted.
	Counts []Count
}

// Count is a number of things a job reports, such as {"page", 7}.
type Count struct {
	Thing string // singular
	N     int
}

// String says the count, in the singular for one.
func (c Count) String() string {
	if c.N == 1 {
		return "1 " + c.Thing
	}
	return fmt.Sprintf("%d %ss", c.N, c.Thing)
}

// CheckFunc performs one poll. Errors marked with Permanent stop the wait at
// once; any other error is transient and counts against
// Policy.MaxConsecutiveErrors.
type CheckFunc func(ctx context.Context) (Observation, error)

// Until polls check until it reports Final, returns a permanent error,
// exhausts the error budget, or ctx ends. The first check happens at once;
// every later one is scheduled by a Scheduler.
//
// It returns the final observation, or the last successful one together with
// the error: the permanent error as the check passed it to Permanent, an
// *ErrorBudgetError, or a *TimeoutError when ctx ends.
func Until(ctx context.Context, p Policy, check CheckFunc) (Observation, error) {
	return until(ctx, p, nil, check)
}

// UntilFrom is Until for a caller that already holds a fresh observation,
// such as the answer that started the job: first stands for the first
// check, so the first request waits for the scheduler's first wait, and none
// is made at all when first is final.
func UntilFrom(ctx context.Context, p Policy, first Observation, check CheckFunc) (Observation, error) {
	return until(ctx, p, &first, check)
}

func until(ctx context.Context, p Policy, first *Observation, check CheckFunc) (Observation, error) {
	s := NewScheduler(p)
	w := &wait{ctx: ctx, p: s.Policy()}
	w.start = w.p.Clock.Now()

	quickLook := first != nil && w.p.QuickLook
	for {
		if err := ctx.Err(); err != nil {
			return w.last, w.timeout(err)
		}
		var obs Observation
		var err error
		if first != nil {
			obs, first = *first, nil
		} else {
			obs, err = check(ctx)
			w.polls++
		}
		var d Decision
		switch kind, result, err := w.take(obs, err); kind {
		case finished:
			return result, err
		case observed:
			w.noteStatus(obs.Status)
			d = s.Decide(w.p.Clock.Now(), obs)
			w.logDecision(obs, d)
		case failed:
			d = s.DecideError()
			w.log("poll failed", map[string]any{"error": err.Error(), "consecutive_errors": s.errors, "wait": d.Wait.String()})
			if s.errors >= w.p.MaxConsecutiveErrors {
				return w.last, &ErrorBudgetError{Last: w.last, Seen: w.seen, Errors: s.errors, Err: err, Waited: w.waited()}
			}
		}
		if quickLook && d.Wait > w.p.MinInterval {
			next := w.p.Clock.Now().Add(d.Wait)
			if obs, done, err := w.quickLook(check); done {
				return obs, err
			}
			// The scheduled check stays where it was, however long the
			// look took.
			d.Wait = next.Sub(w.p.Clock.Now())
		}
		quickLook = false
		if err := clock.Sleep(ctx, w.p.Clock, d.Wait); err != nil {
			return w.last, w.timeout(err)
		}
	}
}

// quickLook checks once, MinInterval after the observation in hand (see
// Policy.QuickLook). The look is not shown to the scheduler, whose first
// reading of a rate needs the whole first wait, and a transient error is
// only recorded: the scheduled check follows. It reports done with the
// result when the job is final, the check failed permanently, or the
// context ended.
func (w *wait) quickLook(check CheckFunc) (Observation, bool, error) {
	if err := clock.Sleep(w.ctx, w.p.Clock, w.p.MinInterval); err != nil {
		return w.last, true, w.timeout(err)
	}
	obs, err := check(w.ctx)
	w.polls++
	switch kind, result, err := w.take(obs, err); kind {
	case finished:
		return result, true, err
	case observed:
		w.log("quick look", map[string]any{"status": obs.Status})
	case failed:
		w.log("quick look failed", map[string]any{"error": err.Error()})
	}
	return w.last, false, nil
}

// outcome is what the result of one check means for the wait.
type outcome int

const (
	observed outcome = iota // a new observation, not final
	failed                  // a transient error
	finished                // the wait ends: final, permanent error or context ended
)

// take records the result of one check and says what it means. For
// finished it returns what the wait returns; for failed, the check's error.
func (w *wait) take(obs Observation, err error) (outcome, Observation, error) {
	switch {
	case err == nil:
		w.last, w.seen, w.lastErr = obs, true, nil
		if obs.Final {
			return finished, obs, nil
		}
		return observed, obs, nil
	case w.ctx.Err() != nil:
		// The check failed because the wait ended, not the service: a
		// failure of the poll before it, if any, says more.
		if w.lastErr == nil {
			w.lastErr = err
		}
		return finished, w.last, w.timeout(w.ctx.Err())
	case IsPermanent(err):
		return finished, w.last, unwrapPermanent(err)
	}
	w.lastErr = err
	return failed, w.last, err
}

// unwrapPermanent returns the error a check passed to Permanent, so callers
// see their own error; one wrapped further is returned as it is.
func unwrapPermanent(err error) error {
	if pe, ok := err.(*PermanentError); ok {
		return pe.Err
	}
	return err
}

// wait is what Until knows about a wait in progress.
type wait struct {
	ctx     context.Context
	p       Policy
	start   time.Time
	last    Observation // last successful observation, valid if seen
	seen    bool
	polls   int
	lastErr error           // error of the latest poll, if it failed
	unknown map[string]bool // unknown statuses already logged
}

func (w *wait) waited() time.Duration { return w.p.Clock.Now().Sub(w.start) }

func (w *wait) timeout(cause error) error {
	return &TimeoutError{Last: w.last, Seen: w.seen, Waited: w.waited(), Polls: w.polls, Cause: cause, LastErr: w.lastErr}
}

// noteStatus logs, once per status, a status the caller did not list as
// known: it is treated as not final, and only the context bounds the wait.
func (w *wait) noteStatus(status string) {
	if len(w.p.KnownStatuses) == 0 || slices.Contains(w.p.KnownStatuses, status) || w.unknown[status] {
		return
	}
	if w.unknown == nil {
		w.unknown = map[string]bool{}
	}
	w.unknown[status] = true
	w.log("unknown status, treated as not final", map[string]any{"status": status, "known_statuses": w.p.KnownStatuses})
}

func (w *wait) logDecision(obs Observation, d Decision) {
	if w.p.Log == nil {
		return
	}
	fields := map[string]any{"poll": w.polls, "status": obs.Status, "mode": string(d.Mode), "wait": d.Wait.String()}
	if obs.Progress != nil {
		fields["progress"] = *obs.Progress
	}
	if d.Rate > 0 {
		fields["rate_percent_per_second"] = d.Rate
		fields["estimated_completion_in"] = duration.Written(d.ETA.Sub(w.p.Clock.Now()).Round(time.Millisecond))
		fields["erratic"] = d.Erratic
	}
	w.log("waiting before next poll", fields)
}

func (w *wait) log(msg string, fields map[string]any) {
	if w.p.Log != nil {
		w.p.Log(w.ctx, msg, fields)
	}
}
