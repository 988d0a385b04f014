package redirect_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redirect"
)

func request(t *testing.T, method, rawURL string, header http.Header) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return req
}

// TestRefusal is the rule as a table: what is followed, what is refused and
// why, for a client that follows redirects (downloads) and one that follows
// none (the API).
func TestRefusal(t *testing.T) {
	auth := http.Header{"Authorization": {"Bearer dsa_secret"}}
	const secret = "X-Amz-Signature=abcdef0123"
	tests := []struct {
		name        string
		limit       int
		firstMethod string
		firstURL    string
		header      http.Header
		method      string
		target      string
		status      int
		refused     string // part of the reason; "" when followed
	}{
		{"https to https elsewhere, no credentials", 10, "GET", "https://bucket.example/a?" + secret, nil, "GET", "https://cdn.example/b?" + secret, 302, ""},
		{"http to https", 10, "GET", "http://bucket.example/a", nil, "GET", "https://bucket.example/a", 301, ""},
		{"https to http", 10, "GET", "https://bucket.example/a?" + secret, nil, "GET", "http://bucket.example/a?" + secret, 302, "from https to http"},
		{"https to http with the key, same host", 10, "GET", "https://api.example/v1/x", auth, "GET", "http://api.example/v1/x", 307, "from https to http"},
		{"a 302 turns a POST into a GET", 10, "POST", "https://api.example/v1/x", nil, "GET", "https://api.example/v1/x", 302, "turn the POST into a GET"},
		{"a 303 turns a POST into a GET", 10, "POST", "https://api.example/v1/x", nil, "GET", "https://api.example/v1/y", 303, "turn the POST into a GET"},
		{"the key to another port", 10, "GET", "https://api.example/v1/x", auth, "GET", "https://api.example:8443/v1/x", 307, "credentials stay at https://api.example"},
		{"the key to a subdomain", 10, "GET", "https://example.com/v1/x", auth, "GET", "https://evil.example.com/v1/x", 307, "credentials stay at https://example.com"},
		{"the key within its origin", 10, "POST", "https://api.example/v1/x", auth, "POST", "https://API.example:443/v1/y", 308, ""},
		{"none followed", 0, "GET", "https://api.example/v1/x", auth, "GET", "https://api.example/v1/y", 301, "not expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := request(t, tt.firstMethod, tt.firstURL, tt.header)
			next := request(t, tt.method, tt.target, nil)
			next.Response = &http.Response{StatusCode: tt.status}
			err := redirect.Refusal(next, []*http.Request{first}, tt.limit, "not expected here")
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var refused *redirect.Error
			if !errors.As(err, &refused) {
				t.Fatalf("followed, want refused (%s)", tt.refused)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.refused) {
				t.Errorf("%q does not say %q", msg, tt.refused)
			}
			target, _ := url.Parse(tt.target)
			if refused.Status != tt.status || !strings.Contains(msg, fmt.Sprintf("HTTP %d redirect to %s:", tt.status, redirect.Origin(target))) {
				t.Errorf("%q does not name the status %d and the target %s", msg, tt.status, redirect.Origin(target))
			}
			if strings.Contains(msg, "/v1") || strings.Contains(msg, "Signature") || strings.Contains(msg, "dsa_secret") {
				t.Errorf("%q names a path, a query or the key", msg)
			}
		})
	}
}

func TestLimitAndReferer(t *testing.T) {
	check := redirect.Check(2, "")
	first := request(t, "GET", "https://a.example/x", nil)
	next := request(t, "GET", "https://b.example/y", http.Header{"Referer": {"https://a.example/x?sig=secret"}})
	if err := check(next, []*http.Request{first}); err != nil {
		t.Fatalf("first redirect refused: %v", err)
	}
	if got := next.Header.Get("Referer"); got != "" {
		t.Fatalf("Referer kept: %q", got)
	}
	if err := check(next, []*http.Request{first, first}); err == nil || !strings.Contains(err.Error(), "stopped after 2 redirects") {
		t.Fatalf("third redirect: %v, want stopped after 2", err)
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"https://API.Example.com/v1/x?sig=1": "https://api.example.com",
		"https://api.example.com:443/":       "https://api.example.com",
		"http://127.0.0.1:8080/a":            "http://127.0.0.1:8080",
		"https://[::1]:8443/a":               "https://[::1]:8443",
		"https://user:pass@host/":            "https://host",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := redirect.Origin(u); got != want {
			t.Errorf("Origin(%s) = %q, want %q", raw, got, want)
		}
	}
}
