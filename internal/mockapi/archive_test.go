package mockapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// download GETs a fresh link of a completed job and verifies what it serves.
func download(t *testing.T, s *Server, id string) (int64, archive.Summary, error) {
	t.Helper()
	b := bundle(t, s, id)
	resp, err := http.Get(b["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %s", resp.Status)
	}
	if resp.ContentLength != int64(b["sizeBytes"].(float64)) {
		t.Fatalf("Content-Length %d, sizeBytes %v", resp.ContentLength, b["sizeBytes"])
	}
	sum, err := archive.Verify(resp.Body)
	return resp.ContentLength, sum, err
}

func TestBadArchivesAreRefused(t *testing.T) {
	for kind, want := range map[ArchiveKind]error{
		ArchiveTruncated:    archive.ErrCorrupt,
		ArchiveCorrupt:      archive.ErrCorrupt,
		ArchiveHTML:         archive.ErrNotTarGz,
		ArchiveZip:          archive.ErrNotTarGz,
		ArchiveNoIndex:      archive.ErrNoIndex,
		ArchiveAbsolutePath: archive.ErrUnsafePath,
		ArchiveDotDot:       archive.ErrUnsafePath,
		ArchiveSymlinkOut:   archive.ErrUnsafeLink,
	} {
		for _, size := range []int64{0, 3 << 20} { // compressed site, padded and stored
			s, clock := newTestServer(t, Config{})
			s.SetExportBehavior("docs.example.com", ExportBehavior{Archive: kind, ArchiveSize: size})
			id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
			if _, _, err := download(t, s, id); !errors.Is(err, want) {
				t.Errorf("kind %d, size %d: Verify = %v, want %v", kind, size, err, want)
			}
		}
	}
}

func TestSizedArchive(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	const size = 40 << 20
	s.SetExportBehavior("docs.example.com", ExportBehavior{ArchiveSize: size})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	n, sum, err := download(t, s, id)
	if err != nil {
		t.Fatal(err)
	}
	if sum.UnpackedBytes != size || sum.Size != n || n < size {
		t.Fatalf("asked for %d bytes of files: %+v, %d bytes served", size, sum, n)
	}
	if pages := int(getJob(t, s, id)["pageCount"].(float64)); sum.Files != sitegen.FileCount(pages)+1 { // and the padding
		t.Fatalf("%d files for %d pages", sum.Files, pages)
	}
	_, again, _ := download(t, s, id)
	if again.SHA256 != sum.SHA256 {
		t.Fatal("a second download served other bytes")
	}
}

// TestSetArchiveAndDownloadCounts switches a job's archive from bad to good,
// and checks that only downloads count, not link renewals.
func TestSetArchiveAndDownloadCounts(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SetExportBehavior("docs.example.com", ExportBehavior{Archive: ArchiveDotDot})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	if _, _, err := download(t, s, id); !errors.Is(err, archive.ErrUnsafePath) {
		t.Fatalf("Verify = %v", err)
	}
	if !s.SetArchive(id, ArchiveGood) || s.SetArchive("se_missing", ArchiveGood) {
		t.Fatal("SetArchive did not report whether the job exists")
	}
	if _, _, err := download(t, s, id); err != nil {
		t.Fatalf("after SetArchive(ArchiveGood): %v", err)
	}
	bundle(t, s, id) // a renewal
	if got := s.ArchiveDownloads(id); got != 2 || s.Downloads() != 2 {
		t.Fatalf("ArchiveDownloads = %d, Downloads = %d, want 2", got, s.Downloads())
	}
}

// TestLargeArchiveStreams reads a 256 MiB archive's first bytes: nothing waits
// for the whole archive to be built.
func TestLargeArchiveStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a 256 MiB archive")
	}
	s, clock := newTestServer(t, Config{})
	s.SetExportBehavior("docs.example.com", ExportBehavior{ArchiveSize: 256 << 20})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	resp, err := http.Get(bundle(t, s, id)["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := make([]byte, 2)
	if _, err := io.ReadFull(resp.Body, head); err != nil || !bytes.Equal(head, []byte{0x1f, 0x8b}) || resp.ContentLength < 256<<20 {
		t.Fatalf("head %x (%v), Content-Length %d", head, err, resp.ContentLength)
	}
}
