package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
	"github.com/hashicorp/terraform-exec/tfexec"
)

// TestAccStaticSite_cliDestroyLeavesAUsersEntry runs `terraform plan` and
// `terraform destroy` as a user does, with their refresh, after a user's
// directory, file or link replaced the provider's link: the plan succeeds
// and plans nothing, saying why; the destroy exits 0 with a warning,
// removes the provider's store and leaves the user's entry as it was.
func TestAccStaticSite_cliDestroyLeavesAUsersEntry(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	for _, c := range []struct {
		name  string
		make  func(t *testing.T, dir string) func() error
		found string
	}{
		{"directory", func(t *testing.T, dir string) func() error { return usersFiles(t, dir) }, "a directory that the provider did not make"},
		{"file", func(t *testing.T, dir string) func() error {
			acctest.WriteFile(t, dir, "mine")
			return func() error {
				if body, err := os.ReadFile(dir); err != nil || string(body) != "mine" {
					return fmt.Errorf("the user's file holds %q (%v)", body, err)
				}
				return nil
			}
		}, "a file of 4 bytes"},
		{"link", func(t *testing.T, dir string) func() error {
			if err := os.Symlink("elsewhere", dir); err != nil {
				t.Fatal(err)
			}
			return func() error {
				if target, err := os.Readlink(dir); err != nil || target != "elsewhere" {
					return fmt.Errorf("the user's link points to %q (%v)", target, err)
				}
				return nil
			}
		}, `a symbolic link to "elsewhere"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			dir := filepath.Join(parent, "site")
			tf := cliSiteModule(t, runner, mock, dir, "")
			ctx := t.Context()
			if err := tf.Apply(ctx); err != nil {
				t.Fatalf("apply: %v", err)
			}
			removeOrFail(t, dir)
			intact := c.make(t, dir)
			out := tfrunner.Record(tf)
			changes, err := tf.Plan(ctx)
			if err != nil || changes {
				t.Fatalf("plan: changes %v (want none), error %v\n%s", changes, err, out.String())
			}
			plan := acctest.FlattenWhitespace(out.String())
			for _, want := range []string{c.found, "Nothing is planned to restore it", "a destroy removes only the provider's own store"} {
				if !strings.Contains(plan, want) {
					t.Errorf("the plan does not say %s:\n%s", want, out.String())
				}
			}
			out = tfrunner.Record(tf)
			if err := tf.Destroy(ctx); err != nil {
				t.Fatalf("destroy: %v\n%s", err, out.String())
			}
			destroy := acctest.FlattenWhitespace(out.String())
			for _, want := range []string{"The static site's directory was left in place", c.found, "The provider removed its own store"} {
				if !strings.Contains(destroy, want) {
					t.Errorf("the destroy does not say %s:\n%s", want, out.String())
				}
			}
			must(t, intact)
			if _, err := os.Lstat(filepath.Join(parent, ".site.docsadmin")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the store is still there: %v", err)
			}
		})
	}
}

// A plan after someone changed the published site says, as the CLI prints
// it, which files are missing, changed and extra, and what the apply does
// with the extra ones: the refresh's warning reaches the plan's reader.
func TestAccStaticSite_driftShownInThePlan(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	tf := cliSiteModule(t, runner, mock, dir, "")
	ctx := t.Context()
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply: %v", err)
	}
	removeOrFail(t, filepath.Join(dir, "index.html"))
	if err := os.WriteFile(filepath.Join(dir, "sitemap.xml"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planted.html"), []byte("not the export's"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := tfrunner.Record(tf)
	changes, err := tf.Plan(ctx)
	if err != nil || !changes {
		t.Fatalf("the plan of a damaged site planned changes %v (want true), error %v\n%s", changes, err, out.String())
	}
	plan := acctest.FlattenWhitespace(out.String())
	for _, want := range []string{
		"The static site on disk differs from its manifest",
		`1 missing: "index.html"`, `1 changed: "sitemap.xml"`, `1 extra (not in the export): "planted.html"`,
		"Files added inside a release are not published", "tree_intact",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan does not say %s:\n%s", want, out.String())
		}
	}
}

// cliSiteModule writes a configuration of one export and its site at dir,
// with lifecycle inside the site's block, for the built provider that
// runner installs, pointed at mock.
func cliSiteModule(t *testing.T, runner *tfrunner.Runner, mock *mockapi.Server, dir, lifecycle string) *tfexec.Terraform {
	t.Helper()
	tf, err := runner.Module(filepath.Join(t.TempDir(), "module"), map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}

resource "docsadmin_static_site" "site" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %q
  %s
}
`, dir, lifecycle))}, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

// usersFiles writes a user's files below dir and returns a check that they
// are all still there, unchanged.
func usersFiles(t *testing.T, dir string) func() error {
	t.Helper()
	files := map[string]string{"index.html": "mine", "notes/a.txt": "a", "notes/b/c.txt": "c"}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		acctest.WriteFile(t, p, body)
	}
	return func() error {
		for name, body := range files {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != body {
				return fmt.Errorf("the user's %s holds %q (%v), want %q", name, got, err, body)
			}
		}
		return nil
	}
}

func exportsStarted(mock *mockapi.Server, n int) func() error {
	return func() error {
		if got := mock.ExportsStarted("docs.example.com"); got != n {
			return fmt.Errorf("%d exports started, want %d", got, n)
		}
		return nil
	}
}

func must(t *testing.T, checks ...func() error) {
	t.Helper()
	for _, check := range checks {
		if err := check(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccStaticSite_cliReplace runs `terraform apply -replace` as a user
// does (terraform-plugin-testing has no -replace). Without
// create_before_destroy the old site is withdrawn and a new publication,
// with a new id, is served. With create_before_destroy the new object meets the directory
// the old one publishes: the apply is refused, saying what to do, and the
// old site, its id and the state stay as they were.
func TestAccStaticSite_cliReplace(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	for _, cbd := range []bool{false, true} {
		t.Run(fmt.Sprintf("create_before_destroy=%v", cbd), func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			dir := filepath.Join(parent, "site")
			if err := os.WriteFile(filepath.Join(parent, "notes.txt"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			lifecycle := ""
			if cbd {
				lifecycle = "lifecycle {\n    create_before_destroy = true\n  }"
			}
			tf := cliSiteModule(t, runner, mock, dir, lifecycle)
			ctx := t.Context()
			stateID := func() string {
				t.Helper()
				s, err := tf.Show(ctx)
				if err != nil {
					t.Fatal(err)
				}
				v, err := valuesOf(s, siteAddress)
				if err != nil {
					t.Fatal(err)
				}
				return text(v["id"])
			}
			if err := tf.Apply(ctx); err != nil {
				t.Fatalf("apply: %v", err)
			}
			oldID, oldTarget := stateID(), linkTarget(t, dir)
			if err := servedBy(dir, oldID); err != nil {
				t.Fatal(err)
			}

			out := tfrunner.Record(tf)
			err := tf.Apply(ctx, tfexec.Replace(siteAddress))
			transcript := out.String()
			if !cbd {
				if err != nil {
					t.Fatalf("apply -replace: %v\n%s", err, transcript)
				}
				newID := stateID()
				if newID == oldID || newID == "" {
					t.Errorf("the replacement's id is %q, the old one's %q: want a new one", newID, oldID)
				}
				if target := linkTarget(t, dir); target == oldTarget {
					t.Errorf("the link still points to the old release %s", target)
				}
				if err := servedBy(dir, newID); err != nil {
					t.Error(err)
				}
			} else {
				if err == nil {
					t.Fatalf("apply -replace under create_before_destroy succeeded; want it refused:\n%s", transcript)
				}
				if !refusedUnderCreateBeforeDestroy.MatchString(transcript) {
					t.Errorf("the refusal does not say what to do:\n%s", transcript)
				}
				if id := stateID(); id != oldID {
					t.Errorf("after the refused replacement the state's id is %q, want %q", id, oldID)
				}
				if target := linkTarget(t, dir); target != oldTarget {
					t.Errorf("the link moved from %s to %s", oldTarget, target)
				}
				if err := servedBy(dir, oldID); err != nil {
					t.Error(err)
				}
			}
			changes, err := tf.Plan(ctx)
			if err != nil || changes {
				t.Errorf("the plan after apply -replace has changes (%v) or failed: %v\n%s", changes, err, out.String())
			}
		})
	}
}

// An archive of a few hundred KiB that holds 100,000 empty directories
// beside its pages would make every refresh walk them all: directories
// count against max_files with the files, and the apply is refused naming
// the bound and how to raise it, leaving nothing at the site's path.
func TestAccStaticSite_cliManyDirectoriesRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 directories unpacked and removed: slow; runs in make test")
	}
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Archive: mockapi.ArchiveManyDirs})
	parent := t.TempDir()
	tf := cliSiteModule(t, runner, mock, filepath.Join(parent, "site"), "")
	out := tfrunner.Record(tf)
	if err := tf.Apply(t.Context()); err == nil {
		t.Fatalf("the apply of a site of %d empty directories succeeded; want it refused\n%s", mockapi.ManyDirs, out.String())
	}
	applied := acctest.FlattenWhitespace(out.String())
	for _, want := range []string{"more than max_files = 100000 files and directories", "Raise max_files (up to 1000000)"} {
		if !strings.Contains(applied, want) {
			t.Errorf("the refusal does not say %s:\n%s", want, out.String())
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) > 0 {
		t.Errorf("the refused archive left %s behind", entries[0].Name())
	}
}

// Two states of one working directory, as -state or two backend keys of
// one checkout give (common in CI), are two configurations: the second
// state's new site at the first's directory is refused at plan, saying
// why, and its apply fails before its export starts. (The provider sees
// nothing of either way to name a state; -state needs no init, which a
// backend's would, and an init cannot install the provider under test.)
func TestAccStaticSite_cliAnotherStateOfThisDirectoryRefusedAtPlan(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	tf := cliSiteModule(t, runner, mock, filepath.Join(t.TempDir(), "site"), "")
	ctx := t.Context()
	out := tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply with the first state: %v\n%s", err, out.String())
	}
	second := tfexec.State(filepath.Join(t.TempDir(), "second.tfstate")) //nolint:staticcheck // -state is what is tested
	for _, run := range []struct {
		name string
		run  func() error
	}{
		{"plan", func() error { _, err := tf.Plan(ctx, second); return err }},
		{"apply", func() error { return tf.Apply(ctx, second) }},
	} {
		out = tfrunner.Record(tf)
		if err := run.run(); err == nil {
			t.Fatalf("the %s with the second state succeeded; want it refused:\n%s", run.name, out.String())
		}
		said := acctest.FlattenWhitespace(out.String())
		for _, want := range []string{"is published by another docsadmin_static_site", "it is another state's"} {
			if !strings.Contains(said, want) {
				t.Errorf("the %s with the second state does not say %s:\n%s", run.name, want, out.String())
			}
		}
	}
	must(t, exportsStarted(mock, 1))
}

// A tainted site is neither refreshed nor planned by Terraform before its
// replacement under -refresh=false, so the plan of the replacement meets a
// site this run has not read from its state: published from this working
// directory and of the same export, it may be the object replaced, and
// the apply decides; the replacement is published.
func TestAccStaticSite_cliTaintedReplacedWithoutRefresh(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	tf := cliSiteModule(t, runner, mock, dir, "")
	ctx := t.Context()
	out := tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply: %v\n%s", err, out.String())
	}
	oldTarget := linkTarget(t, dir)
	if err := tf.Taint(ctx, siteAddress); err != nil {
		t.Fatal(err)
	}
	out = tfrunner.Record(tf)
	if changes, err := tf.Plan(ctx, tfexec.Refresh(false)); err != nil || !changes {
		t.Fatalf("the plan of the tainted site without refresh: changes %v (want true), error %v\n%s", changes, err, out.String())
	}
	out = tfrunner.Record(tf)
	if err := tf.Apply(ctx, tfexec.Refresh(false)); err != nil {
		t.Fatalf("the apply of the tainted site without refresh: %v\n%s", err, out.String())
	}
	if target := linkTarget(t, dir); target == oldTarget {
		t.Errorf("the link still points to the tainted site's release %s", target)
	}
	must(t, exportsStarted(mock, 1))
}
