package mockapi

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestRateLimit429WithRetryAfter(t *testing.T) {
	s, clock := newTestServer(t, Config{RateLimit: 2})
	id := startExport(t, s, `{"domain":"docs.example.com"}`) // 1 of the burst of 2
	var ok, limited int
	for range 6 {
		r := call(t, s, "GET", "/v1/static-export/jobs/"+id, "")
		switch r.status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
			wantJSON(t, r)
			if r.errorMessage(t) == "" {
				t.Fatal("429 without error message")
			}
			ra, err := strconv.Atoi(r.header.Get("Retry-After"))
			if err != nil || ra < 1 {
				t.Fatalf("Retry-After = %q, want whole seconds >= 1", r.header.Get("Retry-After"))
			}
		default:
			t.Fatalf("unexpected status %d", r.status)
		}
	}
	// Six calls in well under a second with burst 2: at most 2 more pass.
	if limited < 3 || ok < 1 {
		t.Fatalf("ok=%d limited=%d", ok, limited)
	}
	if s.RateLimited() != limited {
		t.Fatalf("RateLimited = %d, want %d", s.RateLimited(), limited)
	}
	if s.Requests(EndpointGetExport) != 6 {
		t.Fatalf("Requests = %d, want 6 (429s included)", s.Requests(EndpointGetExport))
	}

	// Downloads model object storage and are not limited.
	s.CompleteExportJob(id)
	time.Sleep(1100 * time.Millisecond) // real time refills the bucket
	clock.Advance(time.Second)
	link := bundle(t, s, id)["bundleUrl"].(string)
	for range 5 {
		wantStatus(t, callKey(t, s, "", "GET", link, ""), http.StatusOK)
	}
}

func TestRateLimitRefillsAndRetryAfter(t *testing.T) {
	now := testStart
	s := NewHandler(Config{RateLimit: 4})
	for i := range 4 {
		if secs := s.throttle(now); secs != 0 {
			t.Fatalf("burst token %d refused", i)
		}
	}
	if secs := s.throttle(now); secs != 1 { // a token comes back in 250ms
		t.Fatalf("empty bucket: Retry-After %d, want 1", secs)
	}
	if secs := s.throttle(now.Add(250 * time.Millisecond)); secs != 0 {
		t.Fatal("token not refilled")
	}
	if retryAfterSeconds(1500*time.Millisecond) != 2 || retryAfterSeconds(0) != 1 {
		t.Fatal("retryAfterSeconds rounding")
	}
	if s.RateLimited() != 1 {
		t.Fatalf("RateLimited = %d, want 1", s.RateLimited())
	}

	slow := NewHandler(Config{RateLimit: 0.5}) // burst 1
	slow.throttle(now)
	if secs := slow.throttle(now); secs != 2 {
		t.Fatalf("0.5 rps Retry-After = %d, want 2", secs)
	}
}
