package mockapi

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is a token bucket. It runs on real time rather than
// Config.Now: rate limits are about how fast a client really calls.
type rateLimiter struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newRateLimiter(rate float64, now func() time.Time) *rateLimiter {
	burst := math.Max(1, rate)
	return &rateLimiter{rate: rate, burst: burst, tokens: burst, last: now(), now: now}
}

// take consumes a token. When none is available it reports how long until
// one will be.
func (l *rateLimiter) take() (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if elapsed := now.Sub(l.last).Seconds(); elapsed > 0 {
		l.tokens = math.Min(l.burst, l.tokens+elapsed*l.rate)
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return true, 0
	}
	wait := time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
	return false, wait
}

// retryAfterSeconds renders a wait as a Retry-After delta: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	secs := int(math.Ceil(d.Seconds()))
	return max(secs, 1)
}
