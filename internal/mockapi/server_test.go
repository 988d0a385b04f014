package mockapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAuthRequiredOnEveryAPIEndpoint(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	if s.APIKey != DefaultAPIKey {
		t.Fatalf("APIKey = %q, want default %q", s.APIKey, DefaultAPIKey)
	}
	s.SeedAgentJob("p1", AgentJob{ID: "a1"})
	reqs := []struct{ method, path, body string }{
		{"POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`},
		{"GET", "/v1/static-export/jobs/se_0000000000000000", ""},
		{"POST", "/v1/static-export/jobs/se_0000000000000000/bundle", ""},
		{"GET", "/v2/agent/p1/job/a1", ""},
		{"POST", "/v2/agent/p1/job", `{"prompt":"x"}`},
		{"POST", "/v2/agent/p1/job/a1/message", `{"prompt":"x"}`},
	}
	for _, key := range []string{"", "dsa_mock_wrong", "Basic " + DefaultAPIKey} {
		for _, rq := range reqs {
			r := callKey(t, s, key, rq.method, rq.path, rq.body)
			wantStatus(t, r, http.StatusUnauthorized)
			wantJSON(t, r)
			if got := r.errorMessage(t); got != "authentication failed: missing or invalid API key" {
				t.Errorf("%s %s: error = %q", rq.method, rq.path, got)
			}
			if key != "" && strings.Contains(string(r.body), key) {
				t.Errorf("401 body echoes the key: %s", r.body)
			}
		}
	}
	if s.ExportsStarted("docs.example.com") != 0 {
		t.Fatal("an unauthorized start created a job")
	}
	// The right key passes.
	wantStatus(t, call(t, s, "GET", "/v2/agent/p1/job/a1", ""), http.StatusOK)
}

func TestSetAPIKeyRotatesKey(t *testing.T) {
	s, _ := newTestServer(t, Config{APIKey: "dsa_test_first"})
	old := s.APIKey
	wantStatus(t, callKey(t, s, old, "GET", "/v1/static-export/jobs/x", ""), http.StatusNotFound)
	s.SetAPIKey("dsa_test_second")
	wantStatus(t, callKey(t, s, old, "GET", "/v1/static-export/jobs/x", ""), http.StatusUnauthorized)
	wantStatus(t, callKey(t, s, "dsa_test_second", "GET", "/v1/static-export/jobs/x", ""), http.StatusNotFound)
	if s.APIKey != "dsa_test_second" {
		t.Fatalf("APIKey field not updated: %q", s.APIKey)
	}
}

func TestUnknownPathAndWrongMethod(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	r := call(t, s, "GET", "/v1/nope", "")
	wantStatus(t, r, http.StatusNotFound)
	wantJSON(t, r)
	if r.errorMessage(t) == "" {
		t.Fatal("empty error")
	}
	wantStatus(t, call(t, s, "GET", "/v1/static-export/jobs/", ""), http.StatusNotFound)

	r = call(t, s, "DELETE", "/v1/static-export/jobs/se_1", "")
	wantStatus(t, r, http.StatusMethodNotAllowed)
	wantJSON(t, r)
	if got := r.header.Get("Allow"); got != "GET" {
		t.Fatalf("Allow = %q, want GET", got)
	}
	r = call(t, s, "GET", "/v1/static-export/jobs", "")
	wantStatus(t, r, http.StatusMethodNotAllowed)
	if got := r.header.Get("Allow"); got != "POST" {
		t.Fatalf("Allow = %q, want POST", got)
	}
	if got := s.TotalRequests(); got != 4 {
		t.Fatalf("TotalRequests = %d, want 4", got)
	}
	if got := s.Requests(EndpointGetExport); got != 0 {
		t.Fatalf("Requests(GetExport) = %d, want 0 (no routed request)", got)
	}
}

func TestNewHandlerWithOwnListener(t *testing.T) {
	clock := NewFakeClock(testStart)
	s := NewHandler(Config{Now: clock.Now, ExportDuration: 1})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	// Before SetURL, links are built from the Host header.
	s.URL = ts.URL // lets the helpers address it
	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	clock.Advance(1)
	r := call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
	wantStatus(t, r, http.StatusOK)
	if link := r.json(t)["bundleUrl"].(string); !strings.HasPrefix(link, ts.URL+"/bundles/") {
		t.Fatalf("link %q not on the request host %s", link, ts.URL)
	}

	s.SetURL("http://docs-bundles.test/")
	if s.URL != "http://docs-bundles.test" {
		t.Fatalf("URL = %q, want no trailing slash", s.URL)
	}
	r = call(t, s, "POST", ts.URL+"/v1/static-export/jobs/"+id+"/bundle", "")
	if link := r.json(t)["bundleUrl"].(string); !strings.HasPrefix(link, "http://docs-bundles.test/bundles/"+id+"/bundle.tar.gz?") {
		t.Fatalf("link %q ignores SetURL", link)
	}
	s.Close() // no-op without a listener
}

func TestMatchRoute(t *testing.T) {
	tests := []struct {
		method, path string
		want         Endpoint
		params       routeParams
	}{
		{"POST", "/v1/static-export/jobs", EndpointStartExport, routeParams{}},
		{"GET", "/v1/static-export/jobs/se_1", EndpointGetExport, routeParams{"jobId": "se_1"}},
		{"POST", "/v1/static-export/jobs/se_1/bundle", EndpointBundle, routeParams{"jobId": "se_1"}},
		{"GET", "/v2/agent/p/job/j", EndpointGetAgentJob, routeParams{"projectId": "p", "id": "j"}},
		{"POST", "/v2/agent/p/job", EndpointCreateAgentJob, routeParams{"projectId": "p"}},
		{"POST", "/v2/agent/p/job/j/message", EndpointAgentMessage, routeParams{"projectId": "p", "id": "j"}},
		{"GET", "/bundles/se_1/bundle.tar.gz", EndpointDownload, routeParams{"jobId": "se_1"}},
		{"GET", "/bundles/se_1/other.tar.gz", "", nil},
		{"GET", "/v2/agent//job/j", "", nil},
	}
	for _, tt := range tests {
		got, p, _ := matchRoute(tt.method, tt.path)
		if got != tt.want {
			t.Errorf("%s %s = %q, want %q", tt.method, tt.path, got, tt.want)
			continue
		}
		for k, v := range tt.params {
			if p[k] != v {
				t.Errorf("%s %s: param %s = %q, want %q", tt.method, tt.path, k, p[k], v)
			}
		}
	}
}
