package provider

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccDeploymentResource_replaceDeploysAgain runs the real CLI, as a user
// does: `apply -replace` of a deployment whose create saw it succeed queues
// a new deployment (the replacement follows the old one only after a create
// that did not see it end), and an apply without changes queues none.
// terraform-plugin-testing has no -replace, hence tfrunner.
func TestAccDeploymentResource_replaceDeploysAgain(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := newDeployMock(t, mockapi.Config{DeploymentDuration: 300 * time.Millisecond})
	dir := filepath.Join(t.TempDir(), "module")
	tf, err := runner.Module(dir, map[string][]byte{"main.tf": []byte(cliRequiredProviders + `
provider "docsadmin" {}

resource "docsadmin_deployment" "docs" {
  triggers = { docs_commit = "v1" }
}
`)}, map[string]string{
		"DOCSADMIN_BASE_URL":   mock.URL,
		"DOCSADMIN_API_KEY":    mock.APIKey,
		"DOCSADMIN_PROJECT_ID": deployProject,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	expect := func(when string, n int) {
		t.Helper()
		if ids := mock.DeploymentIDs(deployProject); len(ids) != n {
			t.Fatalf("%s: %d deployments queued, want %d", when, len(ids), n)
		}
	}
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply: %v", err)
	}
	expect("after the first apply", 1)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply without changes: %v", err)
	}
	expect("after an apply without changes", 1)
	if err := tf.Apply(ctx, tfexec.Replace("docsadmin_deployment.docs")); err != nil {
		t.Fatalf("apply -replace: %v", err)
	}
	expect("after apply -replace", 2)
}
