package acctest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// QuickPolls keeps waits short, so that acceptance tests against the mock's
// second-long jobs stay quick; QuickRetries does the same for retries.
var (
	QuickPolls = poll.Policy{
		MinInterval:     20 * time.Millisecond,
		InitialInterval: 50 * time.Millisecond,
		MaxInterval:     250 * time.Millisecond,
		TargetLatency:   50 * time.Millisecond,
	}
	QuickRetries = clock.Backoff{Base: 10 * time.Millisecond, Max: 100 * time.Millisecond, Factor: 2, Jitter: 0.1}
)

// Factories serves docsadmin in-process, with the echo provider for
// ephemeral values.
func Factories(docsadmin func() (tfprotov6.ProviderServer, error)) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"docsadmin": docsadmin,
		"echo":      echoprovider.NewProviderServer(),
	}
}

// NewMock starts a mock API for one test, with jobs short enough to keep the
// suite fast and links long-lived enough that no renewal is due by accident.
func NewMock(t *testing.T, cfg mockapi.Config) *mockapi.Server {
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

// ProviderConfig points the provider at the mock; extra lines go inside the block.
func ProviderConfig(mock *mockapi.Server, extra string) string {
	return fmt.Sprintf(`
provider "docsadmin" {
  base_url = %q
  api_key  = %q
  %s
}
`, mock.URL, mock.APIKey, extra)
}

// BlockConfig is the provider's configuration followed by one block, such
// as resource "docsadmin_static_export" "site", that holds body.
func BlockConfig(mock *mockapi.Server, providerExtra, block, body string) string {
	return ProviderConfig(mock, providerExtra) + fmt.Sprintf("\n%s {\n%s\n}\n", block, body)
}

// ExportAddress is the export that ExportConfig declares.
const ExportAddress = "docsadmin_static_export.site"

// ExportConfig is the provider's configuration and one export holding body.
func ExportConfig(mock *mockapi.Server, body string) string {
	return BlockConfig(mock, "", `resource "docsadmin_static_export" "site"`, body)
}

// FileAddress is the file resource that FileConfig declares.
const FileAddress = "docsadmin_static_export_file.bundle"

// FileConfig is an export of docs.example.com and its archive written to
// filename; body adds lines to the file resource.
func FileConfig(mock *mockapi.Server, filename, body string) string {
	return ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
resource "docsadmin_static_export_file" "bundle" {
  job_id   = docsadmin_static_export.site.job_id
  filename = %q
%s
}
`, filename, body)
}

// ServedArchive asks the mock for a fresh link to the job's archive, as any
// client would, and returns the bytes it serves.
func ServedArchive(mock *mockapi.Server, jobID string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, mock.URL+"/v1/static-export/jobs/"+jobID+"/bundle", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+mock.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var bundle struct {
		BundleURL string `json:"bundleUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&bundle); err != nil || bundle.BundleURL == "" {
		return nil, fmt.Errorf("bundle endpoint answered %s without a link (%v)", resp.Status, err)
	}
	return HTTPGet(bundle.BundleURL)
}

// HTTPGet returns the body a link serves with 200 OK.
func HTTPGet(link string) ([]byte, error) {
	resp, err := http.Get(link)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", link, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// ExpectCount fails when got() differs from want, naming what was counted.
func ExpectCount(what string, want int, got func() int) func(*terraform.State) error {
	return func(*terraform.State) error {
		if n := got(); n != want {
			return fmt.Errorf("%s: got %d, want %d", what, n, want)
		}
		return nil
	}
}

// RunSubtests runs one subtest per case, in parallel with one another (and,
// when the parent called t.Parallel, with the other parallel tests), as
// many at once as -parallel allows. A row must own all it touches (its own
// mock, its own temporary directories, nothing process-wide) and use
// resource.UnitTest, since the subtest is parallel already. A row that needs
// the environment set has the parent set it before RunSubtests, and the
// parent stays serial: the parent's cleanup runs only once every row has
// ended.
func RunSubtests[C any](t *testing.T, cases []C, name func(C) string, run func(*testing.T, C)) {
	t.Helper()
	for _, c := range cases {
		t.Run(name(c), func(t *testing.T) {
			t.Parallel()
			run(t, c)
		})
	}
}

// ShiftedClock runs at wall-clock speed from an offset that tests move
// forward between steps, so that hours pass for renewal decisions and link
// expiry while waits stay real and short.
type ShiftedClock struct {
	offset atomic.Int64
}

func (c *ShiftedClock) Now() time.Time                         { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *ShiftedClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (c *ShiftedClock) Advance(d time.Duration)                { c.offset.Add(int64(d)) }

// FlattenWhitespace joins a text's words with single spaces, so that a
// message can be matched however the CLI wrapped it.
func FlattenWhitespace(s string) string { return strings.Join(strings.Fields(s), " ") }

// WriteFile writes content to path, failing the test on an error.
func WriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SHA256Hex is the SHA-256 of b in lower-case hex, as state records it.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
