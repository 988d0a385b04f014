package publish

import (
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// swapWithFIFO exchanges the directory p with a FIFO beside it, over and
// over, as a neighbour who writes p's parent can, until the returned stop
// is called: at every moment p is either the directory or the FIFO.
func swapWithFIFO(t *testing.T, p string) (stop func()) {
	t.Helper()
	fifo := filepath.Join(filepath.Dir(p), "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, fifo, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
		})
		openWriter(p)
		openWriter(fifo)
	}
}

// A directory that Lstat found, swapped for a FIFO before it is opened, is
// refused without blocking: the store (Inspect opens it), and a user's
// directory at the served path (Inspect and PathProblem read it).
func TestDirectorySwappedForAFIFONeverBlocks(t *testing.T) {
	for _, at := range []string{"store", "served path"} {
		t.Run(at, func(t *testing.T) {
			s, err := Locate(filepath.Join(t.TempDir(), "site"))
			if err != nil {
				t.Fatal(err)
			}
			p := s.Store
			writeFile(t, filepath.Join(s.Store, markerName), `{"directory":"`+s.Dir+`","owner":"site-a"}`)
			if at == "served path" {
				p = s.Dir
				writeFile(t, filepath.Join(s.Dir, "index.html"), "mine")
			}
			stop := swapWithFIFO(t, p)
			returnsSoon(t, "Inspect and PathProblem", func() {
				for range 3000 {
					_, _ = s.Inspect()
					if at == "served path" {
						_ = PathProblem(s.Dir)
					}
				}
			}, stop)
			stop()
		})
	}
}
