package provider

import (
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
