//go:build unix

package publish

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// returnsSoon fails the test when f has not returned within a few seconds:
// a call blocked in the open of a FIFO. release unblocks it (a writer
// opens the FIFO) so that the test ends.
func returnsSoon(t *testing.T, what string, f func(), release func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Errorf("%s blocked on a FIFO", what)
		release()
		<-done
	}
}

// openWriter releases a reader blocked in the open of the FIFO p.
func openWriter(p string) {
	if w, err := os.OpenFile(p, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

// A FIFO where the directory that holds the served path should be (a
// neighbour who writes the directory above it, or a user's mistake) is
// refused at once: nothing is opened that could wait for a writer.
func TestFIFOAsTheParentNeverBlocks(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "dist")
	if err := unix.Mkfifo(parent, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Locate(filepath.Join(parent, "site"))
	if err != nil {
		t.Fatal(err)
	}
	release := func() { openWriter(parent) }
	returnsSoon(t, "Inspect", func() { _, _ = s.Inspect() }, release)
	returnsSoon(t, "CheckStore", func() { _ = s.CheckStore() }, release)
	returnsSoon(t, "Withdraw", func() { _, _ = s.Withdraw("site-a", StoreID{}) }, release)
	returnsSoon(t, "Stage", func() {
		if st, err := s.Stage("site-a"); err == nil {
			_ = st.Abandon()
			t.Error("Stage under a FIFO succeeded")
		}
	}, release)
	returnsSoon(t, "Describe", func() { _ = Describe(s.Dir) }, release)
}

// A directory at the store's name without a readable record (made by a
// user, or planted by a neighbour) is told apart as an entry the provider
// did not make, an *EntryError, as a link or a file there is: a destroy
// then leaves it with a warning instead of failing, and nothing in it is
// removed.
func TestStoreWithoutARecordIsNotTheProviders(t *testing.T) {
	for name, record := range map[string]string{"no record": "", "unreadable record": "{not json"} {
		t.Run(name, func(t *testing.T) {
			s, err := Locate(filepath.Join(t.TempDir(), "site"))
			if err != nil {
				t.Fatal(err)
			}
			intact := userTree(t, s.Store)
			if record != "" {
				writeFile(t, filepath.Join(s.Store, markerName), record)
			}
			_, err = s.Inspect()
			var entry *EntryError
			if !errors.As(err, &entry) || entry.Path != s.Store {
				t.Errorf("Inspect = %v, want an EntryError naming %s", err, s.Store)
			}
			if _, err := s.Withdraw("site-a", StoreID{}); !errors.As(err, &entry) {
				t.Errorf("Withdraw = %v, want an EntryError", err)
			}
			intact()
		})
	}
}

// A user who removed the store by hand, then destroys: the provider's own
// link, which now serves nothing, goes too; a user's link beside it stays.
func TestWithdrawRemovesItsLinkWhenTheStoreIsGone(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	if err := os.RemoveAll(s.Store); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(parent, "users-link")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Withdraw("site-a", StoreID{}); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(s.Dir); err == nil {
		t.Errorf("the provider's link %s (%v) was left after the withdrawal", s.Dir, info.Mode())
	}
	if got := names(t, parent); len(got) != 1 || got[0] != "users-link" {
		t.Errorf("the directory holds %v, want only the user's link", got)
	}
}
