package mockapi

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// RetryAfterForm is how the mock's 429s say when to come back.
type RetryAfterForm int

// The forms of Retry-After that real APIs send.
const (
	// RetryAfterSeconds sends delta-seconds: the wait rounded up to whole
	// seconds, at least 1. The default.
	RetryAfterSeconds RetryAfterForm = iota
	// RetryAfterDate sends an HTTP date: now plus the wait rounded up to
	// whole seconds, in http.TimeFormat, which drops the fraction of a
	// second: the date falls up to a second before the rounded wait ends,
	// and can fall before the wait itself ends.
	RetryAfterDate
	// RetryAfterAbsent sends no Retry-After at all.
	RetryAfterAbsent
)

var retryAfterForms = []string{RetryAfterSeconds: "delta-seconds", RetryAfterDate: "HTTP date", RetryAfterAbsent: "absent"}

func (f RetryAfterForm) String() string { return enumName(retryAfterForms, f) }

// Limits are server models of rate limits and latency for benchmarks and
// tests. They apply to the API endpoints, not to bundle downloads, and run
// on real time rather than Config.Now: they are about how fast a client
// really calls.
type Limits struct {
	// WindowLimit is the most API requests accepted in any sliding Window,
	// counted as a log of the accepted requests; beyond it the answer is 429
	// until the oldest accepted request leaves the window. 0: no limit.
	WindowLimit int
	// Window is the length of WindowLimit's window. Default one second.
	Window time.Duration
	// RetryAfter is the form of Retry-After in the 429s of WindowLimit and
	// of Config.RateLimit.
	RetryAfter RetryAfterForm
	// Latency delays every API answer, 429s included.
	Latency time.Duration
}

// limitState holds the current Limits and the sliding window's log.
type limitState struct {
	mu       sync.Mutex
	limits   Limits
	accepted []time.Time // oldest first, all within the window
}

// SetLimits replaces the server's Limits; the sliding window starts empty.
func (s *Server) SetLimits(l Limits) {
	s.limits.mu.Lock()
	defer s.limits.mu.Unlock()
	s.limits.limits = l
	s.limits.accepted = nil
}

// Limits returns the server's current Limits.
func (s *Server) Limits() Limits {
	s.limits.mu.Lock()
	defer s.limits.mu.Unlock()
	return s.limits.limits
}

// admit applies the rate limits and the latency to an API request. It
// reports false when it answered 429 itself. The sliding window is asked
// first; a request it accepts counts in it even if Config.RateLimit's bucket
// then refuses it (benchmarks and tests set one or the other).
func (s *Server) admit(w http.ResponseWriter, r *http.Request) bool {
	now := time.Now()
	wait, limits := s.limits.take(now)
	if s.limiter != nil && wait == 0 {
		wait = time.Duration(s.throttle(now)) * time.Second
	} else if wait > 0 {
		s.mu.Lock()
		s.rateLimited++
		s.mu.Unlock()
	}
	if limits.Latency > 0 {
		select {
		case <-time.After(limits.Latency):
		case <-r.Context().Done():
		}
	}
	if wait == 0 {
		return true
	}
	secs := retryAfterSeconds(wait)
	switch limits.RetryAfter {
	case RetryAfterSeconds:
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	case RetryAfterDate:
		w.Header().Set("Retry-After", now.Add(time.Duration(secs)*time.Second).UTC().Format(http.TimeFormat))
	}
	writeError(w, http.StatusTooManyRequests, fmt.Sprintf("rate limit exceeded: retry in %d s", secs))
	return false
}

// take records a request at now in the sliding window, or returns how long
// until the window has room for it.
func (ls *limitState) take(now time.Time) (time.Duration, Limits) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.limits
	if l.WindowLimit <= 0 {
		return 0, l
	}
	var wait time.Duration
	ls.accepted, wait = slide(ls.accepted, now, cmp.Or(max(l.Window, 0), time.Second), l.WindowLimit)
	return wait, l
}

// slide records an event at now in log, the events of the last window
// (oldest first), if fewer than limit are there; else it returns how long
// until the oldest leaves the window.
func slide(log []time.Time, now time.Time, window time.Duration, limit int) ([]time.Time, time.Duration) {
	log = slices.DeleteFunc(log, func(t time.Time) bool { return !t.After(now.Add(-window)) })
	if len(log) >= limit {
		return log, log[0].Add(window).Sub(now)
	}
	return append(log, now), 0
}
