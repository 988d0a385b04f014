package client

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// limiter is the request budget of one Client: a cap on requests in flight,
// a send rate learned from the server's 429s, an optional ceiling on it, and
// a pause that a 429 imposes on every caller.
//
// A rate is a number of requests in any one second, the way servers count
// their limits: a burst within it leaves at once.
//
// The API's limit is not documented, so the rate is learned the way TCP's
// CUBIC and the AWS SDKs' adaptive retry mode learn theirs. Until the first
// 429 there is no rate at all (or only the ceiling). A 429 sets the rate to
// beta times what the server accepted over the last second (the requests
// sent but those refused) and remembers that measure as the limit. The rate
// then grows along a cubic curve, quickly at first, flat as it regains the
// limit; it holds there for a while (the plateau), and probes beyond only
// while callers are held back by it (never above twice what they ask for).
// A 429 at about the limit confirms it: the rate returns to what the server
// accepted and holds twice as long before the next probe, since every 429
// pauses all callers. For a second after a pause, callers are released one
// at a time at the learned rate rather than all at once.
type limiter struct {
	ceiling  float64 // configured requests in any one second; 0: none
	inFlight chan struct{}
	clock    poll.Clock
	logger   Logger

	mu           sync.Mutex
	pausedUntil  time.Time
	rate         float64       // requests allowed in any one second now; +Inf: no limit
	learned      bool          // a 429 has set the rate
	lastMax      float64       // the limit: what the server accepted in the second before the last 429
	lastThrottle time.Time     // when the rate was last lowered
	k            float64       // seconds along the curve until it regains lastMax
	restart      float64       // the share of lastMax the last 429 restarted the rate at
	plateau      time.Duration // how long the rate holds at lastMax before probing above it
	curve        float64       // seconds along the curve since the last 429
	curveAt      time.Time     // when curve was last advanced
	sent         sendLog
	waiting      int // callers waiting for their turn
}

const (
	minRate = 1.0 // requests per second, or the ceiling if lower
	// beta is the share of the refused rate kept after a 429, and cubicScale
	// the steepness of the recovery (requests per second per second cubed):
	// the AWS SDKs' values. With them a rate of 20 drops to 14 and regains
	// 20 about 2.5 seconds after the 429.
	beta       = 0.7
	cubicScale = 0.4
	// A recomputed rate is applied only when it moves by at least this
	// share (or half a request per second): the rate changes in steps that
	// are each logged.
	rateStep = 0.05
	// Every 429 pauses all callers, so a probe above the limit is costly:
	// the rate holds at the last 429's rate for firstPlateau before probing
	// above it, twice as long after each failed probe, up to maxPlateau.
	firstPlateau = 5 * time.Second
	maxPlateau   = time.Minute
	// forgetAfter is how long a learned limit lasts without a 429.
	forgetAfter = 10 * time.Minute
)

// ablate switches mechanisms off, for measuring what each is worth.
var ablate struct {
	Plateau, Probe, HoldDoubling, LimitStands, Late429, Forget, Fractional, Gradual, Skew, Jitter, RefusedUncounted, NeedCap, Held, CountOnce bool
}

func newLimiter(ceiling float64, concurrency int, clock poll.Clock, logger Logger) *limiter {
	l := &limiter{
		ceiling:  ceiling,
		inFlight: make(chan struct{}, concurrency),
		clock:    clock,
		logger:   logger,
		rate:     math.Inf(1),
	}
	if ceiling > 0 {
		l.rate = ceiling
	}
	return l
}

// paced reports whether requests are paced: by a ceiling, or by a rate a
// 429 has set.
func (l *limiter) paced() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ceiling > 0 || l.learned
}

// rateChange is one logged step of the rate.
type rateChange struct {
	old, new float64
	reason   string
}

func (l *limiter) log(ctx context.Context, c *rateChange) {
	if c == nil {
		return
	}
	l.logger.Debug(ctx, "request rate changed", map[string]any{
		"old_rate": rateField(c.old),
		"new_rate": rateField(c.new),
		"reason":   c.reason,
	})
}

// rateField renders a rate for the log: requests per second to a tenth, or
// "unlimited".
func rateField(r float64) any {
	if math.IsInf(r, 1) {
		return "unlimited"
	}
	return math.Round(r*10) / 10
}

// acquire waits for a free slot, for a pause to end and for the request's
// turn at the current rate, and returns when the request may be sent and the
// function that frees the slot. A wait that would outlast the context's
// deadline fails at once.
func (l *limiter) acquire(ctx context.Context) (time.Time, func(), error) {
	select {
	case l.inFlight <- struct{}{}:
	case <-ctx.Done():
		return time.Time{}, nil, ctx.Err()
	}
	release := func() { <-l.inFlight }
	for waited := false; ; waited = true {
		l.mu.Lock()
		now := l.clock.Now()
		change := l.adaptLocked(now, waited)
		at := now
		if l.pausedUntil.After(at) {
			at = l.pausedUntil
		}
		if turn := l.turnLocked(now); turn.After(at) {
			at = turn
		}
		if !at.After(now) {
			l.sent.add(now)
		}
		l.mu.Unlock()
		l.log(ctx, change)

		wait := at.Sub(now)
		if wait <= 0 {
			return now, release, nil
		}
		if deadline, ok := ctx.Deadline(); ok && ctx.Err() == nil && wait > time.Until(deadline) {
			release()
			// A deadline is wall time whatever clock the client was given.
			return time.Time{}, nil, fmt.Errorf("%w (the request budget has no room before the deadline)", context.DeadlineExceeded)
		}
		l.mu.Lock()
		l.waiting++
		l.mu.Unlock()
		err := poll.Sleep(ctx, l.clock, wait)
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
		if err != nil {
			release()
			return time.Time{}, nil, err
		}
	}
}

// recordThrottle records a 429 to a request sent at sent: every caller is held
// for pause (a pause is extended, never shortened), and the rate is lowered.
// A request sent before the rate was last set (or at that instant) was
// refused with the one that set it: it only corrects that one's count.
func (l *limiter) recordThrottle(ctx context.Context, sent time.Time, pause time.Duration, why string) {
	l.mu.Lock()
	now := l.clock.Now()
	if until := now.Add(pause); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
	// The server did not count the refused request: the log keeps what it
	// accepted.
	if !ablate.RefusedUncounted {
		l.sent.remove(sent)
	}
	measured := l.sent.rate(now) // what the server accepted in the last second, about
	var change *rateChange
	switch {
	case !ablate.CountOnce && l.learned && !sent.After(l.lastThrottle):
		// The 429 that set the rate counted this request as accepted if it
		// was sent in the second before: the limit is one lower.
		if !ablate.Late429 && sent.After(l.lastThrottle.Add(-sendWindow)) && l.lastMax > l.floor() {
			l.lastMax = math.Max(l.lastMax-1, l.floor())
			l.k = math.Cbrt(l.lastMax * (1 - l.restart) / cubicScale)
			change = l.setRateLocked(math.Min(l.rate, math.Max(l.lastMax*l.restart, l.floor())), fmt.Sprintf(
				"%s, refused with the last: the server accepted %.0f requests in the second before", why, l.lastMax))
		}
	case !ablate.LimitStands && l.learned && measured >= l.lastMax-math.Max(rateStep*l.lastMax, 1):
		// A 429 at about the limit, on a probe above it or while holding
		// it: the limit stands. Return to what the server accepted, and
		// probe again only after holding it twice as long.
		l.lastMax = math.Max(math.Min(measured, l.rate), l.floor())
		l.lastThrottle, l.curveAt, l.curve, l.k, l.restart = now, now, 0, 0, 1
		if !ablate.HoldDoubling {
			l.plateau = min(2*l.plateau, maxPlateau)
		}
		change = l.setRateLocked(l.lastMax, fmt.Sprintf(
			"%s: the limit stands; the rate returns to %.1f/s, what the server accepted, and probes again after %s",
			why, l.lastMax, l.plateau))
	default:
		refused := measured
		if !math.IsInf(l.rate, 1) {
			refused = math.Min(measured, l.rate)
		}
		l.learned = true
		l.lastMax = math.Max(refused, l.floor())
		l.lastThrottle, l.curveAt, l.curve, l.restart = now, now, 0, beta
		l.plateau = firstPlateau
		l.k = math.Cbrt(l.lastMax * (1 - beta) / cubicScale)
		change = l.setRateLocked(math.Max(l.lastMax*beta, l.floor()), fmt.Sprintf(
			"%s: %.0f requests were accepted in the last second; the rate restarts at %g of that and regains it in %.1fs",
			why, measured, beta, l.k))
	}
	l.mu.Unlock()
	l.log(ctx, change)
}

// adaptLocked moves a learned rate along its curve. The curve regains the
// limit in k seconds and holds it for the plateau; past it, the curve advances only while
// callers are held back by the rate (a caller waits for its turn, or this
// one did or would), like CUBIC's when the sender has too little to send, and the
// rate never rises to more than twice what callers ask for (the requests
// sent in the last second, the callers waiting and this one): a client that
// does not use its rate does not earn a higher one.
func (l *limiter) adaptLocked(now time.Time, waited bool) *rateChange {
	if !l.learned {
		return nil
	}
	if !ablate.Forget && now.Sub(l.lastThrottle) > forgetAfter {
		// A limit not met for this long may have been raised; the next 429
		// learns it again.
		l.learned = false
		return l.setRateLocked(math.Inf(1), fmt.Sprintf("no 429 for %s: the limit learned is forgotten", forgetAfter))
	}
	held := ablate.Held || waited || l.waiting > 0 || l.turnLocked(now).After(now)
	if elapsed := now.Sub(l.curveAt).Seconds(); elapsed > 0 && (l.curve < l.k || held) {
		l.curve += elapsed
	}
	l.curveAt = now
	t := l.curve - l.k
	if t > 0 {
		if !ablate.Plateau {
			t = math.Max(t-l.plateau.Seconds(), 0)
		}
	}
	target := cubicScale*t*t*t + l.lastMax
	reason := fmt.Sprintf("recovering towards %.1f/s, the rate of the last 429", l.lastMax)
	if t > 0 && ablate.Probe {
		target = l.lastMax
	} else if t > 0 && ablate.NeedCap {
		reason = "probing"
	} else if t > 0 {
		used := l.sent.rate(now) + float64(l.waiting) + 1
		target = math.Min(target, math.Max(math.Max(l.lastMax, l.rate), 2*used))
		reason = fmt.Sprintf("probing above %.1f/s, the rate of the last 429, as callers wait for their turn", l.lastMax)
	}
	target = math.Max(target, l.floor())
	if l.ceiling > 0 {
		target = math.Min(target, l.ceiling)
	}
	if math.Abs(target-l.rate) < math.Max(rateStep*l.rate, 0.5) && target != l.ceiling {
		return nil
	}
	return l.setRateLocked(target, reason)
}

func (l *limiter) floor() float64 {
	if l.ceiling > 0 {
		return math.Min(minRate, l.ceiling)
	}
	return minRate
}

func (l *limiter) setRateLocked(r float64, reason string) *rateChange {
	if l.ceiling > 0 {
		r = math.Min(r, l.ceiling)
	}
	if r == l.rate {
		return nil
	}
	c := &rateChange{old: l.rate, new: r, reason: reason}
	l.rate = r
	return c
}

// jitter lengthens the wait of the caller that met a 429 by up to 20%, so
// that its retry does not land exactly when the others are released.
func (l *limiter) jitter(d time.Duration) time.Duration {
	if ablate.Jitter {
		return d
	}
	return d + time.Duration(rand.Float64()*0.2*float64(d))
}

// turnLocked is the earliest time the rate allows the next request: the
// rate is a budget of requests in any one second, the way servers count
// their limits, so a burst within it is sent at once.
func (l *limiter) turnLocked(now time.Time) time.Time {
	if math.IsInf(l.rate, 1) {
		return now
	}
	// n requests in n/rate seconds: a whole second for whole rates, less
	// for a fractional one (1.5/s: one every 0.67s), more below one.
	n := max(int(l.rate), 1)
	span := time.Duration(float64(n) / l.rate * float64(time.Second))
	if ablate.Fractional && l.rate >= 1 {
		span = time.Second
	}
	margin := skewMargin
	if ablate.Skew {
		margin = 0
	}
	turn := l.sent.nthLatest(n).Add(span + margin)
	if !ablate.Gradual && now.Before(l.pausedUntil.Add(sendWindow)) {
		// For a second after a pause, callers leave one at a time: the end
		// of a pause never sets off a burst.
		if last := l.sent.nthLatest(1); !last.IsZero() {
			turn = maxTime(turn, last.Add(time.Duration(float64(time.Second)/l.rate)))
		}
	}
	return turn
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sendWindow is the span of the rate; skewMargin widens it for spacing
// requests, so that requests that reach the server closer together than
// they left still fall in different seconds of its count.
const (
	sendWindow = time.Second
	skewMargin = 50 * time.Millisecond
)

// sendLog holds the send times of the requests of the last second (and the
// skew margin), oldest first, and of the latest request whenever it was.
type sendLog struct {
	times  []time.Time
	latest time.Time
}

func (s *sendLog) prune(now time.Time) {
	cut := now.Add(-sendWindow - skewMargin)
	i := 0
	for i < len(s.times) && !s.times[i].After(cut) {
		i++
	}
	s.times = s.times[i:]
}

func (s *sendLog) add(now time.Time) {
	s.prune(now)
	s.times = append(s.times, now)
	s.latest = now
}

// remove drops the request sent at t.
func (s *sendLog) remove(t time.Time) {
	if i := slices.IndexFunc(s.times, t.Equal); i >= 0 {
		s.times = slices.Delete(s.times, i, i+1)
	}
	if s.latest.Equal(t) {
		s.latest = time.Time{}
		if len(s.times) > 0 {
			s.latest = s.times[len(s.times)-1]
		}
	}
}

// rate is the number of requests sent in the last second.
func (s *sendLog) rate(now time.Time) float64 {
	s.prune(now)
	cut := now.Add(-sendWindow)
	n := 0
	for _, t := range s.times {
		if t.After(cut) {
			n++
		}
	}
	return float64(n)
}

// nthLatest is the send time of the n-th latest request, or the zero time
// when fewer were sent: the latest whenever it was, the others within the
// log's second.
func (s *sendLog) nthLatest(n int) time.Time {
	if n == 1 {
		return s.latest
	}
	if len(s.times) < n {
		return time.Time{}
	}
	return s.times[len(s.times)-n]
}
