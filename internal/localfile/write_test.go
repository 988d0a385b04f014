//go:build unix

package localfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write replaces the file whole or not at all: the new content is synced
// before the rename (a killed write leaves the old file and no temporary
// one), a link at the name is replaced and never written through, and an
// existing file at the temporary name is never opened.
// The temporary names that TempName makes are recognised by TempOf, with
// the name they were made for, and no other name is: not the name itself,
// not a name of the same shape made by hand, not one of another infix.
func TestTempNameIsRecognisedAndNothingElse(t *testing.T) {
	for _, name := range []string{"site.json", "lock", ".bundle.tar.gz", "a.tmp-b", "manifest.tmp-ABCDEFGHIJKLMNOPQRSTUVWXYZ"} {
		tmp := TempName(name)
		if got, ok := TempOf(tmp); !ok || got != name {
			t.Errorf("TempOf(%q) = %q, %v; want %q", tmp, got, ok, name)
		}
		if other := TempName(name); other == tmp {
			t.Errorf("TempName(%q) made %q twice", name, tmp)
		}
	}
	for _, entry := range []string{
		"site.json", ".site.json", "site.json.tmp-ABCDEFGHIJKLMNOPQRSTUVWXYZ", ".site.json.tmp-",
		".site.json.tmp-0123456789abcdef", // a random hex suffix, as made by hand
		".site.json.tmp-ABCDEFGHIJKLMNOPQRSTUVWXY", ".site.json.tmp-ABCDEFGHIJKLMNOPQRSTUVWXYz",
		"..tmp-ABCDEFGHIJKLMNOPQRSTUVWXYZ", ".site.json.bak-ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	} {
		if name, ok := TempOf(entry); ok {
			t.Errorf("TempOf(%q) = %q: a name TempName does not make", entry, name)
		}
	}
}

func TestWriteIsDurableAndConfined(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteBytes(root, "site.json", 0o640, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "site.json")); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v; want 0640", info.Mode(), err)
	}

	// A fill that fails leaves the old content and no temporary file.
	failed := errors.New("killed")
	err = Write(root, "site.json", 0o644, func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("Write = %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "site.json")); string(got) != "one" {
		t.Errorf("after a failed write the file holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed write left %v", entries)
	}

	// The data is synced to the file before the rename that publishes it,
	// and the directory after it; the file Write renames is the one it
	// synced (observed through the fill's writer, an *os.File, and the
	// inode that ends at the name).
	var steps []string
	traceWrite = func(step string) { steps = append(steps, strings.Fields(step)[0]) }
	defer func() { traceWrite = nil }()
	var synced os.FileInfo
	err = Write(root, "site.json", 0o644, func(w io.Writer) error {
		f, ok := w.(*os.File)
		if !ok {
			t.Fatalf("the fill writes to %T, not to the file it syncs", w)
		}
		if _, err := f.Write([]byte("two")); err != nil {
			return err
		}
		synced, _ = f.Stat()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(steps, ","); got != "sync,rename,sync" {
		t.Errorf("Write's steps: %s, want the file synced, renamed, then its directory synced", got)
	}
	final, err := os.Lstat(filepath.Join(dir, "site.json"))
	if err != nil || !os.SameFile(synced, final) {
		t.Errorf("the file at the name is not the one written and synced")
	}

	// A link at the name is replaced by the file, its target untouched.
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linked.json")); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(root, "linked.json", 0o644, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "mine" {
		t.Errorf("Write wrote through a link: the target holds %q", got)
	}
	if info, _ := os.Lstat(filepath.Join(dir, "linked.json")); info == nil || !info.Mode().IsRegular() {
		t.Error("the link was not replaced by a regular file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("Write left %v, want site.json and linked.json only", entries)
	}
	// Nothing outside the handle: a name that leaves it is refused.
	if err := WriteBytes(root, "../escape.json", 0o644, []byte("x")); err == nil || !strings.Contains(err.Error(), "escape") {
		if _, statErr := os.Stat(filepath.Join(filepath.Dir(dir), "escape.json")); statErr == nil {
			t.Error("Write wrote outside its directory")
		}
	}
}
