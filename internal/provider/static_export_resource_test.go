package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const exportAddress = "docsadmin_static_export.site"

func exportConfig(mock *mockapi.Server, body string) string {
	return providerConfig(mock, "") + fmt.Sprintf(`
resource "docsadmin_static_export" "site" {
%s
}
`, body)
}

func TestAccStaticExport_createThenEmptyPlan(t *testing.T) {
	mock := newMock(t, mockapi.Config{})
	var jobID string
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: exportConfig(mock, `domain = "docs.example.com"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("job_id"), knownvalue.StringRegexp(regexp.MustCompile(`^se_[0-9a-f]{16}$`))),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("progress"), knownvalue.Float64Exact(100)),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("page_count"), knownvalue.Int64Exact(mockapi.DefaultPageCount)),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("bundle_url"), knownvalue.StringRegexp(regexp.MustCompile(`X-Amz-Signature=`))),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("bundle_expires_at"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("bundle_size_bytes"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(exportAddress, tfjsonpath.New("ready_for_renewal"), knownvalue.Bool(false)),
					statecheck.ExpectSensitiveValue(exportAddress, tfjsonpath.New("bundle_url")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					captureAttr(exportAddress, "job_id", &jobID),
					resource.TestCheckResourceAttrPair(exportAddress, "id", exportAddress, "job_id"),
					expectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					func(*terraform.State) error {
						return expectCount("bundles generated", 1, func() int { return mock.BundlesGenerated(jobID) })(nil)
					},
				),
			},
			{
				// A second run with the same configuration changes nothing.
				Config: exportConfig(mock, `domain = "docs.example.com"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
		},
	})
}

func TestAccStaticExport_failedJob(t *testing.T) {
	mock := newMock(t, mockapi.Config{})
	mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{Fail: true, FailMessage: "export failed: page guides/intro does not render"})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:      exportConfig(mock, `domain = "broken.example.com"`),
			ExpectError: regexp.MustCompile(`(?s)export job se_[0-9a-f]{16} failed: export failed: page guides/intro\s+does\s+not\s+render`),
		}},
	})
}

func TestAccStaticExport_jobGoneOnServerIsRecreated(t *testing.T) {
	mock := newMock(t, mockapi.Config{})
	var firstJob string
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: exportConfig(mock, `domain = "docs.example.com"`),
				Check:  captureAttr(exportAddress, "job_id", &firstJob),
			},
			{
				PreConfig: func() { mock.DeleteExportJob(firstJob) },
				Config:    exportConfig(mock, `domain = "docs.example.com"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(exportAddress, plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeTestCheckFunc(
					expectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") }),
					func(s *terraform.State) error {
						if id := s.RootModule().Resources[exportAddress].Primary.Attributes["job_id"]; id == firstJob {
							return fmt.Errorf("job id %s was kept although the job is gone", id)
						}
						return nil
					},
				),
			},
		},
	})
}
