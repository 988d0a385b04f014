package provider

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redirect"
)

func TestHint(t *testing.T) {
	t.Parallel()
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
		// Not read from an answer, so nothing says that the API spoke of
		// the object: a missing route.
		{name: "404", err: wrap(apiErr(404)), want: []string{"no such route", "base_url", "reverse proxy", "without an API version"}},
		{name: "refused redirect", err: wrap(&client.RequestError{Err: &redirect.Error{Status: 302, Target: "http://api.example.com", Reason: "r"}, MaybeProcessed: false}),
			want: []string{"Redirects are not followed", "base_url"}},
		{name: "409", err: wrap(apiErr(409))},
		{name: "429", err: wrap(apiErr(429)), want: []string{"rate limiting", "requests_per_second", "-parallelism"}},
		{name: "429 with Retry-After", err: &client.APIError{StatusCode: 429, RetryAfter: time.Hour}, want: []string{"rate limiting"}},
		{name: "500", err: wrap(apiErr(500)), want: []string{"server-side"}},
		{name: "503 twice wrapped", err: wrap(wrap(apiErr(503))), want: []string{"server-side", "max_retries"}},
		{name: "2xx unreadable", err: wrap(apiErr(200))},
		{name: "request error", err: wrap(refused), want: []string{"Nothing was sent", "could not be reached", "base_url", "HTTPS_PROXY"}},
		{name: "unknown certificate authority", err: wrap(&client.RequestError{Err: x509.UnknownAuthorityError{}}), want: []string{"Nothing was sent", "SSL_CERT_FILE"}},
		{name: "broken after sending", err: wrap(&client.RequestError{Err: syscall.ECONNRESET, MaybeProcessed: true}), want: []string{"connection broke"}},
		{name: "joined", err: errors.Join(errors.New("other"), apiErr(404)), want: []string{"no such route"}},
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

// A start that fails before anything was sent says so and names the setting
// that fixes it; a 404 on the collection of exports points at base_url.
func TestStaticExport_startFailuresNameTheSettingThatFixesThem(t *testing.T) {
	t.Parallel()
	handler := mockapi.NewHandler(mockapi.Config{})
	tlsServer := httptest.NewTLSServer(handler) // a certificate of an authority nobody trusts
	t.Cleanup(tlsServer.Close)
	plainServer := httptest.NewServer(handler)
	t.Cleanup(plainServer.Close)
	rows := []struct {
		name    string
		baseURL string
		want    []string
	}{
		{"unknown certificate authority", tlsServer.URL, []string{"request not sent", "Nothing was sent", "SSL_CERT_FILE"}},
		{"plain HTTP on an https URL", strings.Replace(plainServer.URL, "http://", "https://", 1), []string{"request not sent", "Nothing was sent", "scheme"}},
		{"base_url with a prefix the server does not have", plainServer.URL + "/docsadmin", []string{"POST /v1/static-export/jobs", "HTTP 404", "no such route", "base_url", "without an API version"}},
	}
	for _, row := range rows {
		// The rows share the handler and count the exports it started,
		// so they run one after another.
		t.Run(row.name, func(t *testing.T) {
			starts := handler.ExportsStarted("docs.example.com")
			config := fmt.Sprintf(`
provider "docsadmin" {
  base_url    = %q
  api_key     = %q
  max_retries = 0
}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}
`, row.baseURL, handler.APIKey)
			var said string
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				ErrorCheck: func(err error) error {
					said = acctest.FlattenWhitespace(fmt.Sprint(err))
					return nil
				},
				Steps: []resource.TestStep{{Config: config}},
			})
			t.Logf("the error: %s", said)
			if !strings.Contains(said, "Cannot start the static export") {
				t.Fatalf("the apply did not fail to start the export: %q", said)
			}
			for _, want := range row.want {
				if !strings.Contains(said, want) {
					t.Errorf("the error does not say %q: %s", want, said)
				}
			}
			if strings.Contains(said, "may have started the export") {
				t.Errorf("the error says the export may have started, although nothing was sent: %s", said)
			}
			if n := handler.ExportsStarted("docs.example.com"); n != starts {
				t.Errorf("%d exports started", n-starts)
			}
		})
	}
}

// A base_url whose host name does not exist (a name under .invalid, which
// no name server resolves, RFC 6761) fails the apply at once, saying that
// nothing was sent: with retries spaced 20 seconds apart and max_retries
// at its default of 5, a single retry would show in the time the apply
// took.
func TestStaticExport_unknownHostFailsWithoutRetries(t *testing.T) {
	t.Parallel()
	config := `
provider "docsadmin" {
  base_url = "https://api.docsadmin.invalid"
  api_key  = "dsa_test_0123456789abcdef"
}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}
`
	var said string
	start := time.Now()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{RetryBackoff: clock.Backoff{Base: 20 * time.Second, Max: 20 * time.Second, Factor: 1}}),
		ErrorCheck: func(err error) error {
			said = acctest.FlattenWhitespace(fmt.Sprint(err))
			return nil
		},
		Steps: []resource.TestStep{{Config: config}},
	})
	took := time.Since(start)
	for _, want := range []string{"Cannot start the static export", "no such host", "Nothing was sent", "base_url"} {
		if !strings.Contains(said, want) {
			t.Errorf("the error does not say %q: %s", want, said)
		}
	}
	if took >= 15*time.Second {
		t.Errorf("the apply took %s: the start was retried after a name that does not resolve", took.Round(time.Millisecond))
	}
}
