package client_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

func TestStartStaticExport(t *testing.T) {
	tests := []struct {
		name        string
		req         client.StartStaticExportRequest
		wantVersion string
		wantPaths   []string
		wantPages   int64
	}{
		{
			name:      "domain only",
			req:       client.StartStaticExportRequest{Domain: "docs.example.com"},
			wantPages: mockapi.DefaultPageCount,
		},
		{
			name:        "version and paths",
			req:         client.StartStaticExportRequest{Domain: "docs.example.com", Version: "v2.1", Paths: []string{"index", "guides/getting-started"}},
			wantVersion: "v2.1",
			wantPaths:   []string{"index", "guides/getting-started"},
			wantPages:   2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv, clock := newMockClient(t, mockapi.Config{ExportDuration: 10 * time.Second}, nil)
			job, err := c.StartStaticExport(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("StartStaticExport: %v", err)
			}
			if !strings.HasPrefix(job.JobID, "se_") {
				t.Errorf("JobID = %q, want an se_ id", job.JobID)
			}
			if job.Status != client.ExportQueued {
				t.Errorf("Status = %q, want queued", job.Status)
			}
			if job.Status.Final() {
				t.Errorf("queued reported as final")
			}
			if job.CreatedAt == nil || !job.CreatedAt.Equal(testStart) {
				t.Errorf("CreatedAt = %v, want %v", job.CreatedAt, testStart)
			}
			if job.Error != nil {
				t.Errorf("Error = %q, want nil", *job.Error)
			}
			if got := srv.ExportsStarted(tt.req.Domain); got != 1 {
				t.Errorf("ExportsStarted = %d, want 1", got)
			}
			snap, ok := srv.ExportJob(job.JobID)
			if !ok {
				t.Fatalf("the mock has no job %s", job.JobID)
			}
			if snap.Domain != tt.req.Domain || snap.Version != tt.wantVersion || !slices.Equal(snap.Paths, tt.wantPaths) {
				t.Errorf("mock saw domain %q version %q paths %q; want %q %q %q",
					snap.Domain, snap.Version, snap.Paths, tt.req.Domain, tt.wantVersion, tt.wantPaths)
			}

			clock.Advance(10 * time.Second)
			done, err := c.GetStaticExport(t.Context(), job.JobID)
			if err != nil {
				t.Fatalf("GetStaticExport: %v", err)
			}
			if done.Status != client.ExportCompleted || done.PageCount == nil || *done.PageCount != tt.wantPages {
				t.Errorf("completed job = status %q pages %v, want completed with %d pages", done.Status, done.PageCount, tt.wantPages)
			}
		})
	}
}

func TestGetStaticExportLifecycle(t *testing.T) {
	c, _, clock := newMockClient(t, mockapi.Config{QueueDuration: 10 * time.Second, ExportDuration: 100 * time.Second}, nil)
	ctx := t.Context()
	started, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		t.Fatalf("StartStaticExport: %v", err)
	}

	steps := []struct {
		name        string
		advance     time.Duration // from the previous step
		status      client.ExportStatus
		progress    float64
		pages       int64
		final       bool
		wantUpdated time.Time
	}{
		{"queued", 5 * time.Second, client.ExportQueued, 0, 0, false, testStart},
		{"running", 10 * time.Second, client.ExportRunning, 5, 2, false, testStart.Add(15 * time.Second)},
		{"running fractional", 32500 * time.Millisecond, client.ExportRunning, 37.5, 15, false, testStart.Add(47 * time.Second)}, // the API answers in whole seconds
		{"completed", 70 * time.Second, client.ExportCompleted, 100, mockapi.DefaultPageCount, true, testStart.Add(110 * time.Second)},
		{"still completed", time.Hour, client.ExportCompleted, 100, mockapi.DefaultPageCount, true, testStart.Add(110 * time.Second)},
	}
	for _, step := range steps {
		clock.Advance(step.advance)
		job, err := c.GetStaticExport(ctx, started.JobID)
		if err != nil {
			t.Fatalf("%s: GetStaticExport: %v", step.name, err)
		}
		if job.JobID != started.JobID {
			t.Errorf("%s: JobID = %q, want %q", step.name, job.JobID, started.JobID)
		}
		if job.Status != step.status || job.Status.Final() != step.final {
			t.Errorf("%s: Status = %q (final %v), want %q (final %v)", step.name, job.Status, job.Status.Final(), step.status, step.final)
		}
		if job.Progress == nil || *job.Progress != step.progress {
			t.Errorf("%s: Progress = %v, want %v", step.name, deref(job.Progress), step.progress)
		}
		if job.PageCount == nil || *job.PageCount != step.pages {
			t.Errorf("%s: PageCount = %v, want %d", step.name, deref(job.PageCount), step.pages)
		}
		if job.CreatedAt == nil || !job.CreatedAt.Equal(testStart) {
			t.Errorf("%s: CreatedAt = %v, want %v", step.name, job.CreatedAt, testStart)
		}
		if job.UpdatedAt == nil || !job.UpdatedAt.Equal(step.wantUpdated) {
			t.Errorf("%s: UpdatedAt = %v, want %v", step.name, job.UpdatedAt, step.wantUpdated)
		}
		if job.Error != nil {
			t.Errorf("%s: Error = %q, want nil", step.name, *job.Error)
		}
	}
}

func TestGetStaticExportFailedJob(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{ExportDuration: 10 * time.Second}, nil)
	srv.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{Fail: true, FailMessage: "page guides/intro failed to render"})
	ctx := t.Context()
	started, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "broken.example.com"})
	if err != nil {
		t.Fatalf("StartStaticExport: %v", err)
	}
	clock.Advance(11 * time.Second)
	job, err := c.GetStaticExport(ctx, started.JobID)
	if err != nil {
		t.Fatalf("GetStaticExport: %v", err)
	}
	if job.Status != client.ExportFailed || !job.Status.Final() {
		t.Fatalf("Status = %q, want failed (final)", job.Status)
	}
	if job.Error == nil || *job.Error != "page guides/intro failed to render" {
		t.Errorf("Error = %v, want the failure message", deref(job.Error))
	}

	// The contract leaves the bundle answer for a failed job open; the mock
	// answers 409 and the message must come through.
	_, err = c.CreateStaticExportLink(ctx, started.JobID)
	if !client.IsConflict(err) {
		t.Fatalf("bundle of a failed job: err = %v, want a 409", err)
	}
	if apiErr := asAPIError(t, err); !strings.Contains(apiErr.Message, "failed") {
		t.Errorf("Message = %q, want the API's explanation", apiErr.Message)
	}
}

func TestGetStaticExportWithoutProgress(t *testing.T) {
	c, srv, clock := newMockClient(t, mockapi.Config{ExportDuration: 10 * time.Second}, nil)
	srv.SetExportBehavior("quiet.example.com", mockapi.ExportBehavior{OmitProgress: true})
	ctx := t.Context()
	started, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "quiet.example.com"})
	if err != nil {
		t.Fatalf("StartStaticExport: %v", err)
	}
	for _, advance := range []time.Duration{0, 5 * time.Second, 10 * time.Second} {
		clock.Advance(advance)
		job, err := c.GetStaticExport(ctx, started.JobID)
		if err != nil {
			t.Fatalf("GetStaticExport: %v", err)
		}
		if job.Progress != nil || job.PageCount != nil {
			t.Errorf("status %s: Progress = %v, PageCount = %v, want both nil", job.Status, deref(job.Progress), deref(job.PageCount))
		}
	}
}

func TestCreateStaticExportLink(t *testing.T) {
	for _, omitExpiresAt := range []bool{false, true} {
		name := "with expiresAt"
		if omitExpiresAt {
			name = "without expiresAt"
		}
		t.Run(name, func(t *testing.T) {
			const ttl = 2 * time.Hour
			logger := newRecordingLogger()
			c, srv, clock := newMockClient(t, mockapi.Config{ExportDuration: 10 * time.Second, LinkTTL: ttl, OmitExpiresAt: omitExpiresAt},
				func(cfg *client.Config) { cfg.Logger = logger })
			ctx := t.Context()
			started, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
			if err != nil {
				t.Fatalf("StartStaticExport: %v", err)
			}

			// Before completion: 409 with the API's message, and no link.
			clock.Advance(5 * time.Second)
			bundle, err := c.CreateStaticExportLink(ctx, started.JobID)
			if bundle != nil || !client.IsConflict(err) {
				t.Fatalf("bundle of a running job = %v, %v; want a 409", bundle, err)
			}
			apiErr := asAPIError(t, err)
			wantEndpoint := "POST /v1/static-export/jobs/" + started.JobID + "/bundle"
			if apiErr.Endpoint != wantEndpoint || !strings.Contains(apiErr.Message, "has not finished") {
				t.Errorf("409 = %+v, want endpoint %q and the API's message", apiErr, wantEndpoint)
			}
			if got := srv.Requests(mockapi.EndpointBundle); got != 1 {
				t.Errorf("a 409 was retried: %d bundle requests", got)
			}

			clock.Advance(5 * time.Second)
			bundle, err = c.CreateStaticExportLink(ctx, started.JobID)
			if err != nil {
				t.Fatalf("CreateStaticExportLink: %v", err)
			}
			if bundle.JobID != started.JobID {
				t.Errorf("JobID = %q, want %q", bundle.JobID, started.JobID)
			}
			wantPrefix := srv.URL + mockapi.BundlePath(started.JobID) + "?"
			if !strings.HasPrefix(bundle.BundleURL, wantPrefix) {
				t.Errorf("BundleURL = %q, want prefix %q", bundlelink.Redact(bundle.BundleURL), wantPrefix)
			}
			if bundle.SizeBytes == nil || *bundle.SizeBytes <= 0 {
				t.Errorf("SizeBytes = %v, want a positive size", deref(bundle.SizeBytes))
			}
			wantExpiry := clock.Now().Add(ttl)
			linkExpiry, err := bundlelink.Expiry(bundle.BundleURL)
			if err != nil || !linkExpiry.Equal(wantExpiry) {
				t.Errorf("expiry from the link = %v, %v; want %v", linkExpiry, err, wantExpiry)
			}
			if omitExpiresAt {
				if bundle.ExpiresAt != nil {
					t.Errorf("ExpiresAt = %v, want nil when the API omits it", bundle.ExpiresAt)
				}
			} else if bundle.ExpiresAt == nil || !bundle.ExpiresAt.Equal(wantExpiry) {
				t.Errorf("ExpiresAt = %v, want %v", bundle.ExpiresAt, wantExpiry)
			}

			// The link works and serves an archive of the announced size.
			resp, err := http.Get(bundle.BundleURL)
			if err != nil {
				t.Fatalf("downloading the bundle: %v", err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("download = HTTP %d, %v", resp.StatusCode, err)
			}
			if bundle.SizeBytes != nil && int64(len(data)) != *bundle.SizeBytes {
				t.Errorf("downloaded %d bytes, SizeBytes = %d", len(data), *bundle.SizeBytes)
			}

			// Asking again issues a fresh link for the same export.
			clock.Advance(time.Minute)
			again, err := c.CreateStaticExportLink(ctx, started.JobID)
			if err != nil {
				t.Fatalf("second CreateStaticExportLink: %v", err)
			}
			if again.BundleURL == bundle.BundleURL {
				t.Errorf("the second link is the same as the first")
			}
			if got := srv.BundlesGenerated(started.JobID); got != 2 {
				t.Errorf("BundlesGenerated = %d, want 2", got)
			}
			if got := srv.ExportsStarted("docs.example.com"); got != 1 {
				t.Errorf("ExportsStarted = %d, want 1", got)
			}
			for _, link := range []string{bundle.BundleURL, again.BundleURL} {
				for _, secret := range bundlelink.Signature(link) {
					if strings.Contains(logger.text(), secret) {
						t.Errorf("the debug log holds a signing value of the link")
					}
				}
			}
		})
	}
}

func TestCreateStaticExportLinkForcedCompletion(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{ExportDuration: time.Hour}, nil)
	ctx := t.Context()
	started, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		t.Fatalf("StartStaticExport: %v", err)
	}
	srv.CompleteExportJob(started.JobID)
	bundle, err := c.CreateStaticExportLink(ctx, started.JobID)
	if err != nil {
		t.Fatalf("CreateStaticExportLink: %v", err)
	}
	if bundle.ExpiresAt == nil || !bundle.ExpiresAt.Equal(testStart.Add(mockapi.DefaultLinkTTL)) {
		t.Errorf("ExpiresAt = %v, want %v", bundle.ExpiresAt, testStart.Add(mockapi.DefaultLinkTTL))
	}
}

func TestStaticExportJobForgotten(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{}, nil)
	ctx := t.Context()
	started, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		t.Fatalf("StartStaticExport: %v", err)
	}
	srv.DeleteExportJob(started.JobID)
	_, err = c.GetStaticExport(ctx, started.JobID)
	if !client.IsNotFound(err) {
		t.Fatalf("GET of a forgotten job: %v, want 404", err)
	}
	if !strings.Contains(err.Error(), "static export job "+started.JobID+" not found") {
		t.Errorf("error %q does not carry the API's message", err)
	}
	if got := srv.Requests(mockapi.EndpointGetExport); got != 1 {
		t.Errorf("a 404 was retried: %d requests", got)
	}
}

func TestStartStaticExportConflictWhileRunning(t *testing.T) {
	c, srv, _ := newMockClient(t, mockapi.Config{ConflictOnRunningExport: true}, nil)
	ctx := t.Context()
	first, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		t.Fatalf("first StartStaticExport: %v", err)
	}
	_, err = c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if !client.IsConflict(err) {
		t.Fatalf("second start: %v, want a 409", err)
	}
	apiErr := asAPIError(t, err)
	if apiErr.Endpoint != "POST /v1/static-export/jobs" || !strings.Contains(apiErr.Message, first.JobID) {
		t.Errorf("409 = %+v, want the start endpoint and the running job's id", apiErr)
	}
	if got := srv.ExportsStarted("docs.example.com"); got != 1 {
		t.Errorf("ExportsStarted = %d, want 1", got)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
