package provider

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// Through the real terraform binary, with the provider as a user runs it:
// an https API that redirects gets one request and the redirect's target
// none, so the key never travels in clear and a POST never becomes a GET;
// an answer to a start with fields of the wrong type saves the id, warns
// naming the fields, and the next apply starts nothing.
func TestAccAPIAnswers_throughTheCLI(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)

	t.Run("an https API that redirects", func(t *testing.T) {
		handler := mockapi.NewHandler(mockapi.Config{})
		var plainHits, plainKeys atomic.Int64
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			plainHits.Add(1)
			if r.Header.Get("Authorization") != "" {
				plainKeys.Add(1)
			}
			handler.ServeHTTP(w, r)
		}))
		t.Cleanup(plain.Close)
		handler.SetURL(plain.URL)
		var (
			mu       sync.Mutex
			target   string
			status   int
			received []string
		)
		secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			received = append(received, r.Method+" "+r.URL.Path)
			if strings.HasPrefix(r.URL.Path, "/moved") {
				w.WriteHeader(http.StatusTeapot)
				return
			}
			http.Redirect(w, r, target+r.URL.Path+"?sig=s3cr3t", status)
		}))
		t.Cleanup(secure.Close)
		certFile := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o600); err != nil {
			t.Fatal(err)
		}
		tf, err := runner.Module(filepath.Join(t.TempDir(), "module"), map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {
  base_url = %q
}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}
`, secure.URL))}, map[string]string{"DOCSADMIN_API_KEY": handler.APIKey, "SSL_CERT_FILE": certFile})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range []struct {
			name   string
			status int
			target string
		}{
			{"307 to http on the same host", http.StatusTemporaryRedirect, plain.URL},
			{"302 of the POST to the same https server", http.StatusFound, secure.URL + "/moved"},
			{"308 to http on the same host", http.StatusPermanentRedirect, plain.URL},
		} {
			t.Run(row.name, func(t *testing.T) {
				mu.Lock()
				target, status, received = row.target, row.status, nil
				mu.Unlock()
				var stderr bytes.Buffer
				tf.SetStderr(&stderr)
				err := tf.Apply(t.Context())
				said := acctest.FlattenWhitespace(stderr.String())
				if err == nil {
					t.Fatal("the apply succeeded")
				}
				t.Logf("the error: %s", said)
				origin := strings.TrimSuffix(strings.TrimSuffix(row.target, "/moved"), "/")
				for _, want := range []string{fmt.Sprintf("POST /v1/static-export/jobs: refused an HTTP %d redirect to %s", row.status, origin), "Redirects are not followed", "base_url"} {
					if !strings.Contains(said, want) {
						t.Errorf("the error does not say %q", want)
					}
				}
				if strings.Contains(said, "s3cr3t") || strings.Contains(said, handler.APIKey) {
					t.Error("the error names the redirect's query or the key")
				}
				mu.Lock()
				defer mu.Unlock()
				if len(received) != 1 || received[0] != "POST /v1/static-export/jobs" {
					t.Errorf("the https API received %q, want the one POST", received)
				}
			})
		}
		if n := plainHits.Load(); n != 0 {
			t.Errorf("the plain http server received %d requests", n)
		}
		if n := plainKeys.Load(); n != 0 {
			t.Errorf("the key crossed in clear %d times", n)
		}
		if n := handler.ExportsStarted("docs.example.com"); n != 0 {
			t.Errorf("%d exports started", n)
		}
	})

	t.Run("wrong types in the answer to a start", func(t *testing.T) {
		mock := newDeployMock(t, mockapi.Config{})
		mock.PublishCommit(deployProject, previewBranch, commitV1)
		mock.InjectFault(mockapi.EndpointPreview, mockapi.Fault{AfterHandling: true, Patch: map[string]any{"previewUrl": 42}})
		mock.InjectFault(mockapi.EndpointCreateAgentJob, mockapi.Fault{AfterHandling: true, Patch: map[string]any{"source": "docs-repo"}})
		tf, err := runner.Module(filepath.Join(t.TempDir(), "module"), map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_preview_deployment" "nav" {
  branch   = %q
  triggers = { head = "a" }
}

resource "docsadmin_agent_job" "docs" {
  prompt   = %q
  triggers = { release = "1.0" }
}
`, previewBranch, releasePrompt("1.0")))}, map[string]string{
			"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey, "DOCSADMIN_PROJECT_ID": deployProject,
		})
		if err != nil {
			t.Fatal(err)
		}
		// JSON output: the CLI's human output folds similar warnings into
		// one.
		var stdout bytes.Buffer
		if err := tf.ApplyJSON(t.Context(), &stdout); err != nil {
			t.Fatalf("apply: %v\n%s", err, stdout.String())
		}
		var warnings []string
		for line := range strings.Lines(stdout.String()) {
			var msg struct {
				Diagnostic struct{ Severity, Summary, Detail string } `json:"diagnostic"`
			}
			if json.Unmarshal([]byte(line), &msg) == nil && msg.Diagnostic.Severity == "warning" && msg.Diagnostic.Summary == "Unexpected values in the API's answer" {
				warnings = append(warnings, msg.Diagnostic.Detail)
			}
		}
		said := strings.Join(warnings, "\n")
		for _, want := range []string{
			`the preview call for branch "` + previewBranch + `" of project proj_1 had a value of an unexpected type or form in "previewUrl"`,
			`the prompt for project proj_1 had a value of an unexpected type or form in "source"`,
		} {
			if !strings.Contains(said, want) {
				t.Errorf("no warning says %q; the warnings:\n%s", want, said)
			}
		}
		if strings.Contains(said, "docs-repo") || strings.Contains(said, "42") {
			t.Errorf("a warning shows a value of the answer:\n%s", said)
		}
		var stderr bytes.Buffer
		tf.SetStderr(&stderr)
		if err := tf.Apply(t.Context()); err != nil {
			t.Fatalf("second apply: %v\n%s", err, stderr.String())
		}
		if n := len(mock.DeploymentIDs(deployProject)); n != 1 {
			t.Errorf("%d preview builds, want 1", n)
		}
		if n := len(mock.AgentJobsCreated(deployProject)); n != 1 {
			t.Errorf("%d agent jobs, want 1", n)
		}
	})
}
