package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// siteOfCommit is an export re-made for every commit, and its site at dir.
func siteOfCommit(mock *mockapi.Server, dir, commit, lifecycle string) string {
	return acctest.ExportConfig(mock, fmt.Sprintf("  domain = \"docs.example.com\"\n  triggers = { commit = %q }", commit)) + fmt.Sprintf(`
resource "docsadmin_static_site" "site" {
  job_id          = docsadmin_static_export.site.job_id
  directory       = %q
  expected_sha256 = docsadmin_static_export.site.archive_sha256
  %s
}
`, dir, lifecycle)
}

// linkTarget reads the release the site's link points to.
func linkTarget(t *testing.T, dir string) string {
	t.Helper()
	target, err := os.Readlink(dir)
	if err != nil {
		t.Fatalf("%s is not the provider's link: %v", dir, err)
	}
	return target
}

// A new export updates the site in place: the link switches to a new
// release, the site keeps its id, the previous release stays until the
// next switch, and a user's files beside the site are never touched, also
// by destroy.
func TestStaticSite_newExportSwitchesInPlace(t *testing.T) {
	t.Parallel()
	for _, lifecycle := range []string{"", "lifecycle {\n    create_before_destroy = true\n  }"} {
		t.Run(fmt.Sprintf("create_before_destroy=%v", lifecycle != ""), func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{StablePages: true})
			parent := t.TempDir()
			dir := filepath.Join(parent, "site")
			mine := filepath.Join(parent, "notes.txt")
			if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			var id, firstTarget string
			sameID := func(s *terraform.State) error {
				return resource.TestCheckResourceAttr(siteAddress, "id", id)(s)
			}
			step := func(commit string) resource.TestStep {
				return resource.TestStep{
					Config: siteOfCommit(mock, dir, commit, lifecycle),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(siteAddress, plancheck.ResourceActionUpdate),
					}},
					Check: resource.ComposeTestCheckFunc(sameID, func(*terraform.State) error {
						if target := linkTarget(t, dir); target == firstTarget {
							return fmt.Errorf("the link still points to %s", target)
						}
						releases, _ := os.ReadDir(filepath.Join(parent, ".site.docsadmin", "releases"))
						if len(releases) != 2 {
							return fmt.Errorf("%d releases, want the current and the previous one", len(releases))
						}
						return nil
					}),
				}
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{
					{
						Config: siteOfCommit(mock, dir, "a", lifecycle),
						Check: resource.ComposeTestCheckFunc(captureAttr(siteAddress, "id", &id), func(*terraform.State) error {
							firstTarget = linkTarget(t, dir)
							return nil
						}),
					},
					step("b"), // identical archive: the same files, a new release all the same
					step("c"),
				},
				CheckDestroy: func(*terraform.State) error {
					entries, err := os.ReadDir(parent)
					if err != nil {
						return err
					}
					if len(entries) != 1 || entries[0].Name() != "notes.txt" {
						return fmt.Errorf("destroy left %d entries beside the user's file", len(entries))
					}
					if body, err := os.ReadFile(mine); err != nil || string(body) != "mine" {
						return fmt.Errorf("the user's file was touched: %q, %v", body, err)
					}
					return nil
				},
			})
			if n := mock.ExportsStarted("docs.example.com"); n != 3 {
				t.Errorf("%d exports, want 3", n)
			}
		})
	}
}

// The working directory, the module's directory and the home directory are
// refused at plan, and nothing in them is touched.
func TestStaticSite_refusesTerraformAndHomeDirectories(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	keep := filepath.Join(home, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, directory, want string }{
		{"module directory", "abspath(path.module)", `holds\s+a\s+Terraform\s+configuration`},
		{"working directory", "path.cwd", `holds\s+a\s+Terraform\s+configuration`},
		{"home directory", fmt.Sprintf("%q", home), `is\s+the\s+home\s+directory`},
		{"above the home directory", fmt.Sprintf("%q", filepath.Dir(home)), `is\s+the\s+home\s+directory,\s+or\s+a\s+directory\s+above\s+it`},
	} {
		t.Run(c.name, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.Config{})
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config: acctest.ProviderConfig(mock, "") + fmt.Sprintf(`
resource "docsadmin_static_site" "site" {
  job_id    = "se_3f9a2c1b8e7d4a06"
  directory = %s
}
`, c.directory),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)directory.*` + c.want + `.*Accepted:`),
				}},
			})
			if body, err := os.ReadFile(keep); err != nil || string(body) != "mine" {
				t.Errorf("a file in the home directory was touched: %q, %v", body, err)
			}
		})
	}
}

// A user's directory at the site's path is never replaced: refused at plan
// when it is there before the site, and left as it is, with nothing
// planned, when it replaces the provider's link; destroy leaves it.
func TestStaticSite_neverReplacesAUsersDirectory(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	userDir := func() {
		if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	intact := func() error {
		if body, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || string(body) != "mine" {
			return fmt.Errorf("the user's directory was touched: %q, %v", body, err)
		}
		return nil
	}
	userDir()
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      siteConfig(mock, dir, ""),
				ExpectError: regexp.MustCompile(`(?s)holds\s+a\s+directory\s+that\s+the\s+provider\s+did\s+not\s+make.*index\.html.*never\s+replaces`),
			},
			{
				PreConfig: func() {
					if err := intact(); err != nil {
						t.Fatal(err)
					}
					if err := os.RemoveAll(dir); err != nil {
						t.Fatal(err)
					}
				},
				Config: siteConfig(mock, dir, ""),
			},
			{
				// The user puts a directory of their own in place of the link:
				// the plan warns and plans nothing (the CLI's plan and destroy
				// are TestAccStaticSite_cliDestroyLeavesAUsersEntry's).
				PreConfig: userDir,
				Config:    siteConfig(mock, dir, ""),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("docsadmin_static_site.site", "tree_intact", "false"),
					func(*terraform.State) error { return intact() },
				),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := intact(); err != nil {
				return err
			}
			if _, err := os.Lstat(filepath.Join(parent, ".site.docsadmin")); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("destroy left the store: %v", err)
			}
			return nil
		},
	})
}

// A user's symbolic link at the site's path, where the plan cannot see it
// (the directory is known only during apply), is refused before any link
// request or download, and left as it is.
func TestStaticSite_refusesAUsersLinkBeforeAnyDownload(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	mine := filepath.Join(parent, "mine")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	acctest.WriteFile(t, filepath.Join(mine, "index.html"), "mine")
	dir := filepath.Join(parent, "site")
	traffic := &linkTraffic{mock: mock}
	// timestamp() is unknown while planning: the directory is known only
	// during apply, so only the apply can refuse it.
	unknownAtPlan := fmt.Sprintf(`"%s${substr(timestamp(), 0, 0)}"`, dir)
	config := acctest.ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
resource "docsadmin_static_site" "site" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %s
}
`, unknownAtPlan)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`)},
			{
				PreConfig: func() {
					if err := os.Symlink("mine", dir); err != nil {
						t.Fatal(err)
					}
					traffic.reset()
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)holds\s+a\s+symbolic\s+link\s+to\s+"mine"\s+that\s+the\s+provider\s+did\s+not\s+make`),
			},
			{
				PreConfig: func() {
					if err := traffic.expect(0, 0, 0)(nil); err != nil {
						t.Fatalf("the refused site: %v", err)
					}
					if target, err := os.Readlink(dir); err != nil || target != "mine" {
						t.Fatalf("the user's link now points to %q (%v)", target, err)
					}
					if body, err := os.ReadFile(filepath.Join(mine, "index.html")); err != nil || string(body) != "mine" {
						t.Fatalf("the user's directory was touched: %q, %v", body, err)
					}
				},
				Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`),
			},
		},
	})
}

// Two sites at the same or nested directories are refused.
func TestStaticSite_overlappingDirectoriesRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, second, want string }{
		{"same", "site", `(same\s+directory\s+as|is\s+published\s+by)\s+another\s+docsadmin_static_site`},
		{"nested", "site/sub", `(inside\s+the\s+directory\s+of|holds\s+that\s+of)\s+another\s+docsadmin_static_site`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			config := siteConfig(mock, filepath.Join(parent, "site"), fmt.Sprintf(`
resource "docsadmin_static_site" "other" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %q
}
`, filepath.Join(parent, c.second)))
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config:      config,
					ExpectError: regexp.MustCompile(`(?s)` + c.want + `.*Give\s+each`),
				}},
			})
		})
	}
}

// Archives whose names no host serves alike, or with more files than
// max_files, are refused naming the entry or the setting, and leave nothing.
func TestStaticSite_refusesNamesAndFileCounts(t *testing.T) {
	// Each row has its own mock and directory; the bound on how long a
	// refusal takes leaves room for the -parallel tests beside it.
	t.Parallel()
	for _, c := range []struct {
		name     string
		kind     mockapi.ArchiveKind
		want     string
		maxFiles int
	}{
		{"many files", mockapi.ArchiveManyFiles, `more\s+than\s+max_files\s+=\s+8000\s+files`, 8000},
		{"dotfiles", mockapi.ArchiveDotfiles, `\.git/config.*starts\s+with\s+a\s+dot`, 0},
		{"dot route", mockapi.ArchiveDotRoute, `"\.\.\.html".*starts\s+with\s+a\s+dot`, 0},
		{"case collision", mockapi.ArchiveCaseCollision, `"Changelog\.html".*same\s+name\s+as\s+"changelog\.html"`, 0},
		{"dot directory", mockapi.ArchiveDotDir, `"\.git".*starts\s+with\s+a\s+dot`, 0},
		{"backslash directory", mockapi.ArchiveBackslashDir, `"a\\\\b".*backslash`, 0},
		{"fold collision", mockapi.ArchiveFoldCollision, `"ς\.html".*same\s+name\s+as\s+"σ\.html"`, 0},
		{"file and directory collision", mockapi.ArchiveFileDirCollision, `"Manual/x\.html".*directory\s+"Manual"\s+is\s+the\s+same\s+name\s+as\s+the\s+file\s+"manual"`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			var jobID string
			start := time.Now()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{
					{Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`), Check: captureAttr(acctest.ExportAddress, "job_id", &jobID)},
					{
						PreConfig: func() {
							start = time.Now()
							mock.SetArchive(jobID, c.kind)
						},
						Config:      siteConfigMaxFiles(mock, filepath.Join(parent, "site"), c.maxFiles),
						ExpectError: regexp.MustCompile(`(?s)` + c.want),
					},
				},
			})
			if d := time.Since(start); d > time.Minute {
				t.Errorf("the refusal took %s", d)
			}
			if entries, _ := os.ReadDir(parent); len(entries) > 0 {
				t.Errorf("a refused archive left %s behind", entries[0].Name())
			}
		})
	}
}
