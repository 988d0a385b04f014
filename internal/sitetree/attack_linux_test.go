//go:build linux

package sitetree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// exchangeLoop exchanges a and b, two entries of one directory, over and
// over until the returned stop is called, as whoever can write that
// directory can: at every moment each name is one of the two entries.
func exchangeLoop(t *testing.T, a, b string) (stop func()) {
	t.Helper()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}

// The comparison of a release with the manifest (the refresh, and the plan
// before a destroy) walks a tree that whoever can write it can change
// under the walk: a directory swapped for a FIFO after it was listed must
// not block the refresh, and one swapped for a link must not lead the walk
// outside the release, nor name what is there.
func TestCompareSiteTreeIsNotLedOutOrBlocked(t *testing.T) {
	ctx := context.Background()
	release := t.TempDir()
	if err := os.MkdirAll(filepath.Join(release, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "a", "index.html"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]Want{"a/index.html": {Size: 1, SHA256: strings.Repeat("0", 64)}}

	t.Run("FIFO", func(t *testing.T) {
		fifo := filepath.Join(release, "fifo")
		if err := unix.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(fifo)
		stop := exchangeLoop(t, filepath.Join(release, "a"), fifo)
		unblock := func() {
			stop()
			for _, p := range []string{filepath.Join(release, "a"), fifo} {
				if w, err := os.OpenFile(p, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 2000 {
				_, _, _ = Compare(ctx, release, want, 0)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Compare blocked in the open of a FIFO swapped in for a directory")
			unblock()
			<-done
		}
		unblock()
	})

	t.Run("link", func(t *testing.T) {
		outside := t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "id_secret"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(release, "link")
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(link)
		stop := exchangeLoop(t, filepath.Join(release, "a"), link)
		defer stop()
		for range 2000 {
			drift, _, _ := Compare(ctx, release, want, 0)
			if names := strings.Join(drift.Extra, " "); strings.Contains(names, "id_secret") {
				stop()
				t.Fatalf("the walk followed a link swapped in for a directory and names %s", names)
			}
		}
	})
}
