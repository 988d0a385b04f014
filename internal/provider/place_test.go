package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// An agent job, a deployment and a preview made at one API stay in state,
// unread, while base_url points at another API that knows none of them,
// and are read again once it points back: the other API receives nothing,
// and nothing is made again.
func TestPlace_otherAPIKeepsAgentJobDeploymentAndPreview(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name    string
		mock    func(t *testing.T) *mockapi.Server
		config  func(mock *mockapi.Server) string
		address string
		made    func(mock *mockapi.Server) int
	}{
		{"agent job", func(t *testing.T) *mockapi.Server { return acctest.NewMock(t, mockapi.Config{}) },
			func(mock *mockapi.Server) string { return agentJobResourceConfig(mock, "1.0.0", "") },
			agentJobResourceAddress, func(mock *mockapi.Server) int { return len(mock.AgentJobsCreated("proj_1")) }},
		{"deployment", func(t *testing.T) *mockapi.Server {
			mock := newDeployMock(t, mockapi.Config{})
			mock.PublishCommit(deployProject, "main", commitV1)
			return mock
		}, func(mock *mockapi.Server) string { return deploymentConfig(mock, "v1", "") },
			"docsadmin_deployment.docs", func(mock *mockapi.Server) int { return len(mock.DeploymentIDs(deployProject)) }},
		{"preview", func(t *testing.T) *mockapi.Server { return newDeployMock(t, mockapi.Config{}) },
			func(mock *mockapi.Server) string { return previewConfig(mock, "a", "") },
			"docsadmin_preview_deployment.nav", func(mock *mockapi.Server) int { return len(mock.DeploymentIDs(deployProject)) }},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			made, other := row.mock(t), acctest.NewMock(t, mockapi.Config{})
			var id string
			keptOnce := func(s *terraform.State) error {
				var now string
				if err := captureAttr(row.address, "id", &now)(s); err != nil {
					return err
				}
				if now != id {
					return fmt.Errorf("state holds %q, want %q", now, id)
				}
				if n := row.made(made); n != 1 {
					return fmt.Errorf("%d made, want 1", n)
				}
				if n := other.TotalRequests(); n != 0 {
					return fmt.Errorf("the other API received %d requests, want none", n)
				}
				return nil
			}
			parallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{
					{Config: row.config(made), Check: captureAttr(row.address, "id", &id)},
					{
						Config:           row.config(other),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
						Check:            keptOnce,
					},
					{
						Config:           row.config(made),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
						Check:            keptOnce,
					},
				},
			})
		})
	}
}
