package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// Actions need Terraform 1.14; below it these tests are skipped, and CI runs
// them on a newer Terraform as well.
var actionsTerraform = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}

// releasePrompt is the prompt the tests send for a release version.
func releasePrompt(version string) string {
	return "Update the documentation for release " + version + ": describe every change in the changelog and fix the examples."
}

// agentJobActionConfig invokes the action after terraform_data "release" is
// created or its input (a release version) changes. body goes in the
// action's config block.
func agentJobActionConfig(mock *mockapi.Server, providerExtra, version, body string) string {
	return acctest.ProviderConfig(mock, providerExtra) + fmt.Sprintf(`
action "docsadmin_agent_job" "docs" {
  config {
%s
  }
}

resource "terraform_data" "release" {
  input = %q
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.docsadmin_agent_job.docs]
    }
  }
}
`, body, version)
}

func promptLine(version string) string {
	return fmt.Sprintf("    prompt     = %q\n", releasePrompt(version))
}

// expectJobsCreated checks the jobs the mock created in proj_1 and the
// prompt each received, in order.
func expectJobsCreated(mock *mockapi.Server, versions ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		ids := mock.AgentJobsCreated("proj_1")
		if len(ids) != len(versions) {
			return fmt.Errorf("%d agent jobs created, want %d (one per release version)", len(ids), len(versions))
		}
		for i, id := range ids {
			if got, want := mock.AgentJobPrompts("proj_1", id), []string{releasePrompt(versions[i])}; !slices.Equal(got, want) {
				return fmt.Errorf("job %s received %q, want %q", id, got, want)
			}
		}
		return nil
	}
}

func TestAgentJobAction_createsOneJobPerRelease(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   actionsTerraform,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: agentJobActionConfig(mock, `project_id = "proj_1"`, "1.0.0", promptLine("1.0.0")),
				Check:  expectJobsCreated(mock, "1.0.0"),
			},
			{
				// The same release again: nothing to do.
				Config: agentJobActionConfig(mock, `project_id = "proj_1"`, "1.0.0", promptLine("1.0.0")),
				Check:  expectJobsCreated(mock, "1.0.0"),
			},
			{
				Config: agentJobActionConfig(mock, `project_id = "proj_1"`, "1.1.0", promptLine("1.1.0")),
				Check:  expectJobsCreated(mock, "1.0.0", "1.1.0"),
			},
		},
	})
}

func TestAgentJobAction_messagesAnExistingJob(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "aj_existing", Status: mockapi.AgentCompleted})
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   actionsTerraform,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: agentJobActionConfig(mock, "", "1.0.0", promptLine("1.0.0")+`
    job_id     = "aj_existing"
    project_id = "proj_1"`),
			Check: func(*terraform.State) error {
				if ids := mock.AgentJobsCreated("proj_1"); len(ids) != 0 {
					return fmt.Errorf("jobs created %q; job_id should send a message instead", ids)
				}
				if got := mock.AgentJobPrompts("proj_1", "aj_existing"); !slices.Equal(got, []string{releasePrompt("1.0.0")}) {
					return fmt.Errorf("aj_existing received %q", got)
				}
				return nil
			},
		}},
	})
}

func TestAgentJobAction_waitsForTheJob(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	pr := "https://github.com/example/docs/pull/12"
	mock.SetAgentJobScript("proj_1",
		mockapi.AgentStep{After: 500 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   actionsTerraform,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: agentJobActionConfig(mock, `project_id = "proj_1"`, "1.0.0", promptLine("1.0.0")+`
    wait = true
    timeout               = "1m"`),
			Check: func(s *terraform.State) error {
				if err := expectJobsCreated(mock, "1.0.0")(s); err != nil {
					return err
				}
				id := mock.AgentJobsCreated("proj_1")[0]
				if n := mock.AgentJobReads("proj_1", id); n < 1 {
					return fmt.Errorf("job %s was read %d times; waiting reads it until it completes", id, n)
				}
				return nil
			},
		}},
	})
}

func TestAgentJobAction_errors(t *testing.T) {
	// Each row's bound on how long its apply takes leaves room for the
	// -parallel tests beside it.
	t.Parallel()
	type testCase struct {
		name    string
		prepare func(*mockapi.Server)
		body    string
		want    string
		after   func(*mockapi.Server) error // checks the API's side once the apply failed
	}
	fill := func(mock *mockapi.Server) {
		for i := range mockapi.AgentCreationsPerHour {
			req, _ := http.NewRequest(http.MethodPost, mock.URL+"/v2/agent/proj_1/job", strings.NewReader(fmt.Sprintf(`{"prompt":"job %d"}`, i)))
			req.Header.Set("Authorization", "Bearer "+mock.APIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusCreated {
				panic(fmt.Sprintf("filling the hourly limit: %v %v", resp, err))
			}
			_ = resp.Body.Close()
		}
	}
	cases := []testCase{
		{
			name: "failed job",
			prepare: func(mock *mockapi.Server) {
				mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 300 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentFailed}})
			},
			body: `    wait = true`,
			want: `(?s)Agent job failed.*Agent\s+job\s+aj_[0-9a-f]+\s+in\s+project\s+proj_1\s+failed`,
		},
		{
			name: "wait times out",
			body: "    wait = true\n    timeout = \"2s\"",
			want: `(?s)Cannot follow the agent job.*waiting\s+for\s+agent\s+job\s+aj_[0-9a-f]+\s+in\s+project\s+proj_1\s+timed\s+out\s+after\s+2s\s+\(limit\s+timeout\s+=\s+2s\).*status\s+"active".*keeps\s+running`,
		},
		{
			name:    "hourly limit used up",
			prepare: fill,
			after: func(mock *mockapi.Server) error {
				// One refused attempt: the client does not wait out a long Retry-After.
				if n := mock.Requests(mockapi.EndpointCreateAgentJob); n != mockapi.AgentCreationsPerHour+1 {
					return fmt.Errorf("%d creation requests, want %d: the refused creation was retried", n, mockapi.AgentCreationsPerHour+1)
				}
				return nil
			},
			want: `(?s)Cannot start the agent job.*HTTP 429.*at\s+most\s+100\s+agent\s+job\s+creations\s+per\s+project\s+per\s+hour.*Try\s+again\s+after\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+\(in\s+(59m\d*s?|1h)\)`,
		},
		{
			name: "429 without Retry-After",
			prepare: func(mock *mockapi.Server) {
				mock.InjectFault(mockapi.EndpointCreateAgentJob, slices.Repeat([]mockapi.Fault{{Status: http.StatusTooManyRequests}}, 10)...)
			},
			want: `(?s)HTTP 429.*Try\s+again\s+within\s+the\s+hour`,
		},
		{
			name: "unknown job",
			body: `    job_id = "aj_missing"`,
			want: `(?s)Cannot send the prompt to the agent job.*no\s+agent\s+job\s+aj_missing\s+in\s+project\s+proj_1.*job_id`,
		},
	}
	acctest.RunSubtests(t, cases, func(c testCase) string { return c.name }, func(t *testing.T, c testCase) {
		mock := acctest.NewMock(t, mockapi.Config{})
		if c.prepare != nil {
			c.prepare(mock)
		}
		start := time.Now()
		resource.UnitTest(t, resource.TestCase{
			TerraformVersionChecks:   actionsTerraform,
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps: []resource.TestStep{{
				Config:      agentJobActionConfig(mock, `project_id = "proj_1"`, "1.0.0", promptLine("1.0.0")+c.body),
				ExpectError: regexp.MustCompile(c.want),
			}},
		})
		// A rate limit of an hour must fail at once, not wait for it; the
		// bound leaves room for a loaded machine.
		if took := time.Since(start); took > 90*time.Second {
			t.Errorf("the failing apply took %s", took.Round(time.Second))
		}
		if c.after != nil {
			if err := c.after(mock); err != nil {
				t.Error(err)
			}
		}
	})
}

func TestAgentJobAction_badInputAtPlanTime(t *testing.T) {
	t.Parallel()
	type testCase struct {
		name, body, want string
	}
	cases := []testCase{
		{"blank prompt", `    prompt = "   "`, `(?s)Invalid prompt.*empty or blank \(3 characters\).*Accepted`},
		{"job id with a slash", promptLine("1.0.0") + `    job_id = "aj_1/message"`,
			`(?s)Invalid job id.*"aj_1/message" is not a job id.*Accepted:\s+a\s+job\s+id`},
		{"blank project id", promptLine("1.0.0") + `    project_id = " "`, `(?s)Invalid project id.*project id is empty or blank.*Accepted`},
		{"project id with spaces", promptLine("1.0.0") + `    project_id = "proj 1"`, `(?s)Invalid project id.*"proj 1" contains spaces`},
		{"zero timeout", promptLine("1.0.0") + "    wait = true\n    timeout = \"0s\"", `(?s)Invalid duration.*"0s" is below the minimum of 1s`},
		{"unparsable timeout", promptLine("1.0.0") + "    wait = true\n    timeout = \"soon\"", `(?s)Invalid duration.*"soon" is not a duration`},
		{"no project", promptLine("1.0.0"), `(?s)Missing project ID.*Set project_id in this block`},
	}
	acctest.RunSubtests(t, cases, func(c testCase) string { return c.name }, func(t *testing.T, c testCase) {
		mock := acctest.NewMock(t, mockapi.Config{})
		providerExtra := `project_id = "proj_1"`
		if c.name == "no project" {
			providerExtra = ""
		}
		resource.UnitTest(t, resource.TestCase{
			TerraformVersionChecks:   actionsTerraform,
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps: []resource.TestStep{{
				Config:      agentJobActionConfig(mock, providerExtra, "1.0.0", c.body),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(c.want),
			}},
		})
		if n := mock.TotalRequests(); n != 0 {
			t.Errorf("bad input reached the API: %d requests", n)
		}
	})
}
