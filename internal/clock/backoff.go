package clock

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is capped exponential backoff with jitter, shared by the poller's
// error path and the HTTP client's retries.
type Backoff struct {
	Base   time.Duration // delay of attempt 0 (default 1s)
	Max    time.Duration // cap (default 30s)
	Factor float64       // growth per attempt (default 2; values <= 1 use it)
	// Jitter shortens each delay by a random fraction up to this value
	// (default 0.1; negative disables), so the cap is never exceeded.
	Jitter float64
	Rand   func() float64 // [0,1) source (default math/rand/v2)
}

// Delay returns the wait before retry number attempt, counting from 0:
// Base*Factor^attempt capped at Max, then jittered into [d*(1-Jitter), d].
func (b Backoff) Delay(attempt int) time.Duration {
	base, maxDelay, factor := b.Base, b.Max, b.Factor
	if base <= 0 {
		base = time.Second
	}
	if maxDelay <= 0 {
		maxDelay = 30 * time.Second
	}
	maxDelay = max(maxDelay, base)
	if factor <= 1 {
		factor = 2
	}
	attempt = max(attempt, 0)
	// Computed in float so large attempts saturate at the cap instead of
	// overflowing.
	d := maxDelay
	if f := float64(base) * math.Pow(factor, float64(attempt)); f < float64(maxDelay) {
		d = time.Duration(f)
	}
	jitter := b.Jitter
	switch {
	case jitter == 0:
		jitter = DefaultJitter
	case jitter < 0:
		jitter = 0
	}
	rnd := b.Rand
	if rnd == nil {
		rnd = rand.Float64
	}
	return Shorten(d, min(jitter, 1), rnd)
}

// DefaultJitter is Backoff's jitter when none is set. The poller's policy
// takes the same default (poll.DefaultJitter).
const DefaultJitter = 0.1

// Shorten reduces d by a random fraction in [0, frac). Jitter only ever
// shortens so that caps and estimated completions are never overshot; the
// poller's scheduler jitters its waits with it too, so both follow one rule.
func Shorten(d time.Duration, frac float64, rnd func() float64) time.Duration {
	if frac <= 0 || d <= 0 {
		return d
	}
	r := rnd()
	if r < 0 || r >= 1 || math.IsNaN(r) {
		r = 0
	}
	return d - time.Duration(float64(d)*frac*r)
}
