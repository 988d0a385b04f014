//go:build unix

package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSHA256(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.tar.gz")
	if err := os.WriteFile(file, []byte("archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte("archive"))
	sum, size, err := SHA256(file)
	if err != nil || sum != hex.EncodeToString(want[:]) || size != 7 {
		t.Fatalf("SHA256 = %s, %d, %v", sum, size, err)
	}

	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SHA256(link); err == nil {
		t.Error("a symbolic link was followed")
	}

	// A FIFO must be refused at once: opening one to read would block
	// until a writer comes, and a refresh would hang.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := SHA256(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("SHA256(a FIFO) = %v, want a refusal naming it", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SHA256 blocked on a FIFO")
	}
}

func TestSyncTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "index.html"), []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SyncTree(dir); err != nil {
		t.Fatal(err)
	}
	if err := SyncTree(filepath.Join(dir, "missing")); err == nil && runtime.GOOS == "linux" {
		t.Error("SyncTree of a missing directory reported no error")
	}
}
