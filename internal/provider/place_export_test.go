package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccPlace_exportKeptWhereItWasMade runs the real CLI on the
// project-scoped revision: an export made in project proj-docs stays in
// state, and the mock holds one export, through a plan and a refresh-only
// apply with project_id mistyped (it is read where it was made), the apply
// after the fix, a base_url that points at a second API that knows no job
// (it is not read there, and the plan says where it lives), and a state
// written before the place was recorded (an upgrade: the first refresh
// records it, and nothing is exported).
func TestAccPlace_exportKeptWhereItWasMade(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	const domain, project, typo = "docs.example.com", "proj-docs", "proj-dosc"
	mock := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	mock.SetProjectDomain(project, domain)
	mock.SetProjectDomain(typo, domain)
	staging := acctest.NewMock(t, mockapi.Config{APIRevision: mockapi.RevisionProject})
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "module")
	module := func(api *mockapi.Server, projectID string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {
  base_url   = %q
  api_key    = %q
  project_id = %q
}

resource "docsadmin_static_export" "site" {
  domain = %q
}
`, api.URL, api.APIKey, projectID, domain))}
	}
	tf, err := runner.Module(dir, module(mock, project), nil)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	tf.SetStdout(&stdout)
	tf.SetStderr(&stderr)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("the first apply: %v\n%s", err, stderr.String())
	}
	jobID := func(when string) string {
		t.Helper()
		state, err := tf.Show(ctx)
		if err != nil {
			t.Fatalf("%s: terraform show: %v", when, err)
		}
		if state.Values != nil {
			for _, r := range state.Values.RootModule.Resources {
				if r.Address == acctest.ExportAddress {
					id, _ := r.AttributeValues["job_id"].(string)
					return id
				}
			}
		}
		t.Fatalf("%s: the export is not in state", when)
		return ""
	}
	first := jobID("after the first apply")
	keptAndOne := func(when string) {
		t.Helper()
		if id := jobID(when); id != first {
			t.Errorf("%s: state holds job %q, want %q", when, id, first)
		}
		if n := mock.ExportsStarted(domain); n != 1 {
			t.Errorf("%s: %d exports started, want 1", when, n)
		}
	}
	// planSays plans, expects no change, and returns what the plan said.
	planSays := func(when string) string {
		t.Helper()
		stdout.Reset()
		changes, err := tf.Plan(ctx)
		if err != nil {
			t.Fatalf("%s: plan: %v\n%s", when, err, stderr.String())
		}
		if changes {
			t.Errorf("%s: the plan has changes:\n%s", when, stdout.String())
		}
		return oneLine(stdout.String())
	}
	refreshOnly := func(when string) string {
		t.Helper()
		stdout.Reset()
		if err := tf.Apply(ctx, tfexec.RefreshOnly(true)); err != nil {
			t.Fatalf("%s: refresh-only apply: %v\n%s", when, err, stderr.String())
		}
		return oneLine(stdout.String())
	}
	wantSaid := func(when, said string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(said, w) {
				t.Errorf("%s: the output does not say %q:\n%s", when, w, said)
			}
		}
	}

	t.Run("project_id mistyped, then fixed", func(t *testing.T) {
		if _, err := runner.Module(dir, module(mock, typo), nil); err != nil {
			t.Fatal(err)
		}
		where := []string{"was made at project " + project + " at " + mock.URL, "now points at project " + typo + " at " + mock.URL,
			"It is read there", "fix it", "-replace"}
		wantSaid("the plan", planSays("the plan"), where...)
		wantSaid("the refresh-only apply", refreshOnly("the refresh-only apply"), where...)
		keptAndOne("after the refresh-only apply")
		if _, err := runner.Module(dir, module(mock, project), nil); err != nil {
			t.Fatal(err)
		}
		if err := tf.Apply(ctx); err != nil {
			t.Fatalf("the apply after the fix: %v\n%s", err, stderr.String())
		}
		keptAndOne("after the fix")
	})

	t.Run("base_url at another API", func(t *testing.T) {
		if _, err := runner.Module(dir, module(staging, project), nil); err != nil {
			t.Fatal(err)
		}
		where := []string{"was made at project " + project + " at " + mock.URL, "now points at project " + project + " at " + staging.URL,
			"not read", "fix it", "-replace"}
		wantSaid("the plan", planSays("the plan"), where...)
		wantSaid("the refresh-only apply", refreshOnly("the refresh-only apply"), where...)
		keptAndOne("after the refresh-only apply")
		if n := staging.TotalRequests(); n != 0 {
			t.Errorf("the other API received %d requests, want none: the export was not made there", n)
		}
		if _, err := runner.Module(dir, module(mock, project), nil); err != nil {
			t.Fatal(err)
		}
		planSays("back at the API that made it")
	})

	t.Run("state whose private data was lost", func(t *testing.T) {
		statePath := filepath.Join(dir, "terraform.tfstate")
		if dropped := editPrivate(t, statePath, false); !dropped {
			t.Fatal("the export's state records nothing privately: the place was not recorded at create")
		}
		planSays("the plan after the upgrade")
		refreshOnly("the refresh after the upgrade")
		keptAndOne("after the upgrade")
		if recorded := editPrivate(t, statePath, true); !recorded {
			t.Error("the refresh did not record where the export was made")
		}
		if _, err := runner.Module(dir, module(mock, typo), nil); err != nil {
			t.Fatal(err)
		}
		planSays("a mistyped project_id after the upgrade")
		keptAndOne("after a mistyped project_id after the upgrade")
	})
}

// editPrivate reads the export's private state in the state file at path:
// with keep it reports whether it records a place; without, it drops it
// (as a state written before the place was recorded) and reports whether
// there was one.
func editPrivate(t *testing.T, path string, keep bool) bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	found := false
	resources, _ := state["resources"].([]any)
	for _, r := range resources {
		res, _ := r.(map[string]any)
		if res["type"] != "docsadmin_static_export" {
			continue
		}
		instances, _ := res["instances"].([]any)
		for _, i := range instances {
			inst, _ := i.(map[string]any)
			private, _ := inst["private"].(string)
			if private == "" {
				continue
			}
			decoded, err := base64.StdEncoding.DecodeString(private)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(decoded), privatePlace) {
				found = true
			}
			if !keep {
				delete(inst, "private")
			}
		}
	}
	if !keep {
		out, err := json.MarshalIndent(state, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return found
}
