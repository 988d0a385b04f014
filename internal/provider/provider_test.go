package provider

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// testPollPolicy keeps waits short so acceptance tests against second-long
// mock jobs stay quick.
var testPollPolicy = poll.Policy{
	MinInterval:     20 * time.Millisecond,
	InitialInterval: 50 * time.Millisecond,
	MaxInterval:     250 * time.Millisecond,
	TargetLatency:   50 * time.Millisecond,
}

var testRetryBackoff = clock.Backoff{Base: 10 * time.Millisecond, Max: 100 * time.Millisecond, Factor: 2, Jitter: 0.1}

// testFactories serves the provider in-process, with the echo provider for
// ephemeral values. opts may override the clock or policies.
func testFactories(opts Options) map[string]func() (tfprotov6.ProviderServer, error) {
	if opts.PollPolicy.MinInterval == 0 {
		opts.PollPolicy = testPollPolicy
	}
	if opts.RetryBackoff.Base == 0 {
		opts.RetryBackoff = testRetryBackoff
	}
	return map[string]func() (tfprotov6.ProviderServer, error){
		"docsadmin": providerserver.NewProtocol6WithError(NewWithOptions("test", opts)()),
		"echo":      echoprovider.NewProviderServer(),
	}
}

// newMock starts a mock API for one test, with jobs short enough to keep the
// suite fast and links long-lived enough that no renewal is due by accident.
func newMock(t *testing.T, cfg mockapi.Config) *mockapi.Server {
	t.Helper()
	if cfg.ExportDuration == 0 {
		cfg.ExportDuration = 600 * time.Millisecond
	}
	if cfg.LinkTTL == 0 {
		cfg.LinkTTL = 24 * time.Hour
	}
	mock := mockapi.NewServer(cfg)
	t.Cleanup(mock.Close)
	return mock
}

// providerConfig points the provider at the mock; extra lines go inside the block.
func providerConfig(mock *mockapi.Server, extra string) string {
	return fmt.Sprintf(`
provider "docsadmin" {
  base_url = %q
  api_key  = %q
  %s
}
`, mock.URL, mock.APIKey, extra)
}

// blockConfig is the provider's configuration followed by one block, such
// as resource "docsadmin_static_export" "site", that holds body.
func blockConfig(mock *mockapi.Server, providerExtra, block, body string) string {
	return providerConfig(mock, providerExtra) + fmt.Sprintf("\n%s {\n%s\n}\n", block, body)
}

// captureAttr stores an attribute of a resource in state into *dst.
func captureAttr(resourceName, attribute string, dst *string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[resourceName]
		if !ok {
			return fmt.Errorf("%s not in state", resourceName)
		}
		value, ok := rs.Primary.Attributes[attribute]
		if !ok {
			return fmt.Errorf("%s has no attribute %s", resourceName, attribute)
		}
		*dst = value
		return nil
	}
}

// parallelTest is resource.ParallelTest for a test that owns all it
// touches (its own mock from newMock, its own temporary directories) and
// changes nothing process-wide: no environment variable, working directory,
// global variable or fixed port, and no measure of time. Like
// resource.UnitTest it runs without TF_ACC, since the provider is served
// in-process against the mock. go test's -parallel bounds how many run at
// once; make test raises it for this package (see GNUmakefile).
func parallelTest(t *testing.T, c resource.TestCase) {
	t.Helper()
	c.IsUnitTest = true
	resource.ParallelTest(t, c)
}

// runSubtests runs one subtest per case, in parallel with one another (and,
// when the parent called t.Parallel, with the other parallel tests), as
// many at once as -parallel allows. A row must own all it touches, as for
// parallelTest, and use resource.UnitTest, since the subtest is parallel
// already. A row that needs the environment set has the parent set it
// before runSubtests, and the parent stays serial: the parent's cleanup
// runs only once every row has ended.
func runSubtests[C any](t *testing.T, cases []C, name func(C) string, run func(*testing.T, C)) {
	t.Helper()
	for _, c := range cases {
		t.Run(name(c), func(t *testing.T) {
			t.Parallel()
			run(t, c)
		})
	}
}

// expectCount fails when got() differs from want, naming what was counted.
func expectCount(what string, want int, got func() int) func(*terraform.State) error {
	return func(*terraform.State) error {
		if n := got(); n != want {
			return fmt.Errorf("%s: got %d, want %d", what, n, want)
		}
		return nil
	}
}

// shiftedClock runs at wall-clock speed from an offset that tests move
// forward between steps, so that hours pass for renewal decisions and link
// expiry while waits stay real and short.
type shiftedClock struct {
	offset atomic.Int64
}

func (c *shiftedClock) Now() time.Time                         { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *shiftedClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (c *shiftedClock) Advance(d time.Duration)                { c.offset.Add(int64(d)) }

// acceptanceCLI returns the Terraform or OpenTofu binary that acceptance
// tests run: TF_ACC_TERRAFORM_PATH, else terraform on PATH.
func acceptanceCLI(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); path != "" {
		return path
	}
	path, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("terraform is needed on PATH (or TF_ACC_TERRAFORM_PATH): %v", err)
	}
	return path
}

// acceptanceEngines caches, per binary path, which engine it is.
var acceptanceEngines struct {
	sync.Mutex
	byPath map[string]engine
}

// engine is what the first line of `version` says: Terraform or OpenTofu,
// and its minor version of 1.x.
type engine struct {
	openTofu bool
	minor    int
}

// runningOpenTofu reports whether the acceptance tests run OpenTofu rather
// than Terraform, for the few places where the two engines differ.
func runningOpenTofu(t *testing.T) bool {
	t.Helper()
	return acceptanceEngine(t).openTofu
}

// openTofuBefore reports whether the acceptance tests run OpenTofu older
// than 1.minor.
func openTofuBefore(t *testing.T, minor int) bool {
	t.Helper()
	e := acceptanceEngine(t)
	return e.openTofu && e.minor < minor
}

// acceptanceEngine asks the acceptance CLI itself: `version -json` says
// "terraform_version" on both engines, but the first line of `version`
// names the engine ("OpenTofu v1.12.6", "Terraform v1.11.4").
func acceptanceEngine(t *testing.T) engine {
	t.Helper()
	path := acceptanceCLI(t)
	acceptanceEngines.Lock()
	defer acceptanceEngines.Unlock()
	if e, ok := acceptanceEngines.byPath[path]; ok {
		return e
	}
	cmd := exec.Command(path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	firstLine, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	var e engine
	var name string
	if _, err := fmt.Sscanf(firstLine, "%s v1.%d.", &name, &e.minor); err != nil || name != "OpenTofu" && name != "Terraform" {
		t.Fatalf("%s version printed %q first; want Terraform or OpenTofu v1.x", path, firstLine)
	}
	e.openTofu = name == "OpenTofu"
	if acceptanceEngines.byPath == nil {
		acceptanceEngines.byPath = map[string]engine{}
	}
	acceptanceEngines.byPath[path] = e
	return e
}
