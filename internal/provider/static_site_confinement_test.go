//go:build unix

package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/publishtest"
)

// A store planted beside a new site's directory, holding under the
// provider's names what the provider does not make (releases linked to a
// user's directory, a FIFO as its lock), is refused at plan, naming the
// entry: no export is started and every file of the user's is intact.
func TestStaticSite_plantedStoreRefusedAtPlan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, store, users string)
		want  string
	}{
		{"releases linked to a user's directory", func(t *testing.T, store, users string) {
			if err := os.Symlink(users, filepath.Join(store, "releases")); err != nil {
				t.Fatal(err)
			}
		}, `releases\s+is\s+a\s+symbolic\s+link\s+to\s+".*users"`},
		{"staging linked to a user's directory", func(t *testing.T, store, users string) {
			if err := os.Symlink(users, filepath.Join(store, "staging")); err != nil {
				t.Fatal(err)
			}
		}, `staging\s+is\s+a\s+symbolic\s+link\s+to\s+".*users"`},
		{"a FIFO as the lock", func(t *testing.T, store, _ string) {
			if err := syscall.Mkfifo(filepath.Join(store, "lock"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, `lock\s+is\s+a\s+special\s+file`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			dir := filepath.Join(parent, "site")
			users := filepath.Join(parent, "users")
			intact := usersFiles(t, users)
			store := filepath.Join(parent, ".site.docsadmin")
			if err := os.MkdirAll(store, 0o755); err != nil {
				t.Fatal(err)
			}
			acctest.WriteFile(t, filepath.Join(store, "site.json"), fmt.Sprintf(`{"directory": %q, "owner": "site-planted"}`, dir))
			c.plant(t, store, users)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config:      siteConfig(mock, dir, ""),
					ExpectError: regexp.MustCompile(`(?s)` + c.want + `.*never\s+follows,\s+replaces\s+or\s+removes`),
				}},
			})
			must(t, intact, exportsStarted(mock, 0))
		})
	}
}

// A published site whose releases/ was moved to another disk and linked
// back: the next publication refuses, naming the link, and deletes nothing
// there, neither the user's files beside the releases nor those among
// them; the site goes on serving its release. Moved back, the site
// publishes again.
func TestStaticSite_movedReleasesAreNeverFollowed(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	releases := filepath.Join(parent, ".site.docsadmin", "releases")
	disk := filepath.Join(t.TempDir(), "disk")
	moved := filepath.Join(disk, "releases")
	var intact func() error
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: siteOfCommit(mock, dir, "a", "")},
			{Config: siteOfCommit(mock, dir, "b", "")},
			{
				PreConfig: func() {
					intact = usersFiles(t, disk)
					if err := os.Rename(releases, moved); err != nil {
						t.Fatal(err)
					}
					acctest.WriteFile(t, filepath.Join(moved, "notes.txt"), "mine")
					if err := os.Symlink(moved, releases); err != nil {
						t.Fatal(err)
					}
				},
				Config:      siteOfCommit(mock, dir, "c", ""),
				ExpectError: regexp.MustCompile(`(?s)releases\s+is\s+a\s+symbolic\s+link\s+to\s+"` + regexp.QuoteMeta(moved) + `".*changed\s+nothing`),
			},
			{
				PreConfig: func() {
					must(t, intact)
					entries, err := os.ReadDir(moved)
					if err != nil || len(entries) != 3 {
						t.Fatalf("the moved releases hold %v (%v), want both releases and notes.txt", entries, err)
					}
					if body, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || len(body) == 0 {
						t.Fatalf("the site no longer serves its release: %v", err)
					}
					if err := os.Remove(releases); err != nil {
						t.Fatal(err)
					}
					if err := os.Remove(filepath.Join(moved, "notes.txt")); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(moved, releases); err != nil {
						t.Fatal(err)
					}
				},
				Config: siteOfCommit(mock, dir, "c", ""),
				Check:  resource.TestCheckResourceAttr("docsadmin_static_site.site", "tree_intact", "true"),
			},
		},
		CheckDestroy: func(*terraform.State) error { return intact() },
	})
}

// Two new sites whose directories are the same or nested, however they
// are written, are refused at plan, before any export starts.
func TestStaticSite_samePathHoweverWrittenRefusedAtPlan(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	target := filepath.Join(parent, "real")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(parent, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, first, second, want string }{
		{"relative, with .. and a trailing slash", "dist/site", "./dist/../dist/site/", `same\s+directory\s+as`},
		{"absolute, with .. and a trailing slash", filepath.Join(parent, "dist", "site"), parent + "/dist/x/../site/", `same\s+directory\s+as`},
		{"through a link in an existing parent", filepath.Join(target, "site"), filepath.Join(parent, "link", "site"), `same\s+directory\s+as`},
		{"nested through a link", filepath.Join(target, "site"), filepath.Join(parent, "link", "site", "docs"), `(inside\s+the\s+directory\s+of|holds\s+that\s+of)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config: siteConfig(mock, c.first, fmt.Sprintf(`
resource "docsadmin_static_site" "other" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %q
}
`, c.second)),
					ExpectError: regexp.MustCompile(`(?s)` + c.want + `\s+another\s+docsadmin_static_site.*Give\s+each`),
				}},
			})
			must(t, exportsStarted(mock, 0))
		})
	}
}

// A directory that another configuration publishes is refused at plan
// for a new site, naming that site and its configuration: no export
// starts, and the other site is left as it was.
func TestStaticSite_publishedElsewhereRefusedAtPlan(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	site, err := publish.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	staged, err := site.Stage("site-elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(staged.Tree, 0o755); err != nil {
		t.Fatal(err)
	}
	acctest.WriteFile(t, filepath.Join(staged.Tree, "index.html"), "elsewhere")
	staged.Configuration = "/srv/other-configuration"
	if _, err := staged.Switch("se_elsewhere", nil); err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:      siteConfig(mock, dir, ""),
			ExpectError: regexp.MustCompile(`(?s)is\s+published\s+by\s+another\s+docsadmin_static_site\s+\(site-elsewhere,\s+publishing\s+the\s+site\s+of\s+export\s+job\s+se_elsewhere.*of\s+the\s+configuration\s+at\s+/srv/other-configuration\)`),
		}},
	})
	must(t, exportsStarted(mock, 0))
	if body, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || string(body) != "elsewhere" {
		t.Errorf("the other site serves %q (%v)", body, err)
	}
}

// What appears at the directory while the switch syncs the new tree is
// never replaced: a file made there before a first publication, and a
// user's directory put in place of the provider's link before a later
// switch, are left as they are, and the apply says what it found.
func TestStaticSite_switchReplacesOnlyWhatItChecked(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	var during func()
	publishtest.BeforeLinkSwitch(t, func(served string) {
		if served == dir && during != nil {
			during()
			during = nil
		}
	})
	fileIntact := func() error {
		if body, err := os.ReadFile(dir); err != nil || string(body) != "mine" {
			return fmt.Errorf("the file made during the switch holds %q (%v)", body, err)
		}
		return nil
	}
	var dirIntact func() error
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { during = func() { acctest.WriteFile(t, dir, "mine") } },
				Config:      siteOfCommit(mock, dir, "a", ""),
				ExpectError: regexp.MustCompile(`(?s)holds\s+a\s+file\s+of\s+4\s+bytes\s+\(it\s+appeared\s+while\s+the\s+new\s+release\s+was\s+being\s+switched\s+in`),
			},
			{
				PreConfig: func() {
					must(t, fileIntact)
					removeOrFail(t, dir)
				},
				Config: siteOfCommit(mock, dir, "a", ""),
			},
			{
				PreConfig: func() {
					during = func() {
						removeOrFail(t, dir)
						dirIntact = usersFiles(t, dir)
					}
				},
				Config:      siteOfCommit(mock, dir, "b", ""),
				ExpectError: regexp.MustCompile(`(?s)holds\s+a\s+directory\s+that\s+the\s+provider\s+did\s+not\s+make.*\(it\s+appeared\s+while`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if dirIntact == nil {
				return errors.New("the user's directory was never made")
			}
			if err := dirIntact(); err != nil {
				return err
			}
			if _, err := os.Lstat(filepath.Join(parent, ".site.docsadmin")); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("destroy left the store: %v", err)
			}
			return nil
		},
	})
}

// A copy of the store put in its place by the user who runs Terraform (a
// backup restored) is not the store the site published from: the refresh
// trusts nothing in it and says so, the apply publishes into it afresh and
// records it, and then the destroy removes it, leaving the store that was
// moved aside.
func TestStaticSite_storeCopyIsRepublishedBeforeItIsRemoved(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	store, aside := filepath.Join(parent, ".site.docsadmin"), filepath.Join(parent, ".site.docsadmin-backup")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: siteConfig(mock, dir, "")},
			{
				PreConfig: func() {
					if err := os.Rename(store, aside); err != nil {
						t.Fatal(err)
					}
					if err := os.CopyFS(store, os.DirFS(aside)); err != nil {
						t.Fatal(err)
					}
				},
				Config:             siteConfig(mock, dir, ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: siteConfig(mock, dir, ""),
				Check:  resource.TestCheckResourceAttr(siteAddress, "tree_intact", "true"),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Lstat(store); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the store the site took over is still there (lstat: %v)", err)
			}
			if _, err := os.Lstat(filepath.Join(aside, "site.json")); err != nil {
				return fmt.Errorf("the store moved aside was removed: %v", err)
			}
			return nil
		},
	})
}
