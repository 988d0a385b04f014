package poll

import (
	"cmp"
	"context"
	"math/rand/v2"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

// Policy configures a wait. The zero value is usable: every zero field takes
// the default documented on it.
type Policy struct {
	// MinInterval is the floor between polls (default 500ms).
	MinInterval time.Duration
	// MaxInterval caps backoff when there is no usable estimate (progress
	// absent, stalled past its estimated completion, or regressing), and so
	// bounds how late a job that jumps to done is noticed (default 8s). It is
	// below the 10s cap of the common SDK waiter so that stalled jobs are
	// noticed sooner; the requests estimates save elsewhere keep the total
	// lower.
	MaxInterval time.Duration
	// MaxEstimatedInterval caps waits derived from a progress estimate
	// (default 20m). Long jobs need waits far beyond MaxInterval to stay
	// cheap: a 30-minute job would otherwise cost over a hundred polls.
	MaxEstimatedInterval time.Duration
	// InitialInterval is the first wait after the first non-final
	// observation, and the first step of error backoff (default 1s).
	InitialInterval time.Duration
	// TargetLatency is how late the scheduler may notice a job that runs
	// faster than estimated, within the estimate's uncertainty (default
	// 750ms). Smaller means faster detection of such jobs and more polls. A
	// job that keeps its estimated pace is polled just after its estimated
	// completion, whatever this is.
	TargetLatency time.Duration
	// Jitter is the fraction by which each wait is randomly shortened
	// (default 0.1; negative disables). Waits only ever shrink, so jitter
	// never pushes a wait past its cap or past an estimated completion, and
	// never below MinInterval.
	Jitter float64
	// MaxConsecutiveErrors is how many transient errors in a row Until
	// tolerates before giving up (default 5).
	MaxConsecutiveErrors int
	// Clock is the time source (default clock.RealClock).
	Clock clock.Clock
	// Rand returns values in [0,1) for jitter (default math/rand/v2).
	Rand func() float64
	// Log, if set, receives debug events: unknown statuses, transient
	// errors and each chosen wait.
	Log func(ctx context.Context, msg string, fields map[string]any)
	// QuickLook makes UntilFrom check once MinInterval after the
	// observation in hand (the answer that started a job), besides the
	// scheduled checks: a job shorter than that is noticed at once rather
	// than after InitialInterval, for one more request per longer job.
	QuickLook bool
	// KnownStatuses, if set, lists the statuses the caller recognises;
	// any other status is logged once and treated as not final.
	KnownStatuses []string
}

// Defaults for the zero fields of Policy.
const (
	DefaultMinInterval          = 500 * time.Millisecond
	DefaultMaxInterval          = 8 * time.Second
	DefaultMaxEstimatedInterval = 20 * time.Minute
	DefaultInitialInterval      = time.Second
	DefaultTargetLatency        = 750 * time.Millisecond
	DefaultJitter               = clock.DefaultJitter // Backoff's, one rule for both
	DefaultMaxConsecutiveErrors = 5
)

// withDefaults returns p with every zero field set to its default and the
// intervals made consistent with each other.
func (p Policy) withDefaults() Policy {
	// cmp.Or(max(v, 0), d): a zero or negative v takes the default d.
	p.MinInterval = cmp.Or(max(p.MinInterval, 0), DefaultMinInterval)
	p.MaxInterval = max(cmp.Or(max(p.MaxInterval, 0), DefaultMaxInterval), p.MinInterval)
	p.MaxEstimatedInterval = max(cmp.Or(max(p.MaxEstimatedInterval, 0), DefaultMaxEstimatedInterval), p.MaxInterval)
	p.InitialInterval = clampDuration(cmp.Or(max(p.InitialInterval, 0), DefaultInitialInterval), p.MinInterval, p.MaxInterval)
	p.TargetLatency = cmp.Or(max(p.TargetLatency, 0), DefaultTargetLatency)
	p.Jitter = min(max(cmp.Or(p.Jitter, DefaultJitter), 0), 1) // only an unset (zero) jitter takes the default
	p.MaxConsecutiveErrors = cmp.Or(max(p.MaxConsecutiveErrors, 0), DefaultMaxConsecutiveErrors)
	if p.Clock == nil {
		p.Clock = clock.RealClock
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

func clampDuration(d, lo, hi time.Duration) time.Duration {
	return max(lo, min(d, hi))
}
