package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
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

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

func TestStaticExport_createThenEmptyPlan(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("job_id"), knownvalue.StringRegexp(regexp.MustCompile(`^se_[0-9a-f]{16}$`))),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("progress"), knownvalue.Float64Exact(100)),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("page_count"), knownvalue.Int64Exact(mockapi.DefaultPageCount)),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.StringRegexp(regexp.MustCompile(`X-Amz-Signature=`))),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_expires_at"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_size_bytes"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("ready_for_renewal"), knownvalue.Bool(false)),
					statecheck.ExpectSensitiveValue(acctest.ExportAddress, tfjsonpath.New("bundle_url")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
					resource.TestCheckResourceAttrPair(acctest.ExportAddress, "id", acctest.ExportAddress, "job_id"),
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					func(*terraform.State) error {
						return acctest.ExpectCount("bundles generated", 1, func() int { return mock.BundlesGenerated(jobID) })(nil)
					},
				),
			},
			{
				// A second run with the same configuration changes nothing.
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
		},
	})
}

func TestStaticExport_failedJob(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{Fail: true, FailMessage: "export failed: page guides/intro does not render"})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:      acctest.ExportConfig(mock, `domain = "broken.example.com"`),
			ExpectError: regexp.MustCompile(`(?s)export job se_[0-9a-f]{16} failed: export failed: page guides/intro\s+does\s+not\s+render`),
		}},
	})
}

func TestStaticExport_jobGoneOnServerIsRecreated(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	var firstJob string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				Check:  captureAttr(acctest.ExportAddress, "job_id", &firstJob),
			},
			{
				PreConfig: func() { mock.DeleteExportJob(firstJob) },
				Config:    acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") }),
					func(s *terraform.State) error {
						if id := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"]; id == firstJob {
							return fmt.Errorf("job id %s was kept although the job is gone", id)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestStaticExport_inputsReachTheAPIAndChangesReplace(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	var firstJob, secondJob string
	jobInputs := func(jobID *string, version string, paths ...string) func(*terraform.State) error {
		return func(*terraform.State) error {
			snap, ok := mock.ExportJob(*jobID)
			if !ok {
				return fmt.Errorf("job %s unknown to the API", *jobID)
			}
			if snap.Version != version || fmt.Sprint(snap.Paths) != fmt.Sprint(paths) {
				return fmt.Errorf("job %s was started with version %q paths %v; want %q %v", *jobID, snap.Version, snap.Paths, version, paths)
			}
			return nil
		}
	}
	replaced := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionReplace)}}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `
  domain   = "docs.example.com"
  version  = "v2"
  paths    = ["index", "guides/getting-started"]
  triggers = { docs_commit = "a1b2c3" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("page_count"), knownvalue.Int64Exact(2)),
				},
				Check: resource.ComposeTestCheckFunc(captureAttr(acctest.ExportAddress, "job_id", &firstJob), jobInputs(&firstJob, "v2", "index", "guides/getting-started")),
			},
			{
				// A new commit in the docs repository re-exports, in place.
				Config: acctest.ExportConfig(mock, `
  domain   = "docs.example.com"
  version  = "v2"
  paths    = ["index", "guides/getting-started"]
  triggers = { docs_commit = "d4e5f6" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("job_id")),
				}},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") }),
					captureAttr(acctest.ExportAddress, "job_id", &secondJob),
				),
			},
			{
				Config: acctest.ExportConfig(mock, `
  domain   = "docs.example.com"
  version  = "v3"
  paths    = ["index", "guides/getting-started"]
  triggers = { docs_commit = "d4e5f6" }`),
				ConfigPlanChecks: replaced,
				Check:            acctest.ExpectCount("exports started", 3, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
			{
				Config: acctest.ExportConfig(mock, `
  domain   = "docs.example.com"
  version  = "v3"
  paths    = ["index"]
  triggers = { docs_commit = "d4e5f6" }`),
				ConfigPlanChecks: replaced,
				Check:            acctest.ExpectCount("exports started", 4, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
			{
				Config:           acctest.ExportConfig(mock, `domain = "www.example.com"`),
				ConfigPlanChecks: replaced,
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started for the new domain", 1, func() int { return mock.ExportsStarted("www.example.com") }),
					func(*terraform.State) error {
						if firstJob == secondJob {
							return fmt.Errorf("a trigger change kept job %s", firstJob)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestStaticExport_renewsExpiringLinkWithoutReExport(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 2 * time.Hour, Now: clock.Now})
	var jobID, firstExpiry string
	config := acctest.ExportConfig(mock, `
  domain       = "docs.example.com"
  renew_before = "30m"`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
					captureAttr(acctest.ExportAddress, "bundle_expires_at", &firstExpiry),
				),
			},
			{
				// An hour later the link is still outside the window: refresh
				// reads the job but never asks for a link, and nothing is planned.
				PreConfig: func() { clock.Advance(time.Hour) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					return acctest.ExpectCount("bundles generated", 1, func() int { return mock.BundlesGenerated(jobID) })(nil)
				},
			},
			{
				// 1h40m after the link was made, 20 minutes remain: renew in place.
				PreConfig:          func() { clock.Advance(40 * time.Minute) },
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				Check:              resource.TestCheckResourceAttr(acctest.ExportAddress, "ready_for_renewal", "true"),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url")),
						plancheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("ready_for_renewal"), knownvalue.Bool(false)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("ready_for_renewal"), knownvalue.Bool(false)),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					func(s *terraform.State) error {
						attrs := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes
						if attrs["job_id"] != jobID {
							return fmt.Errorf("renewal changed the job from %s to %s", jobID, attrs["job_id"])
						}
						if n := mock.BundlesGenerated(jobID); n != 2 {
							return fmt.Errorf("bundles generated: got %d, want 2", n)
						}
						if attrs["bundle_expires_at"] <= firstExpiry {
							return fmt.Errorf("renewed link expires at %s, not after the first one (%s)", attrs["bundle_expires_at"], firstExpiry)
						}
						return nil
					},
				),
			},
			{
				// Long after expiry, refresh still succeeds and the plan renews.
				PreConfig: func() { clock.Advance(48 * time.Hour) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					return acctest.ExpectCount("bundles generated", 3, func() int { return mock.BundlesGenerated(jobID) })(nil)
				},
			},
		},
	})
}

func TestStaticExport_expiryFromPresignedQueryWhenAPIOmitsIt(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 2 * time.Hour, Now: clock.Now, OmitExpiresAt: true})
	config := acctest.ExportConfig(mock, `domain = "docs.example.com"`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(s *terraform.State) error {
					attrs := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes
					expiry, err := time.Parse(time.RFC3339, attrs["bundle_expires_at"])
					if err != nil {
						return fmt.Errorf("bundle_expires_at %q: %w", attrs["bundle_expires_at"], err)
					}
					if d := expiry.Sub(clock.Now()); d < 110*time.Minute || d > 2*time.Hour {
						return fmt.Errorf("expiry %s is %s away; want about 2h from the link's X-Amz-Date", expiry, d)
					}
					return nil
				},
			},
			{
				PreConfig: func() { clock.Advance(90 * time.Minute) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
				},
			},
		},
	})
}

func TestStaticExport_import(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now})
	var failedJob string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`)},
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
			{
				ResourceName:  acctest.ExportAddress,
				ImportState:   true,
				ImportStateId: "docs.example.com",
				ExpectError:   regexp.MustCompile(`not of the form <domain>/<job_id>`),
			},
			{
				PreConfig:         func() { failedJob = failedExportOutsideTerraform(t, mock, clock) },
				ResourceName:      acctest.ExportAddress,
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return "broken.example.com/" + failedJob, nil },
				ExpectError:       regexp.MustCompile(`(?s)Cannot import a failed static export.*start a new export`),
			},
			{
				ResourceName:  acctest.ExportAddress,
				ImportState:   true,
				ImportStateId: "docs.example.com/se_0000000000000000",
				ExpectError:   regexp.MustCompile(`(?s)se_0000000000000000.*HTTP 404`),
			},
		},
	})
}

func TestStaticExport_importBlockThenEmptyPlan(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	jobID := startExportOutsideTerraform(t, mock, "docs.example.com")
	mock.CompleteExportJob(jobID)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`) + fmt.Sprintf(`
import {
  to = docsadmin_static_export.site
  id = "docs.example.com/%s"
}
`, jobID),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(jobID)),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.NotNull()),
			},
			Check: acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
		}},
	})
}

func TestStaticExport_resumesAfterTimeout(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{ExportDuration: 4 * time.Second})
	withTimeout := func(limit string) string {
		return acctest.ExportConfig(mock, fmt.Sprintf(`
  domain = "docs.example.com"
  timeouts {
    create = %q
  }`, limit))
	}
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      withTimeout("1s"),
				ExpectError: regexp.MustCompile(`(?s)waiting for export job se_[0-9a-f]{16} timed out.*status "(queued|running)".*run\s+terraform\s+apply\s+again`),
			},
			{
				Config: withTimeout("2m"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.NotNull()),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
					func(*terraform.State) error {
						if ids := mock.ExportJobIDs("docs.example.com"); len(ids) != 1 || ids[0] != jobID {
							return fmt.Errorf("state holds job %s; the API has jobs %v", jobID, ids)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestStaticExport_failedJobIsNotResumed(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Fail: true})
	config := acctest.ExportConfig(mock, `domain = "docs.example.com"`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: config, ExpectError: regexp.MustCompile(`failed: ` + regexp.QuoteMeta(mockapi.DefaultFailMessage[:20]))},
			{
				PreConfig: func() { mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{}) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
				Check: acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
		},
	})
}

func TestStaticExport_bundleConflictRightAfterCompletionIsRetried(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.InjectFault(mockapi.EndpointBundle,
		mockapi.Fault{Status: 409, Body: `{"error":"bundle is being prepared"}`},
		mockapi.Fault{Status: 409, Body: `{"error":"bundle is being prepared"}`})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.NotNull()),
			},
			Check: resource.ComposeTestCheckFunc(
				acctest.ExpectCount("bundle requests", 3, func() int { return mock.Requests(mockapi.EndpointBundle) }),
				acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
			),
		}},
	})
}

func TestStaticExport_invalidInputsFailAtPlanTime(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	cases := []struct {
		name, body, want string
	}{
		{"empty domain", `domain = ""`, `domain is empty`},
		{"scheme", `domain = "https://docs.example.com"`, `contains a scheme`},
		{"trailing slash", `domain = "docs.example.com/"`, `ends with a slash`},
		{"path", `domain = "docs.example.com/guides"`, `contains a path`},
		{"port", `domain = "docs.example.com:8443"`, `contains a port`},
		{"spaces", `domain = "docs example.com"`, `contains spaces`},
		{"bad label", `domain = "-docs.example.com"`, `not a valid hostname`},
		{"empty path", `
  domain = "docs.example.com"
  paths  = [""]`, `page path is empty`},
		{"path with host", `
  domain = "docs.example.com"
  paths  = ["https://docs.example.com/index"]`, `contains a scheme and host`},
		{"path with leading slash", `
  domain = "docs.example.com"
  paths  = ["/index"]`, `starts with a slash`},
		{"duplicate paths", `
  domain = "docs.example.com"
  paths  = ["index", "index"]`, `(?i)duplicate`},
		{"empty version", `
  domain  = "docs.example.com"
  version = ""`, `value is empty`},
		{"negative renew_before", `
  domain       = "docs.example.com"
  renew_before = "-1h"`, `is negative`},
		{"renew_before not a duration", `
  domain       = "docs.example.com"
  renew_before = "tomorrow"`, `not a duration`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config:      acctest.ExportConfig(mock, tc.body),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want + `[\s\S]*Accepted|` + tc.want),
				}},
			})
		})
	}
	if n := mock.TotalRequests(); n != 0 {
		t.Fatalf("invalid configurations reached the API %d times; they must fail before any request", n)
	}
}

// failedExportOutsideTerraform starts an export that fails, and moves the
// mock's clock past its end.
func failedExportOutsideTerraform(t *testing.T, mock *mockapi.Server, clock *acctest.ShiftedClock) string {
	t.Helper()
	mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{Fail: true, Duration: time.Millisecond})
	jobID := startExportOutsideTerraform(t, mock, "broken.example.com")
	clock.Advance(time.Second)
	return jobID
}

// startExportOutsideTerraform starts an export the way another system would,
// and returns its job id.
func startExportOutsideTerraform(t *testing.T, mock *mockapi.Server, domain string) string {
	t.Helper()
	return postExportStart(t, mock, "/v1/static-export/jobs", `{"domain":"`+domain+`"}`)
}

// postExportStart sends a start to path, with body unless it is empty, and
// returns the job id of the answer.
func postExportStart(t *testing.T, mock *mockapi.Server, path, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, mock.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+mock.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var job struct {
		JobID string `json:"jobId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil || job.JobID == "" {
		t.Fatalf("starting an export: HTTP %d, %v", resp.StatusCode, err)
	}
	return job.JobID
}

func TestStaticExport_failedJobInStateIsReplaced(t *testing.T) {
	// The mock and the provider share a clock that only the provider's waits
	// move: the import finds the job running however slow the machine, and
	// the apply's polls run through its ten minutes at once.
	clock := clocktest.NewFakeClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now})
	mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{Fail: true, Duration: 10 * time.Minute})
	jobID := startExportOutsideTerraform(t, mock, "broken.example.com")
	config := acctest.ExportConfig(mock, `domain = "broken.example.com"`) + fmt.Sprintf(`
import {
  to = docsadmin_static_export.site
  id = "broken.example.com/%s"
}
`, jobID)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{
				// Imported while running, the job fails during the apply that waits for it.
				Config:      config,
				ExpectError: regexp.MustCompile(`export job ` + jobID + ` failed`),
			},
			{
				PreConfig: func() { mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{}) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
				Check: acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("broken.example.com") }),
			},
		},
	})
}

// TestStaticExport_statusEchoingTheKeyIsRedacted: a status that quotes
// the API key reaches state through the provider's sanitizer, which knows
// the key.
func TestStaticExport_statusEchoingTheKeyIsRedacted(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	keySecret := mock.APIKey[strings.Index(mock.APIKey, "_")+1:]
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`)},
			{
				PreConfig: func() {
					for range 8 {
						mock.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{AfterHandling: true,
							Patch: map[string]any{"status": "paused for key " + mock.APIKey}})
					}
				},
				RefreshState: true,
				// A status that is not "completed" plans to wait for it.
				ExpectNonEmptyPlan: true,
				Check: func(s *terraform.State) error {
					status := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["status"]
					if strings.Contains(status, keySecret) || !strings.Contains(status, "paused for key (API key redacted)") {
						return fmt.Errorf("status in state is %q, want the key redacted", status)
					}
					return nil
				},
			},
		},
	})
}
