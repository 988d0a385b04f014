//go:build linux

package provider

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/hashicorp/terraform-exec/tfexec"
	"golang.org/x/sys/unix"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// holdOpens holds every open of the file at p until onOpen has run, as a
// neighbour who watches a file can act between its check and its use, but
// on cue rather than by chance: a fanotify permission event stops the
// opening process after it resolved p and before it reads a byte, and the
// open goes on once onOpen returns. It reports how many opens it held.
// Only root may watch so: without it the test fails under make test and
// skips elsewhere (testtools).
func holdOpens(t *testing.T, p string, onOpen func(n int)) (opens *atomic.Int32) {
	t.Helper()
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_CONTENT|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK, unix.O_RDONLY|unix.O_LARGEFILE)
	if err != nil {
		testtools.Missing(t, "fanotify (the tests run as root, as CI runs them)", "run the tests as root", err)
	}
	if err := unix.FanotifyMark(fd, unix.FAN_MARK_ADD, unix.FAN_OPEN_PERM, unix.AT_FDCWD, p); err != nil {
		unix.Close(fd)
		t.Fatalf("watching the opens of %s: %v", p, err)
	}
	opens = new(atomic.Int32)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			select {
			case <-quit:
				return
			default:
			}
			// A close does not end a read in another thread: poll, and
			// look at quit between polls.
			if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 100); err != nil || n == 0 {
				continue
			}
			n, err := unix.Read(fd, buf)
			if err != nil {
				continue // EAGAIN, or EINTR
			}
			for off := 0; off+int(unsafe.Sizeof(unix.FanotifyEventMetadata{})) <= n; {
				ev := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&buf[off]))
				if ev.Mask&unix.FAN_OPEN_PERM != 0 {
					onOpen(int(opens.Add(1)))
				}
				var resp [8]byte
				binary.NativeEndian.PutUint32(resp[:4], uint32(ev.Fd))
				binary.NativeEndian.PutUint32(resp[4:], unix.FAN_ALLOW)
				_, _ = unix.Write(fd, resp[:])
				if ev.Fd >= 0 {
					unix.Close(int(ev.Fd))
				}
				off += int(ev.Event_len)
			}
		}
	}()
	t.Cleanup(func() {
		close(quit)
		<-done
		unix.Close(fd) // allows whatever waits for an answer still
	})
	return opens
}

// A neighbour who can write the directory above the archive's swaps that
// directory for a link to another directory, which holds a file of the
// same name, while destroy hashes the archive: the destroy deletes the
// archive it wrote, where it wrote it, and nothing in the other directory.
func TestAccStaticExportFile_cliDestroyFollowsNoSwappedParent(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dist, moved, other := filepath.Join(parent, "dist"), filepath.Join(parent, "dist-moved"), filepath.Join(parent, "other")
	filename := filepath.Join(dist, "bundle.tar.gz")
	tf, err := runner.Module(filepath.Join(t.TempDir(), "module"), map[string][]byte{"main.tf": []byte(fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}

resource "docsadmin_static_export_file" "bundle" {
  job_id   = docsadmin_static_export.site.job_id
  filename = %q
}
`, filename))}, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	out := tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply: %v\n%s", err, out.String())
	}
	users := filepath.Join(other, "bundle.tar.gz")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	acctest.WriteFile(t, users, "the user's own archive")

	var swapErr atomic.Value
	opens := holdOpens(t, filename, func(n int) {
		if n > 1 {
			return
		}
		// Between the destroy's check of the archive and its removal.
		if err := os.Rename(dist, moved); err != nil {
			swapErr.Store(err)
			return
		}
		if err := os.Symlink(other, dist); err != nil {
			swapErr.Store(err)
		}
	})
	out = tfrunner.Record(tf)
	// No refresh: the destroy's own check is the first open of the archive.
	if err := tf.Destroy(ctx, tfexec.Refresh(false)); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out.String())
	}
	if err, _ := swapErr.Load().(error); err != nil {
		t.Fatalf("swapping the directory: %v", err)
	}
	if opens.Load() == 0 {
		t.Fatalf("the destroy never opened the archive, so nothing was swapped while it ran:\n%s", out.String())
	}
	if body, err := os.ReadFile(users); err != nil || string(body) != "the user's own archive" {
		t.Errorf("the destroy deleted or changed the file in the directory swapped in: %q, %v\n%s", body, err, out.String())
	}
	if _, err := os.Lstat(filepath.Join(moved, "bundle.tar.gz")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the archive the resource wrote is still there, in the directory moved aside (lstat: %v)\n%s", err, out.String())
	}
}
