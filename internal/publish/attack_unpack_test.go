//go:build unix

package publish

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

// siteArchive is a .tar.gz of one index.html.
func siteArchive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("<html>site</html>")
	if err := tw.WriteHeader(&tar.Header{Name: "index.html", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The tree of a Stage is written through the handle the caller is given
// (Staged.TreeDir), as the site resource does: the download unpacks into it. A
// neighbour who writes the directory above the site moves the store away
// while the export is fetched and puts at its name a directory of their
// own whose staging is a link to a directory of the user's that holds a
// "tree": the unpacking must not land there, and the user's tree must
// stay whole.
func TestStagedTreeCannotBeLedOutByTheStoresName(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	users := filepath.Join(t.TempDir(), "work")
	intact := userTree(t, filepath.Join(users, stagedTree))
	st, err := s.Stage("site-a")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Abandon() }()
	data := siteArchive(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// The neighbour, while the export is fetched.
		if err := os.Rename(s.Store, filepath.Join(parent, ".moved")); err != nil {
			t.Error(err)
		}
		if err := os.Mkdir(s.Store, 0o755); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(users, filepath.Join(s.Store, stagingDir)); err != nil {
			t.Error(err)
		}
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	_, _ = archive.Limits{}.FetchUnpack(context.Background(), srv.Client(), srv.URL+"/bundle.tar.gz", st.TreeDir(), archive.UnpackOptions{})
	intact()
	if _, err := os.Lstat(filepath.Join(users, stagedTree, "index.html")); err == nil {
		t.Error("the site's tree was unpacked into the user's directory, through the link at the store's name")
	}
}
