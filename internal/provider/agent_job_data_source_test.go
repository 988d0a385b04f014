package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const agentJobAddress = "data.docsadmin_agent_job.job"

func agentJobConfig(mock *mockapi.Server, providerExtra, body string) string {
	return acctest.BlockConfig(mock, providerExtra, `data "docsadmin_agent_job" "job"`, body)
}

func TestAgentJob_eachStatus(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	archived := time.Date(2026, 11, 21, 17, 0, 0, 0, time.UTC)
	repo := "https://github.com/example/docs"
	cases := []struct {
		name   string
		job    mockapi.AgentJob
		checks []statecheck.StateCheck
	}{
		{
			name: "active",
			job:  mockapi.AgentJob{Status: "active", Repository: &repo, Ref: new("agent/fix-typos"), Model: new("gpt-large"), CreatedAt: &created},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("pr_link"), knownvalue.Null()),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("source").AtMapKey("repository"), knownvalue.StringExact(repo)),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("source").AtMapKey("ref"), knownvalue.StringExact("agent/fix-typos")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("model"), knownvalue.StringExact("gpt-large")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("created_at"), knownvalue.StringExact("2026-11-20T09:30:00Z")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("archived_at"), knownvalue.Null()),
			},
		},
		{
			name: "completed with a pull request",
			job:  mockapi.AgentJob{Status: "completed", Repository: &repo, PRLink: new(repo + "/pull/7"), CreatedAt: &created},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("pr_link"), knownvalue.StringExact(repo+"/pull/7")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("source").AtMapKey("ref"), knownvalue.Null()),
			},
		},
		{
			name: "completed without changes",
			job:  mockapi.AgentJob{Status: "completed", Repository: &repo},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("pr_link"), knownvalue.Null()),
			},
		},
		{
			name: "failed is reported, not an error",
			job:  mockapi.AgentJob{Status: "failed", Repository: &repo},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("failed")),
			},
		},
		{
			name: "archived",
			job:  mockapi.AgentJob{Status: "archived", Repository: &repo, ArchivedAt: &archived},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("archived")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("archived_at"), knownvalue.StringExact("2026-11-21T17:00:00Z")),
			},
		},
		{
			name: "links state may not keep are null, escapes quoted, format characters dropped",
			job: mockapi.AgentJob{Status: "completed", Repository: new("https://deploy:s3cr3t@github.com/example/docs"),
				PRLink: new("javascript:alert(document.cookie)"), Model: new("gpt-large\x1b[2K\rfake"), Ref: new("main\u202e")},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("pr_link"), knownvalue.Null()),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("source").AtMapKey("repository"), knownvalue.Null()),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("model"), knownvalue.StringExact(`gpt-large\x1b[2K\rfake`)),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("source").AtMapKey("ref"), knownvalue.StringExact("main")),
			},
		},
		{
			name: "minimal answer with only id and status",
			job:  mockapi.AgentJob{Status: "active", OmitFields: true},
			checks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("source"), knownvalue.Null()),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("model"), knownvalue.Null()),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("created_at"), knownvalue.Null()),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			tc.job.ID = "job_42"
			mock.SeedAgentJob("proj_1", tc.job)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config:            agentJobConfig(mock, "", `job_id = "job_42"`+"\n"+`project_id = "proj_1"`),
					ConfigStateChecks: tc.checks,
				}},
			})
		})
	}
}

func TestAgentJob_projectFromProviderOrAttribute(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SeedAgentJob("proj_default", mockapi.AgentJob{ID: "job_1", Status: "active"})
	mock.SeedAgentJob("proj_other", mockapi.AgentJob{ID: "job_1", Status: "completed"})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: agentJobConfig(mock, `project_id = "proj_default"`, `job_id = "job_1"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("project_id"), knownvalue.StringExact("proj_default")),
					statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
				},
			},
			{
				Config: agentJobConfig(mock, `project_id = "proj_default"`, `job_id = "job_1"`+"\n"+`project_id = "proj_other"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("project_id"), knownvalue.StringExact("proj_other")),
					statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
			},
			{
				Config:      agentJobConfig(mock, "", `job_id = "job_1"`),
				ExpectError: regexp.MustCompile(`(?s)Missing project ID.*project_id`),
			},
		},
	})
}

func TestAgentJob_projectFromEnvironment(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SeedAgentJob("proj_env", mockapi.AgentJob{ID: "job_1", Status: "archived"})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Getenv: environment(map[string]string{envProjectID: "proj_env"})}),
		Steps: []resource.TestStep{{
			Config: agentJobConfig(mock, "", `job_id = "job_1"`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("project_id"), knownvalue.StringExact("proj_env")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("archived")),
			},
		}},
	})
}

func TestAgentJob_authErrorsSayWhich(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "job_1", Status: "active"})
	config := agentJobConfig(mock, "", `job_id = "job_1"`+"\n"+`project_id = "proj_1"`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { mock.SetAPIKey("dsa_rotated_key") },
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)HTTP 401.*missing,\s+wrong\s+or\s+expired`),
			},
			{
				PreConfig: func() {
					mock.SetAPIKey(mock.APIKey)
					mock.InjectFault(mockapi.EndpointGetAgentJob, mockapi.Fault{Status: 403, Body: `{"error":"caller IP not in allowlist"}`})
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)HTTP 403.*caller IP not in allowlist.*scope.*allowlist`),
			},
		},
	})
}

func TestAgentJob_waitsForFinalStatus(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	repo := "https://github.com/example/docs"
	// The first two reads see the job active, whatever the time they take
	// (a scheduled completion would race a slow machine); then it is done.
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "job_1", Status: "completed", Repository: &repo, PRLink: new(repo + "/pull/9")})
	active := mockapi.Fault{Status: 200, Body: `{"id":"job_1","status":"active","source":{"repository":"` + repo + `"}}`}
	mock.InjectFault(mockapi.EndpointGetAgentJob, active, active)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: agentJobConfig(mock, "", `
  job_id                = "job_1"
  project_id            = "proj_1"
  wait = true
  timeouts {
    read = "1m"
  }`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("pr_link"), knownvalue.StringExact(repo+"/pull/9")),
			},
			Check: func(*terraform.State) error {
				if n := mock.PendingFaults(mockapi.EndpointGetAgentJob); n != 0 {
					return fmt.Errorf("%d of the job's active answers were never read: the wait did not poll", n)
				}
				if n := mock.Requests(mockapi.EndpointGetAgentJob); n < 3 {
					return fmt.Errorf("the job was read %d times; waiting through two active answers needs at least three", n)
				}
				return nil
			},
		}},
	})
}

// TestAgentJob_errors runs configurations that must fail, each against a
// fresh mock that holds job_1 in status (no job when status is empty).
func TestAgentJob_errors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, status, body, want string
		planOnly                 bool // an invalid configuration: the API must not be called
	}{
		{
			name: "not found names project and job",
			body: `job_id = "job_missing"` + "\n" + `project_id = "proj_1"`,
			want: `(?s)no agent job job_missing in project proj_1.*HTTP 404`,
		},
		{
			name:   "wait times out",
			status: "active",
			body: `
  job_id                = "job_1"
  project_id            = "proj_1"
  wait = true
  timeouts {
    read = "2s"
  }`,
			want: `(?s)waiting\s+for\s+agent\s+job\s+job_1\s+in\s+project\s+proj_1\s+timed\s+out\s+after\s+2s.*limit\s+timeouts\.read\s+=\s+2s.*status\s+"active".*did\s+not\s+reach\s+a\s+final\s+status`,
		},
		{
			name:   "postcondition fails on a failed job",
			status: "failed",
			body: `
  job_id     = "job_1"
  project_id = "proj_1"
  lifecycle {
    postcondition {
      condition     = self.status != "failed"
      error_message = "Agent job ${self.job_id} failed."
    }
  }`,
			want: `Agent job job_1 failed\.`,
		},
		{
			name: "invalid timeout",
			body: `
  job_id                = "job_1"
  project_id            = "proj_1"
  wait = true
  timeouts {
    read = "0s"
  }`,
			want:     `(?s)timeouts\.read.*below the minimum of 1s`,
			planOnly: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			if tc.status != "" {
				mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "job_1", Status: tc.status})
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config:      agentJobConfig(mock, "", tc.body),
					PlanOnly:    tc.planOnly,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
			if n := mock.TotalRequests(); tc.planOnly && n != 0 {
				t.Fatalf("an invalid configuration reached the API %d times", n)
			}
		})
	}
}
