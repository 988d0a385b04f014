package provider

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccResume_outageAcrossApplies runs the real CLI, a new provider
// process for every apply, as a user runs them (the in-process fault
// matrix shares one provider across its steps, and so one registry): a
// create that timed out, then an apply whose replacement cannot read the
// work it would take over (a 503 after the refresh's read) fails saying
// nothing was started and keeps the work in state, tainted, and the apply
// after it follows the same work. The mock holds one job, deployment,
// preview build or export.
func TestAccResume_outageAcrossApplies(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	pr := "https://github.com/example/docs/pull/46"
	rows := []struct {
		name    string
		mock    func(t *testing.T) *mockapi.Server
		config  func(mock *mockapi.Server, create string) string
		read    mockapi.Endpoint
		address string
		started func(mock *mockapi.Server) int
	}{
		{
			name: "agent job",
			mock: func(t *testing.T) *mockapi.Server {
				mock := acctest.NewMock(t, mockapi.Config{})
				mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 4 * time.Second, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
				return mock
			},
			config: func(mock *mockapi.Server, create string) string {
				return agentJobResourceConfig(mock, "5.0.0", fmt.Sprintf("  wait = true\n  timeouts {\n    create = %q\n  }", create))
			},
			read:    mockapi.EndpointGetAgentJob,
			address: agentJobResourceAddress,
			started: func(mock *mockapi.Server) int { return len(mock.AgentJobsCreated("proj_1")) },
		},
		{
			name: "deployment",
			mock: func(t *testing.T) *mockapi.Server {
				mock := newDeployMock(t, mockapi.Config{DeploymentDuration: 4 * time.Second})
				mock.PublishCommit(deployProject, "main", commitV1)
				return mock
			},
			config: func(mock *mockapi.Server, create string) string {
				return deploymentConfig(mock, "v1", fmt.Sprintf("  timeouts {\n    create = %q\n  }", create))
			},
			read:    mockapi.EndpointDeploymentStatus,
			address: "docsadmin_deployment.docs",
			started: func(mock *mockapi.Server) int { return len(mock.DeploymentIDs(deployProject)) },
		},
		{
			name: "preview build",
			mock: func(t *testing.T) *mockapi.Server {
				return newDeployMock(t, mockapi.Config{DeploymentDuration: 4 * time.Second})
			},
			config: func(mock *mockapi.Server, create string) string {
				return previewConfig(mock, "a", fmt.Sprintf("  timeouts {\n    create = %q\n  }", create))
			},
			read:    mockapi.EndpointDeploymentStatus,
			address: "docsadmin_preview_deployment.nav",
			started: func(mock *mockapi.Server) int { return len(mock.DeploymentIDs(deployProject)) },
		},
		{
			name: "export",
			mock: func(t *testing.T) *mockapi.Server {
				return acctest.NewMock(t, mockapi.Config{ExportDuration: 4 * time.Second})
			},
			config: func(mock *mockapi.Server, create string) string {
				return acctest.ExportConfig(mock, fmt.Sprintf("  domain = \"docs.example.com\"\n  timeouts {\n    create = %q\n  }", create))
			},
			read:    mockapi.EndpointGetExport,
			address: acctest.ExportAddress,
			started: func(mock *mockapi.Server) int { return mock.ExportsStarted("docs.example.com") },
		},
	}
	notStarted := regexp.MustCompile(`could not be read: .*[^.]\. Nothing was started, and its id stays in state: the next terraform apply continues the same work\.`)
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel() // each row its own mock and module, one build of the provider
			mock := row.mock(t)
			ctx := t.Context()
			dir := filepath.Join(t.TempDir(), "module")
			module := func(create string) map[string][]byte {
				return map[string][]byte{"main.tf": []byte(cliRequiredProviders + `` + withoutRetries(row.config(mock, create)))}
			}
			tf, err := runner.Module(dir, module("1s"), nil)
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			tf.SetStderr(&stderr)
			if err := tf.Apply(ctx); err == nil || !strings.Contains(oneLine(stderr.String()), "timed out") {
				t.Fatalf("the first apply did not time out: %v\n%s", err, stderr.String())
			}
			id := func(when string) (string, bool) {
				t.Helper()
				state, err := tf.Show(ctx)
				if err != nil {
					t.Fatalf("%s: terraform show: %v", when, err)
				}
				if state.Values != nil {
					for _, r := range state.Values.RootModule.Resources {
						if r.Address == row.address {
							id, _ := r.AttributeValues["id"].(string)
							return id, r.Tainted
						}
					}
				}
				t.Errorf("%s: state does not hold %s", when, row.address)
				return "", false
			}
			first, tainted := id("after the timeout")
			if first == "" || !tainted {
				t.Fatalf("after the timeout: state holds id %q, tainted %v; want the work's id, tainted", first, tainted)
			}

			// The refresh reads the work; the replacement's read fails.
			if _, err := runner.Module(dir, module("2m"), nil); err != nil {
				t.Fatal(err)
			}
			mock.InjectFault(row.read, mockapi.Fault{}, mockapi.Fault{Status: 503})
			stderr.Reset()
			if err := tf.Apply(ctx); err == nil {
				t.Fatal("the apply whose resume read failed succeeded")
			}
			if text := oneLine(stderr.String()); !notStarted.MatchString(text) {
				t.Errorf("the failed resume says:\n%s\nwant it to match %s", text, notStarted)
			}
			if n := mock.PendingFaults(row.read); n != 0 {
				t.Errorf("%d injected faults were not used: the replacement did not read the work", n)
			}
			if kept, tainted := id("after the failed resume"); kept != first || !tainted {
				t.Errorf("after the failed resume: state holds id %q, tainted %v; want %q, tainted", kept, tainted, first)
			}

			stderr.Reset()
			if err := tf.Apply(ctx); err != nil {
				t.Fatalf("the apply after the outage: %v\n%s", err, stderr.String())
			}
			if followed, tainted := id("after the outage"); followed != first || tainted {
				t.Errorf("after the outage: state holds id %q, tainted %v; want %q, not tainted", followed, tainted, first)
			}
			if n := row.started(mock); n != 1 {
				t.Errorf("%d started, want 1", n)
			}
		})
	}
}

// oneLine is text with its line breaks and runs of spaces, and Terraform's
// box drawing of diagnostics, made single spaces.
func oneLine(text string) string {
	text = strings.NewReplacer("│", " ", "╷", " ", "╵", " ").Replace(text)
	return strings.Join(strings.Fields(text), " ")
}
