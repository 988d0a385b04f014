package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// Work that ended with a status the provider does not know (a deployment's
// endedAt, an agent job's archivedAt set) is over, like failed work: the
// apply that saw it end fails naming the status, and the next apply starts
// afresh instead of following it again, which would fail the same way on
// every apply.

// startedCount checks that the mock holds n pieces of work.
func startedCount(what string, n int, count func() int) func(*terraform.State) error {
	return func(*terraform.State) error {
		if got := count(); got != n {
			return fmt.Errorf("%d %s, want %d", got, what, n)
		}
		return nil
	}
}

func TestDeploymentResource_endedUnknownDeploysAgain(t *testing.T) {
	t.Parallel()
	mock := newDeployMock(t, mockapi.Config{})
	mock.PublishCommit(deployProject, "main", commitV1)
	count := func() int { return len(mock.DeploymentIDs(deployProject)) }
	canceled := func() { mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{EndStatus: "canceled"}) }
	normal := func() { mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{}) }
	ended := regexp.MustCompile(`(?s)ended\s+with\s+status\s+"canceled",\s+which\s+the\s+provider\s+does\s+not\s+know.*next\s+terraform\s+apply\s+deploys\s+again`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			// A create that saw it end: the tainted object is not followed.
			{PreConfig: canceled, Config: deploymentConfig(mock, "v1", ""), ExpectError: ended},
			{
				PreConfig: normal,
				Config:    deploymentConfig(mock, "v1", ""),
				Check: resource.ComposeTestCheckFunc(startedCount("deployments", 2, count),
					resource.TestCheckResourceAttr("docsadmin_deployment.docs", "status", "success")),
			},
			// An update that saw it end: the next plan deploys again.
			{PreConfig: canceled, Config: deploymentConfig(mock, "v2", ""), ExpectError: ended},
			{
				PreConfig: normal,
				Config:    deploymentConfig(mock, "v2", ""),
				Check: resource.ComposeTestCheckFunc(startedCount("deployments", 4, count),
					resource.TestCheckResourceAttr("docsadmin_deployment.docs", "status", "success")),
			},
		},
	})
}

func TestPreviewDeploymentResource_endedUnknownBuildsAgain(t *testing.T) {
	t.Parallel()
	mock := newDeployMock(t, mockapi.Config{})
	count := func() int { return len(mock.DeploymentIDs(deployProject)) }
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{EndStatus: "canceled"}) },
				Config:      previewConfig(mock, "a", ""),
				ExpectError: regexp.MustCompile(`(?s)ended\s+with\s+status\s+"canceled".*next\s+terraform\s+apply\s+deploys\s+again`),
			},
			{
				PreConfig: func() { mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{}) },
				Config:    previewConfig(mock, "a", ""),
				Check: resource.ComposeTestCheckFunc(startedCount("preview builds", 2, count),
					resource.TestCheckResourceAttr("docsadmin_preview_deployment.nav", "status", "success")),
			},
		},
	})
}

func TestAgentJobResource_endedUnknownStartsAnotherJob(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	archived := time.Now().UTC()
	pr := "https://github.com/example/docs/pull/47"
	count := func() int { return len(mock.AgentJobsCreated("proj_1")) }
	cfg := agentJobResourceConfig(mock, "6.0.0", "  wait = true\n  timeouts {\n    create = \"60s\"\n  }")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 300 * time.Millisecond, Job: mockapi.AgentJob{Status: "canceled", ArchivedAt: &archived}})
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)ended\s+with\s+status\s+"canceled".*next\s+terraform\s+apply\s+starts\s+a\s+new\s+job`),
			},
			{
				PreConfig: func() {
					mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 300 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
				},
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(startedCount("agent jobs", 2, count), expectJobInState(mock),
					resource.TestCheckResourceAttr(agentJobResourceAddress, "status", "completed")),
			},
		},
	})
}

// A status the provider does not know is quoted in the error through the
// provider's sanitizer: a key in it is redacted, and it is bounded.
func TestEndedUnknownStatusIsSanitized(t *testing.T) {
	t.Parallel()
	mock := newDeployMock(t, mockapi.Config{})
	status := "canceled by " + mock.APIKey + " " + strings.Repeat("x", 5000)
	mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{EndStatus: status})
	archived := time.Now().UTC()
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "aj_1", Status: status, ArchivedAt: &archived})
	data := testProviderData(t, mock)
	data.sanitizer = redact.New(mock.APIKey)
	ctx := context.Background()

	start, err := data.client.TriggerDeployment(ctx, deployProject)
	if err != nil {
		t.Fatal(err)
	}
	_, depErr := data.waitForDeployment(ctx, "deployment "+start.StatusID, start.StatusID, time.Minute)
	_, jobErr := data.waitForAgentJob(ctx, "proj_1", "aj_1", time.Minute, nil, nil, "")
	for name, err := range map[string]error{"deployment": depErr, "agent job": jobErr} {
		text := waitFailure{subject: name}.describe(err)
		switch {
		case !strings.Contains(text, "ended with status"):
			t.Errorf("%s: the wait did not end at the unknown status: %s", name, text)
		case strings.Contains(text, mock.APIKey):
			t.Errorf("%s: the error holds the API key: %s", name, text)
		case !strings.Contains(text, redact.KeyMarker):
			t.Errorf("%s: the error does not show the key redacted: %s", name, text)
		case len(text) > 2*redact.LineBytes:
			t.Errorf("%s: the error is %d bytes long: the status is not bounded", name, len(text))
		}
	}
}
