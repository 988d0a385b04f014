package client_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

func TestTriggerDeploymentAndFollowIt(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{DeploymentQueueDuration: time.Second, DeploymentDuration: 2 * time.Second}, nil)
	srv.PublishCommit(testProject, "main", mockapi.Commit{SHA: "0123456789abcdef0123456789abcdef01234567", Message: "Document v2",
		Added: []string{"v2.mdx"}, Modified: []string{"docs.json"}, Removed: []string{"v1.mdx"}})
	ctx := t.Context()

	start, err := c.TriggerDeployment(ctx, testProject)
	if err != nil {
		t.Fatalf("TriggerDeployment: %v", err)
	}
	if start.StatusID == "" || start.PreviewURL != nil {
		t.Fatalf("start = %+v", start)
	}
	log := srv.RequestLog()
	if len(log) != 1 || log[0].Method != http.MethodPost || log[0].Path != "/v1/project/update/"+testProject || log[0].Body != "" || log[0].Status != http.StatusAccepted {
		t.Fatalf("request = %+v, want one POST /v1/project/update/%s without a body, answered 202", log, testProject)
	}

	d, err := c.GetDeployment(ctx, start.StatusID)
	if err != nil || d.Status != client.DeploymentQueued || d.Status.Final() || d.EndedAt != nil || d.Commit != nil {
		t.Fatalf("queued: %+v, %v", d, err)
	}
	clock.Advance(3 * time.Second)
	d, err = c.GetDeployment(ctx, start.StatusID)
	if err != nil {
		t.Fatalf("GetDeployment: %v", err)
	}
	if d.ID != start.StatusID || d.ProjectID != testProject || d.Status != client.DeploymentSuccess || !d.Status.Final() {
		t.Errorf("deployment = %q %q %q", d.ID, d.ProjectID, d.Status)
	}
	if d.CreatedAt == nil || !d.CreatedAt.Equal(testStart) || d.EndedAt == nil || !d.EndedAt.Equal(testStart.Add(3*time.Second)) {
		t.Errorf("createdAt %v endedAt %v", d.CreatedAt, d.EndedAt)
	}
	want := client.DeploymentCommit{SHA: "0123456789abcdef0123456789abcdef01234567", Ref: "main", Message: "Document v2",
		Added: []string{"v2.mdx"}, Modified: []string{"docs.json"}, Removed: []string{"v1.mdx"}}
	assertCommit(t, d.Commit, &want)
	if d.Summary == nil || *d.Summary == "" || len(d.Logs) == 0 || d.Source == nil || *d.Source != "api" {
		t.Errorf("summary %v logs %q source %v", deref(d.Summary), d.Logs, deref(d.Source))
	}
	if got := srv.Requests(mockapi.EndpointDeploymentStatus); got != 2 {
		t.Errorf("status reads = %d, want 2", got)
	}
}

func TestTriggerDeploymentRetries(t *testing.T) {
	tests := []struct {
		name        string
		fault       mockapi.Fault
		wantErr     bool
		requests    int
		deployments int
	}{
		{"429 is retried", mockapi.Fault{Status: 429, Header: map[string]string{"Retry-After": "1"}}, false, 2, 1},
		{"503 with Retry-After after the server acted is not repeated", mockapi.Fault{Status: 503, Header: map[string]string{"Retry-After": "1"}, AfterHandling: true}, true, 1, 1},
		{"500 after the server acted is not repeated", mockapi.Fault{Status: 500, AfterHandling: true}, true, 1, 1},
		{"reset after the server acted is not repeated", mockapi.Fault{ResetConnection: true, AfterHandling: true}, true, 1, 1},
		{"empty 202 after the server acted is not repeated", mockapi.Fault{Status: 202, AfterHandling: true}, true, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
			srv.InjectFault(mockapi.EndpointDeploy, tt.fault)
			_, err := c.TriggerDeployment(t.Context(), testProject)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil && !client.MayHaveActed(err) {
				t.Errorf("MayHaveActed(%v) = false; the server did act", err)
			}
			if got := srv.Requests(mockapi.EndpointDeploy); got != tt.requests {
				t.Errorf("requests = %d, want %d", got, tt.requests)
			}
			if got := len(srv.DeploymentIDs(testProject)); got != tt.deployments {
				t.Errorf("deployments = %d, want %d", got, tt.deployments)
			}
		})
	}
}

func TestTriggerDeploymentWithoutStatusID(t *testing.T) {
	c := jsonAnswerClient(t, `{"queued":true}`)
	_, err := c.TriggerDeployment(t.Context(), testProject)
	apiErr := asAPIError(t, err)
	if !strings.Contains(apiErr.Message, "no statusId") || !client.MayHaveActed(err) || apiErr.Endpoint != "POST /v1/project/update/"+testProject {
		t.Errorf("err = %v; want a 2xx APIError that may have acted", err)
	}
}

func TestGetDeploymentRetriesAndNotFound(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	start, err := c.TriggerDeployment(t.Context(), testProject)
	if err != nil {
		t.Fatal(err)
	}
	srv.InjectFault(mockapi.EndpointDeploymentStatus, mockapi.Fault{Status: 502}, mockapi.Fault{ResetConnection: true})
	if _, err := c.GetDeployment(t.Context(), start.StatusID); err != nil {
		t.Fatalf("GetDeployment after transient failures: %v", err)
	}
	_, err = c.GetDeployment(t.Context(), "0123456789abcdef01234567")
	if !client.IsNotFound(err) || !strings.Contains(err.Error(), "GET /v1/project/update-status/0123456789abcdef01234567") {
		t.Errorf("err = %v, want a 404 naming the endpoint", err)
	}
	if _, err := c.GetDeployment(t.Context(), ".."); err == nil || srv.Requests(mockapi.EndpointDeploymentStatus) > 4 {
		t.Errorf("an id of .. was sent: %v", err)
	}
}

func TestCreatePreviewDeployment(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{DeploymentDuration: time.Second}, nil)
	start, err := c.CreatePreviewDeployment(t.Context(), testProject, "feature/new-nav")
	if err != nil {
		t.Fatalf("CreatePreviewDeployment: %v", err)
	}
	if start.PreviewURL == nil || *start.PreviewURL != mockapi.PreviewURL(testProject, "feature/new-nav") {
		t.Errorf("PreviewURL = %v", deref(start.PreviewURL))
	}
	log := srv.RequestLog()
	if len(log) != 1 || log[0].Method != http.MethodPost || log[0].Path != "/v1/project/preview/"+testProject || log[0].Body != `{"branch":"feature/new-nav"}` {
		t.Fatalf("request = %+v", log)
	}
	clock.Advance(time.Second)
	d, err := c.GetDeployment(t.Context(), start.StatusID)
	if err != nil || d.Status != client.DeploymentSuccess || d.Commit == nil || d.Commit.Ref != "feature/new-nav" {
		t.Fatalf("preview status = %+v, %v", d, err)
	}

	_, err = c.CreatePreviewDeployment(t.Context(), testProject, "")
	if apiErr := asAPIError(t, err); apiErr.StatusCode != http.StatusBadRequest || apiErr.Message != "branch is required" {
		t.Errorf("empty branch: %v", err)
	}

	none, srv2, _ := newMockClient(t, mockapi.Config{NoPreviewEntitlement: true}, nil)
	_, err = none.CreatePreviewDeployment(t.Context(), testProject, "main")
	if apiErr := asAPIError(t, err); apiErr.StatusCode != http.StatusForbidden || apiErr.Message != mockapi.PreviewNotAvailableMessage {
		t.Errorf("without the entitlement: %v", err)
	}
	if got := srv2.Requests(mockapi.EndpointPreview); got != 1 {
		t.Errorf("a 403 was retried: %d requests", got)
	}
}

func TestGetDeploymentTolerantDecoding(t *testing.T) {
	ended := time.Date(2026, 11, 22, 8, 1, 0, 0, time.UTC)
	testDecoding(t, []decodeCase[client.Deployment]{
		{
			name: "every field, and unknown ones",
			body: `{"_id":"d1","projectId":"p","createdAt":"2026-11-22T08:00:00Z","endedAt":"2026-11-22T08:01:00Z","status":"success","summary":"ok",` +
				`"logs":["a","b"],"subdomain":"docs","screenshot":"https://s/1.png","screenshotLight":null,"screenshotDark":null,` +
				`"author":{"name":"Ada","avatarUrl":"https://a/1.png","githubUserId":42},` +
				`"commit":{"sha":"abc","ref":"main","message":"m","filesChanged":{"added":["x"],"modified":[],"removed":["y"]}},"source":"github","buildMinutes":3}`,
			want: client.Deployment{ID: "d1", ProjectID: "p", Status: client.DeploymentSuccess, Summary: new("ok"), Logs: []string{"a", "b"},
				Subdomain: new("docs"), Source: new("github"), CreatedAt: &testStart, EndedAt: &ended,
				Author: &client.DeploymentAuthor{Name: new("Ada"), AvatarURL: new("https://a/1.png"), GitHubUserID: new("42")},
				Commit: &client.DeploymentCommit{SHA: "abc", Ref: "main", Message: "m", Added: []string{"x"}, Removed: []string{"y"}}},
		},
		{
			name: "nulls everywhere",
			body: `{"_id":"d1","status":"queued","summary":null,"logs":null,"endedAt":null,"author":null,"commit":null,"source":null}`,
			want: client.Deployment{ID: "d1", Status: client.DeploymentQueued},
		},
		{
			name: "commit without files, logs with non-strings, id as text author id",
			body: `{"_id":"d1","status":"in_progress","logs":["one",2,null,"three"],"commit":{"sha":"abc","filesChanged":null},"author":{"githubUserId":"77"}}`,
			want: client.Deployment{ID: "d1", Status: client.DeploymentInProgress, Logs: []string{"one", "three"},
				Commit: &client.DeploymentCommit{SHA: "abc"}, Author: &client.DeploymentAuthor{GitHubUserID: new("77")}},
		},
		{
			name: "unknown status and no id",
			body: `{"status":"cancelled"}`,
			want: client.Deployment{ID: "requested", Status: "cancelled"},
		},
	}, func(ctx context.Context, c *client.Client) (*client.Deployment, error) {
		return c.GetDeployment(ctx, "requested")
	}, func(t *testing.T, got, want *client.Deployment) {
		if got.ID != want.ID || got.ProjectID != want.ProjectID || got.Status != want.Status || !slices.Equal(got.Logs, want.Logs) {
			t.Errorf("deployment = %+v, want %+v", got, want)
		}
		if got.Status == "cancelled" && got.Status.Final() {
			t.Error("an unknown status is final")
		}
		equalPtr(t, "Summary", got.Summary, want.Summary)
		equalPtr(t, "Subdomain", got.Subdomain, want.Subdomain)
		equalPtr(t, "Source", got.Source, want.Source)
		equalTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)
		equalTime(t, "EndedAt", got.EndedAt, want.EndedAt)
		if (got.Author == nil) != (want.Author == nil) {
			t.Errorf("Author = %+v, want %+v", got.Author, want.Author)
		} else if got.Author != nil {
			equalPtr(t, "Author.Name", got.Author.Name, want.Author.Name)
			equalPtr(t, "Author.AvatarURL", got.Author.AvatarURL, want.Author.AvatarURL)
			equalPtr(t, "Author.GitHubUserID", got.Author.GitHubUserID, want.Author.GitHubUserID)
		}
		assertCommit(t, got.Commit, want.Commit)
	})
}

func assertCommit(t *testing.T, got, want *client.DeploymentCommit) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("Commit = %+v, want %+v", got, want)
	}
	if got == nil {
		return
	}
	if got.SHA != want.SHA || got.Ref != want.Ref || got.Message != want.Message ||
		!slices.Equal(got.Added, want.Added) || !slices.Equal(got.Modified, want.Modified) || !slices.Equal(got.Removed, want.Removed) {
		t.Errorf("Commit = %+v, want %+v", got, want)
	}
}
