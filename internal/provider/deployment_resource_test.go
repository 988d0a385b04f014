package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
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
	deploymentAddress = "docsadmin_deployment.docs"
	deployProject     = "proj_1"
)

var (
	commitV1 = mockapi.Commit{SHA: "1111111111111111111111111111111111111111", Message: "Document release 1.0",
		Added: []string{"releases/1.0.mdx"}, Modified: []string{"docs.json"}, Removed: []string{"drafts/old.mdx"}}
	commitV2 = mockapi.Commit{SHA: "2222222222222222222222222222222222222222", Message: "Document release 2.0",
		Modified: []string{"docs.json", "releases/2.0.mdx"}}
)

// newDeployMock is a mock whose deployments are short, queued for a moment
// first, so that a wait sees every status.
func newDeployMock(t *testing.T, cfg mockapi.Config) *mockapi.Server {
	t.Helper()
	if cfg.DeploymentDuration == 0 {
		cfg.DeploymentDuration = 400 * time.Millisecond
	}
	if cfg.DeploymentQueueDuration == 0 {
		cfg.DeploymentQueueDuration = 150 * time.Millisecond
	}
	return acctest.NewMock(t, cfg)
}

// deploymentConfig deploys proj_1 whenever the docs commit changes; extra
// goes in the resource's body.
func deploymentConfig(mock *mockapi.Server, docsCommit, extra string) string {
	return acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_deployment" "docs"`,
		fmt.Sprintf("  triggers = { docs_commit = %q }\n%s", docsCommit, extra))
}

func stringsExact(values ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(values))
	for i, v := range values {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.ListExact(checks)
}

// expectDeployed checks what state records of a successful deployment of c.
func expectDeployed(address string, c mockapi.Commit, ref string) []statecheck.StateCheck {
	at := func(name string) tfjsonpath.Path { return tfjsonpath.New(name) }
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(address, at("status"), knownvalue.StringExact("success")),
		statecheck.ExpectKnownValue(address, at("commit_sha"), knownvalue.StringExact(c.SHA)),
		statecheck.ExpectKnownValue(address, at("commit_ref"), knownvalue.StringExact(ref)),
		statecheck.ExpectKnownValue(address, at("commit_message"), knownvalue.StringExact(c.Message)),
		statecheck.ExpectKnownValue(address, at("files_added"), stringsExact(c.Added...)),
		statecheck.ExpectKnownValue(address, at("files_modified"), stringsExact(c.Modified...)),
		statecheck.ExpectKnownValue(address, at("files_removed"), stringsExact(c.Removed...)),
		statecheck.ExpectKnownValue(address, at("summary"), knownvalue.StringExact("Deployed "+c.SHA[:7])),
		statecheck.ExpectKnownValue(address, at("created_at"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
		statecheck.ExpectKnownValue(address, at("ended_at"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
		statecheck.ExpectKnownValue(address, at("status_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{24}$`))),
		statecheck.CompareValuePairs(address, at("id"), address, at("status_id"), compare.ValuesSame()),
	}
}

// expectDeploymentRequests checks that the API received exactly part D's
// calls: one POST /v1/project/update/proj_1 without a body per deployment,
// the status reads of those deployments, and nothing else but what other
// lists.
func expectDeploymentRequests(mock *mockapi.Server, deployments int, other ...mockapi.Endpoint) func(*terraform.State) error {
	return func(*terraform.State) error {
		ids := mock.DeploymentIDs(deployProject)
		if len(ids) != deployments {
			return fmt.Errorf("%d deployments queued, want %d", len(ids), deployments)
		}
		posts := 0
		for _, r := range mock.RequestLog() {
			switch {
			case r.Endpoint == mockapi.EndpointDeploy:
				posts++
				if r.Method != http.MethodPost || r.Path != "/v1/project/update/"+deployProject || r.Body != "" || r.Status != http.StatusAccepted {
					return fmt.Errorf("update call %s %s with body %q answered %d; want POST /v1/project/update/%s, no body, 202", r.Method, r.Path, r.Body, r.Status, deployProject)
				}
			case r.Endpoint == mockapi.EndpointDeploymentStatus:
				id := strings.TrimPrefix(r.Path, "/v1/project/update-status/")
				if r.Method != http.MethodGet || r.Body != "" || !slices.Contains(ids, id) {
					return fmt.Errorf("status call %s %s with body %q; want GET of one of %v", r.Method, r.Path, r.Body, ids)
				}
			case !slices.Contains(other, r.Endpoint):
				return fmt.Errorf("unexpected request %s %s", r.Method, r.Path)
			}
		}
		if posts != deployments {
			return fmt.Errorf("%d update calls, want %d (one per deployment, none repeated)", posts, deployments)
		}
		return nil
	}
}

func TestDeploymentResource_deploysAndDeploysAgainOnTriggers(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{})
	mock.PublishCommit(deployProject, "main", commitV1)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:            deploymentConfig(mock, "v1", ""),
				ConfigStateChecks: expectDeployed(deploymentAddress, commitV1, "main"),
				Check:             expectDeploymentRequests(mock, 1),
			},
			{
				// Nothing changed: no deployment, no diff.
				Config:           deploymentConfig(mock, "v1", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            expectDeploymentRequests(mock, 1),
			},
			{
				// Only the timeouts change: state only.
				Config:           deploymentConfig(mock, "v1", "  timeouts {\n    update = \"5m\"\n  }"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectKnownValue(deploymentAddress, tfjsonpath.New("commit_sha"), knownvalue.StringExact(commitV1.SHA))}},
				Check:            expectDeploymentRequests(mock, 1),
			},
			{
				PreConfig: func() { mock.PublishCommit(deployProject, "main", commitV2) },
				Config:    deploymentConfig(mock, "v2", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(deploymentAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(deploymentAddress, tfjsonpath.New("commit_sha")),
					plancheck.ExpectUnknownValue(deploymentAddress, tfjsonpath.New("id")),
				}},
				ConfigStateChecks: expectDeployed(deploymentAddress, commitV2, "main"),
				Check:             expectDeploymentRequests(mock, 2),
			},
		},
	})
}

func TestDeploymentResource_failureIsSavedAndDeployedAgain(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{})
	mock.PublishCommit(deployProject, "main", commitV1)
	var logs []string
	for i := 1; i <= 30; i++ {
		logs = append(logs, fmt.Sprintf("build step %02d", i))
	}
	logs = append(logs,
		"fetching https://assets.example.com/logo.png?X-Amz-Signature=0123456789abcdef0123456789abcdef&X-Amz-Expires=60",
		"calling the API with Bearer "+mock.APIKey,
		"Error: guides/intro.mdx:12:3: unexpected closing tag </Card>",
		strings.Repeat("x", 2000))
	failing := mockapi.DeploymentBehavior{Fail: true, FailSummary: "Build failed: 1 error in guides/intro.mdx", FailLogs: logs}
	failure := &stepFailure{step: 2}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		ErrorCheck:               failure.capture,
		Steps: []resource.TestStep{
			{PreConfig: failure.enter(1), Config: deploymentConfig(mock, "v1", "")},
			{
				PreConfig: func() {
					failure.enter(2)()
					mock.SetDeploymentBehavior(deployProject, failing)
					mock.PublishCommit(deployProject, "main", commitV2)
				},
				Config: deploymentConfig(mock, "v2", ""),
			},
			{
				// The failure is in state: the same configuration deploys again.
				PreConfig: func() {
					failure.enter(3)()
					mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{})
				},
				Config: deploymentConfig(mock, "v2", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(deploymentAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(deploymentAddress, tfjsonpath.New("status")),
				}},
				ConfigStateChecks: expectDeployed(deploymentAddress, commitV2, "main"),
				Check:             expectDeploymentRequests(mock, 3),
			},
		},
	})
	ids := mock.DeploymentIDs(deployProject)
	if len(ids) != 3 {
		t.Fatalf("deployments = %v", ids)
	}
	failure.expect(t, []string{
		"Deployment failed", "deployment " + ids[1] + " of project proj_1 failed building commit " + commitV2.SHA,
		"Build failed: 1 error in guides/intro.mdx", "Last 20 log lines of 37",
		"build step 15", "build step 30", "Error: guides/intro.mdx:12:3: unexpected closing tag </Card>",
		"X-Amz-Signature=REDACTED", "(API key redacted)", "xxxxx … (",
		"failed status is saved in state", "next terraform apply deploys again",
	}, []string{"build step 14", mock.APIKey, "0123456789abcdef0123456789abcdef", strings.Repeat("x", 600)})
}

func TestDeploymentResource_failedCreateIsReplaced(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{})
	mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{Fail: true})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      deploymentConfig(mock, "v1", ""),
				ExpectError: regexp.MustCompile(`(?s)Deployment failed.*` + wrapped(mockapi.DefaultDeploymentFailSummary) + `.*` + wrapped("Last 5 log lines of 5")),
			},
			{
				PreConfig: func() { mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{}) },
				Config:    deploymentConfig(mock, "v1", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(deploymentAddress, plancheck.ResourceActionReplace),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(deploymentAddress, tfjsonpath.New("status"), knownvalue.StringExact("success"))},
				Check:             expectDeploymentRequests(mock, 2),
			},
		},
	})
}

func TestDeploymentResource_timeoutContinuesTheSameDeployment(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{DeploymentDuration: 4 * time.Second})
	mock.PublishCommit(deployProject, "main", commitV1)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: deploymentConfig(mock, "v1", "  timeouts {\n    create = \"1s\"\n  }"),
				ExpectError: regexp.MustCompile(`(?s)Deployment did not end.*waiting\s+for\s+deployment\s+[0-9a-f]{24}\s+of\s+project\s+proj_1\s+timed\s+out.*` +
					`limit\s+timeouts.create\s+=\s+1s.*saved\s+in\s+state.*no\s+second\s+deployment`),
			},
			{
				// The tainted resource is replaced by one that follows the same deployment.
				Config:            deploymentConfig(mock, "v1", "  timeouts {\n    create = \"1m\"\n  }"),
				ConfigStateChecks: expectDeployed(deploymentAddress, commitV1, "main"),
				Check:             expectDeploymentRequests(mock, 1),
			},
		},
	})
}

// TestDeploymentResource_exportOfTheDeployedCommit is the chain the
// resource exists for: publish, deploy, then export what was deployed. The
// export must start only after the deployment succeeded, and a new
// deployment must export again.
func TestDeploymentResource_exportOfTheDeployedCommit(t *testing.T) {
	mock := newDeployMock(t, mockapi.Config{})
	mock.PublishCommit(deployProject, "main", commitV1)
	config := func(docsCommit string) string {
		return deploymentConfig(mock, docsCommit, "") + `
resource "docsadmin_static_export" "site" {
  domain   = "docs.example.com"
  triggers = { commit = docsadmin_deployment.docs.commit_sha }
}
`
	}
	exportAfterDeployment := func(*terraform.State) error {
		ids := mock.DeploymentIDs(deployProject)
		jobs := mock.ExportJobIDs("docs.example.com")
		if len(ids) == 0 || len(jobs) != len(ids) {
			return fmt.Errorf("%d deployments and %d exports; want one export per deployment", len(ids), len(jobs))
		}
		dep, _ := mock.Deployment(ids[len(ids)-1])
		job, _ := mock.ExportJob(jobs[len(jobs)-1])
		if dep.Status != mockapi.DeploymentSuccess || dep.EndedAt == nil || job.CreatedAt.Before(*dep.EndedAt) {
			return fmt.Errorf("export %s started at %s, deployment %s is %s and ended at %v: the export did not wait for the deployment",
				job.ID, job.CreatedAt, dep.ID, dep.Status, dep.EndedAt)
		}
		// In the order the API saw them: the status read that saw success, then the export.
		sawSuccess := false
		for _, r := range mock.RequestLog() {
			switch {
			case r.Endpoint == mockapi.EndpointDeploymentStatus && strings.HasSuffix(r.Path, "/"+dep.ID) && !r.At.Before(*dep.EndedAt):
				sawSuccess = true
			case r.Endpoint == mockapi.EndpointStartExport && r.At.After(dep.CreatedAt) && !sawSuccess:
				return fmt.Errorf("the export was requested at %s before any status read saw deployment %s succeed", r.At, dep.ID)
			}
		}
		if !sawSuccess {
			return fmt.Errorf("no status read of deployment %s saw it succeed", dep.ID)
		}
		return nil
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: config("v1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("triggers"), knownvalue.MapExact(map[string]knownvalue.Check{"commit": knownvalue.StringExact(commitV1.SHA)})),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
				Check: exportAfterDeployment,
			},
			{
				PreConfig: func() { mock.PublishCommit(deployProject, "main", commitV2) },
				Config:    config("v2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(deploymentAddress, plancheck.ResourceActionUpdate),
					// The commit is unknown until the deployment ends: decided during apply.
					plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("triggers"), knownvalue.MapExact(map[string]knownvalue.Check{"commit": knownvalue.StringExact(commitV2.SHA)})),
				},
				Check: exportAfterDeployment,
			},
		},
	})
}

func TestDeploymentResource_errors(t *testing.T) {
	t.Parallel()
	type testCase struct {
		name, providerExtra, want string
		prepare                   func(*mockapi.Server)
		apiKey                    string
	}
	const readOnlyKey = "dsa_monitor_d3pl0yr34d"
	cases := []testCase{
		{name: "no project", want: `(?s)Missing project ID.*Set project_id in this block`},
		{
			name: "read-only key", providerExtra: `project_id = "proj_1"`, apiKey: readOnlyKey,
			want: `(?s)Cannot deploy the project.*POST\s+/v1/project/update/proj_1.*HTTP\s+403.*needs\s+the\s+write\s+scope.*needed\s+scope`,
		},
		{
			name: "update 500 after the server acted", providerExtra: `project_id = "proj_1"`,
			prepare: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointDeploy, mockapi.Fault{Status: 500, AfterHandling: true})
			},
			want: `(?s)Cannot deploy the project.*HTTP\s+500.*may\s+have\s+queued\s+it.*not\s+repeated`,
		},
		{
			name: "a project the API does not know", providerExtra: `project_id = "proj_2"`,
			want: `(?s)Cannot deploy the project.*POST\s+/v1/project/update/proj_2.*HTTP\s+404.*project_id\s+\(or\s+DOCSADMIN_PROJECT_ID\)\s+names\s+a\s+project\s+that\s+does\s+not\s+exist`,
		},
	}
	acctest.RunSubtests(t, cases, func(c testCase) string { return c.name }, func(t *testing.T, c testCase) {
		mock := newDeployMock(t, mockapi.Config{Projects: []string{"proj_1"}})
		if c.prepare != nil {
			c.prepare(mock)
		}
		config := acctest.BlockConfig(mock, c.providerExtra, `resource "docsadmin_deployment" "docs"`, "")
		if c.apiKey != "" {
			mock.AddReadOnlyAPIKey(c.apiKey)
			config = strings.Replace(config, fmt.Sprintf("%q", mock.APIKey), fmt.Sprintf("%q", c.apiKey), 1)
		}
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps:                    []resource.TestStep{{Config: config, ExpectError: regexp.MustCompile(c.want)}},
		})
		if n := mock.Requests(mockapi.EndpointDeploy); n > 1 {
			t.Errorf("the update call was sent %d times", n)
		}
	})
}

func TestDeploymentDataSource_readsAStatus(t *testing.T) {
	t.Parallel()
	clock := &acctest.ShiftedClock{}
	mock := newDeployMock(t, mockapi.Config{Now: clock.Now})
	mock.PublishCommit(deployProject, "main", commitV1)
	req, _ := http.NewRequest(http.MethodPost, mock.URL+"/v1/project/update/"+deployProject, nil)
	req.Header.Set("Authorization", "Bearer "+mock.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var start struct {
		StatusID string `json:"statusId"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&start)
	_ = resp.Body.Close()
	clock.Advance(time.Hour) // past the deployment
	const address = "data.docsadmin_deployment.docs"
	checks := expectDeployed(address, commitV1, "main")
	checks = append(checks[:len(checks)-2],
		statecheck.ExpectKnownValue(address, tfjsonpath.New("status_id"), knownvalue.StringExact(start.StatusID)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("project_id"), knownvalue.StringExact(deployProject)))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:            acctest.BlockConfig(mock, "", `data "docsadmin_deployment" "docs"`, fmt.Sprintf("  status_id = %q", start.StatusID)),
				ConfigStateChecks: checks,
			},
			{
				Config:      acctest.BlockConfig(mock, "", `data "docsadmin_deployment" "docs"`, `  status_id = "0123456789abcdef01234567"`),
				ExpectError: regexp.MustCompile(`(?s)Deployment not found.*no deployment status 0123456789abcdef01234567.*HTTP 404`),
			},
		},
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:      acctest.BlockConfig(mock, "", `data "docsadmin_deployment" "docs"`, `  status_id = "a/b"`),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Invalid deployment status id.*"a/b" is not a deployment status id`),
		}},
	})
}

// wrapped is a pattern for text that Terraform may wrap at any space.
func wrapped(text string) string {
	return strings.Join(strings.Fields(regexp.QuoteMeta(text)), `\s+`)
}
