package mockapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFaultStatusBodyAndHeaders(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointGetExport,
		Fault{Status: 503},
		Fault{Status: 502, Body: "<html><body>Bad Gateway</body></html>", Header: map[string]string{"Content-Type": "text/html"}},
		Fault{Status: 429, Header: map[string]string{"Retry-After": "2"}},
		Fault{Status: 200, Body: `{"status":"runn`},
		Fault{Status: 200},
	)
	if s.PendingFaults(EndpointGetExport) != 5 {
		t.Fatalf("PendingFaults = %d", s.PendingFaults(EndpointGetExport))
	}
	path := "/v1/static-export/jobs/se_x"

	r := call(t, s, "GET", path, "")
	wantStatus(t, r, 503)
	wantJSON(t, r)
	if got := r.errorMessage(t); got != "injected fault 503" {
		t.Fatalf("default fault body = %q", got)
	}

	r = call(t, s, "GET", path, "")
	wantStatus(t, r, 502)
	if ct := r.header.Get("Content-Type"); ct != "text/html" || !strings.Contains(string(r.body), "Bad Gateway") {
		t.Fatalf("html fault: %q %s", ct, r.body)
	}

	r = call(t, s, "GET", path, "")
	wantStatus(t, r, 429)
	if r.header.Get("Retry-After") != "2" {
		t.Fatalf("Retry-After = %q", r.header.Get("Retry-After"))
	}

	r = call(t, s, "GET", path, "")
	wantStatus(t, r, 200)
	if string(r.body) != `{"status":"runn` || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("truncated body fault: %q %q", r.body, r.header.Get("Content-Type"))
	}

	r = call(t, s, "GET", path, "")
	wantStatus(t, r, 200)
	if len(r.body) != 0 {
		t.Fatalf("empty-body fault has body %q", r.body)
	}

	// Queue exhausted: normal handling again (404 for this unknown job).
	wantStatus(t, call(t, s, "GET", path, ""), http.StatusNotFound)
	if got := s.Requests(EndpointGetExport); got != 6 {
		t.Fatalf("Requests = %d, want 6 (faulted ones included)", got)
	}
	// Faults are per endpoint.
	s.InjectFault(EndpointBundle, Fault{Status: 500})
	wantStatus(t, call(t, s, "GET", path, ""), http.StatusNotFound)
	wantStatus(t, call(t, s, "POST", path+"/bundle", ""), 500)
}

func TestFaultBeforeAuth(t *testing.T) {
	// A proxy failure does not depend on the key.
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointGetExport, Fault{Status: 504})
	wantStatus(t, callKey(t, s, "", "GET", "/v1/static-export/jobs/x", ""), 504)
	wantStatus(t, callKey(t, s, "", "GET", "/v1/static-export/jobs/x", ""), http.StatusUnauthorized)
}

func TestFaultTruncatedByContentLength(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointGetExport, Fault{Status: 200, Body: `{"status":"ru`, Header: map[string]string{"Content-Length": "100"}})
	_, err := doRequest(http.DefaultClient, s, s.APIKey, "GET", "/v1/static-export/jobs/x", "")
	if err == nil {
		t.Fatal("reading a truncated body succeeded")
	}
}

func TestFaultResetConnection(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointStartExport, Fault{ResetConnection: true})
	// Keep-alives off: Go's transport silently retries some requests that
	// fail on a reused connection, which would hide the reset.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	_, err := doRequest(c, s, s.APIKey, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	if err == nil {
		t.Fatal("request on a reset connection succeeded")
	}
	if s.ExportsStarted("docs.example.com") != 0 {
		t.Fatal("a reset before handling started a job")
	}
	r, err := doRequest(c, s, s.APIKey, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	if err != nil || r.status != http.StatusAccepted {
		t.Fatalf("after the fault: %v %v", r.status, err)
	}
}

func TestFaultAfterHandling(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointStartExport, Fault{Status: 500, AfterHandling: true})
	r := call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	wantStatus(t, r, 500)
	if strings.Contains(string(r.body), "jobId") {
		t.Fatalf("fault leaked the real answer: %s", r.body)
	}
	if s.ExportsStarted("docs.example.com") != 1 || len(s.ExportJobIDs("docs.example.com")) != 1 {
		t.Fatal("the server did not act before the fault")
	}

	// Reset after handling: the job exists but the client saw no answer.
	s.InjectFault(EndpointStartExport, Fault{ResetConnection: true, AfterHandling: true})
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if _, err := doRequest(c, s, s.APIKey, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`); err == nil {
		t.Fatal("reset after handling answered")
	}
	if s.ExportsStarted("docs.example.com") != 2 {
		t.Fatalf("ExportsStarted = %d, want 2", s.ExportsStarted("docs.example.com"))
	}

	// Status 0 after handling with a delay: the real answer, late.
	s.InjectFault(EndpointStartExport, Fault{AfterHandling: true, Delay: 50 * time.Millisecond})
	start := time.Now()
	r = call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	wantStatus(t, r, http.StatusAccepted)
	if time.Since(start) < 50*time.Millisecond || r.json(t)["jobId"] == nil {
		t.Fatalf("late real answer: %s after %v", r.body, time.Since(start))
	}
}

func TestFaultDelay(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointGetExport,
		Fault{Delay: 60 * time.Millisecond},
		Fault{Delay: 60 * time.Millisecond, Status: 500},
		Fault{Delay: 10 * time.Second, Status: 500},
	)
	id := "se_missing"
	start := time.Now()
	r := call(t, s, "GET", "/v1/static-export/jobs/"+id, "")
	if time.Since(start) < 60*time.Millisecond {
		t.Fatal("delay not applied")
	}
	wantStatus(t, r, http.StatusNotFound) // Status 0: normal answer after the delay

	start = time.Now()
	wantStatus(t, call(t, s, "GET", "/v1/static-export/jobs/"+id, ""), 500)
	if time.Since(start) < 60*time.Millisecond {
		t.Fatal("delay not applied before fault")
	}

	// A client timeout ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v1/static-export/jobs/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+s.APIKey)
	start = time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("client waited for the full delay")
	}
	if s.PendingFaults(EndpointGetExport) != 0 {
		t.Fatal("faults not consumed")
	}
}

func TestFaultOnDownloadAndAgent(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	link := bundle(t, s, id)["bundleUrl"].(string)
	s.InjectFault(EndpointDownload, Fault{Status: 500, Body: "<Error><Code>InternalError</Code></Error>", Header: map[string]string{"Content-Type": "application/xml"}})
	wantStatus(t, callKey(t, s, "", "GET", link, ""), 500)
	wantStatus(t, callKey(t, s, "", "GET", link, ""), 200)

	s.SeedAgentJob("p", AgentJob{ID: "a"})
	s.InjectFault(EndpointGetAgentJob, Fault{Status: 502})
	wantStatus(t, call(t, s, "GET", "/v2/agent/p/job/a", ""), 502)
	wantStatus(t, call(t, s, "GET", "/v2/agent/p/job/a", ""), 200)
	if s.AgentJobReads("p", "a") != 2 {
		t.Fatalf("AgentJobReads = %d", s.AgentJobReads("p", "a"))
	}

	s.InjectFault(EndpointGetExport, Fault{Status: 500}, Fault{Status: 500})
	s.ClearFaults()
	wantStatus(t, call(t, s, "GET", "/v1/static-export/jobs/"+id, ""), 200)
}
