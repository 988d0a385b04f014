package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestDocumentedErrorStatuses checks that each documented error reaches the
// caller as an *APIError naming the endpoint, the status and the API's own
// message, and is classified by the helpers.
func TestDocumentedErrorStatuses(t *testing.T) {
	type setup struct {
		srv   *mockapi.Server
		clock *clocktest.FakeClock
		c     *client.Client
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, s setup) (call func() error, endpoint string)
		status  int
		message string
		is      func(error) bool
	}{
		{
			name: "400 unreachable domain",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				return func() error {
					_, err := s.c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.invalid"})
					return err
				}, "POST /v1/static-export/jobs"
			},
			status:  http.StatusBadRequest,
			message: "domain docs.example.invalid is unreachable",
			is:      func(err error) bool { return client.StatusCode(err) == 400 && !client.IsTransient(err) },
		},
		{
			name: "400 domain with a scheme",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				return func() error {
					_, err := s.c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "https://docs.example.com"})
					return err
				}, "POST /v1/static-export/jobs"
			},
			status:  http.StatusBadRequest,
			message: `domain "https://docs.example.com" must be a hostname without a scheme (e.g. docs.example.com)`,
			is:      func(err error) bool { return client.StatusCode(err) == 400 },
		},
		{
			name: "400 bad path entry",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				return func() error {
					_, err := s.c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com", Paths: []string{"index", "../secret"}})
					return err
				}, "POST /v1/static-export/jobs"
			},
			status:  http.StatusBadRequest,
			message: `paths[1] "../secret" is not a page path`,
			is:      func(err error) bool { return client.StatusCode(err) == 400 },
		},
		{
			name: "403 static export not enabled",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				s.srv.InjectFault(mockapi.EndpointStartExport, mockapi.Fault{Status: 403, Body: `{"error":"static export is not enabled for this organization"}`})
				return func() error {
					_, err := s.c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
					return err
				}, "POST /v1/static-export/jobs"
			},
			status:  http.StatusForbidden,
			message: "static export is not enabled for this organization",
			is:      func(err error) bool { return client.StatusCode(err) == http.StatusForbidden },
		},
		{
			name: "403 on a GET is not retried",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				s.srv.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: 403, Body: `{"error":"the key lacks the read scope"}`})
				return func() error {
					_, err := s.c.GetStaticExport(t.Context(), "se_1")
					return err
				}, "GET /v1/static-export/jobs/se_1"
			},
			status:  http.StatusForbidden,
			message: "the key lacks the read scope",
			is:      func(err error) bool { return client.StatusCode(err) == http.StatusForbidden },
		},
		{
			name: "404 export job",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				return func() error {
					_, err := s.c.GetStaticExport(t.Context(), "se_nope")
					return err
				}, "GET /v1/static-export/jobs/se_nope"
			},
			status:  http.StatusNotFound,
			message: "static export job se_nope not found",
			is:      client.IsNotFound,
		},
		{
			name: "404 bundle of an unknown job",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				return func() error {
					_, err := s.c.CreateStaticExportLink(t.Context(), "se_nope")
					return err
				}, "POST /v1/static-export/jobs/se_nope/bundle"
			},
			status:  http.StatusNotFound,
			message: "static export job se_nope not found",
			is:      client.IsNotFound,
		},
		{
			name: "404 agent job",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				return func() error {
					_, err := s.c.GetAgentJob(t.Context(), "p1", "aj_nope")
					return err
				}, "GET /v2/agent/p1/job/aj_nope"
			},
			status:  http.StatusNotFound,
			message: "agent job aj_nope not found in project p1",
			is:      client.IsNotFound,
		},
		{
			name: "409 bundle before completion",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				job, err := s.c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
				if err != nil {
					t.Fatalf("StartStaticExport: %v", err)
				}
				return func() error {
					_, err := s.c.CreateStaticExportLink(t.Context(), job.JobID)
					return err
				}, "POST /v1/static-export/jobs/" + job.JobID + "/bundle"
			},
			status:  http.StatusConflict,
			message: "has not finished (status queued)",
			is:      client.IsConflict,
		},
		{
			name: "429 from the API's rate limiter",
			prepare: func(t *testing.T, s setup) (func() error, string) {
				s.srv.InjectFault(mockapi.EndpointGetAgentJob, mockapi.Fault{Status: 429, Body: `{"error":"too many requests for this key"}`, Header: map[string]string{"Retry-After": "7"}})
				return func() error {
					_, err := s.c.GetAgentJob(t.Context(), "p1", "aj_1")
					return err
				}, "GET /v2/agent/p1/job/aj_1"
			},
			status:  http.StatusTooManyRequests,
			message: "too many requests for this key",
			is: func(err error) bool {
				return client.StatusCode(err) == http.StatusTooManyRequests && client.IsTransient(err)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Retries are off: each status must surface from a single request.
			c, srv, clock := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) { cfg.MaxRetries = new(0) })
			call, endpoint := tt.prepare(t, setup{srv: srv, clock: clock, c: c})
			before := srv.TotalRequests()
			err := call()
			if err == nil {
				t.Fatalf("no error, want HTTP %d", tt.status)
			}
			if got := srv.TotalRequests() - before; got != 1 {
				t.Errorf("%d requests reached the API, want 1", got)
			}
			apiErr := asAPIError(t, err)
			if apiErr.Endpoint != endpoint {
				t.Errorf("Endpoint = %q, want %q", apiErr.Endpoint, endpoint)
			}
			if apiErr.StatusCode != tt.status || client.StatusCode(err) != tt.status {
				t.Errorf("StatusCode = %d (helper %d), want %d", apiErr.StatusCode, client.StatusCode(err), tt.status)
			}
			if !strings.Contains(apiErr.Message, tt.message) {
				t.Errorf("Message = %q, want it to contain %q", apiErr.Message, tt.message)
			}
			text := err.Error()
			for _, want := range []string{endpoint, fmt.Sprintf("HTTP %d %s", tt.status, http.StatusText(tt.status)), tt.message} {
				if !strings.Contains(text, want) {
					t.Errorf("error text %q lacks %q", text, want)
				}
			}
			if strings.Contains(text, testAPIKey) {
				t.Errorf("error text contains the API key: %q", text)
			}
			if !tt.is(err) {
				t.Errorf("classification helper rejected %v", err)
			}
		})
	}
}

func TestUnauthorized(t *testing.T) {
	calls := []struct {
		endpoint string
		call     func(c *client.Client) error
	}{
		{"POST /v1/static-export/jobs", func(c *client.Client) error {
			_, err := c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			return err
		}},
		{"GET /v1/static-export/jobs/se_1", func(c *client.Client) error {
			_, err := c.GetStaticExport(t.Context(), "se_1")
			return err
		}},
		{"POST /v1/static-export/jobs/se_1/bundle", func(c *client.Client) error {
			_, err := c.CreateStaticExportLink(t.Context(), "se_1")
			return err
		}},
		{"GET /v2/agent/p1/job/aj_1", func(c *client.Client) error {
			_, err := c.GetAgentJob(t.Context(), "p1", "aj_1")
			return err
		}},
		{"POST /v2/agent/p1/job", func(c *client.Client) error {
			_, err := c.CreateAgentJob(t.Context(), "p1", "prompt")
			return err
		}},
		{"POST /v2/agent/p1/job/aj_1/message", func(c *client.Client) error {
			_, err := c.SendAgentJobMessage(t.Context(), "p1", "aj_1", "prompt")
			return err
		}},
	}
	const wrongKey = "dsa_wrong_9a8b7c6d5e4f3a2b1c0d"
	srv, _ := newMock(t, mockapi.Config{})
	logger := newRecordingLogger()
	cfg := testConfig(srv.URL)
	cfg.APIKey = wrongKey
	cfg.Logger = logger
	c := newClient(t, cfg)
	for _, tc := range calls {
		t.Run(tc.endpoint, func(t *testing.T) {
			before := srv.TotalRequests()
			err := tc.call(c)
			if client.StatusCode(err) != http.StatusUnauthorized {
				t.Fatalf("err = %v, want a 401", err)
			}
			if got := srv.TotalRequests() - before; got != 1 {
				t.Errorf("a 401 was retried: %d requests", got)
			}
			apiErr := asAPIError(t, err)
			if apiErr.Endpoint != tc.endpoint || apiErr.Message != "authentication failed: missing or invalid API key" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if strings.Contains(err.Error(), wrongKey) || strings.Contains(err.Error(), "9a8b7c6d5e4f3a2b1c0d") {
				t.Errorf("error text contains the key: %q", err)
			}
			if client.IsTransient(err) {
				t.Errorf("a 401 is reported as transient")
			}
		})
	}
	if strings.Contains(logger.text(), wrongKey) {
		t.Errorf("the debug log contains the key:\n%s", logger.text())
	}
	if len(logger.withMessage("API request")) != len(calls) {
		t.Errorf("logged %d requests, want %d", len(logger.withMessage("API request")), len(calls))
	}

	// A key that is rotated away mid-run is reported the same way.
	good := newClient(t, testConfig(srv.URL))
	if _, err := good.GetAgentJob(t.Context(), "p1", "aj_1"); !client.IsNotFound(err) {
		t.Fatalf("with the right key: %v, want a 404", err)
	}
	srv.SetAPIKey("dsa_rotated_000000000000")
	if _, err := good.GetAgentJob(t.Context(), "p1", "aj_1"); client.StatusCode(err) != http.StatusUnauthorized || strings.Contains(err.Error(), testAPIKey) {
		t.Errorf("after rotation: %v, want a 401 without the key", err)
	}
}

func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		err  client.APIError
		want string
	}{
		{client.APIError{Endpoint: "GET /v1/static-export/jobs/se_1", StatusCode: 404, Message: "static export job se_1 not found"},
			"GET /v1/static-export/jobs/se_1: HTTP 404 Not Found: static export job se_1 not found"},
		{client.APIError{Endpoint: "POST /v1/static-export/jobs", StatusCode: 500},
			"POST /v1/static-export/jobs: HTTP 500 Internal Server Error"},
		{client.APIError{Endpoint: "GET /x", StatusCode: 599, Message: "odd"},
			"GET /x: HTTP 599: odd"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	reqErr := &client.RequestError{Endpoint: "GET /x", Err: syscall.ECONNRESET, MaybeProcessed: true}
	if !errors.Is(reqErr, syscall.ECONNRESET) {
		t.Errorf("RequestError does not unwrap to its cause")
	}
	if got := reqErr.Error(); !strings.HasPrefix(got, "GET /x: request failed: ") {
		t.Errorf("RequestError text = %q", got)
	}
}

func TestErrorHelpers(t *testing.T) {
	apiErr := func(status int) error {
		return &client.APIError{Endpoint: "GET /v1/static-export/jobs/se_1", StatusCode: status, Message: "m"}
	}
	wrap := func(err error) error { return fmt.Errorf("reading export job se_1: %w", err) }
	reqErr := &client.RequestError{Endpoint: "GET /v1/static-export/jobs/se_1", Err: syscall.ECONNREFUSED}

	tests := []struct {
		name                                    string
		err                                     error
		status                                  int
		notFound, conflict, trans, mayHaveActed bool
	}{
		{name: "nil", err: nil},
		{name: "plain error", err: errors.New("boom")},
		{name: "context canceled", err: context.Canceled},
		{name: "400", err: wrap(apiErr(400)), status: 400},
		{name: "401", err: wrap(apiErr(401)), status: 401},
		{name: "403", err: wrap(apiErr(403)), status: 403},
		// Built by hand, not read from an answer: nothing says that the
		// API spoke of the object (see TestNotFoundOnlyWhenTheAPISaysSo).
		{name: "404", err: wrap(apiErr(404)), status: 404},
		{name: "409", err: wrap(apiErr(409)), status: 409, conflict: true},
		{name: "429", err: wrap(apiErr(429)), status: 429, trans: true},
		{name: "500", err: wrap(apiErr(500)), status: 500, trans: true, mayHaveActed: true},
		{name: "503 twice wrapped", err: wrap(wrap(apiErr(503))), status: 503, trans: true, mayHaveActed: true},
		{name: "503 with Retry-After", err: wrap(&client.APIError{StatusCode: 503, RetryAfter: time.Second}), status: 503, trans: true, mayHaveActed: true},
		{name: "2xx unreadable", err: wrap(apiErr(200)), status: 200, trans: true, mayHaveActed: true},
		{name: "request error", err: wrap(reqErr), trans: true},
		{name: "request error after sending", err: wrap(&client.RequestError{Err: syscall.ECONNRESET, MaybeProcessed: true}), trans: true, mayHaveActed: true},
		{name: "joined", err: errors.Join(errors.New("other"), apiErr(409)), status: 409, conflict: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checks := []struct {
				name string
				got  bool
				want bool
			}{
				{"IsNotFound", client.IsNotFound(tt.err), tt.notFound},
				{"IsConflict", client.IsConflict(tt.err), tt.conflict},
				{"IsTransient", client.IsTransient(tt.err), tt.trans},
				{"MayHaveActed", client.MayHaveActed(tt.err), tt.mayHaveActed},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
			if got := client.StatusCode(tt.err); got != tt.status {
				t.Errorf("StatusCode = %d, want %d", got, tt.status)
			}
		})
	}
}

func TestErrorsAfterRetriesKeepTheLastAnswer(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) { cfg.MaxRetries = new(2) })
	srv.InjectFault(mockapi.EndpointGetExport,
		mockapi.Fault{Status: 502},
		mockapi.Fault{Status: 503},
		mockapi.Fault{Status: 504, Body: `{"error":"upstream timed out"}`},
	)
	start := time.Now()
	_, err := c.GetStaticExport(t.Context(), "se_1")
	apiErr := asAPIError(t, err)
	if apiErr.StatusCode != 504 || apiErr.Message != "upstream timed out" {
		t.Errorf("APIError = %+v, want the last answer (504)", apiErr)
	}
	if got := srv.Requests(mockapi.EndpointGetExport); got != 3 {
		t.Errorf("Requests = %d, want 3 (1 + MaxRetries)", got)
	}
	if elapsed := time.Since(start); elapsed < 10*time.Millisecond {
		t.Errorf("retries took %s, want backoff between them", elapsed)
	}
}
