package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The action documentation's on_failure example, applied as it is written
// (Terraform 1.16+): the release's resource triggers the action, the agent
// job fails, and the apply still succeeds with a warning that names the job,
// leaving the resource in state.
func TestAccAgentJobAction_triggerOnFailureContinue(t *testing.T) {
	runner := acctest.CLIRunnerAtLeast(t, 16) // on_failure in action_trigger
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SetAgentJobScript("proj_1", mockapi.AgentStep{After: 500 * time.Millisecond, Job: mockapi.AgentJob{Status: mockapi.AgentFailed}})

	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(root, "examples", "actions", "docsadmin_agent_job", "on-failure", "action.tf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	acctest.WriteFile(t, filepath.Join(dir, "action.tf"), string(example))
	acctest.WriteFile(t, filepath.Join(dir, "providers.tf"), `terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}

provider "docsadmin" {}
`)
	cmd, err := runner.Command(ctx, dir, map[string]string{
		"DOCSADMIN_BASE_URL":     mock.URL,
		"DOCSADMIN_API_KEY":      mock.APIKey,
		"DOCSADMIN_PROJECT_ID":   "proj_1",
		"TF_VAR_release_version": "2.4.0",
	}, "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	said := acctest.FlattenWhitespace(string(out))
	if err != nil {
		t.Fatalf("the apply failed although the trigger says on_failure = continue: %v\n%s", err, out)
	}
	ids := mock.AgentJobsCreated("proj_1")
	if len(ids) != 1 {
		t.Fatalf("the API created %d agent jobs, want 1; terraform said:\n%s", len(ids), out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`Warning: Agent job failed`),
		regexp.MustCompile(`Agent job ` + ids[0] + ` in project proj_1 failed`),
		regexp.MustCompile(`Apply complete! Resources: 1 added`),
	} {
		if !want.MatchString(said) {
			t.Errorf("terraform's output does not match %q:\n%s", want, out)
		}
	}
	if strings.Contains(said, "Error:") {
		t.Errorf("terraform reported an error:\n%s", out)
	}

	list, err := runner.Command(ctx, dir, nil, "state", "list")
	if err != nil {
		t.Fatal(err)
	}
	state, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("terraform state list: %v\n%s", err, state)
	}
	if strings.TrimSpace(string(state)) != "terraform_data.release" {
		t.Errorf("state holds %q, want terraform_data.release", state)
	}
}
