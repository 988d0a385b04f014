package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// decodeCase is a JSON answer and what a client must decode from it.
type decodeCase[T any] struct {
	name, body string
	want       T
}

// testDecoding serves each case's body as a 200 JSON answer, has get decode
// it and check compare the result with the case's want.
func testDecoding[T any](t *testing.T, cases []decodeCase[T], get func(context.Context, *client.Client) (*T, error), check func(t *testing.T, got, want *T)) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := get(t.Context(), jsonAnswerClient(t, tc.body))
			if err != nil {
				t.Fatalf("decoding %s: %v", tc.body, err)
			}
			check(t, got, &tc.want)
		})
	}
}

// jsonAnswerClient is a client of a server that answers every request 200
// with body as JSON.
func jsonAnswerClient(t *testing.T, body string) *client.Client {
	t.Helper()
	return newClient(t, testConfig(cannedServer(t, 200, map[string]string{"Content-Type": "application/json"}, body).URL))
}

func TestGetStaticExportTolerantDecoding(t *testing.T) {
	created := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	testDecoding(t, []decodeCase[client.StaticExportJob]{
		{
			name: "full answer with unknown fields",
			body: `{"jobId":"se_1","status":"running","progress":37.5,"pageCount":12,"createdAt":"2026-11-22T08:00:00Z","updatedAt":"2026-11-22T08:01:30.25Z","error":null,"domain":"docs.example.com","extra":{"nested":[1,2,3]},"etaSeconds":12}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportRunning, Progress: new(37.5), PageCount: new(int64(12)), CreatedAt: &created, UpdatedAt: new(created.Add(90*time.Second + 250*time.Millisecond))},
		},
		{
			name: "pageCount as a float",
			body: `{"jobId":"se_1","status":"running","progress":50,"pageCount":12.0}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportRunning, Progress: new(50.0), PageCount: new(int64(12))},
		},
		{
			name: "null nullable fields",
			body: `{"jobId":"se_1","status":"queued","progress":null,"pageCount":null,"createdAt":null,"updatedAt":null,"error":null}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportQueued},
		},
		{
			name: "absent fields",
			body: `{"jobId":"se_1","status":"queued"}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportQueued},
		},
		{
			name: "unparseable and empty timestamps",
			body: `{"jobId":"se_1","status":"running","createdAt":"22/11/2026 08:00","updatedAt":""}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportRunning},
		},
		{
			name: "timestamp with an offset is normalized to UTC",
			body: `{"jobId":"se_1","status":"running","createdAt":"2026-11-22T10:00:00+02:00"}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportRunning, CreatedAt: &created},
		},
		{
			name: "id instead of jobId",
			body: `{"id":"se_2","status":"completed","progress":100,"pageCount":42}`,
			want: client.StaticExportJob{JobID: "se_2", Status: client.ExportCompleted, Progress: new(100.0), PageCount: new(int64(42))},
		},
		{
			name: "jobId wins over id",
			body: `{"jobId":"se_1","id":"other","status":"completed"}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportCompleted},
		},
		{
			name: "no id at all: the requested one",
			body: `{"status":"running"}`,
			want: client.StaticExportJob{JobID: "se_requested", Status: client.ExportRunning},
		},
		{
			name: "failed with a message",
			body: `{"jobId":"se_1","status":"failed","progress":61.2,"pageCount":25,"error":"rendering error on page guides/intro"}`,
			want: client.StaticExportJob{JobID: "se_1", Status: client.ExportFailed, Progress: new(61.2), PageCount: new(int64(25)), Error: new("rendering error on page guides/intro")},
		},
		{
			name: "unknown status passed through",
			body: `{"jobId":"se_1","status":"paused"}`,
			want: client.StaticExportJob{JobID: "se_1", Status: "paused"},
		},
	}, func(ctx context.Context, c *client.Client) (*client.StaticExportJob, error) {
		return c.GetStaticExport(ctx, "se_requested")
	}, func(t *testing.T, job, want *client.StaticExportJob) {
		if job.JobID != want.JobID || job.Status != want.Status {
			t.Errorf("job = %q %q, want %q %q", job.JobID, job.Status, want.JobID, want.Status)
		}
		equalPtr(t, "Progress", job.Progress, want.Progress)
		equalPtr(t, "PageCount", job.PageCount, want.PageCount)
		equalTime(t, "CreatedAt", job.CreatedAt, want.CreatedAt)
		equalTime(t, "UpdatedAt", job.UpdatedAt, want.UpdatedAt)
		equalPtr(t, "Error", job.Error, want.Error)
		if job.CreatedAt != nil && job.CreatedAt.Location() != time.UTC {
			t.Errorf("CreatedAt location = %v, want UTC", job.CreatedAt.Location())
		}
	})
}

func TestUnknownStatusIsNotFinal(t *testing.T) {
	for _, s := range []client.ExportStatus{"paused", "canceled", "QUEUED", ""} {
		if s.Final() {
			t.Errorf("export status %q is final", s)
		}
	}
	for _, s := range []client.AgentStatus{"paused", "COMPLETED", ""} {
		if s.Final() {
			t.Errorf("agent status %q is final", s)
		}
	}
	for _, s := range client.KnownExportStatuses {
		want := s == "completed" || s == "failed"
		if client.ExportStatus(s).Final() != want {
			t.Errorf("export status %q Final() = %v", s, !want)
		}
	}
	for _, s := range client.KnownAgentStatuses {
		want := s != "active"
		if client.AgentStatus(s).Final() != want {
			t.Errorf("agent status %q Final() = %v", s, !want)
		}
	}
}

func TestStartStaticExportDecoding(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		wantID     string
		wantStatus client.ExportStatus
		wantErr    string
	}{
		{name: "full job", status: 202, body: `{"jobId":"se_1","status":"queued","progress":0,"pageCount":0}`, wantID: "se_1", wantStatus: client.ExportQueued},
		{name: "only jobId, as Part A describes", status: 202, body: `{"jobId":"se_1"}`, wantID: "se_1", wantStatus: client.ExportQueued},
		{name: "200 instead of 202", status: 200, body: `{"jobId":"se_1","status":"running"}`, wantID: "se_1", wantStatus: client.ExportRunning},
		{name: "id instead of jobId", status: 202, body: `{"id":"se_9"}`, wantID: "se_9", wantStatus: client.ExportQueued},
		{name: "no job id", status: 202, body: `{"status":"queued"}`, wantErr: "carried no jobId"},
		{name: "empty body", status: 202, body: ``, wantErr: "empty body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := newSequenceServer(t, answer{status: tt.status, header: map[string]string{"Content-Type": "application/json"}, body: tt.body})
			c := newClient(t, testConfig(seq.URL))
			job, err := c.StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			if seq.count() != 1 {
				t.Errorf("%d start requests, want exactly 1", seq.count())
			}
			if tt.wantErr != "" {
				apiErr := asAPIError(t, err)
				if !strings.Contains(apiErr.Message, tt.wantErr) || apiErr.Endpoint != "POST /v1/static-export/jobs" {
					t.Errorf("APIError = %+v, want %q", apiErr, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("StartStaticExport: %v", err)
			}
			if job.JobID != tt.wantID || job.Status != tt.wantStatus {
				t.Errorf("job = %q %q, want %q %q", job.JobID, job.Status, tt.wantID, tt.wantStatus)
			}
		})
	}
}

func TestCreateStaticExportLinkDecoding(t *testing.T) {
	expires := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		body        string
		wantJobID   string
		wantSize    *int64
		wantExpires *time.Time
		wantErr     string
	}{
		{
			name:      "documented answer",
			body:      `{"jobId":"se_1","bundleUrl":"https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Signature=abc","sizeBytes":18432000,"expiresAt":"2026-11-22T10:00:00Z"}`,
			wantJobID: "se_1", wantSize: new(int64(18432000)), wantExpires: &expires,
		},
		{
			name:      "only the link, as Part A describes",
			body:      `{"bundleUrl":"https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz"}`,
			wantJobID: "se_requested",
		},
		{
			name:      "float size, null expiry, unknown fields",
			body:      `{"jobId":"se_1","bundleUrl":"https://x/y","sizeBytes":1.8432e7,"expiresAt":null,"checksum":"sha256:00"}`,
			wantJobID: "se_1", wantSize: new(int64(18432000)),
		},
		{
			name:      "unparseable expiry",
			body:      `{"jobId":"se_1","bundleUrl":"https://x/y","expiresAt":"in an hour"}`,
			wantJobID: "se_1",
		},
		{
			name:    "no link",
			body:    `{"jobId":"se_1","sizeBytes":10}`,
			wantErr: "carried no bundleUrl for job se_requested",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bundle, err := jsonAnswerClient(t, tt.body).CreateStaticExportLink(t.Context(), "se_requested")
			if tt.wantErr != "" {
				apiErr := asAPIError(t, err)
				if !strings.Contains(apiErr.Message, tt.wantErr) || apiErr.StatusCode != 200 {
					t.Errorf("APIError = %+v, want %q", apiErr, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CreateStaticExportLink: %v", err)
			}
			if bundle.JobID != tt.wantJobID || bundle.BundleURL == "" {
				t.Errorf("bundle = %+v, want job %q with a link", bundle, tt.wantJobID)
			}
			equalPtr(t, "SizeBytes", bundle.SizeBytes, tt.wantSize)
			equalTime(t, "ExpiresAt", bundle.ExpiresAt, tt.wantExpires)
		})
	}
}

func TestGetAgentJobTolerantDecoding(t *testing.T) {
	created := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	testDecoding(t, []decodeCase[client.AgentJob]{
		{
			name: "documented answer with unknown fields",
			body: `{"id":"aj_1","status":"completed","source":{"repository":"https://github.com/example/docs","ref":"main","provider":"github"},"model":"m","prLink":"https://github.com/example/docs/pull/1","createdAt":"2026-11-22T08:00:00Z","archivedAt":null,"cost":{"usd":1.5}}`,
			want: client.AgentJob{ID: "aj_1", Status: client.AgentCompleted, Source: &client.AgentJobSource{Repository: new("https://github.com/example/docs"), Ref: new("main")}, Model: new("m"), PRLink: new("https://github.com/example/docs/pull/1"), CreatedAt: &created},
		},
		{
			name: "only id and status",
			body: `{"id":"aj_1","status":"active"}`,
			want: client.AgentJob{ID: "aj_1", Status: client.AgentActive},
		},
		{
			name: "nulls everywhere",
			body: `{"id":"aj_1","status":"active","source":null,"model":null,"prLink":null,"createdAt":null,"archivedAt":null}`,
			want: client.AgentJob{ID: "aj_1", Status: client.AgentActive},
		},
		{
			name: "source with a null ref",
			body: `{"id":"aj_1","status":"active","source":{"repository":"https://github.com/example/docs","ref":null}}`,
			want: client.AgentJob{ID: "aj_1", Status: client.AgentActive, Source: &client.AgentJobSource{Repository: new("https://github.com/example/docs")}},
		},
		{
			name: "bad timestamps",
			body: `{"id":"aj_1","status":"archived","createdAt":"yesterday","archivedAt":"2026-13-45T99:00:00Z"}`,
			want: client.AgentJob{ID: "aj_1", Status: client.AgentArchived},
		},
		{
			name: "empty object: the requested id",
			body: `{}`,
			want: client.AgentJob{ID: "aj_requested"},
		},
	}, func(ctx context.Context, c *client.Client) (*client.AgentJob, error) {
		return c.GetAgentJob(ctx, "p1", "aj_requested")
	}, assertAgentJob)
}

func TestUnreadableAnswers(t *testing.T) {
	const html502 = `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.25.3</center></body></html>`
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantStatus  int
		wantMessage string
		notInError  []string
	}{
		{
			name: "HTML error page from a proxy", status: 502, contentType: "text/html", body: html502,
			wantStatus:  502,
			wantMessage: fmt.Sprintf("the answer is not an API error (text/html, %d bytes); a proxy or gateway may have answered", len(html502)),
			notInError:  []string{"<", "nginx", "<title>"},
		},
		{
			name: "plain text error", status: 500, contentType: "", body: "upstream connect error or disconnect/reset before headers",
			wantStatus: 500, wantMessage: "a proxy or gateway may have answered", notInError: []string{"upstream connect"},
		},
		{
			name: "error as an object", status: 400, contentType: "application/json", body: `{"error":{"code":"bad_domain","message":"domain is not verified"}}`,
			wantStatus: 400, wantMessage: "domain is not verified",
		},
		{
			name: "message instead of error", status: 403, contentType: "application/json", body: `{"message":"IP address not allowed"}`,
			wantStatus: 403, wantMessage: "IP address not allowed",
		},
		{
			name: "empty error body", status: 404, contentType: "application/json", body: ``,
			wantStatus: 404, wantMessage: "no error message in the answer",
		},
		{
			name: "empty 200 body", status: 200, contentType: "application/json", body: ``,
			wantStatus: 200, wantMessage: "the answer had an empty body where JSON was expected",
		},
		{
			name: "whitespace 200 body", status: 200, contentType: "application/json", body: " \n\t ",
			wantStatus: 200, wantMessage: "empty body",
		},
		{
			name: "truncated JSON", status: 200, contentType: "application/json", body: `{"jobId":"se_1","status":"runn`,
			wantStatus: 200, wantMessage: "the answer is not valid JSON",
		},
		{
			name: "HTML with 200", status: 200, contentType: "text/html", body: "<html><body>Maintenance</body></html>",
			wantStatus: 200, wantMessage: "the answer is not valid JSON",
		},
		{
			name: "JSON array", status: 200, contentType: "application/json", body: `[{"jobId":"se_1"}]`,
			wantStatus: 200, wantMessage: "the answer is not valid JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.contentType != "" {
				header["Content-Type"] = tt.contentType
			}
			seq := newSequenceServer(t, answer{status: tt.status, header: header, body: tt.body})
			cfg := testConfig(seq.URL)
			cfg.MaxRetries = new(0)
			c := newClient(t, cfg)
			_, err := c.GetStaticExport(t.Context(), "se_1")
			apiErr := asAPIError(t, err)
			if apiErr.StatusCode != tt.wantStatus || !strings.Contains(apiErr.Message, tt.wantMessage) {
				t.Errorf("APIError = %d %q, want %d with %q", apiErr.StatusCode, apiErr.Message, tt.wantStatus, tt.wantMessage)
			}
			if apiErr.Endpoint != "GET /v1/static-export/jobs/se_1" {
				t.Errorf("Endpoint = %q", apiErr.Endpoint)
			}
			for _, s := range tt.notInError {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q echoes the body (%q)", err, s)
				}
			}
			if seq.count() != 1 {
				t.Errorf("%d requests with retries disabled", seq.count())
			}
		})
	}
}

func TestMaxResponseBytes(t *testing.T) {
	const limit = 256
	jobOfSize := func(n int) string {
		prefix, suffix := `{"jobId":"se_1","status":"running","pad":"`, `"}`
		return prefix + strings.Repeat("x", n-len(prefix)-len(suffix)) + suffix
	}
	tests := []struct {
		name    string
		status  int
		body    string
		wantErr bool
	}{
		{"exactly at the limit", 200, jobOfSize(limit), false},
		{"one byte over", 200, jobOfSize(limit + 1), true},
		{"far over", 200, jobOfSize(10 * limit), true},
		{"large error page", 502, strings.Repeat("<p>error</p>", 100), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := newSequenceServer(t, answer{status: tt.status, header: map[string]string{"Content-Type": "application/json"}, body: tt.body})
			cfg := testConfig(seq.URL)
			cfg.MaxResponseBytes = limit
			cfg.MaxRetries = new(0)
			c := newClient(t, cfg)
			job, err := c.GetStaticExport(t.Context(), "se_1")
			if !tt.wantErr {
				if err != nil || job.JobID != "se_1" {
					t.Fatalf("GetStaticExport = %+v, %v", job, err)
				}
				return
			}
			apiErr := asAPIError(t, err)
			if apiErr.StatusCode != tt.status || !strings.Contains(apiErr.Message, fmt.Sprintf("larger than the %d-byte limit", limit)) {
				t.Errorf("APIError = %+v, want the %d-byte limit named", apiErr, limit)
			}
			if strings.Contains(err.Error(), "xxxx") || strings.Contains(err.Error(), "<p>") {
				t.Errorf("error echoes the body: %q", err)
			}
		})
	}

	t.Run("default limit is 1 MiB", func(t *testing.T) {
		srv := cannedServer(t, 200, nil, jobOfSize(client.DefaultMaxResponseBytes+1))
		cfg := testConfig(srv.URL)
		cfg.MaxRetries = new(0)
		_, err := newClient(t, cfg).GetStaticExport(t.Context(), "se_1")
		if apiErr := asAPIError(t, err); !strings.Contains(apiErr.Message, fmt.Sprintf("%d-byte limit", client.DefaultMaxResponseBytes)) {
			t.Errorf("Message = %q", apiErr.Message)
		}
	})
}
