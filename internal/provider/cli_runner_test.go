package provider

import (
	"fmt"
	"os"
	"path/filepath"
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

// cachedActionsTerraform is where the project's tooling keeps a Terraform
// build recent enough for actions (1.14+), used when the acceptance CLI is
// older.
func cachedActionsTerraform() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	path := filepath.Join(home, ".cache", "terraform-provider-docsadmin", "terraform-v1.15.9", "terraform")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// supportsActions reports whether runner's Terraform can read action blocks
// (1.14 or later), and its version.
func supportsActions(t *testing.T, runner *tfrunner.Runner) (string, bool) {
	t.Helper()
	v, err := runner.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("%s reports version %q: %v", runner.Path(), v, err)
	}
	return v, major > 1 || major == 1 && minor >= 14
}
