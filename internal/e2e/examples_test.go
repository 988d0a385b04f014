package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// blockType finds the provider prefix of every resource, data source and
// ephemeral resource an example uses.
var blockType = regexp.MustCompile(`(?m)^\s*(?:resource|data|ephemeral|action)\s+"([a-z0-9]+)_`)

// actionBlock finds an action block, which Terraform reads from 1.14 on.
var actionBlock = regexp.MustCompile(`(?m)^\s*action\s+"`)

// actionTriggerSince116 finds what action_trigger blocks accept from
// Terraform 1.16 on: on_failure, and the destroy events.
var actionTriggerSince116 = regexp.MustCompile(`action_trigger\s*\{[^}]*(\bon_failure\s*=|\bbefore_destroy\b|\bafter_destroy\b)`)

// TestAccExamplesValidate runs `terraform validate` on every example that needs
// only this provider, against a build of it through dev_overrides (the
// acceptance CLI, through internal/tfrunner), so that
// the documentation never shows configuration that does not work. An
// example that needs a newer Terraform than the acceptance CLI (identity
// imports 1.12, actions 1.14, action triggers' on_failure and destroy events
// 1.16) is validated with the pinned Terraform of tools/terraform.sh, which
// make tools builds; with testtools.Env set (make test, CI) a missing one
// fails the test, and without it the example is only logged as not validated.
func TestAccExamplesValidate(t *testing.T) {
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dirs := exampleDirs(t, filepath.Join(root, "examples"))
	if len(dirs) == 0 {
		t.Fatal("no examples found")
	}
	runners := acctest.NewEngines(t, acctest.CLIRunner(t))

	validated := 0
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		if others := otherProviders(t, dir); len(others) > 0 {
			t.Logf("%s: not validated offline, it also needs %v", rel, others)
			continue
		}
		for _, variant := range importVariants(t, dir) {
			name := filepath.Join(rel, variant)
			needs := exampleNeeds(t, dir, variant)
			runner := runners.AtLeast(needs)
			if runner == nil {
				msg := name + ": not validated: " + runners.Unavailable(needs)
				if testtools.Required() {
					t.Error(msg)
				} else {
					t.Log(msg)
				}
				continue
			}
			validateExample(t, runner, dir, name, variant)
		}
		validated++
	}
	if validated == 0 {
		t.Fatal("no example was validated")
	}
}

// exampleNeeds is the oldest Terraform 1.x minor version that reads the
// files of dir with the import example variant ("" for none).
func exampleNeeds(t *testing.T, dir, variant string) int {
	t.Helper()
	needs := 0
	if variant == identityImportExample {
		needs = 12
	}
	for name, content := range terraformFiles(t, dir) {
		if isImportExample(name) && name != variant {
			continue
		}
		if actionBlock.MatchString(content) {
			needs = max(needs, 14)
		}
		if actionTriggerSince116.MatchString(content) {
			needs = max(needs, 16)
		}
	}
	return needs
}

// validateExample validates the files of dir, leaving out every import
// example but importVariant (all of them when it is empty).
func validateExample(t *testing.T, runner *tfrunner.Runner, dir, name, importVariant string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		work := t.TempDir()
		copyTerraformFiles(t, dir, work, func(file string) bool { return isImportExample(file) && file != importVariant })
		if !declaresDocsadminSource(work) {
			// Examples that show one block rely on the provider page's
			// required_providers; give them the same source.
			acctest.WriteFile(t, filepath.Join(work, "zz_providers.tf"), `terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}
`)
		}
		tf, err := runner.Workdir(work, nil)
		if err != nil {
			t.Fatal(err)
		}
		result, err := tf.Validate(t.Context())
		if err != nil {
			t.Fatalf("terraform validate failed: %v", err)
		}
		if !result.Valid {
			t.Fatalf("terraform validate: the example is not valid:\n%s", diagnostics(result.Diagnostics))
		}
	})
}

// identityImportExample is an import block that names a resource by
// identity, which Terraform accepts from 1.12 on. It avoids tfplugindocs'
// import-by-identity.tf: docs are generated with a Terraform that may not
// report identity schemas, and tfplugindocs refuses that file then.
const identityImportExample = "import-by-identity-block.tf"

// isImportExample tells the files that show one way to import a resource.
// They are alternatives, each validated with the rest of its directory: two
// import blocks for one resource would not be valid together.
func isImportExample(name string) bool { return strings.HasPrefix(name, "import-by-") }

// importVariants lists the import examples of dir, or "" when it has none.
func importVariants(t *testing.T, dir string) []string {
	t.Helper()
	var variants []string
	for name := range terraformFiles(t, dir) {
		if isImportExample(name) {
			variants = append(variants, name)
		}
	}
	if len(variants) == 0 {
		return []string{""}
	}
	sort.Strings(variants)
	return variants
}

// acceptsIdentityImports tells whether the runner's Terraform accepts import
// blocks by identity.
func acceptsIdentityImports(t *testing.T, runner *tfrunner.Runner) bool {
	t.Helper()
	tf, err := runner.Workdir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := tf.Version(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	return !v.LessThan(tfversion.Version1_12_0)
}

// diagnostics prints what terraform validate -json found, one line each.
func diagnostics(diags []tfjson.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		where := ""
		if d.Range != nil {
			where = fmt.Sprintf("%s:%d: ", d.Range.Filename, d.Range.Start.Line)
		}
		fmt.Fprintf(&b, "%s%s: %s: %s\n", where, d.Severity, d.Summary, d.Detail)
	}
	return b.String()
}

func exampleDirs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".tf") {
			seen[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(seen))
	for dir := range seen {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	return dirs
}

func otherProviders(t *testing.T, dir string) []string {
	t.Helper()
	others := map[string]bool{}
	for _, content := range terraformFiles(t, dir) {
		for _, m := range blockType.FindAllStringSubmatch(content, -1) {
			if m[1] != "docsadmin" && m[1] != "terraform" {
				others[m[1]] = true
			}
		}
	}
	var names []string
	for name := range others {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func terraformFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		contents[filepath.Base(f)] = string(data)
	}
	return contents
}

func copyTerraformFiles(t *testing.T, from, to string, skip func(name string) bool) {
	t.Helper()
	for name, content := range terraformFiles(t, from) {
		if skip(name) {
			continue
		}
		acctest.WriteFile(t, filepath.Join(to, name), content)
	}
}

// sourceDeclared finds the provider's source set outside a comment.
var sourceDeclared = regexp.MustCompile(`(?m)^[^#\n]*\bsource\s*=\s*"docsadmin/docsadmin"`)

func declaresDocsadminSource(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if sourceDeclared.Match(data) {
			return true
		}
	}
	return false
}

// copyingHeader is how an example that shows its blocks alone says what a
// module that copies it needs.
const copyingHeader = `# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }
`

// TestExamplesSayHowToRunAsCopied reads the examples the documentation
// pages embed: one that does not declare the provider's source (a page's
// example shows its blocks alone, and two such blocks in one module would
// be an error) starts by saying how to, so that a copied example does not
// fail at init looking for hashicorp/docsadmin.
func TestExamplesSayHowToRunAsCopied(t *testing.T) {
	t.Parallel()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, pattern := range []string{"resources/*/resource.tf", "data-sources/*/data-source.tf", "ephemeral-resources/*/ephemeral-resource.tf",
		"actions/*/action.tf", "actions/*/*/action.tf", "functions/*/function.tf"} {
		found, _ := filepath.Glob(filepath.Join(root, "examples", pattern))
		pages = append(pages, found...)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d page examples, want every resource's, data source's, action's and function's", len(pages))
	}
	for _, path := range pages {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		if !sourceDeclared.Match(data) && !strings.HasPrefix(string(data), copyingHeader) {
			t.Errorf("%s neither declares the provider's source nor starts by saying how to:\n%s", rel, copyingHeader)
		}
	}
}
