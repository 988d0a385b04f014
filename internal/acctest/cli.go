package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// RequireCLI is the one gate of a test that runs the terraform CLI itself
// (a build of the provider, terraform processes of its own, a release
// built with goreleaser): such a test runs only under TF_ACC, as the
// testing framework's own acceptance tests do, and skips elsewhere saying
// so. CLIRunner calls it; a test that does slow work before it calls it
// first. Such tests, and only they, are named TestAcc.
func RequireCLI(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set: this test runs the terraform CLI itself (make test sets it)")
	}
}

// CLIRunner returns a runner of the acceptance CLI that installs a build of
// the provider, for the tests that need the real terraform binary rather
// than the in-process provider. In a package whose TestMain runs through
// Main, its CLI tests share one build; elsewhere each test builds its own.
// With the build shared, a CLI test may be parallel like any other, since
// its terraform processes weigh what an in-process test's do; the tests that
// build whole releases (upgrade, install) or time how fast terraform exits
// after a signal (interrupt) stay serial, so that no neighbour slows them.
func CLIRunner(t *testing.T) *tfrunner.Runner {
	t.Helper()
	RequireCLI(t)
	runner, err := tfrunner.New(CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inst, err := providerBuild(t, runner)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Install(inst); err != nil {
		t.Fatal(err)
	}
	return runner
}

// sharedBuild is the build of the provider that the CLI tests of a package
// run through Main share: linking the provider takes seconds, and a
// package may hold a dozen such tests.
var sharedBuild struct {
	enabled bool // set by Main before any test runs
	once    sync.Once
	dir     string
	inst    tfrunner.Installation
	err     error
}

// Main runs a package's tests as m.Run does, sharing one build of the
// provider among its CLI tests and removing it once they are done, and
// giving the processes the tests start a GOGC of childGOGC unless one is
// set. A package's TestMain returns through it: os.Exit(acctest.Main(m)).
func Main(m *testing.M) int {
	sharedBuild.enabled = true
	if _, set := os.LookupEnv("GOGC"); !set {
		// The tests start thousands of terraform processes, each living for a
		// fraction of a second, and with Go's default GOGC of 100 a fifth of
		// each one's CPU goes to collecting the garbage of its start-up. This
		// process read its GOGC when it started, so only its children see this.
		if err := os.Setenv("GOGC", childGOGC); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	if sharedBuild.dir != "" {
		if err := os.RemoveAll(sharedBuild.dir); err != nil {
			fmt.Fprintf(os.Stderr, "removing the shared build of the provider: %v\n", err)
		}
	}
	return code
}

// childGOGC is the GOGC of the processes the tests start. Measured on
// terraform show: a fifth less CPU than with 100, the same peak RSS (about
// 58 MB), since such a process ends before its heap grows.
const childGOGC = "400"

// providerBuild builds the provider for runner, or returns the package's
// shared build, building it on the first call.
func providerBuild(t *testing.T, runner *tfrunner.Runner) (tfrunner.Installation, error) {
	t.Helper()
	start := time.Now()
	if !sharedBuild.enabled {
		inst, err := runner.BuildProvider(t.Context(), "test")
		if err == nil {
			t.Logf("built the provider in %s", time.Since(start).Round(time.Millisecond))
		}
		return inst, err
	}
	sharedBuild.once.Do(func() {
		sharedBuild.dir, sharedBuild.inst, sharedBuild.err = buildShared(runner.Path())
		if sharedBuild.err == nil {
			t.Logf("built the provider for this package's CLI tests in %s", time.Since(start).Round(time.Millisecond))
		}
	})
	if sharedBuild.err != nil {
		return tfrunner.Installation{}, fmt.Errorf("the shared build of the provider: %w", sharedBuild.err)
	}
	return sharedBuild.inst, nil
}

// buildShared builds the provider into a new directory that outlives the
// test that asked first; Main removes it. It runs on no test's context, so
// that the end of that test cannot spoil the build the later tests use.
func buildShared(terraform string) (dir string, inst tfrunner.Installation, err error) {
	if dir, err = os.MkdirTemp("", "docsadmin-provider-build-"); err != nil {
		return "", inst, err
	}
	builder, err := tfrunner.New(terraform, dir)
	if err == nil {
		inst, err = builder.BuildProvider(context.Background(), "test")
	}
	return dir, inst, err
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

// Engines are the Terraform builds a CLI test can run: the acceptance CLI,
// and the pinned Terraform when it is newer and built. So the tests of what
// only a newer Terraform reads (actions, their triggers) run in make test
// too, not only in the pass on the newest engine.
type Engines struct {
	cli, pinned           *tfrunner.Runner
	cliMinor, pinnedMinor int
	cliVersion            string
}

func NewEngines(t *testing.T, cli *tfrunner.Runner) Engines {
	t.Helper()
	e := Engines{cli: cli}
	e.cliMinor, e.cliVersion = terraformMinor(t, cli)
	if RunningOpenTofu(t) {
		// OpenTofu reads neither actions nor their triggers.
		e.cliMinor = min(e.cliMinor, 13)
	}
	if path := pinnedTerraform(t); path != "" {
		pinned, err := cli.WithTerraform(path)
		if err != nil {
			t.Fatal(err)
		}
		if e.pinnedMinor, _ = terraformMinor(t, pinned); e.pinnedMinor > e.cliMinor {
			e.pinned = pinned
		}
	}
	return e
}

// AtLeast is a runner of Terraform 1.<minor> or later, nil when none is.
func (e Engines) AtLeast(minor int) *tfrunner.Runner {
	switch {
	case e.cliMinor >= minor:
		return e.cli
	case e.pinned != nil && e.pinnedMinor >= minor:
		return e.pinned
	}
	return nil
}

// Unavailable says why no engine of Terraform 1.<minor> or later is at hand.
func (e Engines) Unavailable(minor int) string {
	return fmt.Sprintf("it needs Terraform 1.%d or later; the acceptance CLI is %s and the pinned Terraform "+
		"of tools/terraform.sh is not built (make tools builds it)", minor, e.cliVersion)
}

// CLIRunnerAtLeast is CLIRunner on an engine of Terraform 1.<minor> or later.
// Without one the test fails under make test, which builds the pinned
// Terraform first, and skips elsewhere (testtools.Missing).
func CLIRunnerAtLeast(t *testing.T, minor int) *tfrunner.Runner {
	t.Helper()
	e := NewEngines(t, CLIRunner(t))
	runner := e.AtLeast(minor)
	if runner == nil {
		testtools.Missing(t, fmt.Sprintf("Terraform 1.%d or later", minor), "run make tools (tools/terraform.sh builds it)",
			errors.New(e.Unavailable(minor)))
	}
	return runner
}
