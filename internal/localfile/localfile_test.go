//go:build unix

package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sha256Of hashes the file at p through a handle of its directory, as
// callers with a path do.
func sha256Of(p string) (string, int64, error) {
	dir, name, err := OpenParent(p)
	if err != nil {
		return "", 0, err
	}
	defer dir.Close()
	sum, size, _, err := SHA256In(dir, name)
	return sum, size, err
}

func TestSHA256(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.tar.gz")
	if err := os.WriteFile(file, []byte("archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte("archive"))
	sum, size, err := sha256Of(file)
	if err != nil || sum != hex.EncodeToString(want[:]) || size != 7 {
		t.Fatalf("SHA256 = %s, %d, %v", sum, size, err)
	}

	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sha256Of(link); err == nil {
		t.Error("a symbolic link was followed")
	}

	// A FIFO must be refused at once: opening one to read would block
	// until a writer comes, and a refresh would hang.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := sha256Of(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("SHA256(a FIFO) = %v, want a refusal naming it", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SHA256 blocked on a FIFO")
	}
}

// A special file is refused without being opened: a writer waiting for a
// FIFO's reader stays waiting, and a device is never opened. A file
// swapped in between the check and the open is refused.
func TestOpenRegularOpensNoSpecialFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A writer's open blocks until a reader opens the FIFO, even one that
	// closes it at once.
	writer := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		writer <- err
	}()
	time.Sleep(200 * time.Millisecond) // the writer is waiting
	if _, err := OpenRegular(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("OpenRegular(a FIFO) = %v, want a refusal naming it", err)
	}
	select {
	case err := <-writer:
		t.Errorf("OpenRegular opened the FIFO: its writer stopped waiting (%v)", err)
	case <-time.After(500 * time.Millisecond):
		// Release the writer.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
			defer r.Close()
		}
		if err := <-writer; err != nil {
			t.Error(err)
		}
	}

	// A character device, reached without a link.
	if info, err := os.Lstat(os.DevNull); err == nil && info.Mode()&os.ModeCharDevice != 0 {
		if f, err := OpenRegular(os.DevNull); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenRegular(%s) = %v, want a refusal naming it", os.DevNull, err)
		}
	}

	// Another file renamed over the checked one before the open.
	file := filepath.Join(dir, "a.json")
	other := filepath.Join(dir, "b.json")
	for _, p := range []string{file, other} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	beforeOpen = func(p string) {
		if err := os.Rename(other, p); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { beforeOpen = nil })
	if f, err := OpenRegular(file); err == nil || !strings.Contains(err.Error(), "replaced") {
		if f != nil {
			f.Close()
		}
		t.Errorf("OpenRegular of a file replaced after its check = %v, want a refusal", err)
	}
	beforeOpen = nil
	f, err := OpenRegular(file)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestSyncTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "index.html"), []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := SyncTree(root); err != nil {
		t.Fatal(err)
	}
}

// RemoveFound removes the file that was hashed and no other: not one
// renamed over it since (which stays, with its content), and, through the
// handle of its directory, not one of the same name in a directory that a
// link swapped in for that directory leads to.
func TestRemoveFoundRemovesOnlyTheFileFound(t *testing.T) {
	parent := t.TempDir()
	sub, other := filepath.Join(parent, "dist"), filepath.Join(parent, "other")
	for _, d := range []string{sub, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, body string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(sub, "bundle.tar.gz")
	write(file, "written")
	dir, name, err := OpenParent(file)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	sum, size, found, err := SHA256In(dir, name)
	if want := sha256.Sum256([]byte("written")); err != nil || sum != hex.EncodeToString(want[:]) || size != 7 {
		t.Fatalf("SHA256In = %s, %d, %v", sum, size, err)
	}

	// Another file renamed over the one hashed: put back, not removed.
	write(filepath.Join(sub, "theirs"), "theirs")
	if err := os.Rename(filepath.Join(sub, "theirs"), file); err != nil {
		t.Fatal(err)
	}
	if err := RemoveFound(dir, name, found); !errors.Is(err, ErrReplaced) {
		t.Errorf("RemoveFound of a file replaced since it was hashed = %v, want ErrReplaced", err)
	}
	if body, err := os.ReadFile(file); err != nil || string(body) != "theirs" {
		t.Errorf("the file that replaced the one hashed holds %q (%v), want it left as it was", body, err)
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 1 {
		t.Errorf("RemoveFound left %v in the directory", entries)
	}

	// The directory swapped for a link to another that holds a file of the
	// same name, after the hash: the handle still names the directory the
	// file was hashed in.
	write(file, "written again")
	_, _, found, err = SHA256In(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(other, name), "the user's")
	if err := os.Rename(sub, sub+"-moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, sub); err != nil {
		t.Fatal(err)
	}
	if err := RemoveFound(dir, name, found); err != nil {
		t.Fatalf("RemoveFound = %v", err)
	}
	if body, err := os.ReadFile(filepath.Join(other, name)); err != nil || string(body) != "the user's" {
		t.Errorf("the file of the directory the link leads to holds %q (%v): removed through the link", body, err)
	}
	if _, err := os.Lstat(filepath.Join(sub+"-moved", name)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file hashed is still there (lstat: %v)", err)
	}
	if err := RemoveFound(dir, name, found); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RemoveFound of a file already gone = %v, want fs.ErrNotExist", err)
	}
}
