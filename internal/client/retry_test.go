package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// startJob starts an export on the mock, so that GETs have something to read.
func startJob(t *testing.T, c *client.Client) string {
	t.Helper()
	job, err := c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		t.Fatalf("StartStaticExport: %v", err)
	}
	return job.JobID
}

func TestIdempotentCallsAreRetriedOnTransientFailures(t *testing.T) {
	faults := []struct {
		name  string
		fault mockapi.Fault
	}{
		{"500", mockapi.Fault{Status: 500}},
		{"502 HTML", mockapi.Fault{Status: 502, Body: "<html><body>Bad Gateway</body></html>", Header: map[string]string{"Content-Type": "text/html"}}},
		{"503", mockapi.Fault{Status: 503}},
		{"504", mockapi.Fault{Status: 504}},
		{"429 without Retry-After", mockapi.Fault{Status: 429}},
		{"429 with Retry-After", mockapi.Fault{Status: 429, Header: map[string]string{"Retry-After": "1"}}},
		{"connection reset", mockapi.Fault{ResetConnection: true}},
		{"empty 200", mockapi.Fault{Status: 200}},
		{"truncated 200", mockapi.Fault{Status: 200, Body: `{"jobId":"se_1","sta`}},
		{"body shorter than Content-Length", mockapi.Fault{Status: 200, Body: `{"jobId":"se_1"`, Header: map[string]string{"Content-Length": "400"}}},
	}
	endpoints := []struct {
		endpoint mockapi.Endpoint
		call     func(c *client.Client, jobID string) error
	}{
		{mockapi.EndpointGetExport, func(c *client.Client, jobID string) error {
			job, err := c.GetStaticExport(t.Context(), jobID)
			if err == nil && job.JobID != jobID {
				return fmt.Errorf("read job %q, want %q", job.JobID, jobID)
			}
			return err
		}},
		{mockapi.EndpointGetAgentJob, func(c *client.Client, _ string) error {
			job, err := c.GetAgentJob(t.Context(), "p1", "aj_1")
			if err == nil && job.Status != client.AgentActive {
				return fmt.Errorf("read status %q", job.Status)
			}
			return err
		}},
		{mockapi.EndpointBundle, func(c *client.Client, jobID string) error {
			b, err := c.CreateStaticExportLink(t.Context(), jobID)
			if err == nil && b.BundleURL == "" {
				return errors.New("no link")
			}
			return err
		}},
	}
	for _, ep := range endpoints {
		for _, f := range faults {
			t.Run(string(ep.endpoint)+"/"+f.name, func(t *testing.T) {
				logger := newRecordingLogger()
				c, srv, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) {
					cfg.Logger = logger
					cfg.MaxRetryAfter = 20 * time.Millisecond
					// Without keep-alive, net/http never repeats a request on
					// its own, so the retry observed is the client's.
					transport := &http.Transport{DisableKeepAlives: true}
					t.Cleanup(transport.CloseIdleConnections)
					cfg.HTTPClient = &http.Client{Transport: transport}
				})
				jobID := startJob(t, c)
				srv.CompleteExportJob(jobID)
				srv.SeedAgentJob("p1", mockapi.AgentJob{ID: "aj_1", Status: mockapi.AgentActive})
				srv.InjectFault(ep.endpoint, f.fault)

				if err := ep.call(c, jobID); err != nil {
					t.Fatalf("call after one %s: %v", f.name, err)
				}
				if got := srv.Requests(ep.endpoint); got != 2 {
					t.Errorf("Requests = %d, want 2 (one failure, one retry)", got)
				}
				retries := logger.withMessage("retrying API request")
				if len(retries) != 1 {
					t.Fatalf("logged %d retries, want 1:\n%s", len(retries), logger.text())
				}
				if r := retries[0].fields; r["attempt"] != 1 || !strings.HasPrefix(fmt.Sprint(r["endpoint"]), ep.endpoint.Method()+" ") || fmt.Sprint(r["reason"]) == "" {
					t.Errorf("retry record = %v", r)
				}
			})
		}
	}
}

func TestPermanentErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 405, 409, 410, 422} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
			srv.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: status})
			_, err := c.GetStaticExport(t.Context(), "se_1")
			if client.StatusCode(err) != status {
				t.Fatalf("err = %v, want HTTP %d", err, status)
			}
			if got := srv.Requests(mockapi.EndpointGetExport); got != 1 {
				t.Errorf("HTTP %d was retried: %d requests", status, got)
			}
			if client.IsTransient(err) {
				t.Errorf("HTTP %d is reported as transient", status)
			}
		})
	}
}

// TestStartIsNotRepeatedWhenTheServerMayHaveActed covers failures after the
// request reached the server: repeating the start could begin a second export.
func TestStartIsNotRepeatedWhenTheServerMayHaveActed(t *testing.T) {
	tests := []struct {
		name         string
		fault        mockapi.Fault
		wantStarted  int
		wantStatus   int  // 0: a RequestError
		wantMaybeRun bool // RequestError.MaybeProcessed
	}{
		{name: "500", fault: mockapi.Fault{Status: 500}, wantStatus: 500},
		{name: "500 after acting", fault: mockapi.Fault{Status: 500, AfterHandling: true}, wantStarted: 1, wantStatus: 500},
		{name: "502", fault: mockapi.Fault{Status: 502, Body: "<html>Bad Gateway</html>", Header: map[string]string{"Content-Type": "text/html"}}, wantStatus: 502},
		{name: "503 without Retry-After", fault: mockapi.Fault{Status: 503, AfterHandling: true}, wantStarted: 1, wantStatus: 503},
		{name: "504 after acting", fault: mockapi.Fault{Status: 504, AfterHandling: true}, wantStarted: 1, wantStatus: 504},
		// A gateway that passed the start on may still ask to come back later.
		{name: "503 with Retry-After after acting", fault: mockapi.Fault{Status: 503, Header: map[string]string{"Retry-After": "1"}, AfterHandling: true}, wantStarted: 1, wantStatus: 503},
		{name: "502 with Retry-After after acting", fault: mockapi.Fault{Status: 502, Header: map[string]string{"Retry-After": "1"}, AfterHandling: true}, wantStarted: 1, wantStatus: 502},
		{name: "connection reset", fault: mockapi.Fault{ResetConnection: true}, wantMaybeRun: true},
		{name: "connection reset after acting", fault: mockapi.Fault{ResetConnection: true, AfterHandling: true}, wantStarted: 1, wantMaybeRun: true},
		{name: "empty 202", fault: mockapi.Fault{Status: 202, AfterHandling: true}, wantStarted: 1, wantStatus: 202},
		{name: "truncated 202", fault: mockapi.Fault{Status: 202, Body: `{"jobId":"se_`, AfterHandling: true}, wantStarted: 1, wantStatus: 202},
		{name: "202 shorter than Content-Length", fault: mockapi.Fault{Status: 202, Body: `{"jobId":"se_1"`, Header: map[string]string{"Content-Length": "300"}, AfterHandling: true}, wantStarted: 1, wantMaybeRun: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger := newRecordingLogger()
			c, srv, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) {
				cfg.MaxRetries = new(5)
				cfg.Logger = logger
			})
			srv.InjectFault(mockapi.EndpointStartExport, tt.fault)
			job, err := c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			if err == nil {
				t.Fatalf("StartStaticExport = %+v, want an error", job)
			}
			if got := srv.Requests(mockapi.EndpointStartExport); got != 1 {
				t.Errorf("%d start requests reached the server, want exactly 1", got)
			}
			if got := srv.ExportsStarted("docs.example.com"); got != tt.wantStarted {
				t.Errorf("ExportsStarted = %d, want %d", got, tt.wantStarted)
			}
			if logger.retries() != 0 {
				t.Errorf("the start was retried:\n%s", logger.text())
			}
			if tt.wantStatus != 0 {
				apiErr := asAPIError(t, err)
				if apiErr.StatusCode != tt.wantStatus || apiErr.Endpoint != "POST /v1/static-export/jobs" {
					t.Errorf("APIError = %+v, want HTTP %d", apiErr, tt.wantStatus)
				}
				return
			}
			reqErr := asRequestError(t, err)
			if reqErr.MaybeProcessed != tt.wantMaybeRun || reqErr.Endpoint != "POST /v1/static-export/jobs" {
				t.Errorf("RequestError = %+v, want MaybeProcessed %v", reqErr, tt.wantMaybeRun)
			}
			if !client.IsTransient(err) {
				t.Errorf("IsTransient = false for %v", err)
			}
			if strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error repeats the URL: %q", err)
			}
		})
	}
}

func TestNonIdempotentAgentCallsAreNotRepeated(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	srv.SeedAgentJob("p1", mockapi.AgentJob{ID: "aj_1", Status: mockapi.AgentCompleted})
	srv.InjectFault(mockapi.EndpointCreateAgentJob, mockapi.Fault{Status: 502, AfterHandling: true})
	srv.InjectFault(mockapi.EndpointAgentMessage, mockapi.Fault{ResetConnection: true, AfterHandling: true})

	if _, err := c.CreateAgentJob(t.Context(), "p1", "prompt"); client.StatusCode(err) != 502 {
		t.Errorf("CreateAgentJob: %v, want the 502", err)
	}
	if got := srv.Requests(mockapi.EndpointCreateAgentJob); got != 1 {
		t.Errorf("create was repeated: %d requests", got)
	}
	_, err := c.SendAgentJobMessage(t.Context(), "p1", "aj_1", "prompt")
	if reqErr := asRequestError(t, err); !reqErr.MaybeProcessed {
		t.Errorf("reset after sending: MaybeProcessed = false")
	}
	if got := srv.Requests(mockapi.EndpointAgentMessage); got != 1 {
		t.Errorf("message was repeated: %d requests", got)
	}
}

// TestStartIsRetriedWhenTheServerSurelyDidNotAct covers the failures that
// promise nothing was done: a 429, whatever its Retry-After.
func TestStartIsRetriedWhenTheServerSurelyDidNotAct(t *testing.T) {
	tests := []struct {
		name  string
		fault mockapi.Fault
	}{
		{"429", mockapi.Fault{Status: 429, Body: `{"error":"slow down"}`}},
		{"429 with Retry-After", mockapi.Fault{Status: 429, Header: map[string]string{"Retry-After": "1"}}},
		{"429 with a Retry-After date", mockapi.Fault{Status: 429, Header: map[string]string{"Retry-After": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger := newRecordingLogger()
			c, srv, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) {
				cfg.Logger = logger
				cfg.MaxRetryAfter = 20 * time.Millisecond // caps the 1s and 1h waits
			})
			srv.InjectFault(mockapi.EndpointStartExport, tt.fault)
			start := time.Now()
			job, err := c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			if err != nil {
				t.Fatalf("StartStaticExport: %v", err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("MaxRetryAfter was not honored: the start took %s", elapsed)
			}
			if got := srv.Requests(mockapi.EndpointStartExport); got != 2 {
				t.Errorf("Requests = %d, want 2", got)
			}
			if got := srv.ExportJobIDs("docs.example.com"); len(got) != 1 || got[0] != job.JobID {
				t.Errorf("jobs = %v, want only %s", got, job.JobID)
			}
			if logger.retries() != 1 {
				t.Errorf("logged %d retries, want 1", logger.retries())
			}
		})
	}
}

func TestStartIsRetriedAfterConnectionRefused(t *testing.T) {
	for _, refused := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d refused", refused), func(t *testing.T) {
			srv, _ := newMock(t, mockapi.Config{})
			httpClient, dials := refuseFirstDials(t, refused)
			logger := newRecordingLogger()
			cfg := testConfig(srv.URL)
			cfg.HTTPClient = httpClient
			cfg.Logger = logger
			c := newClient(t, cfg)

			job, err := c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			if err != nil {
				t.Fatalf("StartStaticExport: %v", err)
			}
			if dials() != refused+1 {
				t.Errorf("dials = %d, want %d", dials(), refused+1)
			}
			if got := srv.Requests(mockapi.EndpointStartExport); got != 1 {
				t.Errorf("Requests = %d, want 1", got)
			}
			if got := srv.ExportJobIDs("docs.example.com"); len(got) != 1 || got[0] != job.JobID {
				t.Errorf("jobs = %v", got)
			}
			retries := logger.withMessage("retrying API request")
			if len(retries) != refused {
				t.Fatalf("logged %d retries, want %d:\n%s", len(retries), refused, logger.text())
			}
			if reason := fmt.Sprint(retries[0].fields["reason"]); !strings.Contains(reason, "refused") {
				t.Errorf("retry reason = %q", reason)
			}
		})
	}
}

func TestConnectionRefusedGivesUpAfterMaxRetries(t *testing.T) {
	cfg := testConfig("http://" + closedLoopbackAddr(t))
	cfg.MaxRetries = new(2)
	logger := newRecordingLogger()
	cfg.Logger = logger
	_, err := newClient(t, cfg).StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
	reqErr := asRequestError(t, err)
	if reqErr.MaybeProcessed {
		t.Errorf("a refused connection is reported as maybe processed")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err = %v, want it to wrap ECONNREFUSED", err)
	}
	if logger.retries() != 2 {
		t.Errorf("logged %d retries, want 2", logger.retries())
	}
	if !client.IsTransient(err) {
		t.Errorf("IsTransient = false for %v", err)
	}
}

// A host name that does not exist is not asked again: nothing was sent, and
// the name servers give the same answer seconds later. The dial fails as
// Go's dialer fails for a name under .invalid (RFC 6761), which no name
// server resolves; a lookup that timed out is still retried.
func TestUnknownHostIsNotRetried(t *testing.T) {
	for _, c := range []struct {
		name      string
		dns       net.DNSError
		transient bool
		attempts  int
	}{
		{"no such host", net.DNSError{Err: "no such host", Name: "api.docsadmin.invalid", IsNotFound: true}, false, 1},
		{"lookup timed out", net.DNSError{Err: "i/o timeout", Name: "api.docsadmin.invalid", IsTimeout: true, IsTemporary: true}, true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			var dials atomic.Int32
			transport := &http.Transport{DialContext: func(_ context.Context, network, _ string) (net.Conn, error) {
				dials.Add(1)
				dnsErr := c.dns
				return nil, &net.OpError{Op: "dial", Net: network, Err: &dnsErr}
			}}
			cfg := testConfig("https://api.docsadmin.invalid")
			cfg.HTTPClient = &http.Client{Transport: transport}
			cfg.MaxRetries = new(2)
			logger := newRecordingLogger()
			cfg.Logger = logger
			_, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1")
			if got := client.IsTransient(err); got != c.transient {
				t.Errorf("IsTransient(%v) = %v, want %v", err, got, c.transient)
			}
			if n := int(dials.Load()); n != c.attempts {
				t.Errorf("%d attempts, want %d", n, c.attempts)
			}
			if client.MayHaveActed(err) || client.Classify(err).Kind != client.KindUnreachable {
				t.Errorf("Classify(%v) = %+v, want unreachable, nothing sent", err, client.Classify(err))
			}
			if !c.transient && !strings.Contains(client.Classify(err).Reason, "does not resolve") {
				t.Errorf("the reason %q does not say that the name does not resolve", client.Classify(err).Reason)
			}
		})
	}
}

func TestMaxRetries(t *testing.T) {
	tests := []struct {
		maxRetries   *int
		wantRequests int
	}{
		{new(0), 1},
		{new(-100), 1},
		{new(1), 2},
		{new(3), 4},
		{nil, client.DefaultMaxRetries + 1},
	}
	for _, tt := range tests {
		name := "unset"
		if tt.maxRetries != nil {
			name = fmt.Sprint(*tt.maxRetries)
		}
		t.Run(name, func(t *testing.T) {
			c, srv, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) { cfg.MaxRetries = tt.maxRetries })
			for range 20 {
				srv.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: 503})
			}
			_, err := c.GetStaticExport(t.Context(), "se_1")
			if client.StatusCode(err) != 503 {
				t.Fatalf("err = %v, want the 503", err)
			}
			if got := srv.Requests(mockapi.EndpointGetExport); got != tt.wantRequests {
				t.Errorf("Requests = %d, want %d", got, tt.wantRequests)
			}
		})
	}
}

// fakeClockConfig returns a client configuration whose waits run on an
// auto-advancing fake clock, so their length can be read off the clock.
func fakeClockConfig(baseURL string) (client.Config, *clocktest.FakeClock) {
	fake := clocktest.NewFakeClock(testStart)
	cfg := testConfig(baseURL)
	cfg.Clock = fake
	cfg.MaxRetryAfter = time.Hour
	cfg.Backoff = clock.Backoff{Base: 100 * time.Millisecond, Max: time.Second, Factor: 2, Jitter: -1}
	return cfg, fake
}

func TestRetryWaits(t *testing.T) {
	tests := []struct {
		name          string
		retryAfter    func(now time.Time) string // evaluated when the server answers
		status        int
		maxRetryAfter time.Duration
		minWait       time.Duration
		maxWait       time.Duration
	}{
		{"delta-seconds", func(time.Time) string { return "2" }, 429, time.Hour, 2 * time.Second, 2400 * time.Millisecond},
		{"HTTP date", func(now time.Time) string { return now.Add(3 * time.Second).Format(http.TimeFormat) }, 429, time.Hour, 3 * time.Second, 3600 * time.Millisecond},
		{"RFC 850 date", func(now time.Time) string { return now.Add(3 * time.Second).Format("Monday, 02-Jan-06 15:04:05 GMT") }, 503, time.Hour, 3 * time.Second, 3600 * time.Millisecond},
		{"capped by MaxRetryAfter", func(time.Time) string { return "3600" }, 429, 200 * time.Millisecond, 200 * time.Millisecond, 240 * time.Millisecond},
		{"capped HTTP date", func(now time.Time) string { return now.Add(time.Hour).Format(http.TimeFormat) }, 503, time.Second, time.Second, 1200 * time.Millisecond},
		{"past date falls back to backoff", func(now time.Time) string { return now.Add(-time.Minute).Format(http.TimeFormat) }, 429, time.Hour, 100 * time.Millisecond, 100 * time.Millisecond},
		{"malformed falls back to backoff", func(time.Time) string { return "soon" }, 429, time.Hour, 100 * time.Millisecond, 100 * time.Millisecond},
		{"no Retry-After: backoff", func(time.Time) string { return "" }, 500, time.Hour, 100 * time.Millisecond, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			var clock *clocktest.FakeClock
			srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					if v := tt.retryAfter(clock.Now()); v != "" {
						w.Header().Set("Retry-After", v)
					}
					w.WriteHeader(tt.status)
					return
				}
				_, _ = w.Write([]byte(`{"jobId":"se_1","status":"running"}`))
			}))
			cfg, fake := fakeClockConfig(srv.URL)
			clock = fake
			cfg.MaxRetryAfter = tt.maxRetryAfter
			c := newClient(t, cfg)
			realStart := time.Now()
			if _, err := c.GetStaticExport(t.Context(), "se_1"); err != nil {
				t.Fatalf("GetStaticExport: %v", err)
			}
			waited := clock.Now().Sub(testStart)
			if waited < tt.minWait || waited > tt.maxWait {
				t.Errorf("waited %s, want between %s and %s", waited, tt.minWait, tt.maxWait)
			}
			if n := hits.Load(); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			if wall := time.Since(realStart); wall > 2*time.Second {
				t.Errorf("the simulated wait took %s of real time", wall)
			}
		})
	}
}

func TestBackoffGrowsBetweenRetries(t *testing.T) {
	seq := newSequenceServer(t,
		answer{status: 503}, answer{status: 502}, answer{status: 500},
		answer{status: 200, body: `{"jobId":"se_1","status":"running"}`})
	cfg, clock := fakeClockConfig(seq.URL)
	logger := newRecordingLogger()
	cfg.Logger = logger
	before := clock.Now()
	if _, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatalf("GetStaticExport: %v", err)
	}
	if waited, want := clock.Now().Sub(before), 700*time.Millisecond; waited != want {
		t.Errorf("waited %s, want %s (100ms + 200ms + 400ms)", waited, want)
	}
	var waits []any
	for _, r := range logger.withMessage("retrying API request") {
		waits = append(waits, r.fields["wait_ms"])
	}
	if fmt.Sprint(waits) != "[100 200 400]" {
		t.Errorf("logged waits %v, want [100 200 400]", waits)
	}
}

func TestRetryAfterRealClock(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter func() string
		minWait    time.Duration
	}{
		{"delta-seconds", func() string { return "1" }, time.Second},
		// Whole seconds: two seconds ahead is at least one second away.
		{"HTTP date", func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) }, 900 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					w.Header().Set("Retry-After", tt.retryAfter())
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"error":"rate limit exceeded"}`))
					return
				}
				_, _ = w.Write([]byte(`{"jobId":"se_1","status":"running"}`))
			}))
			cfg := testConfig(srv.URL)
			cfg.MaxRetryAfter = 10 * time.Second
			start := time.Now()
			if _, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1"); err != nil {
				t.Fatalf("GetStaticExport: %v", err)
			}
			if elapsed := time.Since(start); elapsed < tt.minWait {
				t.Errorf("retried after %s, before the server's Retry-After", elapsed)
			}
			if n := hits.Load(); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
}

func TestRetryAfterIsReportedOnTheError(t *testing.T) {
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"120", 2 * time.Minute},
		{"0", 0},
		{"-3", 0},
		{"later", 0},
		{"", 0},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			header := map[string]string{}
			if tt.header != "" {
				header["Retry-After"] = tt.header
			}
			srv := cannedServer(t, 429, header, `{"error":"rate limit exceeded"}`)
			cfg := testConfig(srv.URL)
			cfg.MaxRetries = new(0)
			_, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1")
			if apiErr := asAPIError(t, err); apiErr.RetryAfter != tt.want {
				t.Errorf("RetryAfter = %s, want %s", apiErr.RetryAfter, tt.want)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"delta-seconds", "120", 2 * time.Minute, true},
		{"one second", "1", time.Second, true},
		{"zero", "0", 0, true},
		{"surrounding spaces", "  7 ", 7 * time.Second, true},
		{"leading zeros", "007", 7 * time.Second, true},
		{"a day", "86400", 24 * time.Hour, true},
		{"huge, capped at a day", "9999999999", 24 * time.Hour, true},
		{"beyond int64, capped at a day", "99999999999999999999999", 24 * time.Hour, true},
		{"negative", "-5", 0, false},
		{"fractional", "1.5", 0, false},
		{"unit suffix", "10s", 0, false},
		{"word", "soon", 0, false},
		{"empty", "", 0, false},
		{"blank", "   ", 0, false},
		{"HTTP date in the future", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"RFC 850 date", "Sunday, 22-Nov-26 08:05:00 GMT", 5 * time.Minute, true},
		{"ANSI C date", "Sun Nov 22 09:00:00 2026", time.Hour, true},
		{"HTTP date now", now.Format(http.TimeFormat), 0, false},
		{"HTTP date in the past", now.Add(-time.Minute).Format(http.TimeFormat), 0, false},
		{"date with a numeric zone", "Sun, 22 Nov 2026 08:01:00 +0000", 0, false},
		{"ISO 8601", "2026-11-22T08:01:00Z", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := client.ParseRetryAfter(tt.value, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseRetryAfter(%q) = %s, %v; want %s, %v", tt.value, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// The call's deadline is wall time whatever clock the client is given: a
// Retry-After is weighed against the time the call really has left, so a
// clock set ahead (as renewal tests do) neither refuses a short wait nor,
// set behind, accepts one that outlasts the deadline.
func TestRetryAfterWeighedAgainstTheDeadlineUnderAnInjectedClock(t *testing.T) {
	tests := []struct {
		name         string
		clockOffset  time.Duration // injected clock minus wall clock
		retryAfter   string
		wantErr      bool
		wantRequests int32
	}{
		{"clock ahead, wait fits", 24 * time.Hour, "1", false, 2},
		{"clock behind, wait outlasts the deadline", -24 * time.Hour, "7200", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					w.Header().Set("Retry-After", tt.retryAfter)
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				_, _ = w.Write([]byte(`{"jobId":"se_1","status":"running"}`))
			}))
			clock := clocktest.NewFakeClock(time.Now().Add(tt.clockOffset))
			cfg := testConfig(srv.URL)
			cfg.Clock = clock
			cfg.MaxRetryAfter = 3 * time.Hour
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			_, err := newClient(t, cfg).GetStaticExport(ctx, "se_1")
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Errorf("GetStaticExport error = %v, want error: %v", err, tt.wantErr)
			}
			if tt.wantErr && client.StatusCode(err) != http.StatusTooManyRequests {
				t.Errorf("err = %v, want the 429", err)
			}
			if got := hits.Load(); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
		})
	}
}
