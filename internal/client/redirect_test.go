package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAPIFollowsNoRedirect: an https API that redirects, to http on the same
// host (where Go's client would keep the Authorization header), to another
// host, or to itself, gets one request; the target gets none, so no key
// leaves in clear; a 302 or 303 never turns a POST into a GET; the error
// names the status and the target's origin, never its path or query, is not
// retried and is classified KindRedirected.
func TestAPIFollowsNoRedirect(t *testing.T) {
	var plainHits, plainKeys atomic.Int64
	plain := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainHits.Add(1)
		if r.Header.Get("Authorization") != "" {
			plainKeys.Add(1)
		}
		mockapi.NewHandler(mockapi.Config{APIKey: testAPIKey}).ServeHTTP(w, r)
	}))
	tests := []struct {
		status int
		to     func(secure *httptest.Server) string
		call   func(c *client.Client) error
		method string
	}{
		{http.StatusFound, func(*httptest.Server) string { return plain.URL }, getExport, "GET"},
		{http.StatusMovedPermanently, func(*httptest.Server) string { return plain.URL }, getExport, "GET"},
		{http.StatusTemporaryRedirect, func(*httptest.Server) string { return plain.URL }, startExport, "POST"},
		{http.StatusPermanentRedirect, func(*httptest.Server) string { return plain.URL }, startExport, "POST"},
		{http.StatusFound, func(s *httptest.Server) string { return s.URL }, startExport, "POST"},
		{http.StatusSeeOther, func(s *httptest.Server) string { return s.URL }, startExport, "POST"},
		{http.StatusTemporaryRedirect, func(s *httptest.Server) string { return s.URL }, getExport, "GET"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d", tt.method, tt.status), func(t *testing.T) {
			plainHits.Store(0)
			var secureHits, redirected atomic.Int64
			var secure *httptest.Server
			secure = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				secureHits.Add(1)
				if strings.HasPrefix(r.URL.Path, "/moved") {
					redirected.Add(1)
					w.WriteHeader(http.StatusTeapot)
					return
				}
				http.Redirect(w, r, tt.to(secure)+"/moved"+r.URL.Path+"?sig=s3cr3t", tt.status)
			}))
			t.Cleanup(secure.Close)
			cfg := testConfig(secure.URL)
			cfg.HTTPClient = secure.Client() // trusts the test certificate; its own CheckRedirect is replaced
			c := newClient(t, cfg)
			err := tt.call(c)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			f := client.Classify(err)
			if f.Kind != client.KindRedirected || f.Transient {
				t.Errorf("classified %+v, want redirected and not transient", f)
			}
			if want := tt.method == "POST" && tt.status == http.StatusSeeOther; f.MayHaveActed != want {
				t.Errorf("MayHaveActed = %v, want %v (a 303 answers a request that was acted on)", f.MayHaveActed, want)
			}
			msg := err.Error()
			if !strings.Contains(msg, fmt.Sprintf("HTTP %d redirect to %s", tt.status, strings.TrimSuffix(tt.to(secure), "/"))) {
				t.Errorf("%q does not name the status and the target", msg)
			}
			if strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "/moved") || strings.Contains(msg, testAPIKey) {
				t.Errorf("%q names the target's path or query, or the key", msg)
			}
			if n := secureHits.Load(); n != 1 {
				t.Errorf("the API got %d requests, want 1 (no retry, no redirect followed)", n)
			}
			if n := plainHits.Load() + redirected.Load(); n != 0 {
				t.Errorf("the redirect's target got %d requests", n)
			}
			if plainKeys.Load() != 0 {
				t.Error("the key was sent over plain http")
			}
		})
	}
}

func getExport(c *client.Client) error {
	_, err := c.GetStaticExport(context.Background(), "se_1")
	return err
}

func startExport(c *client.Client) error {
	_, err := c.StartStaticExport(context.Background(), client.StartStaticExportRequest{Domain: "docs.example.com"})
	return err
}
