//go:build linux || openbsd || darwin || freebsd || netbsd

// The forged records carry stat data, which sitetree.StatOf gives only on
// these systems (internal/sitetree/stat_ctim.go, stat_ctimespec.go).

package provider

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitetree"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// forgeRelease changes the served files of the release the site at dir
// serves, in the store at store (bodies by path; "" removes the file), and
// edits the release's stat record to match, as whoever can write the store
// can: each changed file's line gets its new size, stat data and digest, a
// removed file's line goes, and the record's time moves an hour on, so
// that no file is racy.
func forgeRelease(t *testing.T, dir, store string, bodies map[string]string) {
	t.Helper()
	target, err := os.Readlink(dir)
	if err != nil {
		t.Fatal(err)
	}
	release := filepath.Base(target)
	tree := filepath.Join(store, "releases", release)
	recordPath := filepath.Join(store, "manifests", release+sitetree.StatRecord)
	record, err := os.ReadFile(recordPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(record), "\n"), "\n")
	manifest := strings.TrimPrefix(lines[1], "manifest ")
	forged := sitetree.AppendStatHeader(nil, manifest, time.Now().Add(time.Hour).UnixNano())
	for _, line := range lines[3:] {
		fields := strings.SplitN(line, " ", 6)
		p := fields[5]
		body, change := bodies[p]
		switch {
		case !change:
			forged = append(forged, line+"\n"...)
			continue
		case body == "":
			removeOrFail(t, filepath.Join(tree, filepath.FromSlash(p)))
			continue
		}
		file := filepath.Join(tree, filepath.FromSlash(p))
		acctest.WriteFile(t, file, body)
		info, err := os.Lstat(file)
		if err != nil {
			t.Fatal(err)
		}
		st, ok := sitetree.StatOf(info)
		if !ok {
			t.Fatal("no stat data on this system")
		}
		forged = sitetree.AppendStatLine(forged, p, sitetree.Want{Size: info.Size(), SHA256: acctest.SHA256Hex([]byte(body)), Stat: st})
	}
	if err := os.WriteFile(recordPath, forged, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A served page changed and another removed, with the stat record edited
// to match them, is drift in the plan: the record is trusted only as the
// publication pinned it, and the tree is read and held to the manifest
// whose digest state keeps.
func TestAccStaticSite_cliForgedStatRecordIsDrift(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	tf := cliSiteModule(t, runner, mock, dir, "")
	ctx := t.Context()
	out := tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply: %v\n%s", err, out.String())
	}
	forgeRelease(t, dir, filepath.Join(parent, ".site.docsadmin"), map[string]string{"index.html": "<p>not the export's page</p>", "sitemap.xml": ""})
	out = tfrunner.Record(tf)
	changes, err := tf.Plan(ctx)
	if err != nil || !changes {
		t.Fatalf("the plan of a site changed with its stat record planned changes %v (want true), error %v\n%s", changes, err, out.String())
	}
	plan := acctest.FlattenWhitespace(out.String())
	for _, want := range []string{"The static site on disk differs from its manifest", `1 missing: "sitemap.xml"`, `1 changed: "index.html"`} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan does not say %s:\n%s", want, out.String())
		}
	}
}

// A neighbour who can write the site's parent moves the store aside, puts
// a copy of their own in its place (another user's) with a page of theirs
// and the stat record edited to match: the refresh refuses the copy,
// naming its owner, and the destroy removes neither the copy nor the store
// moved aside, and says so.
func TestAccStaticSite_cliNeighboursCopyOfTheStore(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		testtools.Missing(t, "root, to give a copy of the store to another user", "run the tests as root, as CI runs them",
			errors.New("not root"))
	}
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	store, aside := filepath.Join(parent, ".site.docsadmin"), filepath.Join(parent, ".site.docsadmin-real")
	tf := cliSiteModule(t, runner, mock, dir, "")
	ctx := t.Context()
	out := tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply: %v\n%s", err, out.String())
	}
	if err := os.Rename(store, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(store, os.DirFS(aside)); err != nil {
		t.Fatal(err)
	}
	const theirs = "<p>the neighbour's page</p>"
	forgeRelease(t, dir, store, map[string]string{"index.html": theirs})
	if err := filepath.WalkDir(store, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}); err != nil {
		t.Fatal(err)
	}
	if body, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || string(body) != theirs {
		t.Fatalf("the site does not serve the neighbour's page (%q, %v): the attack was not set up", body, err)
	}

	// With the refresh, and without it: a plan that trusts tree_intact
	// from state still checks what walks no tree.
	for _, refresh := range []bool{true, false} {
		out = tfrunner.Record(tf)
		changes, err := tf.Plan(ctx, tfexec.Refresh(refresh))
		if err != nil || changes {
			t.Fatalf("plan (refresh %v): changes %v (want none: nothing can be published there), error %v\n%s", refresh, changes, err, out.String())
		}
		plan := acctest.FlattenWhitespace(out.String())
		if !strings.Contains(plan, "a directory of another user (uid 65534") {
			t.Errorf("the plan (refresh %v) does not refuse the neighbour's copy of the store, naming its owner:\n%s", refresh, out.String())
		}
	}

	out = tfrunner.Record(tf)
	if err := tf.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out.String())
	}
	destroy := acctest.FlattenWhitespace(out.String())
	for _, want := range []string{"The static site's directory was left in place", "a directory of another user (uid 65534",
		"The store this site published from (device"} {
		if !strings.Contains(destroy, want) {
			t.Errorf("the destroy does not say %s:\n%s", want, out.String())
		}
	}
	for _, p := range []string{filepath.Join(store, "site.json"), filepath.Join(aside, "site.json"), dir} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("the destroy removed %s: %v", p, err)
		}
	}
	if body, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || string(body) != theirs {
		t.Errorf("the neighbour's copy was changed: index.html holds %q (%v)", body, err)
	}
	releases, err := os.ReadDir(filepath.Join(aside, "releases"))
	if err != nil || len(releases) != 1 {
		t.Errorf("the store moved aside holds %v (%v), want its release", releases, err)
	}
}
