//go:build unix

package publish

import (
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
	returnsSoon(t, "Withdraw", func() { _, _ = s.Withdraw("site-a") }, release)
	returnsSoon(t, "Stage", func() {
		if st, err := s.Stage("site-a"); err == nil {
			_ = st.Abandon()
			t.Error("Stage under a FIFO succeeded")
		}
	}, release)
	returnsSoon(t, "Describe", func() { _ = Describe(s.Dir) }, release)
}
