package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// PermanentError marks an error that must end a wait at once (not found,
// unauthorised, ...). Until returns the wrapped error itself.
type PermanentError struct {
	Err error
}

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as permanent; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err, or any error it wraps, is permanent.
func IsPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

// TimeoutError is returned by Until when its context ends before the check
// reports a final state, whether by deadline or by cancellation.
type TimeoutError struct {
	Last    Observation   // last successful observation, valid if Seen
	Seen    bool          // whether any poll succeeded
	Waited  time.Duration // time since the wait began
	Polls   int           // polls performed, failed ones included
	Cause   error         // ctx.Err(): context.DeadlineExceeded or context.Canceled
	LastErr error         // the error of the last poll, if it failed
}

func (e *TimeoutError) Error() string {
	var b strings.Builder
	if errors.Is(e.Cause, context.Canceled) {
		b.WriteString("wait cancelled")
	} else {
		b.WriteString("timed out")
	}
	fmt.Fprintf(&b, " after %s (%s); %s", duration.Written(e.Waited.Round(time.Millisecond)), Count{"poll", e.Polls}, describeLast(e.Last, e.Seen))
	if e.LastErr != nil {
		fmt.Fprintf(&b, "; last poll failed: %v", e.LastErr)
	}
	return b.String()
}

// Unwrap exposes the context error, so errors.Is(err, context.DeadlineExceeded)
// and errors.Is(err, context.Canceled) work.
func (e *TimeoutError) Unwrap() error { return e.Cause }

// ErrorBudgetError is returned by Until after MaxConsecutiveErrors transient
// errors in a row.
type ErrorBudgetError struct {
	Last   Observation   // last successful observation, valid if Seen
	Seen   bool          // whether any poll succeeded
	Errors int           // consecutive errors, the last included
	Err    error         // the last error
	Waited time.Duration // time since the wait began
}

func (e *ErrorBudgetError) Error() string {
	return fmt.Sprintf("giving up after %d consecutive failed polls over %s; %s; last error: %v",
		e.Errors, duration.Written(e.Waited.Round(time.Millisecond)), describeLast(e.Last, e.Seen), e.Err)
}

// Unwrap exposes the last error.
func (e *ErrorBudgetError) Unwrap() error { return e.Err }

func describeLast(o Observation, seen bool) string {
	if !seen {
		return "no successful poll"
	}
	return "last " + o.Describe()
}

// Describe tells what an observation saw, for messages: its status, then
// its progress and page count when known.
func (o Observation) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %q", o.Status)
	if o.Progress != nil {
		fmt.Fprintf(&b, ", progress %.1f%%", *o.Progress)
	}
	for _, c := range o.Counts {
		fmt.Fprintf(&b, ", %s", c)
	}
	return b.String()
}
