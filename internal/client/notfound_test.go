package client_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestNotFoundOnlyWhenTheAPISaysSo: only a 404 with the API's own error
// naming the object asked for, or its documented message for a missing
// one, means that the object is gone (KindNotFound, IsNotFound); a
// router's generic 404, another JSON API's error, a proxy's page, an empty
// body or a base URL that points elsewhere is a missing route
// (KindNoSuchPath) and says nothing of it.
func TestNotFoundOnlyWhenTheAPISaysSo(t *testing.T) {
	canned := []struct {
		name        string
		contentType string
		body        string
		gone        bool
	}{
		{"the API's error", "application/json", `{"error":"static export job se_1 not found"}`, true},
		{"the API's error as an object", "application/json", `{"error":{"message":"No job exists with the provided ID for this deployment."}}`, true},
		{"the API's error naming the job in quotes", "application/json", `{"error":"No export job 'se_1'."}`, true},
		{"generic error", "application/json", `{"error":"Not Found"}`, false},
		{"another API's error code", "application/json", `{"error":"not_found"}`, false},
		{"another API's unknown endpoint", "application/json", `{"error":"Unknown endpoint"}`, false},
		{"an error that quotes the path", "application/json", `{"error":"Unknown endpoint /v1/static-export/jobs/se_1"}`, false},
		{"an error naming another job", "application/json", `{"error":"job se_12 not found"}`, false},
		{"the API's words for a missing job, without its id", "application/json", `{"error":"no such job"}`, true},
		{"a missing deployment, in other words", "application/json", `{"error":"Deployment not found."}`, true},
		{"another API's code with an object word", "application/json", `{"error":"job_not_found"}`, false},
		{"a route's message that names a job", "application/json", `{"error":"no route for this job"}`, false},
		{"the message beside a generic error", "application/json", `{"error":"Not Found","message":"job se_1 not found"}`, false},
		{"a framework's router", "application/json", `{"statusCode":404,"message":"Cannot GET /v1/static-export/jobs/se_1","error":"Not Found"}`, false},
		{"Fastify's router", "application/json", `{"message":"Route GET:/v1/static-export/jobs/se_1 not found","error":"Not Found","statusCode":404}`, false},
		{"Go's mux", "text/plain; charset=utf-8", "404 page not found\n", false},
		{"a proxy's HTML page", "text/html", "<html><body><h1>404 Not Found</h1><hr>nginx</body></html>", false},
		{"an empty body", "", "", false},
		{"a message only", "application/json", `{"message":"Not Found"}`, false},
	}
	for _, tt := range canned {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, http.StatusNotFound, map[string]string{"Content-Type": tt.contentType}, tt.body)
			c := newClient(t, testConfig(srv.URL))
			_, err := c.GetStaticExport(t.Context(), "se_1")
			checkGone(t, err, tt.gone)
		})
	}

	mock, _ := newMock(t, mockapi.Config{})
	for _, tt := range []struct {
		name    string
		baseURL string
		gone    bool
	}{
		{"a job the mock does not know", mock.URL, true},
		{"a base URL with /v1", mock.URL + "/v1", false},
		{"a base URL with a prefix the server does not have", mock.URL + "/docsadmin", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, testConfig(tt.baseURL))
			_, err := c.GetStaticExport(t.Context(), "se_missing")
			checkGone(t, err, tt.gone)
			_, err = c.GetDeployment(t.Context(), "dep_missing")
			checkGone(t, err, tt.gone)
			_, err = c.GetAgentJob(t.Context(), "proj_1", "aj_missing")
			checkGone(t, err, tt.gone)
		})
	}
}

// TestAnotherAPIsNotFoundSaysNothing: a base_url that points at another
// JSON API, which answers every path with its own 404, leaves every object
// where it was: no read says that it is gone.
func TestAnotherAPIsNotFoundSaysNothing(t *testing.T) {
	for _, body := range []string{`{"error":"not_found"}`, `{"error":"Unknown endpoint"}`} {
		t.Run(body, func(t *testing.T) {
			srv := cannedServer(t, http.StatusNotFound, map[string]string{"Content-Type": "application/json"}, body)
			c := newClient(t, testConfig(srv.URL))
			_, err := c.GetStaticExport(t.Context(), "se_1")
			checkGone(t, err, false)
			_, err = c.CreateStaticExportLink(t.Context(), "se_1")
			checkGone(t, err, false)
			_, err = c.GetDeployment(t.Context(), "dep_1")
			checkGone(t, err, false)
			_, err = c.GetAgentJob(t.Context(), "proj_1", "aj_1")
			checkGone(t, err, false)
		})
	}
}

// TestMockNotFoundIsTheAPIs: the mock's 404s for an object it does not
// have are the API's: they name the object, or are part E's documented
// message; a project it does not know is not a job that is gone.
func TestMockNotFoundIsTheAPIs(t *testing.T) {
	mock, _ := newMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	mock.ForgetProject("proj_gone")
	for _, tt := range []struct {
		project string
		gone    bool
	}{{"proj_1", true}, {"proj_gone", false}} {
		cfg := testConfig(mock.URL)
		cfg.ProjectID, cfg.ExportRevision = tt.project, client.RevisionProject
		c := newClient(t, cfg)
		_, err := c.GetStaticExport(t.Context(), "6520f3a1c9b1a20012ab34cd")
		checkGone(t, err, tt.gone)
	}
	domain, _ := newMock(t, mockapi.Config{})
	_, err := newClient(t, testConfig(domain.URL)).CreateStaticExportLink(t.Context(), "se_missing")
	checkGone(t, err, true)
}

func checkGone(t *testing.T, err error, gone bool) {
	t.Helper()
	if client.StatusCode(err) != http.StatusNotFound {
		t.Fatalf("err = %v, want a 404", err)
	}
	want := client.KindNoSuchPath
	if gone {
		want = client.KindNotFound
	}
	if got := client.Classify(err).Kind; got != want || client.IsNotFound(err) != gone {
		t.Errorf("%v: kind %q, IsNotFound %v; want %q", err, got, client.IsNotFound(err), want)
	}
	if client.IsTransient(err) {
		t.Errorf("%v is transient", err)
	}
}

// TestStatusReadIsBounded: a status answer that is too large, or that
// trickles in, fails the attempt with an error that says which bound it met.
func TestStatusReadIsBounded(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		c, mock, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) { cfg.MaxRetries = new(0) })
		mock.InjectFault(mockapi.EndpointDeploymentStatus, mockapi.Fault{Status: 200,
			Body: `{"_id":"dep_1","status":"in_progress","logs":["` + strings.Repeat("x", 2<<20) + `"]}`})
		_, err := c.GetDeployment(t.Context(), "dep_1")
		if err == nil || !strings.Contains(err.Error(), "larger than the 1048576-byte limit") {
			t.Fatalf("err = %v, want the size limit named", err)
		}
		if f := client.Classify(err); !f.Transient {
			t.Errorf("classified %+v, want transient (a read may be tried again)", f)
		}
	})
	t.Run("time", func(t *testing.T) {
		c, mock, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) {
			cfg.MaxRetries = new(0)
			cfg.RequestTimeout = 300 * time.Millisecond
		})
		mock.InjectFault(mockapi.EndpointDeploymentStatus, mockapi.Fault{Status: 200,
			Body: `{"_id":"dep_1","status":"in_progress"}`, Trickle: 100 * time.Millisecond})
		start := time.Now()
		_, err := c.GetDeployment(t.Context(), "dep_1")
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("the attempt took %s, want it cut at 300ms", elapsed)
		}
		if err == nil || !strings.Contains(err.Error(), "still arriving after 300ms, the time allowed for one attempt") ||
			!strings.Contains(err.Error(), "bytes of its body received") {
			t.Fatalf("err = %v, want the time bound named", err)
		}
		if f := client.Classify(err); !f.Transient {
			t.Errorf("classified %+v, want transient", f)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		c, mock, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) {
			cfg.MaxRetries = new(0)
			cfg.RequestTimeout = 200 * time.Millisecond
		})
		mock.InjectFault(mockapi.EndpointDeploymentStatus, mockapi.Fault{Delay: 5 * time.Second})
		_, err := c.GetDeployment(t.Context(), "dep_1")
		if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") {
			t.Fatalf("err = %v, want the time bound named", err)
		}
	})
}
