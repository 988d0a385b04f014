package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const exportDataAddress = "data.docsadmin_static_export.job"

func exportDataConfig(mock *mockapi.Server, jobID string) string {
	return acctest.BlockConfig(mock, "", `data "docsadmin_static_export" "job"`, fmt.Sprintf("  job_id = %q", jobID))
}

func TestStaticExportDataSource_runningCompletedFailed(t *testing.T) {
	clock := clocktest.NewFakeClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now, ExportDuration: 10 * time.Minute})
	mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{Fail: true, FailMessage: "rendering error on page guides/intro"})
	running := startExportOutsideTerraform(t, mock, "docs.example.com")
	failing := startExportOutsideTerraform(t, mock, "broken.example.com")
	clock.Advance(5 * time.Minute)

	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: exportDataConfig(mock, running),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("progress"), knownvalue.Float64Func(func(v float64) error {
						if v <= 0 || v >= 100 {
							return fmt.Errorf("progress %v of a half-done job", v)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("error"), knownvalue.Null()),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("created_at"), knownvalue.StringExact("2026-11-22T08:00:00Z")),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("updated_at"), knownvalue.NotNull()),
				},
			},
			{
				PreConfig: func() { clock.Advance(10 * time.Minute) },
				Config:    exportDataConfig(mock, running),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("progress"), knownvalue.Float64Exact(100)),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("page_count"), knownvalue.Int64Exact(mockapi.DefaultPageCount)),
				},
			},
			{
				Config: exportDataConfig(mock, failing), // failed at the 10-minute mark
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("status"), knownvalue.StringExact("failed")),
					statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("error"), knownvalue.StringExact("rendering error on page guides/intro")),
				},
			},
			{
				Config:      exportDataConfig(mock, "se_ffffffffffffffff"),
				ExpectError: regexp.MustCompile(`(?s)no export job se_ffffffffffffffff.*HTTP 404`),
			},
		},
	})
	if n := mock.Requests(mockapi.EndpointBundle); n != 0 {
		t.Fatalf("the data source asked for %d bundle links; it must never generate one", n)
	}
}
