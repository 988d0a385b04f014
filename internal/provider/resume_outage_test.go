package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// withoutRetries makes a passing failure of one read fail the apply: the
// outage outlasts the client's retries.
func withoutRetries(config string) string {
	return strings.Replace(config, "provider \"docsadmin\" {", "provider \"docsadmin\" {\n  max_retries = 0", 1)
}

// outageDuringResume is a create that timed out, then an apply whose
// replacement cannot read the work it would take over (a 503 after the
// refresh's read): it must fail saying nothing was started, and the apply
// after it follow the same work. Here one provider serves every step;
// TestAccResume_outageAcrossApplies runs the same rows through the CLI, a
// provider process per apply, where only state carries the work over.
func outageDuringResume(t *testing.T, read mockapi.Endpoint, timedOut, resumed string, timedOutError string, started func() int) func(*mockapi.Server) []resource.TestStep {
	return func(mock *mockapi.Server) []resource.TestStep {
		once := func() error {
			if n := started(); n != 1 {
				return fmt.Errorf("%d started, want 1", n)
			}
			return nil
		}
		return []resource.TestStep{
			{Config: withoutRetries(timedOut), ExpectError: regexp.MustCompile(timedOutError)},
			{
				// The refresh reads the work; the replacement's read fails.
				PreConfig:   func() { mock.InjectFault(read, mockapi.Fault{}, mockapi.Fault{Status: 503}) },
				Config:      withoutRetries(resumed),
				ExpectError: regexp.MustCompile(`(?s)Cannot\s+continue\s+the\s+unfinished.*could\s+not\s+be\s+read.*Nothing\s+was\s+started`),
			},
			{
				PreConfig: func() {
					if err := once(); err != nil {
						t.Errorf("after the failed resume: %v", err)
					}
					if n := mock.PendingFaults(read); n != 0 {
						t.Errorf("%d injected faults were not used: the replacement did not read the work", n)
					}
				},
				Config: resumed,
				Check:  func(*terraform.State) error { return once() },
			},
		}
	}
}

func TestFaultMatrix_outageDuringResume(t *testing.T) {
	t.Parallel()
	t.Run("agent job", func(t *testing.T) {
		t.Parallel()
		mock := acctest.NewMock(t, mockapi.Config{})
		pr := "https://github.com/example/docs/pull/46"
		mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 4 * time.Second, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
		steps := outageDuringResume(t, mockapi.EndpointGetAgentJob,
			agentJobResourceConfig(mock, "5.0.0", "  wait = true\n  timeouts {\n    create = \"1s\"\n  }"),
			agentJobResourceConfig(mock, "5.0.0", "  wait = true\n  timeouts {\n    create = \"1m\"\n  }"),
			`timed\s+out`, func() int { return len(mock.AgentJobsCreated("proj_1")) })(mock)
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testFactories(Options{}), Steps: steps})
	})
	t.Run("deployment", func(t *testing.T) {
		t.Parallel()
		mock := newDeployMock(t, mockapi.Config{DeploymentDuration: 4 * time.Second})
		mock.PublishCommit(deployProject, "main", commitV1)
		steps := outageDuringResume(t, mockapi.EndpointDeploymentStatus,
			deploymentConfig(mock, "v1", "  timeouts {\n    create = \"1s\"\n  }"),
			deploymentConfig(mock, "v1", "  timeouts {\n    create = \"1m\"\n  }"),
			`timed\s+out`, func() int { return len(mock.DeploymentIDs(deployProject)) })(mock)
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testFactories(Options{}), Steps: steps})
	})
	t.Run("preview build", func(t *testing.T) {
		t.Parallel()
		mock := newDeployMock(t, mockapi.Config{DeploymentDuration: 4 * time.Second})
		steps := outageDuringResume(t, mockapi.EndpointDeploymentStatus,
			previewConfig(mock, "a", "  timeouts {\n    create = \"1s\"\n  }"),
			previewConfig(mock, "a", "  timeouts {\n    create = \"1m\"\n  }"),
			`timed\s+out`, func() int { return len(mock.DeploymentIDs(deployProject)) })(mock)
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testFactories(Options{}), Steps: steps})
	})
	t.Run("export", func(t *testing.T) {
		t.Parallel()
		mock := acctest.NewMock(t, mockapi.Config{ExportDuration: 4 * time.Second})
		withTimeout := func(limit string) string {
			return acctest.ExportConfig(mock, fmt.Sprintf("  domain = \"docs.example.com\"\n  timeouts {\n    create = %q\n  }", limit))
		}
		steps := outageDuringResume(t, mockapi.EndpointGetExport, withTimeout("1s"), withTimeout("2m"), `timed\s+out`,
			func() int { return mock.ExportsStarted("docs.example.com") })(mock)
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testFactories(Options{}), Steps: steps})
	})
}

// An agent job the API archived with a status it does not document ends
// the wait at once, naming the status, instead of waiting out the timeout.
func TestAgentJobResource_unknownArchivedStatusEndsTheWait(t *testing.T) {
	t.Parallel() // before the clock starts: a paused test waits for the serial ones
	mock := acctest.NewMock(t, mockapi.Config{})
	archived := time.Now().UTC()
	mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 500 * time.Millisecond, Job: mockapi.AgentJob{Status: "canceled", ArchivedAt: &archived}})
	start := time.Now()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:      agentJobResourceConfig(mock, "6.0.0", "  wait = true\n  timeouts {\n    create = \"90s\"\n  }"),
			ExpectError: regexp.MustCompile(`(?s)ended\s+with\s+status\s+"canceled",\s+which\s+the\s+provider\s+does\s+not\s+know.*archivedAt`),
		}},
	})
	if waited := time.Since(start); waited > 45*time.Second {
		t.Errorf("the apply took %s: the wait did not end at the archived job", waited.Round(time.Second))
	}
	if n := len(mock.AgentJobsCreated("proj_1")); n != 1 {
		t.Errorf("%d agent jobs created, want 1", n)
	}
}
