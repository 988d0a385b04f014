package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

func TestHint(t *testing.T) {
	apiErr := func(status int) error {
		return &client.APIError{Endpoint: "GET /v1/static-export/jobs/se_1", StatusCode: status, Message: "m"}
	}
	wrap := func(err error) error { return fmt.Errorf("reading export job se_1: %w", err) }
	refused := &client.RequestError{Endpoint: "GET /v1/static-export/jobs/se_1", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		err  error
		want []string // empty: no hint
	}{
		{name: "plain error", err: errors.New("boom")},
		{name: "context canceled", err: context.Canceled},
		{name: "deadline during a request", err: &client.RequestError{Err: context.DeadlineExceeded, MaybeProcessed: true}},
		{name: "400", err: wrap(apiErr(400))},
		{name: "401", err: wrap(apiErr(401)), want: []string{"API key", "api_key", "DOCSADMIN_API_KEY"}},
		{name: "403", err: wrap(apiErr(403)), want: []string{"scope", "allowlist", "Enterprise plan"}},
		{name: "404", err: wrap(apiErr(404))},
		{name: "409", err: wrap(apiErr(409))},
		{name: "429", err: wrap(apiErr(429)), want: []string{"rate limiting", "requests_per_second", "-parallelism"}},
		{name: "429 with Retry-After", err: &client.APIError{StatusCode: 429, RetryAfter: time.Hour}, want: []string{"rate limiting"}},
		{name: "500", err: wrap(apiErr(500)), want: []string{"server-side"}},
		{name: "503 twice wrapped", err: wrap(wrap(apiErr(503))), want: []string{"server-side", "max_retries"}},
		{name: "2xx unreadable", err: wrap(apiErr(200))},
		{name: "request error", err: wrap(refused), want: []string{"could not be reached", "base_url"}},
		{name: "joined", err: errors.Join(errors.New("other"), apiErr(404))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hint(tt.err)
			if len(tt.want) == 0 && got != "" {
				t.Errorf("hint = %q, want none", got)
			}
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("hint = %q, want it to mention %q", got, want)
				}
			}
			if full := withHint(tt.err); !strings.HasPrefix(full, tt.err.Error()) || (got != "" && !strings.HasSuffix(full, ". "+got)) {
				t.Errorf("withHint = %q, want the error then its hint", full)
			}
		})
	}
}
