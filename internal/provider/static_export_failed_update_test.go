package provider

import (
	"fmt"
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

// An update that fails records nothing it did not do: the renewal (or
// verification) is planned again by the next plan, and done once the cause
// is gone. Each row takes an update path to a failure.
func TestStaticExport_failedUpdateIsPlannedAgain(t *testing.T) {
	t.Parallel()
	readOnly := mockapi.Fault{Status: 403, Body: `{"error":"this API key is read-only"}`}
	rows := []struct {
		name string
		// before and after are the resource's arguments for the first
		// apply and for the update.
		before, after string
		// fail makes the update fail; it may move the clock.
		fail    func(mock *mockapi.Server, clock *acctest.ShiftedClock, jobID string)
		wantErr string
		// links is how many links the job has once the update is done.
		links int
	}{
		{
			name:   "renew_triggers, link refused (read-only key)",
			before: `renew_triggers = { rotation = "1" }`,
			after:  `renew_triggers = { rotation = "2" }`,
			fail: func(m *mockapi.Server, _ *acctest.ShiftedClock, _ string) {
				m.InjectFault(mockapi.EndpointBundle, readOnly)
			},
			wantErr: `Cannot generate the export's bundle link`,
			links:   2,
		},
		{
			name:   "renew_triggers, link request fails with 503",
			before: `renew_triggers = { rotation = "1" }`,
			after:  `renew_triggers = { rotation = "2" }`,
			fail: func(m *mockapi.Server, _ *acctest.ShiftedClock, _ string) {
				m.InjectFault(mockapi.EndpointBundle, faultRepeated(mockapi.Fault{Status: 503}, 30)...)
			},
			wantErr: `Cannot generate the export's bundle link`,
			links:   2,
		},
		{
			name:   "due renewal, link refused",
			before: `renew_before = "1h"`,
			after:  `renew_before = "1h"`,
			fail: func(m *mockapi.Server, clock *acctest.ShiftedClock, _ string) {
				clock.Advance(23*time.Hour + 30*time.Minute)
				m.InjectFault(mockapi.EndpointBundle, readOnly)
			},
			wantErr: `Cannot generate the export's bundle link`,
			links:   2,
		},
		{
			name:   "verification turned on, archive corrupt",
			before: `verify_archive = false`,
			after:  `verify_archive = true`,
			fail: func(m *mockapi.Server, _ *acctest.ShiftedClock, jobID string) {
				m.SetArchive(jobID, mockapi.ArchiveCorrupt)
			},
			wantErr: `The export's archive failed verification`,
			links:   3,
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			clock := &acctest.ShiftedClock{}
			mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now})
			config := func(args string) string {
				return acctest.ExportConfig(mock, "  domain = \"docs.example.com\"\n  "+args+"\n  timeouts { update = \"20s\" }")
			}
			var jobID string
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
				Steps: []resource.TestStep{
					{Config: config(row.before), Check: captureAttr(acctest.ExportAddress, "job_id", &jobID)},
					{
						PreConfig:   func() { row.fail(mock, clock, jobID) },
						Config:      config(row.after),
						ExpectError: regexp.MustCompile(regexp.QuoteMeta(row.wantErr)),
					},
					{
						// The cause is gone: the same update is planned again
						// and done, on the same export.
						PreConfig: func() {
							mock.ClearFaults()
							mock.SetArchive(jobID, mockapi.ArchiveGood)
							clock.Advance(time.Minute)
						},
						Config: config(row.after),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
								plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url")),
							},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
						},
						Check: func(s *terraform.State) error {
							if id := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"]; id != jobID {
								return fmt.Errorf("the update changed the job from %s to %s", jobID, id)
							}
							if err := acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })(nil); err != nil {
								return err
							}
							return acctest.ExpectCount("links generated", row.links, func() int { return mock.BundlesGenerated(jobID) })(nil)
						},
					},
				},
			})
		})
	}
}
