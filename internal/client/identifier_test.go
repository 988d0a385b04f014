package client_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// TestAnswersWithUnusableIDsAreRefused: an id that is not a bounded, plain
// identifier (a path, escapes, spaces, the API key) is refused by every
// call, with an error that quotes it sanitized; a call that started work
// says that it may have, and is not repeated.
func TestAnswersWithUnusableIDsAreRefused(t *testing.T) {
	long := strings.Repeat("a", 129)
	calls := []struct {
		name, field string
		status      int
		started     bool
		call        func(context.Context, *client.Client) error
	}{
		{"start an export", "jobId", http.StatusAccepted, true, func(ctx context.Context, c *client.Client) error {
			_, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
			return err
		}},
		{"read an export", "jobId", http.StatusOK, false, func(ctx context.Context, c *client.Client) error {
			_, err := c.GetStaticExport(ctx, "se_1")
			return err
		}},
		{"link an export", "jobId", http.StatusOK, false, func(ctx context.Context, c *client.Client) error {
			_, err := c.CreateStaticExportLink(ctx, "se_1")
			return err
		}},
		{"create an agent job", "id", http.StatusCreated, true, func(ctx context.Context, c *client.Client) error {
			_, err := c.CreateAgentJob(ctx, "proj_1", "Fix the broken links in the guides")
			return err
		}},
		{"read an agent job", "id", http.StatusOK, false, func(ctx context.Context, c *client.Client) error {
			_, err := c.GetAgentJob(ctx, "proj_1", "aj_1")
			return err
		}},
		{"queue a deployment", "statusId", http.StatusAccepted, true, func(ctx context.Context, c *client.Client) error {
			_, err := c.TriggerDeployment(ctx, "proj_1")
			return err
		}},
		{"queue a preview", "statusId", http.StatusAccepted, true, func(ctx context.Context, c *client.Client) error {
			_, err := c.CreatePreviewDeployment(ctx, "proj_1", "feature/nav")
			return err
		}},
		{"read a deployment", "_id", http.StatusOK, false, func(ctx context.Context, c *client.Client) error {
			_, err := c.GetDeployment(ctx, "dep_1")
			return err
		}},
	}
	ids := map[string]struct{ json, shown string }{
		"a path":      {`"../../v1/project/update/proj_1"`, `"../../v1/project/update/proj_1"`},
		"escapes":     {`"se_1\u001b]8;;https://evil.example\u0007x"`, `"se_1\x1b]8;;https://evil.example\x07x"`},
		"a space":     {`"se 1"`, `"se 1"`},
		"too long":    {`"` + long + `"`, `"` + long + `"`},
		"the API key": {`"` + testAPIKey + `"`, `"(API key redacted)"`},
		"a negative":  {`-1`, `"-1"`},
		"a dot first": {`".hidden"`, `".hidden"`},
	}
	for _, call := range calls {
		for idName, id := range ids {
			t.Run(call.name+"/"+idName, func(t *testing.T) {
				body := `{"` + call.field + `":` + id.json + `,"status":"queued","bundleUrl":"https://b.example/x"}`
				srv := newSequenceServer(t, answer{status: call.status, header: map[string]string{"Content-Type": "application/json"}, body: body})
				cfg := testConfig(srv.URL)
				cfg.MaxRetries = new(0)
				err := call.call(t.Context(), newClient(t, cfg))
				if err == nil {
					t.Fatalf("the answer %s was accepted", body)
				}
				text := err.Error()
				if !strings.Contains(text, "the answer's "+call.field+" "+id.shown+" is not an identifier") {
					t.Errorf("the error does not quote the id %s sanitized: %s", id.shown, text)
				}
				if strings.Contains(text, testAPIKey) || strings.ContainsAny(text, "\x1b\x07") {
					t.Errorf("the error shows what it may not: %q", text)
				}
				if got := strings.Contains(text, "may have started work"); got != call.started {
					t.Errorf("says the work may have started: %v, want %v: %s", got, call.started, text)
				}
				if call.started && (!client.MayHaveActed(err) || srv.count() != 1) {
					t.Errorf("a start answered with an unusable id: MayHaveActed %v, %d requests; want true, 1", client.MayHaveActed(err), srv.count())
				}
			})
		}
	}
}

// TestUsableIDsAreKept: the ids the API documents, and numbers, pass; so
// does one that shares a run of characters with the key (a test double's
// "se_0123456789abcdef" beside a key "dsa_test_0123456789abcdef"), which is
// chance, not the key.
func TestUsableIDsAreKept(t *testing.T) {
	sharesARun := `"se_` + testAPIKey[len("dsa_test_"):len("dsa_test_")+16] + `"`
	for _, id := range []string{`"se_3f9a2c1b8e7d4a06"`, `"6520f3a1c9b1a20012ab34cd"`, `12345`, `"dep:2026.11-a"`, `"` + strings.Repeat("a", 128) + `"`, sharesARun} {
		srv := cannedServer(t, http.StatusAccepted, map[string]string{"Content-Type": "application/json"}, `{"jobId":`+id+`,"status":"queued"}`)
		job, err := newClient(t, testConfig(srv.URL)).StartStaticExport(t.Context(), client.StartStaticExportRequest{Domain: "docs.example.com"})
		if err != nil || job.JobID != strings.Trim(id, `"`) {
			t.Errorf("jobId %s: job %+v, err %v", id, job, err)
		}
	}
}
