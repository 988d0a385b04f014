package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// Resource identity needs Terraform 1.12 or later.
var identityVersions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}

var jobIDPattern = regexp.MustCompile(`^se_[0-9a-f]{16}$`)

// importByIdentity is an import block that names the export by identity.
func importByIdentity(domain, jobID string) string {
	return fmt.Sprintf(`
import {
  to = docsadmin_static_export.site
  identity = {
    domain = %q
    job_id = %q
  }
}
`, domain, jobID)
}

func TestStaticExport_identityAndImportByIdentity(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		TerraformVersionChecks:   identityVersions,
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(acctest.ExportAddress, map[string]knownvalue.Check{
						"domain": knownvalue.StringExact("docs.example.com"),
						"job_id": knownvalue.StringRegexp(jobIDPattern),
					}),
					statecheck.ExpectIdentityValueMatchesState(acctest.ExportAddress, tfjsonpath.New("job_id")),
				},
				Check: captureAttr(acctest.ExportAddress, "job_id", &jobID),
			},
			{
				// Plannable imports cannot use ImportStateVerify: the plan of
				// the imported export must be a no-op, with the same identity.
				ResourceName:    acctest.ExportAddress,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
						plancheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.NotNull()),
					},
				},
			},
			{
				ResourceName:    acctest.ExportAddress,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return "docs.example.com/" + s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"], nil
				},
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop)},
				},
			},
			{
				ResourceName:      acctest.ExportAddress,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return "docs.example.com/" + s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"], nil
				},
				// Import hands over a fresh link for the same export.
				ImportStateVerifyIgnore: []string{"bundle_url", "bundle_expires_at", "link_revision"},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			return acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })(nil)
		},
	})
}

func TestStaticExport_importBlockByIdentityThenEmptyPlan(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	jobID := startExportOutsideTerraform(t, mock, "docs.example.com")
	mock.CompleteExportJob(jobID)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		TerraformVersionChecks:   identityVersions,
		Steps: []resource.TestStep{{
			Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`) + importByIdentity("docs.example.com", jobID),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity(acctest.ExportAddress, map[string]knownvalue.Check{
					"domain": knownvalue.StringExact("docs.example.com"),
					"job_id": knownvalue.StringExact(jobID),
				}),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(jobID)),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.NotNull()),
			},
			Check: acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
		}},
	})
}

func TestStaticExport_importByInvalidIdentityFails(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	cases := []struct {
		name, domain, jobID, want string
	}{
		{"domain with scheme", "https://docs.example.com", "se_3f9a2c1b8e7d4a06", `(?s)Invalid import identity.*domain is not valid.*contains a scheme`},
		{"domain with path", "docs.example.com/guides", "se_3f9a2c1b8e7d4a06", `(?s)Invalid import identity.*contains a path`},
		{"empty domain", "", "se_3f9a2c1b8e7d4a06", `(?s)Invalid import identity.*domain is empty`},
		{"empty job id", "docs.example.com", "", `(?s)Invalid import identity.*job_id is not valid.*job id is empty or blank`},
		{"job id with slash", "docs.example.com", "docs.example.com/se_3f9a2c1b8e7d4a06", `(?s)Invalid import identity.*job_id is not valid.*is not a job id`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				TerraformVersionChecks:   identityVersions,
				Steps: []resource.TestStep{{
					Config:   acctest.ExportConfig(mock, `domain = "docs.example.com"`) + importByIdentity(tc.domain, tc.jobID),
					PlanOnly: true,
					// Terraform wraps long messages: any space may be a line break.
					ExpectError: regexp.MustCompile(strings.ReplaceAll(tc.want, " ", `\s+`)),
				}},
			})
		})
	}
	if n := mock.TotalRequests(); n != 0 {
		t.Fatalf("invalid identities reached the API %d times; they must fail before any request", n)
	}
}

// A create that times out has saved the job in state; the next apply resumes
// it under the same identity.
func TestStaticExport_identityOfAnExportResumedAfterTimeout(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{ExportDuration: 4 * time.Second})
	withTimeout := func(limit string) string {
		return acctest.ExportConfig(mock, fmt.Sprintf(`
  domain = "docs.example.com"
  timeouts {
    create = %q
  }`, limit))
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		TerraformVersionChecks:   identityVersions,
		Steps: []resource.TestStep{
			{
				Config:      withTimeout("1s"),
				ExpectError: regexp.MustCompile(`waiting for export job se_[0-9a-f]{16} timed out`),
			},
			{
				Config: withTimeout("2m"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(acctest.ExportAddress, map[string]knownvalue.Check{
						"domain": knownvalue.StringExact("docs.example.com"),
						"job_id": knownvalue.StringRegexp(jobIDPattern),
					}),
					statecheck.ExpectIdentityValueMatchesState(acctest.ExportAddress, tfjsonpath.New("job_id")),
				},
				Check: acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
		},
	})
}

// Import delivers the bundle as create does: the 409 that the link endpoint
// answers for a short while after completion is waited out.
func TestStaticExport_importWaitsOutABundleNotReadyYet(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				Check:  captureAttr(acctest.ExportAddress, "job_id", &jobID),
			},
			{
				PreConfig: func() {
					mock.InjectFault(mockapi.EndpointBundle, mockapi.Fault{Status: 409, Body: `{"error":"bundle is being prepared"}`})
				},
				ResourceName:      acctest.ExportAddress,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return "docs.example.com/" + jobID, nil },
				// Import hands over a fresh link for the same export.
				ImportStateVerifyIgnore: []string{"bundle_url", "bundle_expires_at", "link_revision"},
				Check: func(*terraform.State) error {
					if n := mock.PendingFaults(mockapi.EndpointBundle); n != 0 {
						return fmt.Errorf("the 409 was never answered (%d faults pending)", n)
					}
					return acctest.ExpectCount("links generated", 2, func() int { return mock.BundlesGenerated(jobID) })(nil)
				},
			},
		},
	})
}
