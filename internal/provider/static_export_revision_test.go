package provider

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// The project the tests' provider blocks name, for the project-scoped
// revision of static export (part E of the API contract).
const testProject = "proj_docs"

var (
	projectJobID   = regexp.MustCompile(`^[0-9a-f]{24}$`)
	domainStartLog = "POST /v1/static-export/jobs"
	projectStart   = "POST /v1/static-export/" + testProject + "/jobs"
)

// revisionConfig is acctest.ExportConfig with the provider's project_id, and extra
// provider settings.
func revisionConfig(mock *mockapi.Server, providerExtra, body string) string {
	return acctest.BlockConfig(mock, `project_id = "`+testProject+`"`+"\n"+providerExtra, `resource "docsadmin_static_export" "site"`, body)
}

// startLog is the static export starts the mock received, as "METHOD path
// status", in order.
func startLog(mock *mockapi.Server) []string {
	var out []string
	for _, r := range mock.RequestLog() {
		if r.Method == http.MethodPost && strings.HasPrefix(r.Path, "/v1/static-export/") && strings.HasSuffix(r.Path, "/jobs") {
			out = append(out, fmt.Sprintf("%s %s %d", r.Method, r.Path, r.Status))
		}
	}
	return out
}

// expectStarts checks the starts the mock received, and that the project
// revision's carried no body.
func expectStarts(mock *mockapi.Server, want ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		for _, r := range mock.RequestLog() {
			if r.Method == http.MethodPost && r.Path == "/v1/static-export/"+testProject+"/jobs" && r.Body != "" {
				return fmt.Errorf("a project-revision start carried a body: %q", r.Body)
			}
		}
		if got := startLog(mock); !slices.Equal(got, want) {
			return fmt.Errorf("starts:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		return nil
	}
}

// linkRequests counts the requests that asked for a link in the domain
// revision (its bundle call); the project revision has none.
func bundleCalls(mock *mockapi.Server) int { return mock.Requests(mockapi.EndpointBundle) }

func TestStaticExport_projectRevision(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	dir := t.TempDir()
	var jobID, firstRevision string
	withConsumers := func(renew string) string {
		return revisionConfig(mock, "", `
  domain = "docs.example.com"
  `+renew) + jobConsumers(dir)
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: withConsumers(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("job_id"), knownvalue.StringRegexp(projectJobID)),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("progress"), knownvalue.Null()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("page_count"), knownvalue.Null()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.StringRegexp(regexp.MustCompile(`/export\.zip\?.*X-Amz-Signature=`))),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_sha256"), knownvalue.StringRegexp(hexDigest)),
					statecheck.ExpectKnownValue("data.docsadmin_static_export.job", tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
					statecheck.ExpectKnownValue("data.docsadmin_static_export.job", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue("docsadmin_static_site.site", tfjsonpath.New("archive_sha256"), knownvalue.StringRegexp(hexDigest)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeTestCheckFunc(
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
					captureAttr(acctest.ExportAddress, "link_revision", &firstRevision),
					// The domain route was asked first and answered the router's 404
					// (not an API endpoint, so not in the log): it started nothing.
					// One export, in the project revision.
					expectStarts(mock, projectStart+" 202"),
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					acctest.ExpectCount("bundle calls", 0, func() int { return bundleCalls(mock) }),
					resource.TestCheckResourceAttrPair(acctest.FileAddress, "sha256", acctest.ExportAddress, "archive_sha256"),
					fileHasDigest(filepath.Join(dir, "bundle.tar.gz"), acctest.FileAddress),
					func(*terraform.State) error {
						_, err := os.Stat(filepath.Join(dir, "site", "index.html"))
						return err
					},
				),
			},
			{
				// Renewal is a read of the job: no start, no bundle call.
				Config: withConsumers(`renew_triggers = { rotated = "1" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttrPtr(acctest.ExportAddress, "job_id", &jobID),
					resource.TestCheckResourceAttrWith(acctest.ExportAddress, "link_revision", func(v string) error {
						after, _ := strconv.ParseInt(v, 10, 64)
						before, _ := strconv.ParseInt(firstRevision, 10, 64)
						if before == 0 || after <= before {
							return fmt.Errorf("link_revision %s after the renewal, %s before: a new link must raise it", v, firstRevision)
						}
						return nil
					}),
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					acctest.ExpectCount("bundle calls", 0, func() int { return bundleCalls(mock) }),
					expectStarts(mock, projectStart+" 202"),
				),
			},
			{
				// Import by domain and job id, in whichever revision the job is.
				ResourceName:            acctest.ExportAddress,
				ImportState:             true,
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return "docs.example.com/" + jobID, nil },
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"bundle_url", "bundle_size_bytes", "bundle_expires_at", "link_revision", "renew_triggers", "timeouts"},
			},
		},
	})
}

func TestStaticExport_pinnedRevisionSendsNothingElsewhere(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionBoth})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: revisionConfig(mock, `static_export_revision = "project"`, `domain = "docs.example.com"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
				},
				Check: resource.ComposeTestCheckFunc(
					expectStarts(mock, projectStart+" 202"),
					func(*terraform.State) error {
						for _, r := range mock.RequestLog() {
							if strings.HasPrefix(r.Path, "/v1/static-export/jobs") {
								return fmt.Errorf("pinned to the project revision, the provider sent %s %s", r.Method, r.Path)
							}
						}
						return nil
					},
				),
			},
		},
	})
}

func TestStaticExport_revisionSettingRefusedAtPlan(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	for name, step := range map[string]resource.TestStep{
		"project without a project id": {
			Config:      acctest.BlockConfig(mock, `static_export_revision = "project"`, `resource "docsadmin_static_export" "site"`, `domain = "docs.example.com"`),
			ExpectError: regexp.MustCompile(wrapped(`static_export_revision = "project" exports a project, so project_id is needed`)),
		},
		"a value that is no revision": {
			Config:      revisionConfig(mock, `static_export_revision = "v2"`, `domain = "docs.example.com"`),
			ExpectError: regexp.MustCompile(wrapped(`static_export_revision value must be one of: ["auto" "domain" "project"], got: "v2"`)),
		},
	} {
		t.Run(name, func(t *testing.T) {
			step.PlanOnly = true
			resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testFactories(Options{}), Steps: []resource.TestStep{step}})
		})
	}
	if n := len(mock.RequestLog()); n != 0 {
		t.Errorf("%d requests sent; a bad setting must fail before any", n)
	}
}

func TestStaticExport_serverChangesRevisionBetweenApplies(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := t.TempDir()
	// The export and everything that takes its job: a file, a site and the
	// data source, all found again after each switch.
	config := func(body string) string {
		return revisionConfig(mock, "", `domain = "docs.example.com"`+"\n"+body) + jobConsumers(dir)
	}
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: config(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("domain")),
				},
				Check: resource.ComposeTestCheckFunc(captureAttr(acctest.ExportAddress, "job_id", &jobID), expectStarts(mock, domainStartLog+" 202")),
			},
			{
				// The account moves to the project revision: the job is found
				// again there, and nothing changes.
				PreConfig: func() { mock.SetAPIRevision(mockapi.RevisionProject) },
				Config:    config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(resource.TestCheckResourceAttrPtr(acctest.ExportAddress, "job_id", &jobID), expectStarts(mock, domainStartLog+" 202")),
			},
			{
				// A renewal there is a read of the job.
				Config: config(`renew_triggers = { rotated = "1" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(resource.TestCheckResourceAttrPtr(acctest.ExportAddress, "job_id", &jobID), expectStarts(mock, domainStartLog+" 202")),
			},
			{
				// A new export goes to the revision the server now speaks, at once.
				Config: config(`triggers = { commit = "b" }` + "\n" + `renew_triggers = { rotated = "1" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("job_id"), knownvalue.StringRegexp(projectJobID)),
					statecheck.ExpectKnownValue("docsadmin_static_export_file.bundle", tfjsonpath.New("job_id"), knownvalue.StringRegexp(projectJobID)),
					statecheck.ExpectKnownValue("docsadmin_static_site.site", tfjsonpath.New("job_id"), knownvalue.StringRegexp(projectJobID)),
					statecheck.ExpectKnownValue("data.docsadmin_static_export.job", tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            expectStarts(mock, domainStartLog+" 202", projectStart+" 202"),
			},
			{
				// And back: the project job is found through the domain revision.
				PreConfig: func() { mock.SetAPIRevision(mockapi.RevisionDomain) },
				Config:    config(`triggers = { commit = "b" }` + "\n" + `renew_triggers = { rotated = "2" }`),
				Check:     expectStarts(mock, domainStartLog+" 202", projectStart+" 202"),
			},
		},
	})
}

// The move that does not carry old jobs over, there and back: each time
// the job's own revision answers as no route does and the revision served
// now says it does not know the job, so the export leaves state and one
// new export is made, in the revision served; everything that takes its
// job follows, and the plan after is empty.
func TestStaticExport_serverMovesRevisionWithoutItsJobs(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{SeparateRevisions: true})
	dir := t.TempDir()
	config := revisionConfig(mock, "", `domain = "docs.example.com"`) + jobConsumers(dir)
	var first, second string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.ComposeTestCheckFunc(captureAttr(acctest.ExportAddress, "job_id", &first), expectStarts(mock, domainStartLog+" 202")),
			},
			{
				PreConfig: func() { mock.SetAPIRevision(mockapi.RevisionProject) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
					statecheck.ExpectKnownValue("docsadmin_static_site.site", tfjsonpath.New("job_id"), knownvalue.StringRegexp(projectJobID)),
					statecheck.ExpectKnownValue("docsadmin_static_export_file.bundle", tfjsonpath.New("job_id"), knownvalue.StringRegexp(projectJobID)),
					statecheck.ExpectKnownValue("data.docsadmin_static_export.job", tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(captureAttr(acctest.ExportAddress, "job_id", &second),
					expectAccepted(mock, domainStartLog, projectStart)),
			},
			{
				PreConfig: func() { mock.SetAPIRevision(mockapi.RevisionDomain) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("domain")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						if first == second || !projectJobID.MatchString(second) {
							return fmt.Errorf("jobs %q then %q: want a new one, of the project revision", first, second)
						}
						return nil
					},
					expectAccepted(mock, domainStartLog, projectStart, domainStartLog)),
			},
		},
	})
}

// expectAccepted checks the starts the mock accepted, in order: one export
// each, whichever revision a start tried first.
func expectAccepted(mock *mockapi.Server, want ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		var got []string
		for _, start := range startLog(mock) {
			if accepted, ok := strings.CutSuffix(start, " 202"); ok {
				got = append(got, accepted)
			}
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("starts accepted:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		return nil
	}
}

// jobConsumers is everything that takes the export's job: a file and a
// site in dir, and the data source.
func jobConsumers(dir string) string {
	return fmt.Sprintf(`
resource "docsadmin_static_export_file" "bundle" {
  job_id   = docsadmin_static_export.site.job_id
  filename = %q
}

resource "docsadmin_static_site" "site" {
  job_id          = docsadmin_static_export.site.job_id
  directory       = %q
  expected_sha256 = docsadmin_static_export.site.archive_sha256
}

data "docsadmin_static_export" "job" {
  job_id = docsadmin_static_export.site.job_id
}
`, filepath.Join(dir, "bundle.tar.gz"), filepath.Join(dir, "site"))
}

// fileHasDigest checks that the file on disk is the one whose SHA-256 the
// resource at address recorded.
func fileHasDigest(filename, address string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		data, err := os.ReadFile(filename)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if got, want := hex.EncodeToString(sum[:]), s.RootModule().Resources[address].Primary.Attributes["sha256"]; got != want {
			return fmt.Errorf("%s has SHA-256 %s, the state says %s", filename, got, want)
		}
		return nil
	}
}

// startProjectExportOutsideTerraform starts an export in the project
// revision the way another pipeline would, and returns its job id.
func startProjectExportOutsideTerraform(t *testing.T, mock *mockapi.Server) string {
	t.Helper()
	return postExportStart(t, mock, "/v1/static-export/"+testProject+"/jobs", "")
}

func TestStaticExport_conflictWaitsForTheRunningExportThenStarts(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Duration: 4 * time.Second})
	var other string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			PreConfig: func() { other = startProjectExportOutsideTerraform(t, mock) },
			Config:    revisionConfig(mock, `static_export_revision = "project"`, `domain = "docs.example.com"`),
			Check: resource.ComposeTestCheckFunc(
				func(s *terraform.State) error {
					if id := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"]; id == other {
						return fmt.Errorf("the resource took over the other pipeline's export %s instead of starting its own", id)
					}
					starts := startLog(mock)
					if len(starts) < 3 || starts[0] != projectStart+" 202" || starts[1] != projectStart+" 409" || starts[len(starts)-1] != projectStart+" 202" {
						return fmt.Errorf("starts %v: want the other pipeline's, then at least one 409, then one accepted", starts)
					}
					if n := strings.Count(strings.Join(starts, "\n"), " 202"); n != 2 {
						return fmt.Errorf("%d accepted starts, want 2 (the other pipeline's and ours)", n)
					}
					return nil
				},
			),
		}},
	})
}

func TestStaticExport_conflictOutlastingTheTimeoutStartsNothing(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Duration: time.Hour})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			PreConfig: func() { startProjectExportOutsideTerraform(t, mock) },
			Config: revisionConfig(mock, `static_export_revision = "project"`, `
  domain = "docs.example.com"
  timeouts {
    create = "3s"
  }`),
			ExpectError: regexp.MustCompile(wrapped(`last seen: status "another export of the project is running". Nothing was started: the API answered 409, another export of the project was still running, and it allows one at a time.`)),
		}},
	})
	if n := mock.ExportsStarted("docs.example.com"); n != 1 {
		t.Errorf("%d exports started, want only the other pipeline's", n)
	}
}

// On the project revision a repeated start after a gateway's 503 that the
// API acted on would meet the 409 of the export it started, and wait to
// start a second after it: the start is not repeated, and the error says
// the export may have started.
func TestStaticExport_projectStart503AfterTheAPIActedIsNotRepeated(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	mock.InjectFault(mockapi.EndpointStartProjectExport, mockapi.Fault{Status: 503, Body: `{"error":"upstream timed out"}`,
		Header: map[string]string{"Retry-After": "1"}, AfterHandling: true})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: revisionConfig(mock, `static_export_revision = "project"`, `  domain = "docs.example.com"`),
			ExpectError: regexp.MustCompile(wrapped(`HTTP 503 Service Unavailable (Retry-After 1s): upstream timed out. The API may have started the export:`) +
				`(.|\n)*` + wrapped(`the request was not repeated and no second export is started.`)),
		}},
	})
	if n := mock.Requests(mockapi.EndpointStartProjectExport); n != 1 {
		t.Errorf("%d starts sent, want 1", n)
	}
	if n := mock.ExportsStarted("docs.example.com"); n != 1 {
		t.Errorf("%d exports started, want the 1 the API made", n)
	}
}

// The quota's hour counts from the start outside Terraform: on a busy
// machine, seconds of it may have passed when the provider starts.
func TestStaticExport_startQuotaBeyondTheTimeoutFailsAtOnce(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject, ProjectExportStartsPerHour: 1})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			PreConfig: func() { mock.CompleteExportJob(startProjectExportOutsideTerraform(t, mock)) },
			Config: revisionConfig(mock, `static_export_revision = "project"`, `
  domain = "docs.example.com"
  timeouts {
    create = "10m"
  }`),
			ExpectError: regexp.MustCompile(`(?s)asks to start again after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+\(in\s+(?:1h|59m\d+s)\),\s+which\s+is\s+beyond\s+the\s+\d+m\d*s?\s+this\s+operation\s+has\s+left.*HTTP\s+429.*Nothing\s+was\s+started:\s+apply\s+again\s+after`),
		}},
	})
	if got := startLog(mock); !slices.Equal(got, []string{projectStart + " 202", projectStart + " 429"}) {
		t.Errorf("starts %v: the 429 must be neither retried nor waited out", got)
	}
}

func TestStaticExport_zipArchiveRefusedByContent(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Archive: mockapi.ArchiveZip})
	dir := t.TempDir()
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      revisionConfig(mock, "", `domain = "docs.example.com"`),
				ExpectError: regexp.MustCompile(wrapped(`it starts with the bytes of a zip archive`)),
			},
			{
				// Unverified, the file and the site refuse it too, before writing anything.
				Config: revisionConfig(mock, "", `
  domain         = "docs.example.com"
  triggers       = { again = "1" }
  verify_archive = false`) + fmt.Sprintf(`
resource "docsadmin_static_export_file" "bundle" {
  job_id   = docsadmin_static_export.site.job_id
  filename = %q
}
`, filepath.Join(dir, "bundle.tar.gz")),
				ExpectError: regexp.MustCompile(wrapped(`it starts with the bytes of a zip archive`)),
				Check: func(*terraform.State) error {
					entries, err := os.ReadDir(dir)
					if err != nil || len(entries) != 0 {
						return fmt.Errorf("the refused archive left %v (%v)", entries, err)
					}
					return nil
				},
			},
		},
	})
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused archive left files: %v", entries)
	}
}

func TestStaticExport_redeploymentOfTheSameCommitExportsOnce(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{DeploymentDuration: 300 * time.Millisecond})
	config := func(deployed string) string {
		return acctest.ProviderConfig(mock, `project_id = "`+testProject+`"`) + fmt.Sprintf(`
resource "docsadmin_deployment" "docs" {
  triggers = { pushed = %q }
}

resource "docsadmin_static_export" "site" {
  domain   = "docs.example.com"
  triggers = { commit = docsadmin_deployment.docs.commit_sha }
}
`, deployed)
	}
	var firstJob string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: config("push-1"),
				Check:  resource.ComposeTestCheckFunc(captureAttr(acctest.ExportAddress, "job_id", &firstJob), acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })),
			},
			{
				// Deployed again, the same commit: the plan says that the export
				// may run (an update in place, decided during apply); it does not.
				Config: config("push-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("job_id")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("deployments", 2, func() int { return len(mock.DeploymentIDs(testProject)) }),
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					resource.TestCheckResourceAttrPtr(acctest.ExportAddress, "job_id", &firstJob),
				),
			},
			{
				// A new commit published, then deployed: exported again, in place.
				PreConfig: func() {
					mock.PublishCommit(testProject, "main", mockapi.Commit{SHA: strings.Repeat("b", 40), Message: "Edit the guide"})
				},
				Config: config("push-3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("triggers").AtMapKey("commit"), knownvalue.StringExact(strings.Repeat("b", 40))),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_sha256"), knownvalue.StringRegexp(hexDigest)),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("deployments", 3, func() int { return len(mock.DeploymentIDs(testProject)) }),
					acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") }),
					func(s *terraform.State) error {
						if id := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"]; id == firstJob {
							return fmt.Errorf("job id %s kept although a new commit was deployed", id)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestStaticExport_importTakesTheConfiguredTriggers(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	jobID := completedJob(t, mock)
	config := acctest.ExportConfig(mock, `
  domain         = "docs.example.com"
  triggers       = { commit = "abc" }
  renew_triggers = { rotated = "1" }`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       acctest.ExportAddress,
				ImportState:        true,
				ImportStateId:      "docs.example.com/" + jobID,
				ImportStatePersist: true,
			},
			{
				// The imported state has no triggers: the configuration's are
				// taken over in place, without exporting or renewing.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(jobID)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					acctest.ExpectCount("links", 1, func() int { return mock.BundlesGenerated(jobID) }),
				),
			},
			{
				// From then on, a change of triggers exports again, as always.
				Config: acctest.ExportConfig(mock, `
  domain         = "docs.example.com"
  triggers       = { commit = "def" }
  renew_triggers = { rotated = "1" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("job_id")),
					},
				},
				Check: acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
		},
	})
}

func TestStaticExport_emptyTriggersAreUnset(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`)},
			{
				// A module's default of {} is no change of triggers: nothing planned.
				Config: acctest.ExportConfig(mock, `
  domain         = "docs.example.com"
  triggers       = {}
  renew_triggers = {}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
			},
		},
	})
}

func TestStaticExport_projectScopedErrorsSayWhatTheyMean(t *testing.T) {
	t.Parallel()
	const readOnlyKey = "dsa_readonly_5f0c1e2d3b4a69788796a5b4"
	for name, tc := range map[string]struct {
		key, project string
		want         string
	}{
		"401": {key: "dsa_wrong_5f0c1e2d3b4a69788796a5b4", project: testProject,
			want: "In the project-scoped static export API a 401 means one of three things: the API key is missing or invalid"},
		"403": {key: readOnlyKey, project: testProject,
			want: "In the project-scoped static export API a 403 means that the key lacks write permission (a start needs it), or that this machine's IP address is not in the key's allowlist."},
		"404": {project: "proj_gone",
			want: "a 404 also means that project_id names a project that does not exist or is not in the key's organization"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject, ReadOnlyAPIKeys: []string{readOnlyKey}})
			mock.ForgetProject("proj_gone")
			key := cmp.Or(tc.key, mock.APIKey)
			config := fmt.Sprintf(`
provider "docsadmin" {
  base_url               = %q
  api_key                = %q
  project_id             = %q
  static_export_revision = "project"
}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}
`, mock.URL, key, tc.project)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps:                    []resource.TestStep{{Config: config, ExpectError: regexp.MustCompile(wrapped(tc.want))}},
			})
			if n := mock.ExportsStarted("docs.example.com"); n != 0 {
				t.Errorf("%d exports started", n)
			}
		})
	}
}

func TestStaticExport_projectRevisionResumesAfterTimeout(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject, ExportDuration: 4 * time.Second})
	withTimeout := func(limit string) string {
		return revisionConfig(mock, "", fmt.Sprintf(`
  domain = "docs.example.com"
  timeouts {
    create = %q
  }`, limit))
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      withTimeout("1s"),
				ExpectError: regexp.MustCompile(`(?s)waiting for export job [0-9a-f]{24} timed out.*run\s+terraform\s+apply\s+again`),
			},
			{
				// The tainted resource's replacement continues the same job: no
				// second start, which the API would answer 409 anyway.
				Config: withTimeout("2m"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("api_revision"), knownvalue.StringExact("project")),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					expectStarts(mock, projectStart+" 202"),
				),
			},
		},
	})
}

func TestStaticExportBundleEphemeral_projectRevision(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	jobID := startProjectExportOutsideTerraform(t, mock)
	mock.CompleteExportJob(jobID)
	config := acctest.BlockConfig(mock, `project_id = "`+testProject+`"`, `ephemeral "docsadmin_static_export_bundle" "b"`, fmt.Sprintf("  job_id = %q", jobID)) +
		echoWholeBundle + `resource "echo" "first" {}`
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersions,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			ephemeralStep(t, resource.TestStep{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("echo.first", tfjsonpath.New("data").AtMapKey("bundle_url"),
						knownvalue.StringRegexp(regexp.MustCompile(`^`+regexp.QuoteMeta(mock.URL+mockapi.ExportZipPath(jobID))+`\?.*X-Amz-Signature=`))),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("bundle calls", 0, func() int { return bundleCalls(mock) }),
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
				),
			}),
		},
	})
}

func TestStaticSiteManifest_projectRevision(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	jobID := startProjectExportOutsideTerraform(t, mock)
	mock.CompleteExportJob(jobID)
	config := acctest.BlockConfig(mock, `project_id = "`+testProject+`"`, `data "docsadmin_static_site_manifest" "m"`,
		fmt.Sprintf("  job_id = %q\n  cache_directory = %q", jobID, t.TempDir()))
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.docsadmin_static_site_manifest.m", tfjsonpath.New("files").AtMapKey("index.html"), knownvalue.NotNull()),
			},
			Check: acctest.ExpectCount("bundle calls", 0, func() int { return bundleCalls(mock) }),
		}},
	})
}
