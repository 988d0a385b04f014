package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// terraform-plugin-testing cannot run `terraform apply -invoke`, so this test
// runs the real CLI through internal/tfrunner: the action reports its
// progress to the user, and neither its output (the prompt comes from a
// sensitive variable) nor TF_LOG=DEBUG logs hold the prompt whole.
func TestAccAgentJobAction_invokeFromTheCLI(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunnerAtLeast(t, 14) // actions and -invoke
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	mock := acctest.NewMock(t, mockapi.Config{})
	pr := "https://github.com/example/docs/pull/31"
	mock.SetAgentJobScript("proj_1",
		mockapi.AgentStep{After: 700 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr}})
	prompt := releasePrompt("2.4.0")

	dir := t.TempDir()
	acctest.WriteFile(t, filepath.Join(dir, "main.tf"), cliRequiredProviders+`
provider "docsadmin" {}

variable "prompt" {
  type      = string
  sensitive = true # keeps it out of the plan output too
}

action "docsadmin_agent_job" "docs" {
  config {
    prompt                = var.prompt
    wait = true
    timeout               = "1m"
  }
}
`)
	logPath := filepath.Join(dir, "terraform.log")
	cmd, err := runner.Command(ctx, dir, map[string]string{
		"DOCSADMIN_BASE_URL":   mock.URL,
		"DOCSADMIN_API_KEY":    mock.APIKey,
		"DOCSADMIN_PROJECT_ID": "proj_1",
		"TF_VAR_prompt":        prompt,
		"TF_LOG":               "DEBUG",
		"TF_LOG_PATH":          logPath,
	}, "apply", "-invoke=action.docsadmin_agent_job.docs", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("terraform apply -invoke failed: %v\n%s", err, out)
	}

	ids := mock.AgentJobsCreated("proj_1")
	if len(ids) != 1 {
		t.Fatalf("the API created %d agent jobs, want 1; terraform said:\n%s", len(ids), out)
	}
	id := ids[0]
	if got := mock.AgentJobPrompts("proj_1", id); len(got) != 1 || got[0] != prompt {
		t.Errorf("job %s received %q, want the configured prompt", id, got)
	}
	said := string(out)
	for _, want := range []string{
		"created agent job " + id + " (status active)",
		"agent job " + id + " is now completed",
		"agent job " + id + " opened pull request " + pr,
	} {
		if !strings.Contains(said, want) {
			t.Errorf("terraform's output does not report %q; it said:\n%s", want, said)
		}
	}

	if strings.Contains(said, prompt) {
		t.Errorf("terraform's output shows the prompt, which comes from a sensitive variable")
	}

	logs, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) == 0 || !strings.Contains(string(logs), "prompt_length") {
		t.Fatalf("the DEBUG log (%d bytes) has no record of the action: TF_LOG did not reach the provider", len(logs))
	}
	if strings.Contains(string(logs), prompt) {
		t.Errorf("the DEBUG log holds the whole prompt")
	}
	t.Logf("terraform said:\n%s", said)
}
