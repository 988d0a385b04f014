package mockapi

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestSlidingWindowLimit(t *testing.T) {
	s, _ := newTestServer(t, Config{Limits: Limits{WindowLimit: 3}})
	id := startExport(t, s, `{"domain":"docs.example.com"}`) // 1 of 3
	var ok, limited int
	for range 5 {
		switch r := call(t, s, "GET", "/v1/static-export/jobs/"+id, ""); r.status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
			wantJSON(t, r)
			if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs != 1 {
				t.Errorf("Retry-After = %q, want 1 (delta-seconds by default)", r.header.Get("Retry-After"))
			}
		default:
			t.Fatalf("unexpected status %d", r.status)
		}
	}
	if ok != 2 || limited != 3 {
		t.Fatalf("ok=%d limited=%d, want 2 and 3 within one second", ok, limited)
	}
	if s.RateLimited() != 3 {
		t.Errorf("RateLimited = %d, want 3", s.RateLimited())
	}
}

func TestSlidingWindowCountsOnlyTheLastWindow(t *testing.T) {
	var ls limitState
	ls.limits = Limits{WindowLimit: 2, Window: time.Second}
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		at   time.Duration
		wait time.Duration
	}{
		{0, 0},
		{400 * time.Millisecond, 0},
		{500 * time.Millisecond, 500 * time.Millisecond}, // refused: not logged
		{time.Second, 0}, // the first has left the window
		{1300 * time.Millisecond, 100 * time.Millisecond},
		{1400 * time.Millisecond, 0},
	} {
		if wait, _ := ls.take(now.Add(tc.at)); wait != tc.wait {
			t.Errorf("request %d at +%s: wait %s, want %s", i, tc.at, wait, tc.wait)
		}
	}
}

func TestRetryAfterForms(t *testing.T) {
	for _, form := range []RetryAfterForm{RetryAfterSeconds, RetryAfterDate, RetryAfterAbsent} {
		t.Run(form.String(), func(t *testing.T) {
			s, _ := newTestServer(t, Config{Limits: Limits{WindowLimit: 1, RetryAfter: form}})
			call(t, s, "GET", "/v1/static-export/jobs/none", "")
			before := time.Now()
			r := call(t, s, "GET", "/v1/static-export/jobs/none", "")
			wantStatus(t, r, http.StatusTooManyRequests)
			value := r.header.Get("Retry-After")
			switch form {
			case RetryAfterSeconds:
				if value != "1" {
					t.Errorf("Retry-After = %q, want 1", value)
				}
			case RetryAfterDate:
				when, err := http.ParseTime(value)
				if err != nil {
					t.Fatalf("Retry-After = %q, not an HTTP date: %v", value, err)
				}
				// Whole seconds: at most a second ahead, and no more than a
				// second in the past.
				if d := when.Sub(before); d > time.Second || d < -time.Second {
					t.Errorf("Retry-After %q is %s from now, want within a second", value, d)
				}
			case RetryAfterAbsent:
				if value != "" {
					t.Errorf("Retry-After = %q, want none", value)
				}
			}
		})
	}
}

func TestLatencyDelaysEveryAnswer(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.SetLimits(Limits{Latency: 50 * time.Millisecond, WindowLimit: 1})
	for _, want := range []int{http.StatusNotFound, http.StatusTooManyRequests} {
		start := time.Now()
		r := call(t, s, "GET", "/v1/static-export/jobs/none", "")
		wantStatus(t, r, want)
		if took := time.Since(start); took < 50*time.Millisecond {
			t.Errorf("HTTP %d answered in %s, want at least the 50ms latency", want, took)
		}
	}
	if got := s.Limits(); got.Latency != 50*time.Millisecond {
		t.Errorf("Limits() = %+v", got)
	}
}
