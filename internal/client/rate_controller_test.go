package client

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// A script of events for a rateController, at times counted from t0. The
// test keeps the send log the way the gate does: a refused request leaves
// it before the controller hears of the 429.
type event struct {
	at       time.Duration
	sends    int           // requests sent at `at`, spread evenly over spread
	spread   time.Duration // 0: all at once
	refused  bool          // a 429 to the request sent at sentAt
	sentAt   time.Duration
	advanced bool // time passes to `at`; held: callers wait for their turn
	held     bool
}

func send(at time.Duration, n int, over time.Duration) event {
	return event{at: at, sends: n, spread: over}
}
func refused(at, sentAt time.Duration) event { return event{at: at, refused: true, sentAt: sentAt} }
func waiting(at time.Duration) event         { return event{at: at, advanced: true, held: true} }
func idle(at time.Duration) event            { return event{at: at, advanced: true} }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func play(c *rateController, log *sendLog, events []event) {
	for _, e := range events {
		now := t0.Add(e.at)
		switch {
		case e.sends > 0:
			for i := range e.sends {
				at := now
				if e.spread > 0 {
					at = now.Add(e.spread * time.Duration(i) / time.Duration(e.sends))
				}
				log.add(at)
			}
		case e.refused:
			log.remove(t0.Add(e.sentAt))
			c.throttled(now, t0.Add(e.sentAt), log.count(now), "HTTP 429")
		case e.advanced:
			c.advance(now, e.held)
		}
	}
}

// twentyThenRefused: 20 requests accepted over 0.95s, then a 21st refused.
var twentyThenRefused = []event{send(0, 20, 950*time.Millisecond), send(960*time.Millisecond, 1, 0), refused(960*time.Millisecond, 960*time.Millisecond)}

func then(base []event, more ...event) []event {
	return append(append([]event(nil), base...), more...)
}

const sec = time.Second

// k20 is how long the curve takes to regain a limit of 20 from 14.
var k20 = time.Duration(math.Cbrt(20*(1-beta)/cubicScale) * float64(sec))

func TestRateController(t *testing.T) {
	after429 := 960 * time.Millisecond // when twentyThenRefused's 429 is seen
	probeAt := func(d time.Duration) time.Duration { return after429 + k20 + firstPlateau + d }
	tests := []struct {
		name      string
		ceiling   float64
		events    []event
		wantRate  float64
		wantLimit float64 // 0: none learned
	}{
		{"no 429: no rate", 0, []event{send(0, 1000, sec)}, math.Inf(1), 0},
		{"no 429 and a ceiling: the ceiling", 5, []event{send(0, 1000, sec)}, 5, 0},
		{"a 429 after 20 accepted: 0.7 of them, and 20 is the limit", 0, twentyThenRefused, 14, 20},
		{"three refused at once: the refused do not count, and the 429s count once", 0,
			[]event{send(0, 20, 950*time.Millisecond), send(960*time.Millisecond, 3, 0),
				refused(960*time.Millisecond, 960*time.Millisecond), refused(960*time.Millisecond, 960*time.Millisecond), refused(960*time.Millisecond, 960*time.Millisecond)}, 14, 20},
		{"a late 429 to a request sent in the second before the rate was set: the limit is one lower", 0,
			then(twentyThenRefused, refused(2*sec, 900*time.Millisecond)), 0.7 * 19, 19},
		{"a late 429 to a request sent earlier: nothing changes", 0,
			then(twentyThenRefused, refused(2*sec, -100*time.Millisecond)), 14, 20},
		{"the curve regains the limit k seconds after the 429, callers waiting or not", 0,
			then(twentyThenRefused, idle(after429+k20+time.Millisecond)), 20, 20},
		{"halfway along the curve: the cubic's value", 0,
			then(twentyThenRefused, waiting(after429+k20/2)), 20 - cubicScale*math.Pow(k20.Seconds()/2, 3), 20},
		{"callers waiting: the rate holds at the limit for the plateau", 0,
			then(twentyThenRefused, waiting(probeAt(-100*time.Millisecond))), 20, 20},
		{"callers waiting past the plateau: it probes above the limit", 0,
			then(twentyThenRefused, send(probeAt(time.Second), 20, 900*time.Millisecond), waiting(probeAt(2*sec))), 20 + cubicScale*8, 20},
		{"idle time regains the limit but does not count towards a probe", 0,
			then(twentyThenRefused, idle(time.Minute), waiting(time.Minute+firstPlateau-100*time.Millisecond)), 20, 20},
		{"nobody waiting: no probe", 0,
			then(twentyThenRefused, idle(after429+k20+time.Millisecond), idle(forgetAfter)), 20, 20},
		{"no 429 for forgetAfter: the limit is forgotten", 0,
			then(twentyThenRefused, idle(after429+forgetAfter+time.Millisecond)), math.Inf(1), 0},
		{"forgotten under a ceiling: the ceiling", 20,
			then([]event{send(0, 15, 900*time.Millisecond), send(950*time.Millisecond, 1, 0), refused(950*time.Millisecond, 950*time.Millisecond)},
				idle(time.Hour)), 20, 0},
		{"a ceiling caps the probe", 22,
			then(twentyThenRefused, send(probeAt(2*sec), 20, 900*time.Millisecond), waiting(probeAt(3*sec))), 22, 20},
		{"a 429 at about the limit: the limit stands, and the rate returns to it", 0,
			then(twentyThenRefused, send(probeAt(time.Second), 20, 900*time.Millisecond), waiting(probeAt(2*sec)), send(probeAt(2*sec), 23, 900*time.Millisecond),
				refused(probeAt(3*sec), probeAt(2*sec)+880*time.Millisecond)), 22, 22},
		{"a 429 well below the limit: the limit fell, and the rate restarts at 0.7", 0,
			then(twentyThenRefused, idle(10*sec), send(10*sec, 11, 900*time.Millisecond), refused(11*sec, 10*sec+900*time.Millisecond/11*10)), 7, 10},
		{"429s with nothing accepted: the floor", 0,
			then(twentyThenRefused, send(10*sec, 1, 0), refused(10*sec, 10*sec)), minRate, minRate},
		{"a ceiling below the floor is the floor", 0.5,
			[]event{send(0, 1, 0), refused(0, 0)}, 0.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newRateController(tt.ceiling)
			play(&c, &sendLog{}, tt.events)
			if math.Abs(c.rate-tt.wantRate) > 1e-6 && c.rate != tt.wantRate {
				t.Errorf("rate = %v, want %v", c.rate, tt.wantRate)
			}
			if math.Abs(c.limit-tt.wantLimit) > 1e-9 {
				t.Errorf("limit = %v, want %v", c.limit, tt.wantLimit)
			}
		})
	}
}

// TestFailedProbesHoldLongerEachTime: each 429 at the limit doubles the hold
// before the next probe, up to maxPlateau; a 429 well below resets it.
func TestFailedProbesHoldLongerEachTime(t *testing.T) {
	c := newRateController(0)
	log := &sendLog{}
	play(&c, log, twentyThenRefused)
	at := 960 * time.Millisecond
	var holds []time.Duration
	for range 5 {
		at += time.Hour // long enough for any hold; no probe while idle
		play(&c, log, []event{send(at, 20, 900*time.Millisecond), refused(at+950*time.Millisecond, at+900*time.Millisecond*19/20)})
		at += 950 * time.Millisecond
		holds = append(holds, c.plateau)
	}
	if got, want := fmt.Sprint(holds), fmt.Sprint([]time.Duration{10 * sec, 20 * sec, 40 * sec, time.Minute, time.Minute}); got != want {
		t.Errorf("holds after successive 429s at the limit = %s, want %s", got, want)
	}
	at += time.Hour
	play(&c, log, []event{send(at, 5, 900*time.Millisecond), refused(at+950*time.Millisecond, at+900*time.Millisecond*4/5)})
	if c.plateau != firstPlateau || c.limit != 4 {
		t.Errorf("after a 429 well below: hold %s and limit %v, want %s and 4", c.plateau, c.limit, firstPlateau)
	}
}

func TestRateControllerNext(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		rate    float64
		sent    []time.Duration
		paused  time.Duration // pause until; 0: none
		now     time.Duration
		wantGap time.Duration // the next send time, from now
	}{
		{"no rate: at once", math.Inf(1), []time.Duration{0, 0, 0}, 0, 0, 0},
		{"a burst within the rate: at once", 5, []time.Duration{0, 0, 0, 0}, 0, 0, 0},
		{"the rate used up: when the oldest is a second and the margin old", 5, []time.Duration{0, 0, 0, 0, 0}, 0, 0, sec + skewMargin},
		{"requests older than the second do not count", 5, []time.Duration{0, 500 * ms, 1200 * ms, 1200 * ms, 1200 * ms}, 0, 1200 * ms, 0},
		{"a fractional rate: n requests in n/rate seconds", 1.5, []time.Duration{0}, 0, 0, 667*ms + skewMargin - 333*time.Microsecond},
		{"below one: one every 1/rate seconds", 0.5, []time.Duration{0}, 0, 0, 2*sec + skewMargin},
		{"a pause: when it ends", math.Inf(1), nil, 3 * sec, 0, 3 * sec},
		{"a second after a pause: one at a time at the rate", 10, []time.Duration{3 * sec}, 3 * sec, 3 * sec, 100 * ms},
		{"a second after a pause and more: bursts again", 10, []time.Duration{4100 * ms}, 3 * sec, 4100 * ms, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newRateController(0)
			c.rate = tt.rate
			log := &sendLog{}
			for _, d := range tt.sent {
				log.add(t0.Add(d))
			}
			var paused time.Time
			if tt.paused > 0 {
				paused = t0.Add(tt.paused)
			}
			now := t0.Add(tt.now)
			got := c.next(now, log, paused).Sub(now)
			if (got - tt.wantGap).Abs() > time.Microsecond {
				t.Errorf("next send %s from now, want %s", got, tt.wantGap)
			}
		})
	}
}
