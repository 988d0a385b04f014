package mockapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func startDeploy(t *testing.T, s *Server, projectID string) string {
	t.Helper()
	r := call(t, s, "POST", "/v1/project/update/"+projectID, "")
	wantStatus(t, r, http.StatusAccepted)
	wantJSON(t, r)
	m := r.json(t)
	id, _ := m["statusId"].(string)
	if len(m) != 1 || !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(id) {
		t.Fatalf("update answer = %s, want exactly {\"statusId\": <24 hex digits>}", r.body)
	}
	return id
}

func deploymentStatus(t *testing.T, s *Server, id string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", "/v1/project/update-status/"+id, "")
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, r)
	return r.json(t)
}

func TestDeploymentProgressesToSuccess(t *testing.T) {
	s, clock := newTestServer(t, Config{DeploymentQueueDuration: time.Second, DeploymentDuration: 2 * time.Second})
	s.PublishCommit("proj_1", "main", Commit{SHA: "0123456789abcdef0123456789abcdef01234567", Message: "Document v2",
		Added: []string{"v2.mdx"}, Modified: []string{"docs.json"}})
	id := startDeploy(t, s, "proj_1")

	m := deploymentStatus(t, s, id)
	for _, field := range []string{"_id", "projectId", "createdAt", "endedAt", "status", "summary", "logs", "subdomain",
		"screenshot", "screenshotLight", "screenshotDark", "author", "commit", "source"} {
		if _, ok := m[field]; !ok {
			t.Errorf("the status lacks %q: %v", field, m)
		}
	}
	if m["_id"] != id || m["projectId"] != "proj_1" || m["status"] != "queued" || m["endedAt"] != nil || m["commit"] != nil || m["source"] != "api" {
		t.Fatalf("queued = %v", m)
	}
	if m["createdAt"] != formatTime(testStart) {
		t.Errorf("createdAt = %v", m["createdAt"])
	}

	clock.Advance(time.Second)
	m = deploymentStatus(t, s, id)
	if m["status"] != "in_progress" || m["endedAt"] != nil || m["commit"] == nil {
		t.Fatalf("in_progress = %v", m)
	}

	clock.Advance(2 * time.Second)
	m = deploymentStatus(t, s, id)
	if m["status"] != "success" || m["endedAt"] != formatTime(testStart.Add(3*time.Second)) {
		t.Fatalf("success = %v", m)
	}
	commit, _ := m["commit"].(map[string]any)
	files, _ := commit["filesChanged"].(map[string]any)
	want := map[string]any{"added": []any{"v2.mdx"}, "modified": []any{"docs.json"}, "removed": []any{}}
	if commit["sha"] != "0123456789abcdef0123456789abcdef01234567" || commit["ref"] != "main" || commit["message"] != "Document v2" || !reflect.DeepEqual(files, want) {
		t.Fatalf("commit = %v", commit)
	}
	if logs, _ := m["logs"].([]any); len(logs) == 0 {
		t.Errorf("no logs after success: %v", m)
	}
	if ids := s.DeploymentIDs("proj_1"); len(ids) != 1 || ids[0] != id {
		t.Errorf("DeploymentIDs = %v", ids)
	}
}

func TestDeploymentFailureCarriesSummaryAndLogs(t *testing.T) {
	s, clock := newTestServer(t, Config{DeploymentDuration: time.Second})
	s.SetDeploymentBehavior("proj_1", DeploymentBehavior{Fail: true, FailSummary: "Build failed: broken link", FailLogs: []string{"error: link /nowhere is broken"}})
	id := startDeploy(t, s, "proj_1")
	clock.Advance(time.Second)
	m := deploymentStatus(t, s, id)
	logs, _ := m["logs"].([]any)
	if m["status"] != "failure" || m["summary"] != "Build failed: broken link" || len(logs) == 0 || logs[len(logs)-1] != "error: link /nowhere is broken" || m["endedAt"] == nil {
		t.Fatalf("failure = %v", m)
	}
	// Other projects follow the server's outcome.
	other := startDeploy(t, s, "proj_2")
	clock.Advance(time.Second)
	if got := deploymentStatus(t, s, other)["status"]; got != "success" {
		t.Errorf("proj_2 = %v, want success", got)
	}

	all, clock2 := newTestServer(t, Config{DeploymentOutcome: DeploymentFailure, DeploymentDuration: time.Second})
	id = startDeploy(t, all, "proj_1")
	clock2.Advance(time.Second)
	if m := deploymentStatus(t, all, id); m["status"] != "failure" || m["summary"] != DefaultDeploymentFailSummary {
		t.Errorf("DeploymentOutcome failure: %v", m)
	}
}

func TestDeploymentCommitWhileQueuedAndDefaultHead(t *testing.T) {
	s, _ := newTestServer(t, Config{DeploymentQueueDuration: time.Minute})
	s.SetDeploymentBehavior("proj_1", DeploymentBehavior{CommitWhileQueued: true})
	a := deploymentStatus(t, s, startDeploy(t, s, "proj_1"))
	b := deploymentStatus(t, s, startDeploy(t, s, "proj_1"))
	ca, _ := a["commit"].(map[string]any)
	cb, _ := b["commit"].(map[string]any)
	if a["status"] != "queued" || ca == nil || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ca["sha"].(string)) {
		t.Fatalf("queued with CommitWhileQueued = %v", a)
	}
	if ca["sha"] != cb["sha"] || a["_id"] == b["_id"] {
		t.Errorf("two deployments of an unchanged branch: %v and %v; want the same commit, two ids", a, b)
	}
}

func TestDeploymentStatusNotFound(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	r := call(t, s, "GET", "/v1/project/update-status/0123456789abcdef01234567", "")
	wantStatus(t, r, http.StatusNotFound)
	if msg := r.errorMessage(t); msg != "deployment status 0123456789abcdef01234567 not found" {
		t.Errorf("404 = %q", msg)
	}
}

func TestPreviewDeployment(t *testing.T) {
	s, clock := newTestServer(t, Config{DeploymentDuration: time.Second})
	s.PublishCommit("proj_1", "feature/new-nav", Commit{SHA: "feedfacefeedfacefeedfacefeedfacefeedface", Message: "New navigation"})
	r := call(t, s, "POST", "/v1/project/preview/proj_1", `{"branch":"feature/new-nav"}`)
	wantStatus(t, r, http.StatusAccepted)
	m := r.json(t)
	id, _ := m["statusId"].(string)
	if id == "" || m["previewUrl"] != "https://proj-1-feature-new-nav.preview.example.com" || len(m) != 2 {
		t.Fatalf("preview answer = %s", r.body)
	}
	clock.Advance(time.Second)
	st := deploymentStatus(t, s, id)
	commit, _ := st["commit"].(map[string]any)
	if st["status"] != "success" || commit["sha"] != "feedfacefeedfacefeedfacefeedfacefeedface" || commit["ref"] != "feature/new-nav" {
		t.Fatalf("preview status = %v", st)
	}
	// A rebuild of the same branch: a new status, the same address.
	again := call(t, s, "POST", "/v1/project/preview/proj_1", `{"branch":"feature/new-nav"}`).json(t)
	if again["statusId"] == id || again["previewUrl"] != m["previewUrl"] {
		t.Errorf("rebuild = %v, first = %v", again, m)
	}

	for _, body := range []string{`{"branch":""}`, `{"branch":"   "}`, `{}`, `{"branch":null}`} {
		r := call(t, s, "POST", "/v1/project/preview/proj_1", body)
		wantStatus(t, r, http.StatusBadRequest)
		if msg := r.errorMessage(t); msg != "branch is required" {
			t.Errorf("%s: 400 = %q", body, msg)
		}
	}
	wantStatus(t, call(t, s, "POST", "/v1/project/preview/proj_1", ""), http.StatusBadRequest)
}

func TestPreviewWithoutEntitlement(t *testing.T) {
	s, _ := newTestServer(t, Config{NoPreviewEntitlement: true})
	r := call(t, s, "POST", "/v1/project/preview/proj_1", `{"branch":"main"}`)
	wantStatus(t, r, http.StatusForbidden)
	wantJSON(t, r)
	if string(r.body) != `{"error":"Preview deployments are not available on your current plan."}` {
		t.Errorf("403 body = %s", r.body)
	}
	if ids := s.DeploymentIDs("proj_1"); len(ids) != 0 {
		t.Errorf("a refused preview started deployments %v", ids)
	}
	// Updates are not a preview: they still work.
	startDeploy(t, s, "proj_1")
}

func TestDeploymentWritesNeedTheWriteScope(t *testing.T) {
	const readOnly = "dsa_mock_ro_deploy"
	s, _ := newTestServer(t, Config{ReadOnlyAPIKeys: []string{readOnly}})
	id := startDeploy(t, s, "proj_1")
	wantStatus(t, callKey(t, s, readOnly, "GET", "/v1/project/update-status/"+id, ""), http.StatusOK)
	for _, rq := range []struct{ path, body string }{{"/v1/project/update/proj_1", ""}, {"/v1/project/preview/proj_1", `{"branch":"main"}`}} {
		r := callKey(t, s, readOnly, "POST", rq.path, rq.body)
		wantStatus(t, r, http.StatusForbidden)
		if msg := r.errorMessage(t); !strings.Contains(msg, "needs the write scope") {
			t.Errorf("%s: %q", rq.path, msg)
		}
	}
	if ids := s.DeploymentIDs("proj_1"); len(ids) != 1 {
		t.Errorf("deployments = %v, want only the full key's", ids)
	}
}

func TestDeploymentFaultsAndRequestLog(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointDeploy, Fault{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "2"}})
	s.InjectFault(EndpointPreview, Fault{Status: http.StatusServiceUnavailable})
	r := call(t, s, "POST", "/v1/project/update/proj_1", "")
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
	}
	wantStatus(t, call(t, s, "POST", "/v1/project/preview/proj_1", `{"branch":"docs/fix"}`), http.StatusServiceUnavailable)
	id := startDeploy(t, s, "proj_1")
	deploymentStatus(t, s, id)

	var got []string
	for _, lr := range s.RequestLog() {
		b, _ := json.Marshal([]any{lr.Method, lr.Path, lr.Body, lr.Status})
		got = append(got, string(b))
		if lr.At.IsZero() {
			t.Errorf("%s %s logged without a time", lr.Method, lr.Path)
		}
	}
	want := []string{
		`["POST","/v1/project/update/proj_1","",429]`,
		`["POST","/v1/project/preview/proj_1","{\"branch\":\"docs/fix\"}",503]`,
		`["POST","/v1/project/update/proj_1","",202]`,
		`["GET","/v1/project/update-status/` + id + `","",200]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RequestLog =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s.RequestLog()[0].Endpoint != EndpointDeploy {
		t.Errorf("Endpoint = %q", s.RequestLog()[0].Endpoint)
	}
}
