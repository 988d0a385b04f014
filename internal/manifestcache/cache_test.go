package manifestcache

import (
	"crypto/md5"
	"crypto/sha256"
	"errors"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// The cache's pruning removes only the files the cache wrote, however old
// the others in cache_directory are.
func TestManifestCachePrunesOnlyItsOwnFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-2 * TTL)
	names := map[string]bool{ // name: pruned when old
		"notes.txt": false, ".0123456789abcdef0123456789abcdef.json.bak": false, "main.tf": false, "0123456789abcdef0123456789abcdef.json.bak": false,
		"0123456789abcdef0123456789abcdef.json": true, ".manifest-12345": false, "0123456789ABCDEF0123456789ABCDEF.json": false,
		localfile.TempName("0123456789abcdef0123456789abcdef.json"): true, ".0123456789abcdef0123456789abcdef.json.tmp-0123456789abcdef": false,
		localfile.TempName("notes.txt"): false,
	}
	for name := range names {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	prune(root, time.Now().Add(-TTL))
	for name, pruned := range names {
		_, err := os.Lstat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != pruned {
			t.Errorf("%s: removed %v, want %v", name, gone, pruned)
		}
	}
}

// An entry reads back as stored, for its API and job only, and an entry
// changed on disk is not trusted.
func TestManifestCacheTrustsOnlyItsSealedEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := site.NewManifest()
	for _, p := range []string{"index.html", "guides/a.html"} {
		if err := m.Add(p, int64(len(p)), sha256.Sum256([]byte(p)), md5.Sum([]byte(p))); err != nil {
			t.Fatal(err)
		}
	}
	c := New(dir, "https://api.example.com")
	if err := c.Store("se_1", strings.Repeat("ab", 32), m); err != nil {
		t.Fatal(err)
	}
	load := func(c *Cache, jobID string) (map[string]archive.File, bool) {
		t.Helper()
		got := map[string]archive.File{}
		sum, ok, err := c.Load(jobID, func(f archive.File) error { got[f.Name] = f; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if ok && sum != strings.Repeat("ab", 32) {
			t.Errorf("archive SHA-256 %q", sum)
		}
		return got, ok
	}
	got, ok := load(c, "se_1")
	if !ok || len(got) != 2 || got["index.html"].SHA256 != sha256.Sum256([]byte("index.html")) || got["guides/a.html"].Size != 13 {
		t.Fatalf("read back: ok %v, %+v", ok, got)
	}
	if _, ok := load(c, "se_2"); ok {
		t.Error("another job's read found an entry")
	}
	if _, ok := load(New(dir, "https://other.example.com"), "se_1"); ok {
		t.Error("another API's read found the entry")
	}
	name := filepath.Join(dir, c.name("se_1"))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"s":10`) {
		t.Fatalf("the entry does not hold index.html's size as written: %s", data)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(string(data), `"s":10`, `"s":11`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := load(c, "se_1"); ok {
		t.Error("an entry changed on disk was trusted")
	}
}
