//go:build linux || openbsd || darwin || freebsd || netbsd

// Only these systems give StatOf a change time (stat_ctim.go,
// stat_ctimespec.go): elsewhere every file is read, which the
// other refresh tests cover.

package sitetree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An unchanged release whose stat data is not racy is recognised without
// reading a file; a file rewritten with the same size and its modification
// time set back is read (its change time moved) and named.
func TestSiteRefreshReadsOnlyFilesWhoseStatDataChanged(t *testing.T) {
	t.Parallel()
	files := manyPages(50)
	s, release, records := publishFiles(t, files, 50*time.Millisecond)
	check := func() (Drift, int) {
		t.Helper()
		want, racyFrom, problem, err := ReadWant(s, release, records.ManifestSHA256, records.StatSHA256(), int64(len(files)))
		if err != nil || problem != "" {
			t.Fatalf("records: %q, %v", problem, err)
		}
		if racyFrom == 0 {
			t.Fatal("the stat record has no time: every file would be read")
		}
		d, read, err := Compare(t.Context(), s.Release(release), want, racyFrom)
		if err != nil {
			t.Fatal(err)
		}
		return d, read
	}
	if d, read := check(); !d.None() || read != 0 {
		t.Fatalf("an unchanged release: drift %v, %d files read, want none and 0", d.String(s.Dir, "se_1"), read)
	}
	name := filepath.Join(s.Release(release), "guides", "page-007.html")
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("<p>page XXX</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	d, read := check()
	if read != 1 || d.ChangedN != 1 || !strings.Contains(d.String(s.Dir, "se_1"), `"guides/page-007.html"`) {
		t.Errorf("a file rewritten with its size and time: %d files read, drift:\n%s", read, d.String(s.Dir, "se_1"))
	}
}

// A file whose stat data is the recorded one but whose times are not
// strictly before the record's time may have been written again within
// the clock's step: it is read, and a change is found. With the record's
// time after them, the same file would pass unread, which is why the
// rule is needed.
func TestSiteRefreshReadsRacyFiles(t *testing.T) {
	t.Parallel()
	files := manyPages(3)
	s, release, records := publishFiles(t, files, 0)
	name := filepath.Join(s.Release(release), "guides", "page-001.html")
	if err := os.WriteFile(name, []byte("<p>page XXX</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	now, ok := StatOf(info)
	if !ok {
		t.Fatal("no stat data")
	}
	for _, c := range []struct {
		racyFrom    int64
		read, found int
	}{
		{racyFrom: now.Ctime, read: 1, found: 1},           // written in the record's clock step: read
		{racyFrom: max(now.Ctime, now.Mtime) + 1, read: 0}, // not racy: trusted, the change unseen
	} {
		want, _, problem, err := ReadWant(s, release, records.ManifestSHA256, records.StatSHA256(), 3)
		if err != nil || problem != "" {
			t.Fatal(problem, err)
		}
		// As if the record had been taken after the rewrite, within one
		// step of the clock.
		w := want["guides/page-001.html"]
		w.Stat, w.HasStat = now, true
		want["guides/page-001.html"] = w
		d, read, err := Compare(t.Context(), s.Release(release), want, c.racyFrom)
		if err != nil {
			t.Fatal(err)
		}
		if read < c.read || (c.read == 0 && read != 0) || d.ChangedN != c.found {
			t.Errorf("racyFrom %d (file times %d, %d): %d read, %d changed; want %d read, %d changed",
				c.racyFrom, now.Mtime, now.Ctime, read, d.ChangedN, c.read, c.found)
		}
	}
}

// The stat record is trusted only as the publication pinned it: a served
// file changed and another removed, with the record edited to match them
// (their new stat data, its time moved on), is read in full and held to
// the manifest, and both are named.
func TestSiteRefreshTrustsOnlyThePinnedStatRecord(t *testing.T) {
	t.Parallel()
	files := manyPages(5)
	s, release, records := publishFiles(t, files, 50*time.Millisecond)
	digest, stat := records.ManifestSHA256, records.StatSHA256()
	changed := filepath.Join(s.Release(release), "guides", "page-001.html")
	if err := os.WriteFile(changed, []byte("<p>page XXX</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Release(release), "guides", "page-002.html")); err != nil {
		t.Fatal(err)
	}
	want, _, _, err := ReadWant(s, release, digest, stat, 5)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(changed)
	if err != nil {
		t.Fatal(err)
	}
	w := want["guides/page-001.html"]
	w.Stat, _ = StatOf(info)
	want["guides/page-001.html"] = w
	delete(want, "guides/page-002.html")
	forged := encodeStatRecord(digest, time.Now().Add(time.Hour).UnixNano(), want)
	if err := os.WriteFile(s.Record(release, StatRecord), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pinned := range []string{stat, ""} {
		want, racyFrom, problem, err := ReadWant(s, release, digest, pinned, 5)
		if err != nil || problem != "" {
			t.Fatalf("records: %q, %v", problem, err)
		}
		d, read, err := Compare(t.Context(), s.Release(release), want, racyFrom)
		if err != nil {
			t.Fatal(err)
		}
		report := d.String(s.Dir, "se_1")
		if racyFrom != 0 || read != 4 || !strings.Contains(report, `1 missing: "guides/page-002.html"`) || !strings.Contains(report, `1 changed: "guides/page-001.html"`) {
			t.Errorf("a forged stat record, %q pinned: trusted (racyFrom %d), %d files read; want every file read and both named:\n%s", pinned, racyFrom, read, report)
		}
	}
}
