package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"go.yaml.in/yaml/v3"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The jq programs of the example pipelines, run against real plans of the
// CLI: the guard a scheduled run applies through (`jq -e`, true when the
// plan starts an export) and the line the plan job prints for each export
// (`jq -r`). Both are read from the pipeline files as shipped.

var (
	guardProgram = regexp.MustCompile(`(?s)jq -e '([^']*)'`)
	labelProgram = regexp.MustCompile(`(?s)jq -r '(\.resource_changes[^']*)'`)
)

// pipelinePrograms reads the guard and the label program of a pipeline
// file: GitHub Actions' run steps, or GitLab CI's scripts (after YAML has
// folded them, as the runner receives them).
func pipelinePrograms(t *testing.T, file string) (guard, label string) {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "examples", "pipelines", "ci", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var scripts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case string:
			if strings.Contains(v, "terraform show -json tfplan") {
				scripts = append(scripts, v)
			}
		}
	}
	walk(doc)
	for _, script := range scripts {
		if m := guardProgram.FindStringSubmatch(script); m != nil {
			if guard != "" && guard != m[1] {
				t.Fatalf("%s holds two different guards:\n%s\n%s", file, guard, m[1])
			}
			guard = m[1]
		}
		if m := labelProgram.FindStringSubmatch(script); m != nil {
			label = m[1]
		}
	}
	if guard == "" || label == "" {
		t.Fatalf("%s: found no guard (jq -e) or no label program (jq -r '.resource_changes...') in its scripts", file)
	}
	return guard, label
}

// runJQ runs program over a plan's JSON with jq, as the pipelines do (-e
// for the guard, -r for the labels); exit is jq's status, 0 or 1 (the
// guard's answer), anything else failing the test.
func runJQ(t *testing.T, jq, flag, program string, plan []byte) (out string, exit int) {
	t.Helper()
	cmd := exec.Command(jq, flag, program)
	cmd.Stdin = bytes.NewReader(plan)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 1 && flag == "-e":
		exit = 1
	default:
		t.Fatalf("jq %s: %v\n%s", flag, err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), exit
}

// TestAccPipelineGuard_realPlans plans, through the CLI against the mock,
// what a docs pipeline meets (a first publication, a due renewal, nothing to
// do, a new docs_commit, a change of timeouts, a replacement, an import, a
// removed resource) and
// runs the shipped programs of both pipelines over `terraform show -json`:
// the guard fires exactly on the plans that start an export, a re-export in
// place included, and each line printed names what the plan does.
func TestAccPipelineGuard_realPlans(t *testing.T) {
	t.Parallel()
	jq := testtools.LookPath(t, "jq", "the pipelines' guard runs it: "+testtools.MakeTools)
	runner := acctest.CLIRunner(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	type programs struct{ file, guard, label string }
	var all []programs
	for _, file := range []string{"github-actions.yml", "gitlab-ci.yml"} {
		guard, label := pipelinePrograms(t, file)
		all = append(all, programs{file, guard, label})
	}

	// The first link is issued 13 hours in the mock's past, so that it
	// expires within renew_before = "12h" and the next plan renews it, as a
	// scheduled run finds a link that is due.
	clock := &acctest.ShiftedClock{}
	clock.Advance(-13 * time.Hour)
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now})
	env := map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey}
	const domain = "docs.example.com"
	module := func(resource string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(`
terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}

provider "docsadmin" {}

variable "docs_commit" {
  type = string
}
` + resource)}
	}
	export := func(extra string) string {
		return fmt.Sprintf(`
resource "docsadmin_static_export" "docs" {
  domain       = %q
  triggers     = { docs_commit = var.docs_commit }
  renew_before = "12h"
%s
}
`, domain, extra)
	}

	// check plans the module of dir with docs_commit, runs every pipeline's
	// programs over the plan, and applies it when apply is set.
	check := func(dir string, files map[string][]byte, what, commit string, fires bool, label string, apply bool) {
		t.Helper()
		tf, err := runner.Module(dir, files, env)
		if err != nil {
			t.Fatal(err)
		}
		planFile := filepath.Join(dir, "tfplan")
		var stderr bytes.Buffer
		tf.SetStderr(&stderr)
		if _, err := tf.Plan(ctx, tfexec.Var("docs_commit="+commit), tfexec.Out(planFile)); err != nil {
			t.Fatalf("%s: terraform plan: %v\n%s", what, err, stderr.String())
		}
		show, err := runner.Command(ctx, dir, env, "show", "-json", planFile)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := show.Output()
		if err != nil {
			t.Fatalf("%s: terraform show -json: %v", what, err)
		}
		for _, p := range all {
			if _, exit := runJQ(t, jq, "-e", p.guard, plan); (exit == 0) != fires {
				t.Errorf("%s: the guard of %s says the plan starts an export: %v, want %v", what, p.file, exit == 0, fires)
			}
			want := ""
			if label != "" {
				want = "docsadmin_static_export.docs: " + label
			}
			if got, _ := runJQ(t, jq, "-r", p.label, plan); got != want {
				t.Errorf("%s: the plan job of %s prints %q, want %q", what, p.file, got, want)
			}
		}
		if apply {
			if err := tf.Apply(ctx, tfexec.DirOrPlan(planFile)); err != nil {
				t.Fatalf("%s: terraform apply: %v\n%s", what, err, stderr.String())
			}
		}
	}

	dir := filepath.Join(t.TempDir(), "deploy")
	check(dir, module(export("")), "a first publication", "c1", true, "new export", true)
	clock.Advance(13 * time.Hour)
	check(dir, module(export("")), "a scheduled run with the link due", "c1", false, "link renewal (same export)", true)
	check(dir, module(export("")), "a scheduled run with nothing due", "c1", false, "", false)
	check(dir, module(export("")), "a new docs_commit", "c2", true, "new export", true)
	if n := mock.ExportsStarted(domain); n != 2 {
		t.Fatalf("the mock started %d exports, want 2: the first publication and the new commit", n)
	}
	check(dir, module(export("  timeouts {\n    update = \"90m\"\n  }")), "a change of timeouts alone", "c2", false, "same export, no new link", false)
	check(dir, module(export(`  version = "v2"`)), "a change of version (a replacement)", "c2", true, "new export", false)
	check(dir, module(""), "the resource removed from the configuration", "c2", false, "forgotten (nothing exported)", false)

	ids := mock.ExportJobIDs(domain)
	imported := fmt.Sprintf("\nimport {\n  to = docsadmin_static_export.docs\n  id = %q\n}\n", domain+"/"+ids[len(ids)-1])
	other := filepath.Join(t.TempDir(), "deploy")
	check(other, module(export("")+imported), "an import of the deployed export", "c2", false, "import (same export)", false)
	check(other, module(export(`  version = "v2"`)+imported), "an import whose configuration asks for another version", "c2", true, "new export", false)
	if n := mock.ExportsStarted(domain); n != 2 {
		t.Errorf("the mock started %d exports, want still 2: only two plans were applied with an export", n)
	}
}
