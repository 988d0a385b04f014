package client_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const testProject = "proj_7c1d"

func TestGetAgentJobSeeded(t *testing.T) {
	created := testStart.Add(-2 * time.Hour)
	archived := testStart.Add(-time.Hour)
	tests := []struct {
		name  string
		seed  mockapi.AgentJob
		want  client.AgentJob
		final bool
	}{
		{
			name: "active",
			seed: mockapi.AgentJob{ID: "aj_active", Status: mockapi.AgentActive, Repository: new("https://github.com/example/docs"), Ref: new("agent/fix-typos"), Model: new("model-x"), CreatedAt: &created},
			want: client.AgentJob{ID: "aj_active", Status: client.AgentActive, Source: &client.AgentJobSource{Repository: new("https://github.com/example/docs"), Ref: new("agent/fix-typos")}, Model: new("model-x"), CreatedAt: &created},
		},
		{
			name:  "completed with a pull request",
			seed:  mockapi.AgentJob{ID: "aj_done", Status: mockapi.AgentCompleted, Repository: new("https://github.com/example/docs"), Model: new("model-x"), PRLink: new("https://github.com/example/docs/pull/7"), CreatedAt: &created},
			want:  client.AgentJob{ID: "aj_done", Status: client.AgentCompleted, Source: &client.AgentJobSource{Repository: new("https://github.com/example/docs")}, Model: new("model-x"), PRLink: new("https://github.com/example/docs/pull/7"), CreatedAt: &created},
			final: true,
		},
		{
			name:  "completed without changes",
			seed:  mockapi.AgentJob{ID: "aj_noop", Status: mockapi.AgentCompleted, Model: new("model-x")},
			want:  client.AgentJob{ID: "aj_noop", Status: client.AgentCompleted, Model: new("model-x")},
			final: true,
		},
		{
			name:  "archived",
			seed:  mockapi.AgentJob{ID: "aj_old", Status: mockapi.AgentArchived, CreatedAt: &created, ArchivedAt: &archived},
			want:  client.AgentJob{ID: "aj_old", Status: client.AgentArchived, CreatedAt: &created, ArchivedAt: &archived},
			final: true,
		},
		{
			name:  "failed",
			seed:  mockapi.AgentJob{ID: "aj_bad", Status: mockapi.AgentFailed},
			want:  client.AgentJob{ID: "aj_bad", Status: client.AgentFailed},
			final: true,
		},
		{
			name: "unknown status passed through",
			seed: mockapi.AgentJob{ID: "aj_new", Status: "paused"},
			want: client.AgentJob{ID: "aj_new", Status: "paused"},
		},
		{
			name: "minimal answer",
			seed: mockapi.AgentJob{ID: "aj_min", Status: mockapi.AgentActive, Repository: new("https://github.com/example/docs"), Model: new("model-x"), CreatedAt: &created, OmitFields: true},
			want: client.AgentJob{ID: "aj_min", Status: client.AgentActive},
		},
	}
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	for _, tt := range tests {
		srv.SeedAgentJob(testProject, tt.seed)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job, err := c.GetAgentJob(t.Context(), testProject, tt.seed.ID)
			if err != nil {
				t.Fatalf("GetAgentJob: %v", err)
			}
			assertAgentJob(t, job, &tt.want)
			if job.Status.Final() != tt.final {
				t.Errorf("Status %q Final() = %v, want %v", job.Status, job.Status.Final(), tt.final)
			}
		})
	}
}

func TestGetAgentJobScheduledTransition(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{}, nil)
	srv.SeedAgentJob(testProject, mockapi.AgentJob{ID: "aj_1", Status: mockapi.AgentActive})
	srv.ScheduleAgentJob(testProject, "aj_1", time.Minute, mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: new("https://github.com/example/docs/pull/1")})
	ctx := t.Context()

	job, err := c.GetAgentJob(ctx, testProject, "aj_1")
	if err != nil || job.Status != client.AgentActive || job.PRLink != nil {
		t.Fatalf("before the transition: %+v, %v; want active without a PR", job, err)
	}
	clock.Advance(time.Minute)
	job, err = c.GetAgentJob(ctx, testProject, "aj_1")
	if err != nil || job.Status != client.AgentCompleted || job.PRLink == nil || *job.PRLink != "https://github.com/example/docs/pull/1" {
		t.Fatalf("after the transition: %+v, %v; want completed with the PR link", job, err)
	}
	if got := srv.AgentJobReads(testProject, "aj_1"); got != 2 {
		t.Errorf("AgentJobReads = %d, want 2", got)
	}
}

func TestGetAgentJobNotFound(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	_, err := c.GetAgentJob(t.Context(), testProject, "aj_missing")
	if !client.IsNotFound(err) {
		t.Fatalf("err = %v, want a 404", err)
	}
	apiErr := asAPIError(t, err)
	wantMessage := "agent job aj_missing not found in project " + testProject
	if apiErr.Message != wantMessage {
		t.Errorf("Message = %q, want %q", apiErr.Message, wantMessage)
	}
	if apiErr.Endpoint != "GET /v2/agent/"+testProject+"/job/aj_missing" {
		t.Errorf("Endpoint = %q", apiErr.Endpoint)
	}
	if !strings.Contains(err.Error(), wantMessage) || !strings.Contains(err.Error(), "404") {
		t.Errorf("error text %q lacks the status or the API's message", err)
	}
	if got := srv.Requests(mockapi.EndpointGetAgentJob); got != 1 {
		t.Errorf("a 404 was retried: %d requests", got)
	}
}

func TestGetAgentJobEscapesPathSegments(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	srv.SeedAgentJob("team docs", mockapi.AgentJob{ID: "aj_1", Status: mockapi.AgentActive})
	job, err := c.GetAgentJob(t.Context(), "team docs", "aj_1")
	if err != nil || job.ID != "aj_1" {
		t.Fatalf("GetAgentJob with a space in the project: %+v, %v", job, err)
	}

	seq := newSequenceServer(t, answer{status: 200, body: `{"status":"active"}`})
	c2 := newClient(t, testConfig(seq.URL))
	job, err = c2.GetAgentJob(t.Context(), "p/1", "a?b#c")
	if err != nil {
		t.Fatalf("GetAgentJob: %v", err)
	}
	if job.ID != "a?b#c" {
		t.Errorf("ID = %q, want the requested id when the answer has none", job.ID)
	}
	req, _ := seq.request(t, 0)
	if got, want := req.URL.EscapedPath(), "/v2/agent/p%2F1/job/a%3Fb%23c"; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if req.URL.RawQuery != "" {
		t.Errorf("the id leaked into the query: %q", req.URL.RawQuery)
	}
}

func TestCreateAgentJob(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{}, nil)
	clock.Advance(90 * time.Second)
	job, err := c.CreateAgentJob(t.Context(), testProject, "Fix the broken links in the quickstart")
	if err != nil {
		t.Fatalf("CreateAgentJob: %v", err)
	}
	if !strings.HasPrefix(job.ID, "aj_") || job.Status != client.AgentActive {
		t.Errorf("job = %q %q, want an active aj_ job", job.ID, job.Status)
	}
	if job.Source == nil || job.Source.Repository == nil || *job.Source.Repository == "" || job.Source.Ref == nil {
		t.Errorf("Source = %+v, want repository and ref", job.Source)
	}
	if job.Model == nil || *job.Model == "" {
		t.Errorf("Model = %v, want a model", deref(job.Model))
	}
	if job.PRLink != nil || job.ArchivedAt != nil {
		t.Errorf("PRLink = %v, ArchivedAt = %v, want nil for a new job", deref(job.PRLink), job.ArchivedAt)
	}
	if want := testStart.Add(90 * time.Second); job.CreatedAt == nil || !job.CreatedAt.Equal(want) {
		t.Errorf("CreatedAt = %v, want %v", job.CreatedAt, want)
	}
	state, ok := srv.AgentJobState(testProject, job.ID)
	if !ok || state.Status != mockapi.AgentActive {
		t.Errorf("mock state = %+v, %v", state, ok)
	}
	read, err := c.GetAgentJob(t.Context(), testProject, job.ID)
	if err != nil {
		t.Fatalf("GetAgentJob of the new job: %v", err)
	}
	assertAgentJob(t, read, job)
}

func TestCreateAgentJobRejectsEmptyPrompt(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	_, err := c.CreateAgentJob(t.Context(), testProject, "   ")
	apiErr := asAPIError(t, err)
	if apiErr.StatusCode != http.StatusBadRequest || apiErr.Message != "prompt is required" || apiErr.Endpoint != "POST /v2/agent/"+testProject+"/job" {
		t.Errorf("APIError = %+v, want a 400 with the API's message", apiErr)
	}
	if got := srv.Requests(mockapi.EndpointCreateAgentJob); got != 1 {
		t.Errorf("a 400 was retried: %d requests", got)
	}
}

func TestCreateAgentJobRateLimited(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) { cfg.MaxRetries = new(0) })
	ctx := t.Context()
	for i := range mockapi.AgentCreationsPerHour {
		if _, err := c.CreateAgentJob(ctx, testProject, "prompt"); err != nil {
			t.Fatalf("creation %d: %v", i+1, err)
		}
	}
	_, err := c.CreateAgentJob(ctx, testProject, "one too many")
	if client.StatusCode(err) != http.StatusTooManyRequests || !client.IsTransient(err) {
		t.Fatalf("creation over the limit: %v, want a 429", err)
	}
	apiErr := asAPIError(t, err)
	if apiErr.RetryAfter != time.Hour {
		t.Errorf("RetryAfter = %s, want 1h from the API's Retry-After", apiErr.RetryAfter)
	}
	if !strings.Contains(apiErr.Message, "rate limit exceeded") {
		t.Errorf("Message = %q, want the API's message", apiErr.Message)
	}

	// The window is per project, and slides.
	if _, err := c.CreateAgentJob(ctx, "other_project", "prompt"); err != nil {
		t.Errorf("another project is limited too: %v", err)
	}
	clock.Advance(time.Hour)
	if _, err := c.CreateAgentJob(ctx, testProject, "prompt"); err != nil {
		t.Errorf("after an hour: %v", err)
	}
	if got := srv.Requests(mockapi.EndpointCreateAgentJob); got != mockapi.AgentCreationsPerHour+3 {
		t.Errorf("Requests = %d, want %d", got, mockapi.AgentCreationsPerHour+3)
	}
}

func TestSendAgentJobMessage(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	srv.SeedAgentJob(testProject, mockapi.AgentJob{ID: "aj_done", Status: mockapi.AgentCompleted, PRLink: new("https://github.com/example/docs/pull/3")})
	srv.SeedAgentJob(testProject, mockapi.AgentJob{ID: "aj_failed", Status: mockapi.AgentFailed})
	ctx := t.Context()

	job, err := c.SendAgentJobMessage(ctx, testProject, "aj_done", "Also update the changelog")
	if err != nil {
		t.Fatalf("SendAgentJobMessage: %v", err)
	}
	if job.ID != "aj_done" || job.Status != client.AgentActive {
		t.Errorf("after a message: %q %q, want aj_done active again", job.ID, job.Status)
	}
	if state, _ := srv.AgentJobState(testProject, "aj_done"); state.Status != mockapi.AgentActive {
		t.Errorf("mock state = %q, want active", state.Status)
	}

	job, err = c.SendAgentJobMessage(ctx, testProject, "aj_failed", "Try again")
	if err != nil || job.Status != client.AgentFailed {
		t.Errorf("message to a failed job = %+v, %v; want it unchanged", job, err)
	}

	tests := []struct {
		name    string
		id      string
		prompt  string
		status  int
		message string
	}{
		{"unknown job", "aj_missing", "hello", http.StatusNotFound, "agent job aj_missing not found in project " + testProject},
		{"empty prompt", "aj_done", "", http.StatusBadRequest, "prompt is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.SendAgentJobMessage(ctx, testProject, tt.id, tt.prompt)
			apiErr := asAPIError(t, err)
			wantEndpoint := "POST /v2/agent/" + testProject + "/job/" + tt.id + "/message"
			if apiErr.StatusCode != tt.status || apiErr.Message != tt.message || apiErr.Endpoint != wantEndpoint {
				t.Errorf("APIError = %+v, want %d %q at %q", apiErr, tt.status, tt.message, wantEndpoint)
			}
		})
	}
}

func assertAgentJob(t *testing.T, got, want *client.AgentJob) {
	t.Helper()
	if got.ID != want.ID || got.Status != want.Status {
		t.Errorf("job = %q %q, want %q %q", got.ID, got.Status, want.ID, want.Status)
	}
	if (got.Source == nil) != (want.Source == nil) {
		t.Errorf("Source = %+v, want %+v", got.Source, want.Source)
	} else if got.Source != nil {
		equalPtr(t, "Source.Repository", got.Source.Repository, want.Source.Repository)
		equalPtr(t, "Source.Ref", got.Source.Ref, want.Source.Ref)
	}
	equalPtr(t, "Model", got.Model, want.Model)
	equalPtr(t, "PRLink", got.PRLink, want.PRLink)
	equalTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)
	equalTime(t, "ArchivedAt", got.ArchivedAt, want.ArchivedAt)
}

func equalPtr[T comparable](t *testing.T, name string, got, want *T) {
	t.Helper()
	if (got == nil) != (want == nil) || (got != nil && *got != *want) {
		t.Errorf("%s = %v, want %v", name, deref(got), deref(want))
	}
}

func equalTime(t *testing.T, name string, got, want *time.Time) {
	t.Helper()
	if (got == nil) != (want == nil) || (got != nil && !got.Equal(*want)) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}
