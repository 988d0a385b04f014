package provider

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

const siteAddress = "docsadmin_static_site.site"

// siteConfig is an export of docs.example.com and its site unpacked into
// dir; extra follows the site resource.
func siteConfig(mock *mockapi.Server, dir, extra string) string {
	return acctest.ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
resource "docsadmin_static_site" "site" {
  job_id          = docsadmin_static_export.site.job_id
  directory       = %q
  expected_sha256 = docsadmin_static_export.site.archive_sha256
}
%s`, dir, extra)
}

// siteConfigMaxFiles is siteConfig with max_files set, when not 0.
func siteConfigMaxFiles(mock *mockapi.Server, dir string, maxFiles int) string {
	config := siteConfig(mock, dir, "")
	if maxFiles == 0 {
		return config
	}
	return strings.Replace(config, "  directory ", fmt.Sprintf("  max_files       = %d\n  directory ", maxFiles), 1)
}

// syncStep stands for the sync step of a site, run once per export from
// the release and its manifest, as the sync example runs it.
const syncStep = `
resource "terraform_data" "sync" {
  triggers_replace = [docsadmin_static_site.site.archive_sha256]
  input = {
    manifest = docsadmin_static_site.site.manifest_sha256
  }
}
`

// archiveFiles reads the regular files of a gzip'd tar with archive/tar,
// apart from the code under test.
func archiveFiles(data []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			body, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			out[strings.TrimPrefix(filepath.ToSlash(filepath.Clean(h.Name)), "./")] = body
		}
	}
}

// siteTreeFiles reads the regular files under dir, and fails on anything else
// but directories.
func siteTreeFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	dir, err := filepath.EvalSymlinks(dir) // the release the link serves
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode().Perm() != 0o644 {
			return fmt.Errorf("%s has mode %o, want 644", p, info.Mode().Perm())
		}
		body, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = body
		return err
	})
	return out, err
}

// stateCheck is a statecheck.StateCheck made of a function: the legacy
// state the Check functions read cannot hold for_each instances.
type stateCheck func(*tfjson.State) error

func (f stateCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if err := f(req.State); err != nil {
		resp.Error = err
	}
}

// always is a check that ignores the state.
func always(check func(*terraform.State) error) stateCheck {
	return func(*tfjson.State) error { return check(nil) }
}

// valuesOf returns the attribute values of the resource or data source at
// address in the root module.
func valuesOf(s *tfjson.State, address string) (map[string]any, error) {
	if s == nil || s.Values == nil || s.Values.RootModule == nil {
		return nil, errors.New("no state")
	}
	for _, r := range s.Values.RootModule.Resources {
		if r.Address == address {
			return r.AttributeValues, nil
		}
	}
	return nil, fmt.Errorf("%s is not in state", address)
}

// text renders a JSON value of the state as the flat attributes did.
func text(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// siteMatchesArchive checks that the tree on disk is the served archive's
// files byte for byte (when dir is set), and that the manifest describes
// each file exactly: a data source's files and routes, or the resource's
// manifest_file, whose SHA-256 is manifest_sha256.
func siteMatchesArchive(mock *mockapi.Server, address, dir string) stateCheck {
	return func(s *tfjson.State) error {
		values, err := valuesOf(s, address)
		if err != nil {
			return err
		}
		served, err := acctest.ServedArchive(mock, text(values["job_id"]))
		if err != nil {
			return err
		}
		want, err := archiveFiles(served)
		if err != nil {
			return err
		}
		if dir != "" {
			got, err := siteTreeFiles(dir)
			if err != nil {
				return err
			}
			if !maps.EqualFunc(got, want, bytes.Equal) {
				return fmt.Errorf("the tree holds %v, the archive %v", keys(got), keys(want))
			}
		}
		if text(values["archive_sha256"]) != acctest.SHA256Hex(served) {
			return fmt.Errorf("archive_sha256 = %s, the link serves %s", values["archive_sha256"], acctest.SHA256Hex(served))
		}
		files, _ := values["files"].(map[string]any)
		if values["manifest_file"] != nil {
			if files, err = manifestFileOf(values); err != nil {
				return err
			}
		}
		if len(files) != len(want) || text(values["file_count"]) != fmt.Sprint(len(want)) {
			return fmt.Errorf("files holds %d and file_count = %s, the archive holds %d files", len(files), text(values["file_count"]), len(want))
		}
		var total int
		routes := map[string]any{}
		for p, body := range want {
			total += len(body)
			digest := md5.Sum(body)
			expect := map[string]string{
				"size":          fmt.Sprint(len(body)),
				"sha256":        acctest.SHA256Hex(body),
				"md5":           hex.EncodeToString(digest[:]),
				"md5_base64":    base64.StdEncoding.EncodeToString(digest[:]),
				"content_type":  site.ContentType(p),
				"cache_control": site.CacheControl(p),
			}
			file, _ := files[p].(map[string]any)
			for k, v := range expect {
				if got := text(file[k]); got != v {
					return fmt.Errorf("files[%q].%s = %q, want %q", p, k, got, v)
				}
			}
			if strings.HasSuffix(p, ".html") {
				route := strings.TrimSuffix(strings.TrimSuffix(p, ".html"), "index")
				routes[strings.TrimSuffix(route, "/")] = p
			}
		}
		if text(values["size_bytes"]) != fmt.Sprint(total) {
			return fmt.Errorf("size_bytes = %s, the files hold %d bytes", text(values["size_bytes"]), total)
		}
		if got, _ := values["routes"].(map[string]any); values["manifest_file"] == nil && !maps.Equal(got, routes) {
			return fmt.Errorf("routes = %v, want %v", got, routes)
		}
		return nil
	}
}

// manifestFileOf reads the resource's manifest_file, checked against its
// manifest_sha256.
func manifestFileOf(values map[string]any) (map[string]any, error) {
	name := text(values["manifest_file"])
	if !filepath.IsAbs(name) {
		return nil, fmt.Errorf("manifest_file = %q is not absolute", name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if got := acctest.SHA256Hex(data); got != text(values["manifest_sha256"]) {
		return nil, fmt.Errorf("manifest_file has SHA-256 %s, manifest_sha256 = %s", got, text(values["manifest_sha256"]))
	}
	var files map[string]any
	if err := json.Unmarshal(data, &files); err != nil {
		return nil, fmt.Errorf("manifest_file: %w", err)
	}
	return files, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// onlySite fails when anything but the site's link and its store is beside
// it, when the link is not a symbolic link, or when the store holds more
// than the current and the previous release, or a staging area.
func onlySite(dir string) func(*terraform.State) error {
	return func(*terraform.State) error {
		entries, err := os.ReadDir(filepath.Dir(dir))
		if err != nil {
			return err
		}
		store := "." + filepath.Base(dir) + ".docsadmin"
		for _, e := range entries {
			if e.Name() != filepath.Base(dir) && e.Name() != store {
				return fmt.Errorf("%s was left beside %s", e.Name(), filepath.Base(dir))
			}
		}
		if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s is not a symbolic link but %s", dir, info.Mode())
		}
		releases, err := os.ReadDir(filepath.Join(filepath.Dir(dir), store, "releases"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if len(releases) > 2 {
			return fmt.Errorf("the store holds %d releases, more than the current and the previous one", len(releases))
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), store, "staging")); err == nil {
			return fmt.Errorf("a staging area was left in %s", store)
		}
		return nil
	}
}

func TestStaticSite_lifecycle(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "dist", "site")
	traffic := &linkTraffic{mock: mock}
	exports := func(want int) func(*terraform.State) error {
		return acctest.ExpectCount("exports started", want, func() int { return mock.ExportsStarted("docs.example.com") })
	}
	restoredInPlace := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(siteAddress, plancheck.ResourceActionUpdate),
			plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop),
			// The same archive: the sync step has nothing to do.
			plancheck.ExpectResourceAction("terraform_data.sync", plancheck.ResourceActionNoop),
			plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("tree_intact"), knownvalue.Bool(true)),
			plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("manifest_sha256"), knownvalue.StringRegexp(hexDigest)),
			plancheck.ExpectUnknownValue(siteAddress, tfjsonpath.New("manifest_file")),
		},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
	restored := []statecheck.StateCheck{
		always(traffic.expect(1, 1, 1)),
		always(exports(1)),
		siteMatchesArchive(mock, siteAddress, dir),
		always(onlySite(dir)),
	}
	withSync := siteConfig(mock, dir, syncStep)

	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("destroy left %s behind (lstat: %v)", dir, err)
			}
			return onlySite(dir)(nil)
		},
		Steps: []resource.TestStep{
			{
				// The export first, so that what follows counts the site's traffic only.
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`),
			},
			{
				PreConfig: traffic.reset,
				Config:    siteConfig(mock, dir, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						// expected_sha256 is known: so is the archive's digest.
						plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("archive_sha256"), knownvalue.StringRegexp(hexDigest)),
						plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("tree_intact"), knownvalue.Bool(true)),
						plancheck.ExpectUnknownValue(siteAddress, tfjsonpath.New("manifest_file")),
						plancheck.ExpectUnknownValue(siteAddress, tfjsonpath.New("manifest_sha256")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(siteAddress, tfjsonpath.New("tree_intact"), knownvalue.Bool(true)),
					siteMatchesArchive(mock, siteAddress, dir),
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttrPair(siteAddress, "archive_sha256", acctest.ExportAddress, "archive_sha256"),
					traffic.expect(1, 1, 1),
					onlySite(dir),
				),
			},
			{
				// The sync step reads the manifest; nothing is downloaded.
				Config: withSync,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(siteAddress, plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("terraform_data.sync", plancheck.ResourceActionCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{always(traffic.expect(0, 0, 0))},
			},
			{
				// A file deleted on disk: restored in place, one download, no export.
				PreConfig: func() { removeOrFail(t, filepath.Join(dir, "guides", "getting-started.html")) },
				Config:    withSync,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: restoredInPlace.PreApply,
					PostApplyPostRefresh: append([]plancheck.PlanCheck{
						plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("tree_intact"), knownvalue.Bool(true)),
					}, restoredInPlace.PostApplyPostRefresh...),
				},
				ConfigStateChecks: restored,
			},
			{
				// A file changed on disk, same size, its modification time
				// set back: its change time tells.
				PreConfig: func() {
					name := filepath.Join(dir, "index.html")
					info, err := os.Stat(name)
					if err != nil {
						t.Fatal(err)
					}
					body, err := os.ReadFile(name)
					if err != nil {
						t.Fatal(err)
					}
					body[len(body)/2] ^= 0x20
					if err := os.WriteFile(name, body, 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(name, info.ModTime(), info.ModTime()); err != nil {
						t.Fatal(err)
					}
				},
				Config:            withSync,
				ConfigPlanChecks:  restoredInPlace,
				ConfigStateChecks: restored,
			},
			{
				// A file added on disk: it goes with the old tree.
				PreConfig: func() {
					if err := os.WriteFile(filepath.Join(dir, "assets", "stray.js"), []byte("alert(1)"), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config:            withSync,
				ConfigPlanChecks:  restoredInPlace,
				ConfigStateChecks: restored,
			},
			{
				// A fresh runner: state kept, the whole directory gone. The
				// plan updates the site only, the sync step unchanged.
				PreConfig: func() {
					if err := os.RemoveAll(filepath.Dir(dir)); err != nil {
						t.Fatal(err)
					}
				},
				Config:            withSync,
				ConfigPlanChecks:  restoredInPlace,
				ConfigStateChecks: restored,
			},
			{
				Config: siteConfig(mock, dir, ""),
			},
		},
	})
}

func removeOrFail(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
}

// The data source lists the same files as the resource's manifest_file,
// without writing anything.
func TestStaticSite_manifestDataSourceMatchesTheResource(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	const data = "data.docsadmin_static_site_manifest.site"
	config := siteConfig(mock, dir, `
data "docsadmin_static_site_manifest" "site" {
  job_id = docsadmin_static_site.site.job_id
}
`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					stateCheck(func(s *tfjson.State) error {
						siteValues, err := valuesOf(s, siteAddress)
						if err != nil {
							return err
						}
						dataValues, err := valuesOf(s, data)
						if err != nil {
							return err
						}
						files, err := manifestFileOf(siteValues)
						if err != nil {
							return err
						}
						got, _ := json.Marshal(files)
						want, _ := json.Marshal(dataValues["files"])
						if !bytes.Equal(got, want) {
							return fmt.Errorf("manifest_file lists %d files, the data source %d, or they differ", len(files), len(keys(dataValues["files"].(map[string]any))))
						}
						return nil
					}),
					statecheck.CompareValuePairs(siteAddress, tfjsonpath.New("archive_sha256"), data, tfjsonpath.New("archive_sha256"), compareEqual{}),
					statecheck.CompareValuePairs(siteAddress, tfjsonpath.New("size_bytes"), data, tfjsonpath.New("size_bytes"), compareEqual{}),
					statecheck.CompareValuePairs(siteAddress, tfjsonpath.New("file_count"), data, tfjsonpath.New("file_count"), compareEqual{}),
					siteMatchesArchive(mock, data, ""),
				},
				Check: onlySite(dir),
			},
		},
	})
}

// compareEqual passes when two values are deeply equal.
type compareEqual struct{}

func (compareEqual) CompareValues(values ...any) error {
	if len(values) == 2 && fmt.Sprint(values[0]) == fmt.Sprint(values[1]) {
		return nil
	}
	return fmt.Errorf("values differ: %v", values)
}

// An archive the verifier refuses leaves neither a tree nor a temporary
// directory; the error names the job and the entry.
func TestStaticSite_refusedArchiveLeavesNothing(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	var jobID string
	nothing := func() {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) > 0 {
			t.Errorf("a refused archive left %s behind", entries[0].Name())
		}
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`),
				Check:  captureAttr(acctest.ExportAddress, "job_id", &jobID),
			},
			{
				PreConfig: func() {
					if !mock.SetArchive(jobID, mockapi.ArchiveDotDot) {
						t.Fatal("no such job")
					}
				},
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
resource "docsadmin_static_site" "site" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %q
}
`, dir),
				ExpectError: regexp.MustCompile(`(?s)export\s+job\s+se_[0-9a-f]{16}.*cannot\s+be\s+served.*guides/\.\./\.\./outside\.html.*climbs`),
			},
			{
				PreConfig: func() {
					nothing()
					mock.SetArchive(jobID, mockapi.ArchiveGood)
				},
				// A digest that differs: refused too, nothing written.
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
resource "docsadmin_static_site" "site" {
  job_id          = docsadmin_static_export.site.job_id
  directory       = %q
  expected_sha256 = %q
}
`, dir, strings.Repeat("0", 64)),
				ExpectError: regexp.MustCompile(`(?s)SHA-256\s+is\s+[0-9a-f]{64},\s+expected\s+0{64}`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			nothing()
			return nil
		},
	})
}

// A directory that holds something other than a site is never replaced.
func TestStaticSite_refusesADirectoryThatIsNotASite(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      siteConfig(mock, dir, ""),
				ExpectError: regexp.MustCompile(`(?s)directory.*holds\s+a\s+directory\s+that\s+the\s+provider\s+did\s+not\s+make,\s+with\s+1\s+entry\s+\(notes\.txt\).*Accepted:`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if body, err := os.ReadFile(mine); err != nil || string(body) != "mine" {
				return fmt.Errorf("the directory's own file was touched: %q, %v", body, err)
			}
			return nil
		},
	})
}

func TestStaticSite_badInputFailsAtPlanTime(t *testing.T) {
	t.Parallel()
	siteBlock := func(body string) func(*mockapi.Server) string {
		return func(mock *mockapi.Server) string {
			return acctest.ProviderConfig(mock, "") + "resource \"docsadmin_static_site\" \"site\" {\n" + body + "\n}\n"
		}
	}
	const job = `job_id = "se_3f9a2c1b8e7d4a06"`
	cases := []badInput{
		{name: "empty directory", config: siteBlock(job + "\ndirectory = \"\""), want: []string{"directory", "the directory is empty", "Accepted: a path"}},
		{name: "current directory", config: siteBlock(job + "\ndirectory = \".\""), want: []string{"directory", `".": `, "is the directory Terraform runs in"}},
		{name: "root directory", config: siteBlock(job + "\ndirectory = \"/\""), want: []string{"directory", "root directory"}},
		{name: "parent directory", config: siteBlock(job + "\ndirectory = \"site/../..\""), want: []string{"directory", "or a directory above it"}},
		{name: "blank job_id", config: siteBlock("job_id = \" \"\ndirectory = \"site\""), want: []string{"job_id", "empty or blank"}},
		{name: "short digest", config: siteBlock(job + "\ndirectory = \"site\"\nexpected_sha256 = \"abc123\""),
			want: []string{"expected_sha256", `"abc123" is not a SHA-256`, "64 hexadecimal digits"}},
		{name: "zero timeout", config: siteBlock(job + "\ndirectory = \"site\"\ntimeouts {\n  update = \"0s\"\n}"), want: []string{"timeouts.update"}},
		{name: "blank data source job_id", config: func(mock *mockapi.Server) string {
			return acctest.ProviderConfig(mock, "") + "data \"docsadmin_static_site_manifest\" \"m\" {\n  job_id = \"\"\n}\n"
		}, want: []string{"job_id", "empty or blank"}},
	}
	acctest.RunSubtests(t, cases, func(tc badInput) string { return tc.name }, runBadInput)
}

// A change of max_files alone records it: the site published meets it, so
// nothing is downloaded or switched. A value below the site's files is
// refused at plan, naming both.
func TestStaticSite_maxFilesChangePublishesNothing(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	traffic := &linkTraffic{mock: mock}
	var release string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: siteConfig(mock, dir, ""),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(siteAddress, "max_files", fmt.Sprint(defaultSiteMaxFiles)),
					captureAttr(siteAddress, "release_directory", &release),
				),
			},
			{
				PreConfig: traffic.reset,
				Config:    siteConfigMaxFiles(mock, dir, 500),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(siteAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("manifest_file"), knownvalue.StringRegexp(regexp.MustCompile(`\.json$`))),
						plancheck.ExpectKnownValue(siteAddress, tfjsonpath.New("release_directory"), knownvalue.NotNull()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					traffic.expect(0, 0, 0),
					resource.TestCheckResourceAttr(siteAddress, "max_files", "500"),
					func(*terraform.State) error {
						if got, _ := filepath.EvalSymlinks(dir); got != release {
							return fmt.Errorf("%s serves %s, want the release published before, %s", dir, got, release)
						}
						return nil
					},
				),
			},
			{
				Config:      siteConfigMaxFiles(mock, dir, 10),
				ExpectError: regexp.MustCompile(`(?s)Invalid max_files.*max_files = 10 is below the \d+ files of the site`),
			},
		},
	})
}

// An import is refused in this resource's words, naming what to do instead,
// not with the framework's generic refusal.
func TestStaticSite_importIsRefusedSayingWhatToDo(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:        siteConfig(mock, dir, ""),
			ResourceName:  "docsadmin_static_site.site",
			ImportState:   true,
			ImportStateId: dir,
			ExpectError:   regexp.MustCompile(`(?s)docsadmin_static_site cannot be imported.*download and unpack the export as a create does.*Add the\s+resource`),
		}},
	})
	if n := mock.TotalRequests(); n != 0 {
		t.Errorf("the refused import sent %d requests", n)
	}
}
