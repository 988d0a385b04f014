package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

const runningJob = `{"jobId":"se_1","status":"running","progress":10}`

// runConcurrently runs n calls at once and returns their errors.
func runConcurrently(n int, call func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = call(i)
		}()
	}
	wg.Wait()
	return errs
}

// In a synctest bubble, with an in-memory transport: time is virtual, so
// the spacing measured is the client's own, whatever the machine's load.
func TestRequestsPerSecondIsEnforced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var hits []time.Time
		transport := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			hits = append(hits, time.Now())
			mu.Unlock()
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(runningJob)), Request: r}, nil
		})
		cfg := testConfig("https://api.example.com")
		cfg.HTTPClient = &http.Client{Transport: transport}
		cfg.RequestsPerSecond = 20 // a ceiling: at most 20 requests in any second
		cfg.MaxConcurrentRequests = 40
		c := newClient(t, cfg)

		errs := runConcurrently(40, func(int) error {
			_, err := c.GetStaticExport(t.Context(), "se_1")
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(hits) != 40 {
			t.Fatalf("%d requests, want 40", len(hits))
		}
		slices.SortFunc(hits, func(a, b time.Time) int { return a.Compare(b) })
		for i := range len(hits) - 20 {
			if gap := hits[i+20].Sub(hits[i]); gap < time.Second {
				t.Errorf("requests %d and %d were sent %s apart: 21 requests within a second at a ceiling of 20/s", i, i+20, gap)
			}
		}
		t.Logf("40 requests sent over %s", hits[len(hits)-1].Sub(hits[0]))
		if took := hits[len(hits)-1].Sub(hits[0]); took > 2*time.Second {
			t.Errorf("40 requests took %s at a ceiling of 20/s; the ceiling, not more, should pace them", took)
		}
	})
}

// roundTripFunc is a transport answering in memory.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestMaxConcurrentRequests(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		_, _ = w.Write([]byte(runningJob))
	}))
	cfg := testConfig(srv.URL)
	cfg.MaxConcurrentRequests = 2
	c := newClient(t, cfg)

	// The budget is shared by every endpoint of the client.
	errs := runConcurrently(12, func(i int) error {
		var err error
		switch i % 3 {
		case 0:
			_, err = c.GetStaticExport(t.Context(), "se_1")
		case 1:
			_, err = c.GetAgentJob(t.Context(), "p1", "aj_1")
		default:
			_, err = c.CreateAgentJob(t.Context(), "p1", "prompt")
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("%d requests were in flight at once, want at most 2", p)
	} else if p < 2 {
		t.Errorf("peak concurrency %d: the test did not exercise the limit", p)
	}
}

func TestRateLimitedAnswerPausesEveryCaller(t *testing.T) {
	var limitedOnce atomic.Bool
	var limitedAt, otherArrived atomic.Int64 // unix nanoseconds
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/static-export/jobs/first":
			if limitedOnce.CompareAndSwap(false, true) {
				limitedAt.Store(time.Now().UnixNano())
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":"rate limit exceeded"}`))
				return
			}
		case "/v1/static-export/jobs/other":
			otherArrived.CompareAndSwap(0, time.Now().UnixNano())
		}
		_, _ = w.Write([]byte(runningJob))
	}))
	logger := newRecordingLogger()
	cfg := testConfig(srv.URL)
	cfg.MaxRetryAfter = 300 * time.Millisecond
	cfg.Logger = logger
	c := newClient(t, cfg)

	retrying := logger.on("retrying API request")
	firstDone := make(chan error, 1)
	go func() {
		_, err := c.GetStaticExport(t.Context(), "first")
		firstDone <- err
	}()
	select {
	case <-retrying: // the pause is in place before the retry is logged
	case err := <-firstDone:
		t.Fatalf("the first call ended without a retry: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the first call never got its 429")
	}
	if _, err := c.GetStaticExport(t.Context(), "other"); err != nil {
		t.Fatalf("other caller: %v", err)
	}
	if err := <-firstDone; err != nil {
		t.Fatalf("first caller: %v", err)
	}
	// Measured from the 429 as the server sent it, which comes before the
	// pause begins: a slow machine only makes this longer.
	held := time.Unix(0, otherArrived.Load()).Sub(time.Unix(0, limitedAt.Load()))
	if held < 250*time.Millisecond {
		t.Errorf("another caller reached the server %s after the 429, want it held for the 300ms pause", held)
	}
}

func TestRateLimitedAnswerLogsTheRateChange(t *testing.T) {
	seq := newSequenceServer(t,
		answer{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":"slow down"}`},
		answer{status: 200, body: runningJob})
	logger := newRecordingLogger()
	cfg := testConfig(seq.URL)
	cfg.RequestsPerSecond = 0 // no ceiling
	cfg.Logger = logger
	c := newClient(t, cfg)
	if _, err := c.GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatal(err)
	}
	changes := logger.withMessage("request rate changed")
	if len(changes) == 0 {
		t.Fatalf("no rate change logged after a 429:\n%s", logger.text())
	}
	first := changes[0].fields
	if first["old_rate"] != "unlimited" || first["new_rate"] != 1.0 {
		t.Errorf("first change = %v, want from unlimited to the floor of 1 request per second", first)
	}
	if reason, _ := first["reason"].(string); !strings.Contains(reason, "HTTP 429 to GET /v1/static-export/jobs/se_1") {
		t.Errorf("reason = %q, want it to name the 429 and the endpoint", reason)
	}
}

func TestPauseWaitHonorsContext(t *testing.T) {
	var limited atomic.Bool
	var otherHits atomic.Int32
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/static-export/jobs/first" && limited.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		if r.URL.Path == "/v1/static-export/jobs/other" {
			otherHits.Add(1)
		}
		_, _ = w.Write([]byte(runningJob))
	}))
	logger := newRecordingLogger()
	cfg := testConfig(srv.URL)
	cfg.MaxRetryAfter = time.Minute
	cfg.Logger = logger
	c := newClient(t, cfg)

	firstCtx, cancelFirst := context.WithCancel(t.Context())
	defer cancelFirst()
	retrying := logger.on("retrying API request")
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		_, _ = c.GetStaticExport(firstCtx, "first")
	}()
	waitDone(t, retrying, 5*time.Second, "the first call's 429")

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.GetStaticExport(ctx, "other")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("a caller held by the pause took %s to give up", elapsed)
	}
	if otherHits.Load() != 0 {
		t.Errorf("the paused caller reached the server")
	}
	cancelFirst()
	waitDone(t, firstDone, 2*time.Second, "the first call after cancellation")
}

// TestRateWaitBeyondDeadline covers a call whose deadline comes before its
// turn in the request budget: it fails at once, as a deadline.
func TestRateWaitBeyondDeadline(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, body: runningJob})
	cfg := testConfig(seq.URL)
	cfg.RequestsPerSecond = 0.5 // one request every 2s
	logger := newRecordingLogger()
	cfg.Logger = logger
	c := newClient(t, cfg)
	if _, err := c.GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatalf("first call: %v", err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.GetStaticExport(ctx, "se_1")
	if err == nil {
		t.Fatal("a call that cannot get a token before its deadline succeeded")
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("the call took %s, want it to stop by its 300ms deadline", elapsed)
	}
	if seq.count() != 1 {
		t.Errorf("%d requests, want 1", seq.count())
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap context.DeadlineExceeded so callers report a timeout", err)
	}
	if logger.retries() != 0 {
		t.Errorf("a call that could never run in time was retried %d times:\n%s", logger.retries(), logger.text())
	}
}

func TestClientIsSafeForConcurrentUse(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, body: `{"jobId":"se_1","id":"aj_1","status":"running","bundleUrl":"https://x/y"}`})
	c := newClient(t, testConfig(seq.URL))
	errs := runConcurrently(30, func(i int) error {
		var err error
		switch i % 4 {
		case 0:
			_, err = c.GetStaticExport(t.Context(), "se_1")
		case 1:
			_, err = c.CreateStaticExportLink(t.Context(), "se_1")
		case 2:
			_, err = c.GetAgentJob(t.Context(), "p1", "aj_1")
		default:
			_, err = c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if seq.count() != 30 {
		t.Errorf("%d requests, want 30", seq.count())
	}
}

func TestPacedWithACeilingOrOnceTheAPIAnswers429(t *testing.T) {
	var calls atomic.Int32
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(runningJob))
	}))
	cfg := testConfig(srv.URL)
	cfg.RequestsPerSecond = 0 // adaptive
	c := newClient(t, cfg)
	if _, err := c.GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatal(err)
	}
	if c.Paced() {
		t.Error("Paced before any 429 and without a ceiling, want false")
	}
	if _, err := c.GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatal(err) // retried after the 429
	}
	if !c.Paced() {
		t.Error("Paced after a 429, want true")
	}
	cfg.RequestsPerSecond = 100
	if !newClient(t, cfg).Paced() {
		t.Error("Paced with a ceiling, want true")
	}
}
