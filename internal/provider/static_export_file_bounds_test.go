//go:build unix

package provider

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// A download larger than the size the API reported stops as soon as it
// passes it: the rest is never read, and nothing is left at filename.
func TestDownloadArchiveStopsPastTheReportedSize(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n, _ := io.Copy(w, sitegen.Archive{Size: 64 << 20, Seed: 1}.Open())
		served.Add(n)
	}))
	defer server.Close()
	filename := filepath.Join(t.TempDir(), "bundle.tar.gz")
	const reported = 1 << 20
	dir, name, err := openFileDir(filename)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	_, err = (&providerData{}).downloadArchive(t.Context(), server.URL+"/bundle.tar.gz?X-Amz-Signature=secret", dir, name, 0o644, "", reported)
	if err == nil || !strings.Contains(err.Error(), "larger than the 1048576 bytes the API reported") {
		t.Fatalf("err = %v, want the reported size named", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the link's signature: %v", err)
	}
	if _, err := os.Lstat(filename); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists after a refused download (lstat: %v)", filename, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(filename), ".bundle.tar.gz.tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
	// The server may have written ahead into socket buffers, but not much.
	if n := served.Load(); n > 16<<20 {
		t.Errorf("the server sent %d bytes of a 64 MiB archive; the download should stop near 1 MiB", n)
	}
}

// A FIFO where the archive should be is a changed file, found without
// opening it: opening a FIFO blocks until a writer comes, and so would plan.
func TestArchiveOnDiskNeverOpensAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "bundle.tar.gz")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var reason string
	var err error
	go func() {
		reason, err = archiveOnDisk(fifo, strings.Repeat("0", 64), 10, localfile.RemoveFound)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("archiveOnDisk blocked on a FIFO")
	}
	if err != nil || reason != "no longer a regular file" {
		t.Errorf("archiveOnDisk = %q, %v; want it reported as no longer a regular file", reason, err)
	}
}
