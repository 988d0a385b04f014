package provider

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccPlace_deploymentUnderMovedProject runs the real CLI, whose plans
// show warnings: a deployment made under the provider's project_id, when
// that setting names another project, plans no change and warns, naming
// both projects; a change of triggers then deploys the project it was made
// for, as the warning and the page say; project_id set in the resource to
// that project silences the warning, and -replace deploys the new one.
func TestAccPlace_deploymentUnderMovedProject(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	const before, after = "proj-docs", "proj-docs-2026"
	mock := newDeployMock(t, mockapi.Config{})
	mock.PublishCommit(before, "main", commitV1)
	mock.PublishCommit(after, "main", commitV2)
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "module")
	module := func(providerProject, commit, body string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {
  base_url   = %q
  api_key    = %q
  project_id = %q
}

resource "docsadmin_deployment" "docs" {
  triggers = { docs_commit = %q }
%s
}
`, mock.URL, mock.APIKey, providerProject, commit, body))}
	}
	var stdout, stderr bytes.Buffer
	step := func(when string, files map[string][]byte, apply bool, replace ...string) (said string, changes bool) {
		t.Helper()
		tf, err := runner.Module(dir, files, nil)
		if err != nil {
			t.Fatal(err)
		}
		stdout.Reset()
		stderr.Reset()
		tf.SetStdout(&stdout)
		tf.SetStderr(&stderr)
		if apply {
			args := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
			for _, address := range replace {
				args = append(args, "-replace="+address)
			}
			cmd, err := runner.Command(ctx, dir, nil, args...)
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: apply: %v\n%s", when, err, out)
			}
			return oneLine(string(out)), true
		}
		changes, err = tf.Plan(ctx)
		if err != nil {
			t.Fatalf("%s: plan: %v\n%s", when, err, stderr.String())
		}
		return oneLine(stdout.String()), changes
	}
	deployed := func(when string, wantBefore, wantAfter int) {
		t.Helper()
		if n, m := len(mock.DeploymentIDs(before)), len(mock.DeploymentIDs(after)); n != wantBefore || m != wantAfter {
			t.Fatalf("%s: %d deployments of %s and %d of %s, want %d and %d", when, n, before, m, after, wantBefore, wantAfter)
		}
	}
	warning := []string{"Warning: Object made elsewhere than the provider now points",
		"was made at project " + before + " at " + mock.URL, "now points at project " + after + " at " + mock.URL,
		"a change of triggers starts the next one in project " + before + " again",
		`set project_id = "` + before + `" in this resource`, "-replace"}

	step("the first apply", module(before, "v1", ""), true)
	deployed("after the first apply", 1, 0)

	said, changes := step("the plan after the move", module(after, "v1", ""), false)
	if changes {
		t.Errorf("the plan after the move has changes:\n%s", said)
	}
	for _, w := range warning {
		if !strings.Contains(said, w) {
			t.Errorf("the plan after the move does not say %q:\n%s", w, said)
		}
	}

	said, _ = step("a change of triggers after the move", module(after, "v2", ""), true)
	deployed("after a change of triggers", 2, 0)
	if !strings.Contains(said, warning[2]) {
		t.Errorf("the apply that deployed %s again does not warn of the move:\n%s", before, said)
	}

	said, changes = step("project_id set in the resource", module(after, "v2", `  project_id = "`+before+`"`), false)
	if changes || strings.Contains(said, "made elsewhere") {
		t.Errorf("with project_id set to the deployment's own project, the plan has changes (%v) or warns:\n%s", changes, said)
	}

	step("a replacement", module(after, "v2", ""), true, "docsadmin_deployment.docs")
	deployed("after -replace", 2, 1)
	said, changes = step("the plan after the replacement", module(after, "v2", ""), false)
	if changes || strings.Contains(said, "made elsewhere") {
		t.Errorf("after the replacement the plan has changes (%v) or warns:\n%s", changes, said)
	}
}
