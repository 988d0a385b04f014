package provider

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// regularFiles counts the regular files of a gzip'd tar, read on its own
// rather than through the verifier under test.
func regularFiles(archive []byte) (int, error) {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return 0, err
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		if h.Typeflag == tar.TypeReg {
			n++
		}
	}
}

// fileMatchesLink checks that the file on disk, its state and a fresh
// download of the job's archive all agree.
func fileMatchesLink(mock *mockapi.Server, filename string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[acctest.FileAddress].Primary.Attributes
		onDisk, err := os.ReadFile(filename)
		if err != nil {
			return err
		}
		served, err := acctest.ServedArchive(mock, attrs["job_id"])
		if err != nil {
			return err
		}
		files, err := regularFiles(served)
		if err != nil {
			return fmt.Errorf("the served archive: %w", err)
		}
		switch {
		case acctest.SHA256Hex(onDisk) != acctest.SHA256Hex(served):
			return fmt.Errorf("the file's SHA-256 is %s, the link serves %s", acctest.SHA256Hex(onDisk), acctest.SHA256Hex(served))
		case attrs["sha256"] != acctest.SHA256Hex(served):
			return fmt.Errorf("sha256 in state is %s, the link serves %s", attrs["sha256"], acctest.SHA256Hex(served))
		case attrs["id"] != attrs["sha256"]:
			return fmt.Errorf("id %s differs from sha256 %s", attrs["id"], attrs["sha256"])
		case attrs["md5"] != fmt.Sprintf("%x", md5.Sum(served)):
			return fmt.Errorf("md5 in state is %s, the link serves %x", attrs["md5"], md5.Sum(served))
		case attrs["size_bytes"] != fmt.Sprint(len(served)):
			return fmt.Errorf("size_bytes is %s, the link serves %d bytes", attrs["size_bytes"], len(served))
		case attrs["file_count"] != fmt.Sprint(files):
			return fmt.Errorf("file_count is %s, the archive holds %d regular files", attrs["file_count"], files)
		}
		return nil
	}
}

// linkTraffic counts the link requests and archive downloads the mock
// answered since the last check.
type linkTraffic struct {
	mock             *mockapi.Server
	links, downloads int // the counts at the last check
}

func (c *linkTraffic) reset() {
	c.links, c.downloads = c.mock.Requests(mockapi.EndpointBundle), c.mock.Requests(mockapi.EndpointDownload)
}

// expect checks the traffic since the last check. ownFetches is how many
// links and downloads the checks after it make themselves (fileMatchesLink
// makes one of each), left out of the next check.
func (c *linkTraffic) expect(links, downloads, ownFetches int) func(*terraform.State) error {
	return func(*terraform.State) error {
		gotLinks := c.mock.Requests(mockapi.EndpointBundle) - c.links
		gotDownloads := c.mock.Requests(mockapi.EndpointDownload) - c.downloads
		c.links += gotLinks + ownFetches
		c.downloads += gotDownloads + ownFetches
		if gotLinks != links || gotDownloads != downloads {
			return fmt.Errorf("link requests: got %d, want %d; archive downloads: got %d, want %d", gotLinks, links, gotDownloads, downloads)
		}
		return nil
	}
}

func fileMode(filename string, want os.FileMode) func(*terraform.State) error {
	return func(*terraform.State) error {
		info, err := os.Stat(filename)
		if err != nil {
			return err
		}
		if got := info.Mode().Perm(); got != want {
			return fmt.Errorf("%s has mode %o, want %o", filename, got, want)
		}
		return nil
	}
}

// noTemporaryFiles fails when a download left anything beside filename.
func noTemporaryFiles(filename string) error {
	entries, err := os.ReadDir(filepath.Dir(filename))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(filename) {
			return fmt.Errorf("%s was left beside %s", e.Name(), filepath.Base(filename))
		}
	}
	return nil
}

func TestStaticExportFile_lifecycle(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	// A directory that does not exist yet: Create makes it.
	filename := filepath.Join(t.TempDir(), "dist", "docs-bundle.tar.gz")
	config := acctest.FileConfig(mock, filename, "")
	traffic := &linkTraffic{mock: mock}

	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Stat(filename); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("destroy left %s behind (stat: %v)", filename, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// The export first, so that what follows counts the file's traffic only.
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`),
			},
			{
				PreConfig: traffic.reset,
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.FileAddress, tfjsonpath.New("sha256"), knownvalue.StringRegexp(hexDigest)),
					statecheck.ExpectKnownValue(acctest.FileAddress, tfjsonpath.New("file_permission"), knownvalue.StringExact("0644")),
				},
				Check: resource.ComposeTestCheckFunc(
					traffic.expect(1, 1, 1),
					fileMatchesLink(mock, filename),
					fileMode(filename, 0o644),
					func(*terraform.State) error { return noTemporaryFiles(filename) },
				),
			},
			{
				// Unchanged file: nothing planned, no link asked for, nothing downloaded.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: traffic.expect(0, 0, 0),
			},
			{
				// A fresh runner: the file is gone, the next apply writes it
				// again with exactly one download.
				PreConfig: func() {
					if err := os.Remove(filename); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.FileAddress, plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop),
					},
				},
				Check: resource.ComposeTestCheckFunc(
					traffic.expect(1, 1, 1),
					fileMatchesLink(mock, filename),
				),
			},
			{
				// Same size, other content: refresh notices and plans a rewrite.
				PreConfig: func() {
					content, err := os.ReadFile(filename)
					if err != nil {
						t.Fatal(err)
					}
					content[len(content)/2] ^= 0xff
					if err := os.WriteFile(filename, content, 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.FileAddress, plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeTestCheckFunc(
					traffic.expect(1, 1, 1),
					fileMatchesLink(mock, filename),
				),
			},
			{
				Config: acctest.FileConfig(mock, filename, `  file_permission = "0600"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.FileAddress, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeTestCheckFunc(
					traffic.expect(1, 1, 0),
					fileMode(filename, 0o600),
				),
			},
		},
	})
}

func TestStaticExportFile_expectedSHA256(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := t.TempDir()
	filename := filepath.Join(dir, "docs-bundle.tar.gz")
	copyName := filepath.Join(dir, "copy", "docs-bundle.tar.gz")
	wrong := strings.Repeat("0", 64)
	withCopy := func(expected string) string {
		return acctest.FileConfig(mock, filename, "") + fmt.Sprintf(`
resource "docsadmin_static_export_file" "copy" {
  job_id          = docsadmin_static_export.site.job_id
  filename        = %q
  expected_sha256 = %s
}
`, copyName, expected)
	}

	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.FileConfig(mock, filename, ""),
			},
			{
				// A digest that does not match: an error naming both and the
				// job, and no file written.
				Config:      withCopy(fmt.Sprintf("%q", wrong)),
				ExpectError: regexp.MustCompile(`(?s)export\s+job\s+se_[0-9a-f]{16}.*SHA-256\s+is\s+[0-9a-f]{64},\s+expected\s+` + wrong),
			},
			{
				PreConfig: func() {
					entries, err := os.ReadDir(filepath.Dir(copyName))
					if err == nil && len(entries) > 0 {
						t.Errorf("a refused download left %s behind", entries[0].Name())
					}
				},
				// The matching digest, here the first file's: known at plan
				// time, so that consumers of sha256 plan with it.
				Config: withCopy("upper(docsadmin_static_export_file.bundle.sha256)"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("docsadmin_static_export_file.copy", tfjsonpath.New("sha256"), knownvalue.StringRegexp(hexDigest)),
					},
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttrPair("docsadmin_static_export_file.copy", "sha256", acctest.FileAddress, "sha256"),
					func(*terraform.State) error {
						if _, err := os.Stat(copyName); err != nil {
							return err
						}
						return noTemporaryFiles(copyName)
					},
				),
			},
		},
	})
}

func TestStaticExportFile_refusesAnUnservableArchive(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	filename := filepath.Join(t.TempDir(), "docs-bundle.tar.gz")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`),
			},
			{
				// Object storage answers with a proxy's error page and a 200.
				PreConfig: func() {
					mock.InjectFault(mockapi.EndpointDownload, mockapi.Fault{
						Status: http.StatusOK, Body: "<html><body>Service unavailable</body></html>", Header: map[string]string{"Content-Type": "text/html"},
					})
				},
				Config: acctest.FileConfig(mock, filename, ""),
				ExpectError: regexp.MustCompile(`(?s)export\s+job\s+se_[0-9a-f]{16}.*download\s+from\s+127\.0\.0\.1:\d+:\s+unservable\s+archive:` +
					`\s+it\s+is\s+not\s+gzip'd:\s+it\s+starts\s+with\s+an\s+HTML\s+page`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Stat(filename); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("a refused archive was written to %s", filename)
			}
			return noTemporaryFiles(filename)
		},
	})
	if mock.PendingFaults(mockapi.EndpointDownload) != 0 {
		t.Error("the injected download answer was never requested")
	}
}

func TestStaticExportFile_badInputFailsAtPlanTime(t *testing.T) {
	t.Parallel()
	file := func(body string) func(*mockapi.Server) string {
		return func(mock *mockapi.Server) string {
			return acctest.ProviderConfig(mock, "") + "resource \"docsadmin_static_export_file\" \"bundle\" {\n" + body + "\n}\n"
		}
	}
	const job = `job_id = "se_3f9a2c1b8e7d4a06"`
	cases := []badInput{
		{name: "empty filename", config: file(job + "\nfilename = \"\""), want: []string{"filename", "The filename is empty", "Accepted: a path"}},
		{name: "directory filename", config: file(job + "\nfilename = \"dist/\""), want: []string{"filename", "names a directory"}},
		{name: "existing directory", config: file(job + "\nfilename = " + fmt.Sprintf("%q", os.TempDir())), want: []string{"filename", "is an existing directory", "docs-bundle.tar.gz"}},
		{name: "blank job_id", config: file("job_id = \" \"\nfilename = \"b.tar.gz\""), want: []string{"job_id", "empty or blank"}},
		{name: "symbolic permission", config: file(job + "\nfilename = \"b.tar.gz\"\nfile_permission = \"rw-r--r--\""),
			want: []string{"file_permission", `"rw-r--r--" is not an octal file permission`, `"0644"`}},
		{name: "non-octal permission", config: file(job + "\nfilename = \"b.tar.gz\"\nfile_permission = \"0809\""),
			want: []string{"file_permission", `"0809" is not an octal file permission`}},
		{name: "sticky permission", config: file(job + "\nfilename = \"b.tar.gz\"\nfile_permission = \"1777\""),
			want: []string{"file_permission", `"1777" sets the setuid, setgid or sticky bits`, `"0644"`}},
		{name: "short digest", config: file(job + "\nfilename = \"b.tar.gz\"\nexpected_sha256 = \"abc123\""),
			want: []string{"expected_sha256", `"abc123" is not a SHA-256`, "64 hexadecimal digits"}},
		{name: "sha256sum line", config: file(job + "\nfilename = \"b.tar.gz\"\nexpected_sha256 = \"" + strings.Repeat("ab", 32) + "  docs.tar.gz\""),
			want: []string{"expected_sha256", "is not a SHA-256", "without a file name"}},
		{name: "zero timeout", config: file(job + "\nfilename = \"b.tar.gz\"\ntimeouts {\n  create = \"0s\"\n}"), want: []string{"timeouts.create"}},
	}
	acctest.RunSubtests(t, cases, func(tc badInput) string { return tc.name }, runBadInput)
}

// A destroy deletes only the archive this resource wrote: a file someone
// put at filename since (the framework destroys without a refresh, as
// `terraform destroy -refresh=false` does) is left as it is.
func TestStaticExportFile_destroyLeavesAFileItDidNotWrite(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	filename := filepath.Join(t.TempDir(), "docs-bundle.tar.gz")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: acctest.FileConfig(mock, filename, ""),
			Check: func(*terraform.State) error {
				return os.WriteFile(filename, []byte("mine"), 0o644)
			},
			// The refresh after the apply finds another file: it plans to write the archive again.
			ExpectNonEmptyPlan: true,
		}},
		CheckDestroy: func(*terraform.State) error {
			if body, err := os.ReadFile(filename); err != nil || string(body) != "mine" {
				return fmt.Errorf("destroy deleted or changed a file it did not write: %q, %v", body, err)
			}
			return nil
		},
	})
}
