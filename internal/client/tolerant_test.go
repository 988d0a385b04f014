package client_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// TestAnswersToStartsKeepTheID: the answer to a call that started work
// hands over the id whatever else is malformed; each field of the wrong type
// is left out and named in Malformed.
func TestAnswersToStartsKeepTheID(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		call      func(context.Context, *client.Client) (id string, malformed []string, err error)
		wantID    string
		malformed []string
	}{
		{"preview with a numeric previewUrl", `{"statusId":"dep_1","previewUrl":42}`, preview, "dep_1", []string{"previewUrl"}},
		{"deploy with a numeric statusId", `{"statusId":6743}`, deploy, "6743", nil},
		{"deploy with an object for statusId", `{"statusId":{"x":1}}`, deploy, "", []string{"statusId"}},
		{"agent job with a string source", `{"id":"aj_1","status":"active","source":"docs-repo","createdAt":"yesterday"}`, createAgentJob, "aj_1", []string{"source", "createdAt"}},
		{"agent job with a numeric status and a ref of the wrong type", `{"id":"aj_1","status":3,"source":{"repository":"r","ref":7},"model":["m"]}`, createAgentJob, "aj_1", []string{"status", "source.ref", "model"}},
		{"agent message with a bad prLink", `{"id":"aj_1","status":"active","prLink":{"url":"x"}}`, messageAgentJob, "aj_1", []string{"prLink"}},
		{"export start with bad progress and pageCount", `{"jobId":"se_1","status":"queued","progress":"12%","pageCount":"3"}`, startExportID, "se_1", []string{"progress", "pageCount"}},
		{"deployment status with every kind of bad field", `{"_id":"dep_1","status":"success","source":"docs-repo","summary":5,"logs":["a",1,"b"],"author":"me","commit":{"sha":"abc","filesChanged":{"added":"x"}}}`, readDeployment, "dep_1", []string{"summary", "logs", "author", "commit.filesChanged.added"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := jsonAnswerClient(t, tt.body)
			id, malformed, err := tt.call(t.Context(), c)
			if tt.wantID == "" {
				if err == nil {
					t.Fatalf("no id, yet no error (id %q)", id)
				}
				return
			}
			if err != nil {
				t.Fatalf("the answer failed the call: %v", err)
			}
			if id != tt.wantID {
				t.Errorf("id = %q, want %q", id, tt.wantID)
			}
			slices.Sort(malformed)
			want := slices.Clone(tt.malformed)
			slices.Sort(want)
			if !slices.Equal(malformed, want) {
				t.Errorf("Malformed = %q, want %q", malformed, want)
			}
		})
	}
}

func preview(ctx context.Context, c *client.Client) (string, []string, error) {
	s, err := c.CreatePreviewDeployment(ctx, "proj_1", "main")
	if err != nil {
		return "", nil, err
	}
	if s.PreviewURL != nil {
		return "", nil, errorf("previewUrl %q kept", *s.PreviewURL)
	}
	return s.StatusID, s.Malformed, nil
}

func deploy(ctx context.Context, c *client.Client) (string, []string, error) {
	s, err := c.TriggerDeployment(ctx, "proj_1")
	if err != nil {
		return "", nil, err
	}
	return s.StatusID, s.Malformed, nil
}

func createAgentJob(ctx context.Context, c *client.Client) (string, []string, error) {
	j, err := c.CreateAgentJob(ctx, "proj_1", "prompt")
	if err != nil {
		return "", nil, err
	}
	return j.ID, j.Malformed, nil
}

func messageAgentJob(ctx context.Context, c *client.Client) (string, []string, error) {
	j, err := c.SendAgentJobMessage(ctx, "proj_1", "aj_1", "prompt")
	if err != nil {
		return "", nil, err
	}
	return j.ID, j.Malformed, nil
}

func startExportID(ctx context.Context, c *client.Client) (string, []string, error) {
	j, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		return "", nil, err
	}
	return j.JobID, j.Malformed, nil
}

func readDeployment(ctx context.Context, c *client.Client) (string, []string, error) {
	d, err := c.GetDeployment(ctx, "dep_1")
	if err != nil {
		return "", nil, err
	}
	if d.Status != client.DeploymentSuccess || d.Commit == nil || d.Commit.SHA != "abc" || !slices.Equal(d.Logs, []string{"a", "b"}) {
		return "", nil, errorf("the well-formed fields were not all kept: %+v", d)
	}
	return d.ID, d.Malformed, nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
