// Package poll is the single waiting engine of the provider: every wait for a
// job to finish goes through it. It knows nothing of HTTP or Terraform:
// callers supply a CheckFunc that performs one poll and says whether the
// state it saw is final, and a context that bounds the wait. The time
// utilities it sleeps and backs off with (Clock, Sleep, Backoff, the jitter
// rule) are in package clock, which the HTTP client's retries share without
// depending on the poller.
//
// Until repeats the check on a schedule chosen by Scheduler, which aims to
// notice completion within about a second while spending few requests:
//
//   - While reported progress rises, it estimates the rate (the faster of the
//     average since the run began and the latest interval, net of rounding)
//     and the completion time, and polls at a fraction of the time left plus
//     a small margin, so polls converge geometrically on the completion. How
//     close it dares to aim depends on how much the rate has been straying
//     (noise costs a little margin; erratic jumps cost a lot), and it never
//     extrapolates much beyond the history the estimate rests on.
//   - When progress pauses before the estimated completion it keeps aiming at
//     it; once past it, or without progress, or when progress goes backwards,
//     it falls back to exponential backoff capped at Policy.MaxInterval
//     (and, for a job that stalls young, at a third of its age), since a
//     stalled job may jump to done at any moment.
//   - Every wait is shortened by random jitter, never below
//     Policy.MinInterval, and ends early when the context does.
//
// UntilFrom with Policy.QuickLook checks once shortly after a job starts, so
// that a short job is noticed at once. A run of transient errors is tolerated
// up to Policy.MaxConsecutiveErrors (ErrorBudgetError); a permanent error
// ends the wait at once, and so does the context, which carries the
// operation's timeout and Terraform's cancellation.
//
// Scheduler never sleeps and reads no clock, so a simulator can step it
// directly and measure exactly what the provider does (internal/pollbench,
// make bench-poll). Time is otherwise read through Policy.Clock (a
// clock.Clock), so tests run on simulated time. The package must never wait
// beyond its context, and never poll faster than Policy.MinInterval.
package poll
