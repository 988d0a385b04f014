package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// testStart is a whole second, so second-precision timestamps and presigned
// dates compare exactly.
var testStart = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

const testAPIKey = "dsa_test_5f0c1e2d3b4a69788796a5b4"

// fastBackoff keeps retries in the millisecond range and deterministic.
var fastBackoff = clock.Backoff{Base: 5 * time.Millisecond, Max: 20 * time.Millisecond, Factor: 2, Jitter: -1}

// testConfig is a client configuration for baseURL with a generous request
// budget and tiny backoff, so tests only wait where they mean to.
func testConfig(baseURL string) client.Config {
	return client.Config{
		BaseURL:           baseURL,
		APIKey:            testAPIKey,
		UserAgent:         "terraform-provider-docsadmin/test (+client tests)",
		RequestsPerSecond: 10000,
		Backoff:           fastBackoff,
		MaxRetryAfter:     50 * time.Millisecond,
	}
}

func newClient(t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return c
}

// newMock starts the fake API on loopback, driven by a fake clock, with the
// test API key.
func newMock(t *testing.T, cfg mockapi.Config) (*mockapi.Server, *clocktest.FakeClock) {
	t.Helper()
	clock := clocktest.NewFakeClock(testStart)
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testAPIKey
	}
	srv := mockapi.NewServer(cfg)
	t.Cleanup(srv.Close)
	return srv, clock
}

// newMockClient starts the fake API and a client for it; edit adjusts the
// client configuration.
func newMockClient(t *testing.T, cfg mockapi.Config, edit func(*client.Config)) (*client.Client, *mockapi.Server, *clocktest.FakeClock) {
	t.Helper()
	srv, clock := newMock(t, cfg)
	ccfg := testConfig(srv.URL)
	if edit != nil {
		edit(&ccfg)
	}
	return newClient(t, ccfg), srv, clock
}

// newHTTPServer starts an httptest server on 127.0.0.1.
func newHTTPServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	if host, _, err := net.SplitHostPort(srv.Listener.Addr().String()); err != nil || host != "127.0.0.1" {
		t.Fatalf("test server is not on 127.0.0.1: %s", srv.Listener.Addr())
	}
	t.Cleanup(srv.Close)
	return srv
}

// cannedServer answers every request with the same status, headers and body.
func cannedServer(t *testing.T, status int, header map[string]string, body string) *httptest.Server {
	t.Helper()
	return newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
}

// answer is one scripted response of a sequenceServer.
type answer struct {
	status int
	header map[string]string
	body   string
}

// sequenceServer plays the answers in order, then repeats the last one, and
// counts the requests it received.
type sequenceServer struct {
	*httptest.Server
	mu       sync.Mutex
	answers  []answer
	requests []*http.Request
	bodies   []string
}

func newSequenceServer(t *testing.T, answers ...answer) *sequenceServer {
	t.Helper()
	s := &sequenceServer{answers: answers}
	s.Server = newHTTPServer(t, http.HandlerFunc(s.serve))
	return s
}

func (s *sequenceServer) serve(w http.ResponseWriter, r *http.Request) {
	var body strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		body.Write(buf[:n])
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	i := min(len(s.requests), len(s.answers)-1)
	s.requests = append(s.requests, r.Clone(context.Background()))
	s.bodies = append(s.bodies, body.String())
	a := s.answers[i]
	s.mu.Unlock()
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(a.body))
}

func (s *sequenceServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *sequenceServer) request(t *testing.T, i int) (*http.Request, string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.requests) {
		t.Fatalf("request %d not received (got %d)", i, len(s.requests))
	}
	return s.requests[i], s.bodies[i]
}

// logRecord is one Debug call of the client.
type logRecord struct {
	msg    string
	fields map[string]any
}

// recordingLogger keeps the client's debug records and can signal the first
// record with a given message.
type recordingLogger struct {
	mu      sync.Mutex
	records []logRecord
	notify  map[string]chan struct{}
}

func newRecordingLogger() *recordingLogger {
	return &recordingLogger{notify: map[string]chan struct{}{}}
}

func (l *recordingLogger) Debug(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	copied := make(map[string]any, len(fields))
	for k, v := range fields {
		copied[k] = v
	}
	l.records = append(l.records, logRecord{msg: msg, fields: copied})
	if ch, ok := l.notify[msg]; ok {
		close(ch)
		delete(l.notify, msg)
	}
}

// on returns a channel closed at the next record with msg.
func (l *recordingLogger) on(msg string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{})
	l.notify[msg] = ch
	return ch
}

func (l *recordingLogger) withMessage(msg string) []logRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logRecord
	for _, r := range l.records {
		if r.msg == msg {
			out = append(out, r)
		}
	}
	return out
}

func (l *recordingLogger) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, r := range l.records {
		fmt.Fprintf(&b, "%s %v\n", r.msg, r.fields)
	}
	return b.String()
}

// retries is the number of retries the client logged.
func (l *recordingLogger) retries() int { return len(l.withMessage("retrying API request")) }

// asAPIError fails the test unless err carries an *APIError.
func asAPIError(t *testing.T, err error) *client.APIError {
	t.Helper()
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v (%T) is not an *client.APIError", err, err)
	}
	return apiErr
}

// asRequestError fails the test unless err carries a *RequestError.
func asRequestError(t *testing.T, err error) *client.RequestError {
	t.Helper()
	var reqErr *client.RequestError
	if !errors.As(err, &reqErr) {
		t.Fatalf("error %v (%T) is not a *client.RequestError", err, err)
	}
	return reqErr
}

// closedLoopbackAddr returns a loopback address nothing listens on, so a dial
// to it is refused.
func closedLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return addr
}

// refuseFirstDials returns an http.Client whose first n dials go to a closed
// loopback port (a genuine ECONNREFUSED) and later ones to the real address.
func refuseFirstDials(t *testing.T, n int) (*http.Client, func() int) {
	t.Helper()
	closed := closedLoopbackAddr(t)
	var mu sync.Mutex
	dials := 0
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dials++
			refuse := dials <= n
			mu.Unlock()
			if refuse {
				return dialer.DialContext(ctx, network, closed)
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}
	t.Cleanup(transport.CloseIdleConnections)
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return dials
	}
	return &http.Client{Transport: transport, Timeout: 10 * time.Second}, count
}

// waitDone fails the test if done is not closed within d.
func waitDone(t *testing.T, done <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %s", what, d)
	}
}
