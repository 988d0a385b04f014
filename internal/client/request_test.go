package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     client.Config
		wantErr string
	}{
		{"empty base URL", client.Config{APIKey: testAPIKey}, "not an absolute http(s) URL"},
		{"no scheme", client.Config{BaseURL: "api.example.com", APIKey: testAPIKey}, "not an absolute http(s) URL"},
		{"other scheme", client.Config{BaseURL: "ftp://api.example.com", APIKey: testAPIKey}, "not an absolute http(s) URL"},
		{"no host", client.Config{BaseURL: "https://", APIKey: testAPIKey}, "not an absolute http(s) URL"},
		{"unparseable", client.Config{BaseURL: "https://api.example.com/%zz", APIKey: testAPIKey}, "not an absolute http(s) URL"},
		{"no key", client.Config{BaseURL: "https://api.example.com"}, "API key is required"},
		{"valid https", client.Config{BaseURL: "https://api.example.com", APIKey: testAPIKey}, ""},
		{"valid http with port and slash", client.Config{BaseURL: "http://127.0.0.1:8080/", APIKey: testAPIKey}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := client.New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil || c == nil {
					t.Fatalf("New = %v, %v", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), testAPIKey) {
				t.Errorf("error contains the key: %q", err)
			}
		})
	}
}

func TestRequestHeadersAndBodies(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, header: map[string]string{"Content-Type": "application/json"},
		body: `{"jobId":"se_1","id":"aj_1","status":"queued","bundleUrl":"https://bucket.example.com/b.tar.gz"}`})
	cfg := testConfig(seq.URL + "/") // a trailing slash must not double the path separator
	c := newClient(t, cfg)
	ctx := t.Context()

	calls := []struct {
		name     string
		call     func() error
		method   string
		path     string
		wantBody map[string]any // nil: no body
	}{
		{"start, domain only", func() error {
			_, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
			return err
		}, "POST", "/v1/static-export/jobs", map[string]any{"domain": "docs.example.com"}},
		{"start with version and paths", func() error {
			_, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com", Version: "v3", Paths: []string{"index", "guides/getting-started"}})
			return err
		}, "POST", "/v1/static-export/jobs", map[string]any{"domain": "docs.example.com", "version": "v3", "paths": []any{"index", "guides/getting-started"}}},
		{"get export", func() error {
			_, err := c.GetStaticExport(ctx, "se_1")
			return err
		}, "GET", "/v1/static-export/jobs/se_1", nil},
		{"bundle", func() error {
			_, err := c.CreateStaticExportLink(ctx, "se_1")
			return err
		}, "POST", "/v1/static-export/jobs/se_1/bundle", nil},
		{"get agent job", func() error {
			_, err := c.GetAgentJob(ctx, "p1", "aj_1")
			return err
		}, "GET", "/v2/agent/p1/job/aj_1", nil},
		{"create agent job", func() error {
			_, err := c.CreateAgentJob(ctx, "p1", "Fix typos")
			return err
		}, "POST", "/v2/agent/p1/job", map[string]any{"prompt": "Fix typos"}},
		{"message agent job", func() error {
			_, err := c.SendAgentJobMessage(ctx, "p1", "aj_1", "And the README")
			return err
		}, "POST", "/v2/agent/p1/job/aj_1/message", map[string]any{"prompt": "And the README"}},
	}
	for i, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err != nil {
				t.Fatalf("call: %v", err)
			}
			req, body := seq.request(t, i)
			if req.Method != tc.method || req.URL.Path != tc.path {
				t.Errorf("request = %s %s, want %s %s", req.Method, req.URL.Path, tc.method, tc.path)
			}
			if got := req.Header.Get("Authorization"); got != "Bearer "+testAPIKey {
				t.Errorf("Authorization = %q", got)
			}
			if got := req.Header.Values("User-Agent"); len(got) != 1 || got[0] != cfg.UserAgent {
				t.Errorf("User-Agent = %q, want %q", got, cfg.UserAgent)
			}
			if got := req.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			if tc.wantBody == nil {
				if body != "" || req.Header.Get("Content-Type") != "" {
					t.Errorf("body %q with Content-Type %q, want neither", body, req.Header.Get("Content-Type"))
				}
				return
			}
			if got := req.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", got)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q is not JSON: %v", body, err)
			}
			if !jsonEqual(got, tc.wantBody) {
				t.Errorf("body = %s, want %v", body, tc.wantBody)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestDefaultUserAgent(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, body: `{"jobId":"se_1","status":"queued"}`})
	cfg := testConfig(seq.URL)
	cfg.UserAgent = ""
	if _, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatal(err)
	}
	req, _ := seq.request(t, 0)
	if got := req.Header.Get("User-Agent"); got != client.DefaultUserAgent {
		t.Errorf("default User-Agent = %q", got)
	}
}

func TestBaseURLWithPathPrefix(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, body: `{"jobId":"se_1","status":"queued"}`})
	if _, err := newClient(t, testConfig(seq.URL+"/gateway/")).GetStaticExport(t.Context(), "se_1"); err != nil {
		t.Fatal(err)
	}
	req, _ := seq.request(t, 0)
	if req.URL.Path != "/gateway/v1/static-export/jobs/se_1" {
		t.Errorf("path = %q", req.URL.Path)
	}
}

func TestJobIDIsPathEscaped(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, body: `{"status":"queued","bundleUrl":"https://x/y"}`})
	c := newClient(t, testConfig(seq.URL))
	if _, err := c.GetStaticExport(t.Context(), "../admin?x=1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateStaticExportLink(t.Context(), "se 1/2"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"/v1/static-export/jobs/..%2Fadmin%3Fx=1", "/v1/static-export/jobs/se%201%2F2/bundle"} {
		req, _ := seq.request(t, i)
		if got := req.URL.EscapedPath(); got != want || req.URL.RawQuery != "" {
			t.Errorf("request %d path = %q query %q, want %q and no query", i, got, req.URL.RawQuery, want)
		}
	}
}

// blockingServer holds every request until the client gives up or the test
// ends, and reports each arrival.
type blockingServer struct {
	URL      string
	arrivals atomic.Int32
	arrived  chan struct{}
}

func newBlockingServer(t *testing.T) *blockingServer {
	t.Helper()
	b := &blockingServer{arrived: make(chan struct{}, 64)}
	release := make(chan struct{})
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.arrivals.Add(1)
		b.arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	// Registered after newHTTPServer's cleanup, so it runs first and lets
	// Close finish.
	t.Cleanup(func() { close(release) })
	b.URL = srv.URL
	return b
}

func (b *blockingServer) count() int { return int(b.arrivals.Load()) }

func TestContextCancellationStopsACallPromptly(t *testing.T) {
	t.Run("while waiting for the answer", func(t *testing.T) {
		srv := newBlockingServer(t)
		c := newClient(t, testConfig(srv.URL))
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-srv.arrived
			cancel()
		}()
		start := time.Now()
		_, err := c.GetStaticExport(ctx, "se_1")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("the call took %s after cancellation", elapsed)
		}
		if srv.count() > 1 {
			t.Errorf("a canceled call was retried: %d requests", srv.count())
		}
		if reqErr := asRequestError(t, err); !strings.Contains(reqErr.Endpoint, "GET /v1/static-export/jobs/se_1") {
			t.Errorf("Endpoint = %q", reqErr.Endpoint)
		}
	})

	t.Run("already canceled", func(t *testing.T) {
		seq := newSequenceServer(t, answer{status: 200, body: `{"jobId":"se_1"}`})
		c := newClient(t, testConfig(seq.URL))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if seq.count() != 0 {
			t.Errorf("%d requests sent with a canceled context", seq.count())
		}
	})

	t.Run("while waiting to retry", func(t *testing.T) {
		seq := newSequenceServer(t, answer{status: 503, header: map[string]string{"Retry-After": "3600"}, body: `{"error":"maintenance"}`})
		logger := newRecordingLogger()
		cfg := testConfig(seq.URL)
		cfg.MaxRetryAfter = time.Hour
		cfg.Logger = logger
		c := newClient(t, cfg)
		ctx, cancel := context.WithCancel(t.Context())
		retrying := logger.on("retrying API request")
		go func() {
			<-retrying
			cancel()
		}()
		start := time.Now()
		_, err := c.GetStaticExport(ctx, "se_1")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want it to wrap context.Canceled", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("the call took %s after cancellation", elapsed)
		}
		if apiErr := asAPIError(t, err); apiErr.StatusCode != 503 || apiErr.Message != "maintenance" {
			t.Errorf("the last answer is lost: %+v", apiErr)
		}
		if seq.count() != 1 {
			t.Errorf("%d requests, want 1", seq.count())
		}
	})

	t.Run("deadline while waiting for the answer", func(t *testing.T) {
		srv := newBlockingServer(t)
		c := newClient(t, testConfig(srv.URL))
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.GetAgentJob(ctx, "p1", "aj_1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("the call took %s", elapsed)
		}
	})
}

func TestRequestTimeoutPerAttempt(t *testing.T) {
	t.Run("GET is retried", func(t *testing.T) {
		srv := newBlockingServer(t)
		cfg := testConfig(srv.URL)
		cfg.RequestTimeout = 50 * time.Millisecond
		cfg.MaxRetries = new(2)
		_, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1")
		reqErr := asRequestError(t, err)
		if !reqErr.MaybeProcessed {
			t.Errorf("a timed-out request is reported as never sent")
		}
		if srv.count() != 3 {
			t.Errorf("%d requests, want 3", srv.count())
		}
	})
	t.Run("start is not retried", func(t *testing.T) {
		srv := newBlockingServer(t)
		cfg := testConfig(srv.URL)
		cfg.RequestTimeout = 50 * time.Millisecond
		_, err := newClient(t, cfg).StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
		if reqErr := asRequestError(t, err); !reqErr.MaybeProcessed {
			t.Errorf("a timed-out start is reported as never sent")
		}
		if srv.count() != 1 {
			t.Errorf("%d start requests, want 1", srv.count())
		}
	})
}

// TestIdentifiersThatWouldChangeTheEndpointAreRejected: an empty, "." or ".."
// identifier cannot name a path segment. Sent as is, it addresses another
// resource ("/jobs/" is the collection; "/agent/../job/x" is normalized to
// "/job/x" by proxies and by servers that clean paths), whose answer the
// tolerant decoder would then read as the requested job.
func TestIdentifiersThatWouldChangeTheEndpointAreRejected(t *testing.T) {
	seq := newSequenceServer(t, answer{status: 200, body: `{"jobs":[],"status":"ok","bundleUrl":"https://x/y"}`})
	c := newClient(t, testConfig(seq.URL))
	ctx := t.Context()
	calls := []struct {
		name string
		call func() error
	}{
		{"GetStaticExport empty", func() error { _, err := c.GetStaticExport(ctx, ""); return err }},
		{"GetStaticExport dot-dot", func() error { _, err := c.GetStaticExport(ctx, ".."); return err }},
		{"CreateStaticExportLink dot", func() error { _, err := c.CreateStaticExportLink(ctx, "."); return err }},
		{"CreateStaticExportLink empty", func() error { _, err := c.CreateStaticExportLink(ctx, ""); return err }},
		{"GetAgentJob project dot-dot", func() error { _, err := c.GetAgentJob(ctx, "..", "aj_1"); return err }},
		{"GetAgentJob empty id", func() error { _, err := c.GetAgentJob(ctx, "p1", ""); return err }},
		{"CreateAgentJob empty project", func() error { _, err := c.CreateAgentJob(ctx, "", "prompt"); return err }},
		{"SendAgentJobMessage dot-dot id", func() error { _, err := c.SendAgentJobMessage(ctx, "p1", "..", "prompt"); return err }},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			before := seq.count()
			err := tc.call()
			if sent := seq.count() - before; sent != 0 {
				req, _ := seq.request(t, seq.count()-1)
				t.Errorf("a request was sent to %s %s (err %v), want the identifier rejected before sending", req.Method, req.URL.EscapedPath(), err)
			}
			if err == nil {
				t.Errorf("no error")
			}
		})
	}
}
