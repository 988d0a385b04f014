package client

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

// gate is the request budget of one Client: it holds the lock, the cap on
// requests in flight, the pause a 429 imposes on every caller and the log
// of requests sent, and asks its rateController when each may leave.
type gate struct {
	inFlight chan struct{}
	clock    clock.Clock
	logger   Logger

	mu          sync.Mutex
	ctl         rateController
	sent        sendLog
	pausedUntil time.Time
	waiting     int // callers waiting for their turn
}

func newGate(ceiling float64, concurrency int, clk clock.Clock, logger Logger) *gate {
	return &gate{
		inFlight: make(chan struct{}, concurrency),
		clock:    clk,
		logger:   logger,
		ctl:      newRateController(ceiling),
	}
}

// paced reports whether requests are paced: by a ceiling, or by a rate a
// 429 has set.
func (g *gate) paced() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ctl.ceiling > 0 || g.ctl.learned()
}

// acquire waits for a free slot, for a pause to end and for the request's
// turn at the current rate, and returns when the request may be sent and the
// function that frees the slot. A wait that would outlast the context's
// deadline fails at once.
func (g *gate) acquire(ctx context.Context) (time.Time, func(), error) {
	select {
	case g.inFlight <- struct{}{}:
	case <-ctx.Done():
		return time.Time{}, nil, ctx.Err()
	}
	release := func() { <-g.inFlight }
	for waited := false; ; waited = true {
		g.mu.Lock()
		now := g.clock.Now()
		held := waited || g.waiting > 0 || g.ctl.turn(now, &g.sent, g.pausedUntil).After(now)
		change := g.ctl.advance(now, held)
		at := g.ctl.next(now, &g.sent, g.pausedUntil)
		if !at.After(now) {
			g.sent.add(now)
		}
		g.mu.Unlock()
		g.log(ctx, change)

		wait := at.Sub(now)
		if wait <= 0 {
			return now, release, nil
		}
		if deadline, ok := ctx.Deadline(); ok && ctx.Err() == nil && wait > time.Until(deadline) {
			release()
			// A deadline is wall time whatever clock the client was given.
			return time.Time{}, nil, fmt.Errorf("%w (the request budget has no room before the deadline)", context.DeadlineExceeded)
		}
		g.mu.Lock()
		g.waiting++
		g.mu.Unlock()
		err := clock.Sleep(ctx, g.clock, wait)
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		if err != nil {
			release()
			return time.Time{}, nil, err
		}
	}
}

// recordThrottle records a 429 to a request sent at sent: every caller is
// held for pause (a pause is extended, never shortened), and the controller
// lowers the rate.
func (g *gate) recordThrottle(ctx context.Context, sent time.Time, pause time.Duration, why string) {
	g.mu.Lock()
	now := g.clock.Now()
	if until := now.Add(pause); until.After(g.pausedUntil) {
		g.pausedUntil = until
	}
	// The server did not count the refused request: the log keeps what it
	// accepted.
	g.sent.remove(sent)
	change := g.ctl.throttled(now, sent, g.sent.count(now), why)
	g.mu.Unlock()
	g.log(ctx, change)
}

func (g *gate) log(ctx context.Context, c *rateChange) {
	if c == nil {
		return
	}
	g.logger.Debug(ctx, "request rate changed", map[string]any{
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

// sendLog holds the send times of the requests of the last second (and the
// skew margin), oldest first, and of the latest request whenever it was.
type sendLog struct {
	times  []time.Time
	latest time.Time
}

func (s *sendLog) add(now time.Time) {
	cut := now.Add(-sendWindow - skewMargin)
	i := 0
	for i < len(s.times) && !s.times[i].After(cut) {
		i++
	}
	s.times = append(s.times[i:], now)
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

// count is the number of requests sent in the second before now.
func (s *sendLog) count(now time.Time) float64 {
	cut := now.Add(-sendWindow)
	n := 0
	for _, t := range s.times {
		if t.After(cut) && !t.After(now) {
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
