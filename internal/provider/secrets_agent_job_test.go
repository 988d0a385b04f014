//go:build unix

package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestSecrets_promptAndBuildLogsNeverShown runs the agent job resource
// and a deployment whose build log quotes the API key, with the most verbose
// logging of Terraform and the provider, and checks that neither the full
// prompt nor the key appears in the logs, in Terraform's output or in the
// failed deployment's error.
func TestSecrets_promptAndBuildLogsNeverShown(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "terraform.log")
	outputPath := filepath.Join(dir, "terraform-output.txt")
	t.Setenv("TF_ACC_TERRAFORM_PATH", writeRecordingTerraform(t, dir, acctest.CLI(t), outputPath))
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH", logPath)
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_LOG_PATH_MASK", "")

	mock := newDeployMock(t, mockapi.Config{})
	pr := "https://github.com/example/docs/pull/77"
	mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 300 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
	mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{Fail: true,
		FailLogs: []string{"curl -H 'Authorization: Bearer " + mock.APIKey + "' failed", "Build failed"}})
	const prompt = "Rewrite the onboarding guide for the confidential Falcon launch on 2026-12-01, codename Nightjar."
	config := acctest.ProviderConfig(mock, `project_id = "proj_1"`) + `
resource "docsadmin_agent_job" "docs" {
  prompt                = "` + prompt + `"
  wait = true
}

resource "docsadmin_deployment" "docs" {
  triggers = { docs_commit = "v1" }
}
`
	failure := &stepFailure{step: 1}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		ErrorCheck:               failure.capture,
		Steps: []resource.TestStep{
			{PreConfig: failure.enter(1), Config: config},
			{
				PreConfig: func() {
					failure.enter(2)()
					mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{})
				},
				Config: config,
			},
			{PreConfig: failure.enter(3), Config: config, PlanOnly: true},
		},
	})

	logs, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("reading the log file: %v", err)
	}
	output, err := os.ReadFile(outputPath)
	if err != nil {
		t.Fatalf("reading the recorded Terraform output: %v", err)
	}
	providerAndCLILogs, _ := withoutHarnessRecords(string(logs))
	for _, line := range []string{"sending a prompt to an agent job", "prompt_length", "queued a deployment", "opened pull request"} {
		if !strings.Contains(providerAndCLILogs, line) {
			t.Errorf("the log file (%d bytes) has no line with %q: the provider's logs did not reach it", len(logs), line)
		}
	}
	failure.expect(t, []string{"Deployment failed", "Bearer (API key redacted)"}, nil)
	secrets := map[string]string{"the prompt": prompt, "the prompt's second half": prompt[len(prompt)/2:], "the API key": mock.APIKey}
	places := map[string]string{"the TRACE log file": providerAndCLILogs, "Terraform's output": string(output), "the failing step's error": failure.text}
	for place, text := range places {
		for what, secret := range secrets {
			if n := strings.Count(text, secret); n > 0 {
				t.Errorf("%s appears %d times in %s, for example: %s", what, n, place, secretInContext(text, secret))
			}
		}
	}
	if got := mock.AgentJobPrompts("proj_1", mock.AgentJobsCreated("proj_1")[0]); len(got) != 1 || got[0] != prompt {
		t.Errorf("the API received %q, want the prompt once", got)
	}
}
