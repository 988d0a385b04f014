package client

import (
	"fmt"
	"math"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// rateController decides the request rate of a budget from what happened:
// it holds no lock and reads no clock. Its inputs are events at given
// times (a 429 to a request sent at a given time, time passing with or
// without callers held back by the rate) and the gate's send log; its
// outputs are the rate and the time the next request may leave.
//
// A rate is a number of requests in any one second, the way servers count
// their limits: a burst within it leaves at once.
//
// The API's limit is not documented, so the rate is learned the way TCP's
// CUBIC and the AWS SDKs' adaptive retry mode learn theirs. Until the first
// 429 there is no rate at all (or only the ceiling). A 429 sets the rate to
// beta times what the server accepted over the last second and remembers
// that measure as the limit. The rate then grows along a cubic curve,
// quickly at first, flat as it regains the limit; it holds there for the
// plateau, and probes beyond only while callers are held back by it. A 429
// at about the limit confirms it: the rate returns to what the server
// accepted and holds twice as long before the next probe, since every 429
// pauses all callers. After forgetAfter without a 429 the limit is
// forgotten.
type rateController struct {
	ceiling float64       // configured requests in any one second; 0: none
	rate    float64       // requests allowed in any one second now; +Inf: no limit
	limit   float64       // what the server accepted in the second before the last 429; 0: none learned
	dropped time.Time     // when the rate was last lowered
	k       float64       // seconds along the curve until it regains the limit
	plateau time.Duration // how long the rate holds at the limit before probing above it
	curve   float64       // seconds along the curve since the last 429
	curveAt time.Time     // when curve was last advanced
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
	// the rate holds at the limit for firstPlateau before probing above
	// it, twice as long after each failed probe, up to maxPlateau.
	firstPlateau = 5 * time.Second
	maxPlateau   = time.Minute
	// forgetAfter is how long a learned limit lasts without a 429.
	forgetAfter = 10 * time.Minute
)

// sendWindow is the span of the rate; skewMargin widens it for spacing
// requests, so that requests that reach the server closer together than
// they left still fall in different seconds of its count.
const (
	sendWindow = time.Second
	skewMargin = 50 * time.Millisecond
)

func newRateController(ceiling float64) rateController {
	c := rateController{ceiling: ceiling, rate: math.Inf(1)}
	if ceiling > 0 {
		c.rate = ceiling
	}
	return c
}

// learned reports whether a 429 has set the rate.
func (c *rateController) learned() bool { return c.limit > 0 }

// rateChange is one logged step of the rate.
type rateChange struct {
	old, new float64
	reason   string
}

// throttled takes a 429 seen at now to a request sent at sent, when the
// server had accepted accepted requests in the last second (the refused
// ones not counted).
func (c *rateController) throttled(now, sent time.Time, accepted float64, why string) *rateChange {
	switch {
	case c.learned() && !sent.After(c.dropped):
		// Sent before the rate was set, so refused with the 429 that set
		// it, which counted it as accepted if it was sent in the second
		// before: the limit is one lower. It says nothing else.
		if !sent.After(c.dropped.Add(-sendWindow)) || c.limit <= c.floor() {
			return nil
		}
		c.limit = math.Max(c.limit-1, c.floor())
		restart := 1.0 // after a 429 at the limit, the rate is the limit
		if c.k > 0 {
			restart = beta
			c.k = math.Cbrt(c.limit * (1 - beta) / cubicScale)
		}
		return c.set(math.Min(c.rate, math.Max(c.limit*restart, c.floor())), fmt.Sprintf(
			"%s, refused with the last: the server accepted %.0f requests in the second before", why, c.limit))
	case c.learned() && accepted >= c.limit-math.Max(rateStep*c.limit, 1):
		// A 429 at about the limit, on a probe above it or while holding
		// it: the limit stands. Return to what the server accepted, and
		// probe again only after holding it twice as long.
		c.limit = math.Max(math.Min(accepted, c.rate), c.floor())
		c.dropped, c.curveAt, c.curve, c.k = now, now, 0, 0
		c.plateau = min(2*c.plateau, maxPlateau)
		return c.set(c.limit, fmt.Sprintf(
			"%s: the limit stands; the rate returns to %.1f/s, what the server accepted, and probes again after %s",
			why, c.limit, duration.Written(c.plateau)))
	}
	refused := accepted
	if !math.IsInf(c.rate, 1) {
		refused = math.Min(accepted, c.rate)
	}
	c.limit = math.Max(refused, c.floor())
	c.dropped, c.curveAt, c.curve = now, now, 0
	c.plateau = firstPlateau
	c.k = math.Cbrt(c.limit * (1 - beta) / cubicScale)
	return c.set(math.Max(c.limit*beta, c.floor()), fmt.Sprintf(
		"%s: %.0f requests were accepted in the last second; the rate restarts at %g of that and regains it in %.1fs",
		why, accepted, beta, c.k))
}

// advance moves a learned rate along its curve to now. The curve regains
// the limit in k seconds and holds it for the plateau; past the limit, it
// advances only while callers are held back by the rate (held), like
// CUBIC's when the sender has too little to send: a client that does not
// use its rate does not earn a higher one.
func (c *rateController) advance(now time.Time, held bool) *rateChange {
	if !c.learned() {
		return nil
	}
	if now.Sub(c.dropped) > forgetAfter {
		// A limit not met for this long may have been raised; the next 429
		// learns it again.
		c.limit = 0
		return c.set(math.Inf(1), fmt.Sprintf("no 429 for %s: the limit learned is forgotten", duration.Written(forgetAfter)))
	}
	if elapsed := now.Sub(c.curveAt).Seconds(); elapsed > 0 {
		switch {
		case held:
			c.curve += elapsed
		case c.curve < c.k:
			// Idle time regains the limit but does not count towards a probe.
			c.curve = math.Min(c.curve+elapsed, c.k)
		}
	}
	c.curveAt = now
	t := c.curve - c.k
	if t > 0 {
		t = math.Max(t-c.plateau.Seconds(), 0)
	}
	reason := fmt.Sprintf("recovering towards %.1f/s, the rate of the last 429", c.limit)
	if t > 0 {
		reason = fmt.Sprintf("probing above %.1f/s, the rate of the last 429, as callers wait for their turn", c.limit)
	}
	target := math.Max(cubicScale*t*t*t+c.limit, c.floor())
	if c.ceiling > 0 {
		target = math.Min(target, c.ceiling)
	}
	if math.Abs(target-c.rate) < math.Max(rateStep*c.rate, 0.5) && target != c.ceiling {
		return nil
	}
	return c.set(target, reason)
}

// next is the earliest time at or after now that a request may leave,
// given the requests of sent and a pause until pausedUntil: when the pause
// ends, or later if the rate says so.
func (c *rateController) next(now time.Time, sent *sendLog, pausedUntil time.Time) time.Time {
	return maxTime(maxTime(now, pausedUntil), c.turn(now, sent, pausedUntil))
}

// turn is the earliest time the rate allows the next request: n requests
// in any n/rate seconds (a whole second for whole rates, less for a
// fractional one: 1.5/s is one every 0.67s; more below one). For a second
// after a pause, callers leave one at a time: the end of a pause never sets
// off a burst.
func (c *rateController) turn(now time.Time, sent *sendLog, pausedUntil time.Time) time.Time {
	if math.IsInf(c.rate, 1) {
		return now
	}
	n := max(int(c.rate), 1)
	span := time.Duration(float64(n) / c.rate * float64(time.Second))
	turn := sent.nthLatest(n).Add(span + skewMargin)
	if now.Before(pausedUntil.Add(sendWindow)) {
		if last := sent.nthLatest(1); !last.IsZero() {
			turn = maxTime(turn, last.Add(time.Duration(float64(time.Second)/c.rate)))
		}
	}
	return turn
}

func (c *rateController) floor() float64 {
	if c.ceiling > 0 {
		return math.Min(minRate, c.ceiling)
	}
	return minRate
}

func (c *rateController) set(r float64, reason string) *rateChange {
	if c.ceiling > 0 {
		r = math.Min(r, c.ceiling)
	}
	if r == c.rate {
		return nil
	}
	change := &rateChange{old: c.rate, new: r, reason: reason}
	c.rate = r
	return change
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
