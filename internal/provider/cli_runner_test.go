package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// cliRunner builds the provider into a new directory and returns a runner of
// the acceptance CLI that installs that build, for the tests that need the
// real terraform binary rather than the in-process provider.
func cliRunner(t *testing.T) *tfrunner.Runner {
	t.Helper()
	runner, err := tfrunner.New(acceptanceCLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	inst, err := runner.BuildProvider(t.Context(), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built the provider in %s", time.Since(start).Round(time.Millisecond))
	if err := runner.Install(inst); err != nil {
		t.Fatal(err)
	}
	return runner
}

// pinnedTerraform is the build of Terraform that the project's tooling
// pins (tools/terraform.sh's default version) where the script caches it,
// and "" when it is not built yet: the engine for what an older acceptance
// CLI cannot read, such as actions. make tools builds it.
func pinnedTerraform(t *testing.T) string {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "tools", "terraform.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := pinnedVersion.FindSubmatch(script)
	if m == nil {
		t.Fatalf("tools/terraform.sh sets no default version (want a line such as %s)", `version="${TERRAFORM_VERSION:-v1.16.4}"`)
	}
	cache, err := tfrunner.ToolsCache()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cache, "terraform-"+string(m[1]), "terraform")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

var pinnedVersion = regexp.MustCompile(`(?m)^version="\$\{TERRAFORM_VERSION:-(v[0-9]+\.[0-9]+\.[0-9]+)\}"`)

// terraformMinor is the minor version of runner's Terraform 1.x (or
// OpenTofu's), and the whole version.
func terraformMinor(t *testing.T, runner *tfrunner.Runner) (int, string) {
	t.Helper()
	v, err := runner.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("%s reports version %q: %v", runner.Path(), v, err)
	}
	if major != 1 {
		t.Fatalf("%s reports version %q; the tests know Terraform 1.x", runner.Path(), v)
	}
	return minor, v
}

// supportsActions reports whether runner's Terraform can read action blocks
// (1.14 or later), and its version.
func supportsActions(t *testing.T, runner *tfrunner.Runner) (string, bool) {
	t.Helper()
	minor, v := terraformMinor(t, runner)
	return v, minor >= 14
}
