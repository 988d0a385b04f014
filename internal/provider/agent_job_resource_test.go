package provider

import (
	"fmt"
	"regexp"
	"slices"
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

const agentJobResourceAddress = "docsadmin_agent_job.docs"

// agentJobResourceConfig starts a job per release version; extra goes in the
// resource's body. It runs on Terraform and OpenTofu alike: no action block.
func agentJobResourceConfig(mock *mockapi.Server, version, extra string) string {
	return acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_agent_job" "docs"`,
		fmt.Sprintf("  prompt   = %q\n  triggers = { release = %q }\n%s", releasePrompt(version), version, extra))
}

// expectJobInState checks that state names the newest job the mock created.
func expectJobInState(mock *mockapi.Server) func(*terraform.State) error {
	return func(s *terraform.State) error {
		ids := mock.AgentJobsCreated("proj_1")
		if len(ids) == 0 {
			return fmt.Errorf("no agent job was created")
		}
		var id string
		if err := captureAttr(agentJobResourceAddress, "id", &id)(s); err != nil {
			return err
		}
		if id != ids[len(ids)-1] {
			return fmt.Errorf("state holds job %s, the newest job is %s", id, ids[len(ids)-1])
		}
		return nil
	}
}

func TestAgentJobResource_startsOneJobPerTrigger(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: agentJobResourceConfig(mock, "1.0.0", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^aj_[0-9a-f]+$`))),
					statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("pr_link"), knownvalue.Null()),
					statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("project_id"), knownvalue.StringExact("proj_1")),
					statecheck.ExpectSensitiveValue(agentJobResourceAddress, tfjsonpath.New("prompt")),
				},
				Check: resource.ComposeTestCheckFunc(expectJobsCreated(mock, "1.0.0"), expectJobInState(mock)),
			},
			{
				// The same release: nothing to do, no job, no diff.
				Config:           agentJobResourceConfig(mock, "1.0.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            expectJobsCreated(mock, "1.0.0"),
			},
			{
				// Waiting only changes from now on: no job.
				Config:           agentJobResourceConfig(mock, "1.0.0", "  wait = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(agentJobResourceAddress, plancheck.ResourceActionUpdate)}},
				Check:            expectJobsCreated(mock, "1.0.0"),
			},
			{
				Config:           agentJobResourceConfig(mock, "1.1.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(agentJobResourceAddress, plancheck.ResourceActionReplace)}},
				Check:            resource.ComposeTestCheckFunc(expectJobsCreated(mock, "1.0.0", "1.1.0"), expectJobInState(mock)),
			},
		},
	})
}

func TestAgentJobResource_waitsForThePullRequest(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	pr := "https://github.com/example/docs/pull/44"
	mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 500 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: agentJobResourceConfig(mock, "2.0.0", "  wait = true\n  timeouts {\n    create = \"1m\"\n  }"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("pr_link"), knownvalue.StringExact(pr)),
			},
			Check: resource.ComposeTestCheckFunc(expectJobsCreated(mock, "2.0.0"), expectJobInState(mock), func(*terraform.State) error {
				if n := mock.AgentJobReads("proj_1", mock.AgentJobsCreated("proj_1")[0]); n < 1 {
					return fmt.Errorf("the job was read %d times; waiting reads it until it completes", n)
				}
				return nil
			}),
		}},
	})
}

func TestAgentJobResource_failedJobIsReplaced(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 300 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentFailed}})
	config := agentJobResourceConfig(mock, "3.0.0", "  wait = true")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: config,
				ExpectError: regexp.MustCompile(`(?s)Agent job failed.*Agent\s+job\s+aj_[0-9a-f]+\s+in\s+project\s+proj_1\s+failed.*` +
					`failed\s+status\s+is\s+saved\s+in\s+state.*starts\s+a\s+new\s+job`),
			},
			{
				PreConfig: func() {
					mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 300 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted}})
				},
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(agentJobResourceAddress, plancheck.ResourceActionReplace)}},
				Check:            resource.ComposeTestCheckFunc(expectJobsCreated(mock, "3.0.0", "3.0.0"), expectJobInState(mock)),
			},
		},
	})
}

func TestAgentJobResource_timeoutContinuesTheSameJob(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	pr := "https://github.com/example/docs/pull/45"
	mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 4 * time.Second, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: agentJobResourceConfig(mock, "4.0.0", "  wait = true\n  timeouts {\n    create = \"1s\"\n  }"),
				ExpectError: regexp.MustCompile(`(?s)Cannot follow the agent job.*timed\s+out\s+after\s+1s\s+\(limit\s+timeouts.create\s+=\s+1s\).*` +
					`raise\s+timeouts.create`),
			},
			{
				Config: agentJobResourceConfig(mock, "4.0.0", "  wait = true\n  timeouts {\n    create = \"1m\"\n  }"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(agentJobResourceAddress, tfjsonpath.New("pr_link"), knownvalue.StringExact(pr)),
				},
				// One job: the replacement of the tainted resource followed it.
				Check: resource.ComposeTestCheckFunc(expectJobsCreated(mock, "4.0.0"), expectJobInState(mock)),
			},
		},
	})
}

func TestAgentJobResource_badInput(t *testing.T) {
	t.Parallel()
	type testCase struct{ name, body, want string }
	cases := []testCase{
		{"blank prompt", `  prompt = "  "`, `(?s)Invalid prompt.*empty or blank \(2 characters\).*Accepted`},
		{"project id with a slash", "  prompt = \"Fix the links\"\n  project_id = \"proj/1\"", `(?s)Invalid project id.*"proj/1" is not a project id`},
		{"zero timeout", "  prompt = \"Fix the links\"\n  timeouts {\n    create = \"0s\"\n  }", `(?s)Invalid timeout.*timeouts.create`},
	}
	acctest.RunSubtests(t, cases, func(c testCase) string { return c.name }, func(t *testing.T, c testCase) {
		mock := acctest.NewMock(t, mockapi.Config{})
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps: []resource.TestStep{{
				Config:      acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_agent_job" "docs"`, c.body),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(c.want),
			}},
		})
		if n := mock.TotalRequests(); n != 0 {
			t.Errorf("bad input reached the API: %d requests", n)
		}
	})
}

// The resource and the action send the same request: one create call per job
// with the prompt as its only field.
func TestAgentJobResource_sendsThePromptOnly(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: agentJobResourceConfig(mock, "5.0.0", ""),
			Check: func(*terraform.State) error {
				var creates []string
				for _, r := range mock.RequestLog() {
					if r.Endpoint == mockapi.EndpointCreateAgentJob {
						creates = append(creates, r.Method+" "+r.Path+" "+r.Body)
					}
				}
				want := []string{fmt.Sprintf(`POST /v2/agent/proj_1/job {"prompt":%q}`, releasePrompt("5.0.0"))}
				if !slices.Equal(creates, want) {
					return fmt.Errorf("create calls = %q, want %q", creates, want)
				}
				return nil
			},
		}},
	})
}
