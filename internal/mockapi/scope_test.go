package mockapi

import (
	"net/http"
	"strings"
	"testing"
)

func TestReadOnlyKeyReadsButCannotWrite(t *testing.T) {
	const readOnly = "dsa_mock_readonly_5ecret"
	s, _ := newTestServer(t, Config{ReadOnlyAPIKeys: []string{readOnly}})
	s.SeedAgentJob("p1", AgentJob{ID: "a1"})
	jobID := startExport(t, s, `{"domain":"docs.example.com"}`) // with the full key

	// Reads work.
	for _, path := range []string{"/v1/static-export/jobs/" + jobID, "/v2/agent/p1/job/a1"} {
		wantStatus(t, callKey(t, s, readOnly, "GET", path, ""), http.StatusOK)
	}
	// Every write is refused with a JSON error that names the scope, not the key.
	writes := []struct{ method, path, body string }{
		{"POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`},
		{"POST", "/v1/static-export/jobs/" + jobID + "/bundle", ""},
		{"POST", "/v2/agent/p1/job", `{"prompt":"x"}`},
		{"POST", "/v2/agent/p1/job/a1/message", `{"prompt":"x"}`},
	}
	for _, rq := range writes {
		r := callKey(t, s, readOnly, rq.method, rq.path, rq.body)
		wantStatus(t, r, http.StatusForbidden)
		wantJSON(t, r)
		msg := r.errorMessage(t)
		for _, want := range []string{"read scope only", "write scope", rq.method + " " + rq.path} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s %s: error %q does not say %q", rq.method, rq.path, msg, want)
			}
		}
		if strings.Contains(string(r.body), readOnly) || strings.Contains(string(r.body), "5ecret") {
			t.Errorf("403 body echoes the key: %s", r.body)
		}
	}
	if n := s.ExportsStarted("docs.example.com"); n != 1 {
		t.Errorf("exports started = %d, want 1 (the read-only key started one)", n)
	}
	if got := s.AgentJobsCreated("p1"); len(got) != 0 {
		t.Errorf("the read-only key created agent jobs %v", got)
	}
	if got := s.AgentJobPrompts("p1", "a1"); len(got) != 0 {
		t.Errorf("the read-only key sent messages %q", got)
	}

	// The full key still writes; a wrong key is still a 401, not a 403.
	wantStatus(t, call(t, s, "POST", "/v2/agent/p1/job", `{"prompt":"x"}`), http.StatusCreated)
	wantStatus(t, callKey(t, s, "dsa_mock_other", "POST", "/v2/agent/p1/job", `{"prompt":"x"}`), http.StatusUnauthorized)
}

func TestAddReadOnlyAPIKeyAtRunTime(t *testing.T) {
	const readOnly = "dsa_mock_added_later"
	s, _ := newTestServer(t, Config{})
	wantStatus(t, callKey(t, s, readOnly, "GET", "/v1/static-export/jobs/x", ""), http.StatusUnauthorized)
	s.AddReadOnlyAPIKey(readOnly)
	wantStatus(t, callKey(t, s, readOnly, "GET", "/v1/static-export/jobs/x", ""), http.StatusNotFound)
	wantStatus(t, callKey(t, s, readOnly, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`), http.StatusForbidden)

	// The full key keeps its write scope even if also listed as read-only.
	s.AddReadOnlyAPIKey(s.APIKey)
	startExport(t, s, `{"domain":"docs.example.com"}`)
}

func TestForbiddenComesBeforeBodyValidation(t *testing.T) {
	// A 403 does not depend on the body: a read-only key learns nothing of validation.
	s, _ := newTestServer(t, Config{ReadOnlyAPIKeys: []string{"dsa_mock_ro"}})
	r := callKey(t, s, "dsa_mock_ro", "POST", "/v1/static-export/jobs", `{"domain":"not a domain"}`)
	wantStatus(t, r, http.StatusForbidden)
}

// TestKnownProjects: with Config.Projects, every route of another project
// answers 404 with ProjectNotFoundMessage and does nothing, while the known
// ones work; the routes that hold no project are not affected.
func TestKnownProjects(t *testing.T) {
	s, _ := newTestServer(t, Config{Projects: []string{"proj_docs"}, APIRevision: RevisionBoth})
	s.SeedAgentJob("proj_docs", AgentJob{ID: "a1"})
	s.SeedAgentJob("proj_dosc", AgentJob{ID: "a1"})
	for _, rq := range []struct{ method, path, body string }{
		{"POST", "/v1/project/update/proj_dosc", ""},
		{"POST", "/v1/project/preview/proj_dosc", `{"branch":"main"}`},
		{"POST", "/v2/agent/proj_dosc/job", `{"prompt":"Document v2"}`},
		{"GET", "/v2/agent/proj_dosc/job/a1", ""},
		{"POST", "/v1/static-export/proj_dosc/jobs", ""},
		{"GET", "/v1/static-export/proj_dosc/jobs/0123456789abcdef01234567", ""},
	} {
		r := call(t, s, rq.method, rq.path, rq.body)
		wantStatus(t, r, http.StatusNotFound)
		wantJSON(t, r)
		if msg := r.errorMessage(t); msg != ProjectNotFoundMessage {
			t.Errorf("%s %s: error %q, want %q", rq.method, rq.path, msg, ProjectNotFoundMessage)
		}
	}
	if n := len(s.DeploymentIDs("proj_dosc")) + len(s.AgentJobsCreated("proj_dosc")) + s.ExportsStarted(DefaultProjectDomain); n != 0 {
		t.Errorf("the unknown project got %d deployments, agent jobs or exports, want none", n)
	}
	wantStatus(t, call(t, s, "POST", "/v1/project/update/proj_docs", ""), http.StatusAccepted)
	wantStatus(t, call(t, s, "GET", "/v2/agent/proj_docs/job/a1", ""), http.StatusOK)
	wantStatus(t, call(t, s, "POST", "/v1/static-export/proj_docs/jobs", ""), http.StatusAccepted)
	wantStatus(t, call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`), http.StatusAccepted)
}
