package mockapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
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
	if got := r.header.Get("Allow"); got != "GET, HEAD" { // net/http serves HEAD wherever GET is
		t.Fatalf("Allow = %q, want GET, HEAD", got)
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
	clock := clocktest.NewFakeClock(testStart)
	s := NewHandler(Config{Now: clock.Now, ExportDuration: 1})
	ts := httptest.NewServer(s)
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

func TestRoutesAndPathValues(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SeedAgentJob("p", AgentJob{ID: "j"})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	link := bundle(t, s, id)["bundleUrl"].(string)
	routed := []struct {
		method, path, body string
		want               Endpoint
	}{
		{"POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`, EndpointStartExport},
		{"GET", "/v1/static-export/jobs/" + id, "", EndpointGetExport},
		{"POST", "/v1/static-export/jobs/" + id + "/bundle", "", EndpointBundle},
		{"GET", "/v2/agent/p/job/j", "", EndpointGetAgentJob},
		{"POST", "/v2/agent/p/job", `{"prompt":"x"}`, EndpointCreateAgentJob},
		{"POST", "/v2/agent/p/job/j/message", `{"prompt":"x"}`, EndpointAgentMessage},
		{"GET", link, "", EndpointDownload},
	}
	for _, rt := range routed {
		before := s.Requests(rt.want)
		if r := call(t, s, rt.method, rt.path, rt.body); r.status >= 300 {
			t.Errorf("%s %s: status %d: %s", rt.method, rt.path, r.status, r.body)
		}
		if s.Requests(rt.want) != before+1 {
			t.Errorf("%s %s not routed to %s", rt.method, rt.path, rt.want)
		}
	}
	if s.AgentJobReads("p", "j") != 1 {
		t.Fatalf("AgentJobReads = %d: path values not read", s.AgentJobReads("p", "j"))
	}
	for _, path := range []string{"/bundles/" + id + "/other.tar.gz", "/v2/agent/p/job/j/extra", "/v2/agent//job/j"} {
		r := call(t, s, "GET", path, "")
		wantStatus(t, r, http.StatusNotFound)
		wantJSON(t, r)
	}
}
