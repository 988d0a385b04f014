package sitetree

import (
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// publishFiles publishes files as a release of a site of its own, with
// the records the provider writes, waiting settle between the last write
// and the stat data (so that no file is racy when settle is long enough).
func publishFiles(t *testing.T, files map[string]string, settle time.Duration) (publish.Site, string, Records) {
	t.Helper()
	s, err := publish.Locate(filepath.Join(t.TempDir(), "site"))
	if err != nil {
		t.Fatal(err)
	}
	staged, err := s.Stage("site-test")
	if err != nil {
		t.Fatal(err)
	}
	m := site.NewManifest()
	for name, body := range files {
		p := filepath.Join(staged.Tree, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := m.Add(name, int64(len(body)), sha256.Sum256([]byte(body)), md5.Sum([]byte(body))); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(settle)
	records, err := NewRecords(t.Context(), staged.Tree, m)
	if err != nil {
		t.Fatal(err)
	}
	release, err := staged.Switch("se_1", records.ForSwitch())
	if err != nil {
		t.Fatal(err)
	}
	return s, release, records
}

func manyPages(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("guides/page-%03d.html", i)] = fmt.Sprintf("<p>page %03d</p>", i)
	}
	return files
}

// A release whose manifest was changed on disk, or whose records are gone,
// is not compared as intact: the refresh says what it found. Without the
// stat record, every file is read.
func TestSiteRefreshHoldsTheRecordsToState(t *testing.T) {
	t.Parallel()
	files := manyPages(4)
	s, release, records := publishFiles(t, files, 0)
	digest, stat := records.ManifestSHA256, records.StatSHA256()
	if err := os.Remove(s.Record(release, StatRecord)); err != nil {
		t.Fatal(err)
	}
	want, racyFrom, problem, err := ReadWant(s, release, digest, stat, 4)
	if err != nil || problem != "" || racyFrom != 0 || len(want) != 4 {
		t.Fatalf("without the stat record: %d files, racyFrom %d, %q, %v", len(want), racyFrom, problem, err)
	}
	d, read, err := Compare(t.Context(), s.Release(release), want, racyFrom)
	if err != nil || !d.None() || read != 4 {
		t.Errorf("without the stat record: %d read, drift %v, %v; want every file read and none", read, d.String(s.Dir, "se_1"), err)
	}
	manifest := s.Record(release, ManifestRecord)
	if err := os.WriteFile(manifest, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, problem, _ := ReadWant(s, release, digest, stat, 4); !strings.Contains(problem, "is not the manifest this site published") {
		t.Errorf("a changed manifest_file: %q", problem)
	}
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	if _, _, problem, _ := ReadWant(s, release, digest, stat, 4); !strings.Contains(problem, "is missing") {
		t.Errorf("a missing manifest_file: %q", problem)
	}
}

// A link in the release is not followed, even to a file of the release.
func TestSiteRefreshFollowsNoLink(t *testing.T) {
	t.Parallel()
	files := manyPages(2)
	s, release, records := publishFiles(t, files, 0)
	tree := s.Release(release)
	name := filepath.Join(tree, "guides", "page-000.html")
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("page-001.html", name); err != nil {
		t.Fatal(err)
	}
	want, racyFrom, _, err := ReadWant(s, release, records.ManifestSHA256, records.StatSHA256(), 2)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := Compare(t.Context(), tree, want, racyFrom)
	if err != nil || !strings.Contains(d.String(s.Dir, "se_1"), `"guides/page-000.html (no longer a regular file)"`) {
		t.Errorf("a link in place of a file: %v\n%s", err, d.String(s.Dir, "se_1"))
	}
}

func encodeStatRecord(manifestSHA256 string, time int64, files map[string]Want) []byte {
	b := AppendStatHeader(nil, manifestSHA256, time)
	for p, w := range files {
		b = AppendStatLine(b, p, w)
	}
	return b
}

// The stat record reads back as written, path spaces included, and one of
// another manifest, or damaged, is not used.
func TestStatRecordRoundTrip(t *testing.T) {
	t.Parallel()
	digest := strings.Repeat("ab", 32)
	files := map[string]Want{
		"index.html":         {Size: 12, SHA256: strings.Repeat("1", 64), Stat: Stat{Mtime: 5, Ctime: 6, Ino: 7}},
		"guides/a page.html": {Size: 0, SHA256: strings.Repeat("2", 64), Stat: Stat{Mtime: 8, Ctime: 9, Ino: 1 << 63}},
	}
	data := encodeStatRecord(digest, 42, files)
	got, racyFrom, ok := parseStatRecord(data, digest)
	if !ok || racyFrom != 42 || len(got) != len(files) {
		t.Fatalf("parse: ok %v, time %d, %d files", ok, racyFrom, len(got))
	}
	for p, w := range files {
		w.HasStat = true
		if got[p] != w {
			t.Errorf("%q: %+v, want %+v", p, got[p], w)
		}
	}
	for name, bad := range map[string][]byte{
		"another manifest": encodeStatRecord(strings.Repeat("cd", 32), 42, files),
		"cut short":        data[:len(data)-3],
		"no time":          encodeStatRecord(digest, 0, files),
		"a short digest":   []byte(statRecordHeader + "\nmanifest " + digest + "\ntime 1\n1 2 3 4 abc index.html\n"),
	} {
		if _, _, ok := parseStatRecord(bad, digest); ok {
			t.Errorf("%s: parsed", name)
		}
	}
}
