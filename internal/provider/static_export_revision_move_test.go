package provider

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccStaticExport_revisionMoveCLI moves the API from the domain
// revision to the project revision between two applies of the real CLI,
// in both shapes a move may take. Where old jobs stay readable through the
// project revision, the export is found there: nothing is started, and the
// plan after is empty. Where they do not (the domain routes answer a
// router's 404, the project route "No job exists with the provided ID for
// this deployment."), the place that made the export has said it is gone:
// the apply succeeds with one new export, its warning says why, and the
// plan after is empty. When then neither revision answers as the API, the
// plan fails saying so and keeps the export. None tells the user to change
// base_url.
func TestAccStaticExport_revisionMoveCLI(t *testing.T) {
	t.Parallel()
	for _, shape := range []struct {
		name     string
		separate bool
	}{
		{"old jobs readable", false},
		{"old jobs unknown", true},
	} {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			runner := acctest.CLIRunner(t)
			const domain = "docs.example.com"
			mock := acctest.NewMock(t, mockapi.Config{SeparateRevisions: shape.separate})
			mock.SetProjectDomain(testProject, domain)
			dir := filepath.Join(t.TempDir(), "module")
			tf, err := runner.Module(dir, map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {
  base_url   = %q
  api_key    = %q
  project_id = %q
}

resource "docsadmin_static_export" "site" {
  domain = %q
}
`, mock.URL, mock.APIKey, testProject, domain))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			tf.SetStdout(&stdout)
			tf.SetStderr(&stderr)
			ctx := t.Context()
			if err := tf.Apply(ctx); err != nil {
				t.Fatalf("the first apply: %v\n%s", err, stderr.String())
			}
			jobs := mock.ExportJobIDs(domain)
			if len(jobs) != 1 {
				t.Fatalf("%d exports after the first apply, want 1", len(jobs))
			}

			mock.SetAPIRevision(mockapi.RevisionProject)
			stdout.Reset()
			if err := tf.Apply(ctx); err != nil {
				t.Fatalf("the apply after the move: %v\n%s\n%s", err, stdout.String(), stderr.String())
			}
			said := oneLine(stdout.String() + stderr.String())
			jobs = mock.ExportJobIDs(domain)
			if shape.separate {
				if len(jobs) != 2 || mock.Requests(mockapi.EndpointStartProjectExport) != 1 {
					t.Errorf("exports %v (%d project starts) after the move, want one new one, in the project revision",
						jobs, mock.Requests(mockapi.EndpointStartProjectExport))
				}
				for _, want := range []string{
					"Removed from state", "export job " + jobs[0] + " of " + domain,
					"the domain revision, is no longer served here: its route answers as no route does",
					"the project revision, served here now, answers that it does not know the job",
					"No job exists with the provided ID for this deployment",
					"the next apply starts a new export",
				} {
					if !strings.Contains(said, want) {
						t.Errorf("the apply after the move does not say %q:\n%s", want, said)
					}
				}
			} else if len(jobs) != 1 || strings.Contains(said, "Removed from state") {
				t.Errorf("exports %v after a move that keeps old jobs, want the first alone, kept:\n%s", jobs, said)
			}
			for _, never := range []string{"Set base_url", "no such route", "Error"} {
				if strings.Contains(said, never) {
					t.Errorf("the apply after the move says %q:\n%s", never, said)
				}
			}
			stdout.Reset()
			changes, err := tf.Plan(ctx)
			if err != nil {
				t.Fatalf("the plan after the move: %v\n%s", err, stderr.String())
			}
			if changes {
				t.Errorf("the plan after the move has changes:\n%s", stdout.String())
			}
			if n := len(mock.ExportJobIDs(domain)); n != len(jobs) {
				t.Errorf("the plan started exports: %d, want %d", n, len(jobs))
			}

			// Then neither revision answers as the API: the project route
			// answers a router's 404 too. The plan fails, keeps the export,
			// and does not send the user to base_url, where it was found.
			mock.InjectFault(mockapi.EndpointGetProjectExport, mockapi.Fault{Status: 404, Body: `{"error":"Not Found"}`},
				mockapi.Fault{Status: 404, Body: `{"error":"Not Found"}`})
			stdout.Reset()
			stderr.Reset()
			if _, err := tf.Plan(ctx); err == nil {
				t.Fatalf("the plan succeeded where neither revision answers as the API:\n%s", stdout.String())
			}
			said = oneLine(stdout.String() + stderr.String())
			for _, want := range []string{"neither revision of the static export API answers as the API does",
				"Neither revision of the static export API answers as the API does at base_url, where this export was found", "kept in state"} {
				if !strings.Contains(said, want) {
					t.Errorf("the plan where neither revision answers does not say %q:\n%s", want, said)
				}
			}
			for _, never := range []string{"Set base_url", "no such route", "check project_id"} {
				if strings.Contains(said, never) {
					t.Errorf("the plan where neither revision answers says %q:\n%s", never, said)
				}
			}
			if n := len(mock.ExportJobIDs(domain)); n != len(jobs) {
				t.Errorf("exports started: %d, want %d", n, len(jobs))
			}
		})
	}
}
