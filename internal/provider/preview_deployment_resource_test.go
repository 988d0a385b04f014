package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const (
	previewAddress = "docsadmin_preview_deployment.nav"
	previewBranch  = "feature/new-nav"
)

func previewConfig(mock *mockapi.Server, head, extra string) string {
	return acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_preview_deployment" "nav"`,
		fmt.Sprintf("  branch   = %q\n  triggers = { head = %q }\n%s", previewBranch, head, extra))
}

// expectPreviewRequests checks that every preview call was exactly part D's
// POST /v1/project/preview/proj_1 with {"branch": ...}, n of them.
func expectPreviewRequests(mock *mockapi.Server, n int) func(*terraform.State) error {
	return func(*terraform.State) error {
		calls := 0
		for _, r := range mock.RequestLog() {
			switch r.Endpoint {
			case mockapi.EndpointPreview:
				calls++
				if r.Method != http.MethodPost || r.Path != "/v1/project/preview/proj_1" || r.Body != `{"branch":"`+previewBranch+`"}` {
					return fmt.Errorf("preview call %s %s with body %s; want POST /v1/project/preview/proj_1 with {\"branch\":%q}", r.Method, r.Path, r.Body, previewBranch)
				}
			case mockapi.EndpointDeploymentStatus:
			default:
				return fmt.Errorf("unexpected request %s %s", r.Method, r.Path)
			}
		}
		if calls != n || len(mock.DeploymentIDs(deployProject)) != n {
			return fmt.Errorf("%d preview calls and %d builds, want %d", calls, len(mock.DeploymentIDs(deployProject)), n)
		}
		return nil
	}
}

func TestPreviewDeployment_buildsAndRebuilds(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{})
	mock.PublishCommit(deployProject, previewBranch, commitV1)
	url := knownvalue.StringExact(mockapi.PreviewURL(deployProject, previewBranch))
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: previewConfig(mock, "a", ""),
				ConfigStateChecks: append(expectDeployed(previewAddress, commitV1, previewBranch),
					statecheck.ExpectKnownValue(previewAddress, tfjsonpath.New("preview_url"), url),
					statecheck.ExpectKnownValue(previewAddress, tfjsonpath.New("wait"), knownvalue.Bool(true))),
				Check: expectPreviewRequests(mock, 1),
			},
			{
				Config:           previewConfig(mock, "a", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				PreConfig: func() { mock.PublishCommit(deployProject, previewBranch, commitV2) },
				Config:    previewConfig(mock, "b", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(previewAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(previewAddress, tfjsonpath.New("preview_url"), url),
					plancheck.ExpectUnknownValue(previewAddress, tfjsonpath.New("commit_sha")),
				}},
				ConfigStateChecks: append(expectDeployed(previewAddress, commitV2, previewBranch),
					statecheck.ExpectKnownValue(previewAddress, tfjsonpath.New("preview_url"), url)),
				Check: expectPreviewRequests(mock, 2),
			},
		},
	})
}

func TestPreviewDeployment_withoutWaiting(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := newDeployMock(t, mockapi.Config{Now: clock.Now})
	mock.PublishCommit(deployProject, previewBranch, commitV1)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: previewConfig(mock, "a", "  wait = false"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(previewAddress, tfjsonpath.New("status"), knownvalue.StringExact("queued")),
					statecheck.ExpectKnownValue(previewAddress, tfjsonpath.New("commit_sha"), knownvalue.Null()),
					statecheck.ExpectKnownValue(previewAddress, tfjsonpath.New("preview_url"), knownvalue.StringExact(mockapi.PreviewURL(deployProject, previewBranch))),
				},
				Check: acctest.ExpectCount("status reads during the apply", 0, func() int { return mock.Requests(mockapi.EndpointDeploymentStatus) }),
			},
			{
				// Refresh reads the build's status; nothing is planned.
				PreConfig:         func() { clock.Advance(time.Hour) }, // past the build
				Config:            previewConfig(mock, "a", "  wait = false"),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: expectDeployed(previewAddress, commitV1, previewBranch),
				Check:             expectPreviewRequests(mock, 1),
			},
		},
	})
}

func TestPreviewDeployment_errors(t *testing.T) {
	t.Parallel()
	type testCase struct {
		name  string
		cfg   mockapi.Config
		setup func(*mockapi.Server)
		want  string
	}
	cases := []testCase{
		{
			name: "no preview entitlement",
			cfg:  mockapi.Config{NoPreviewEntitlement: true},
			want: `(?s)Cannot build the preview deployment.*branch\s+"feature/new-nav"\s+in\s+project\s+proj_1.*POST\s+/v1/project/preview/proj_1.*HTTP\s+403.*` +
				`Preview\s+deployments\s+are\s+not\s+available\s+on\s+your\s+current\s+plan\.\s+Preview\s+deployments\s+need.*preview\s+deployments\s+entitlement`,
		},
		{
			name: "failed build",
			setup: func(m *mockapi.Server) {
				m.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{Fail: true})
			},
			want: `(?s)Deployment failed.*preview\s+deployment\s+[0-9a-f]{24}\s+of\s+branch\s+"feature/new-nav".*Build\s+failed.*rebuilds\s+the\s+preview`,
		},
	}
	acctest.RunSubtests(t, cases, func(c testCase) string { return c.name }, func(t *testing.T, c testCase) {
		mock := newDeployMock(t, c.cfg)
		if c.setup != nil {
			c.setup(mock)
		}
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps:                    []resource.TestStep{{Config: previewConfig(mock, "a", ""), ExpectError: regexp.MustCompile(c.want)}},
		})
		if n := mock.Requests(mockapi.EndpointPreview); n != 1 {
			t.Errorf("the preview call was sent %d times, want 1", n)
		}
	})
}

func TestPreviewDeployment_timeoutContinuesTheSameBuild(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{DeploymentDuration: 4 * time.Second})
	mock.PublishCommit(deployProject, previewBranch, commitV1)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      previewConfig(mock, "a", "  timeouts {\n    create = \"1s\"\n  }"),
				ExpectError: regexp.MustCompile(`(?s)Deployment did not end.*preview\s+deployment\s+[0-9a-f]{24}\s+of\s+branch.*timed\s+out`),
			},
			{
				Config:            previewConfig(mock, "a", "  timeouts {\n    create = \"1m\"\n  }"),
				ConfigStateChecks: expectDeployed(previewAddress, commitV1, previewBranch),
				Check:             expectPreviewRequests(mock, 1),
			},
		},
	})
}
