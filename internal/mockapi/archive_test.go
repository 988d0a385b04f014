package mockapi

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
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
	sum, err := (archive.Limits{}).Files(context.Background(), resp.Body, archive.UnpackOptions{})
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
				t.Errorf("kind %v, size %d: Verify = %v, want %v", kind, size, err, want)
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

// TestZipArchiveHoldsTheSite reads ArchiveZip as a zip: the good archive's
// files, byte for byte, and the padding, so that only the format is wrong.
func TestZipArchiveHoldsTheSite(t *testing.T) {
	for _, size := range []int64{0, 3 << 20} {
		s, clock := newTestServer(t, Config{StablePages: true})
		good := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
		s.SetExportBehavior("docs.example.com", ExportBehavior{Archive: ArchiveZip, ArchiveSize: size})
		zipped := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
		if size > 0 {
			s.SetExportBehavior("docs.example.com", ExportBehavior{ArchiveSize: size})
			good = completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
		}
		wantNames, wantContents := tarFiles(t, fetchArchive(t, s, good))

		body := fetchArchive(t, s, zipped)
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatalf("size %d: not a zip: %v", size, err)
		}
		var names []string
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			names = append(names, f.Name)
			if f.Name != sitegen.PaddingName && string(b) != wantContents[f.Name] {
				t.Errorf("size %d: %s differs from the good archive's", size, f.Name)
			}
			if f.Name == sitegen.PaddingName && wantContents[f.Name] != "" && len(b) != len(wantContents[f.Name]) {
				t.Errorf("size %d: padding of %d bytes, the good archive's has %d", size, len(b), len(wantContents[f.Name]))
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, wantNames) {
			t.Fatalf("size %d: zip holds %v, the good archive %v", size, names, wantNames)
		}
		if !bytes.Equal(fetchArchive(t, s, zipped), body) {
			t.Fatalf("size %d: a second download of the zip served other bytes", size)
		}
		if _, err := (archive.Limits{}).Files(context.Background(), bytes.NewReader(body), archive.UnpackOptions{}); !errors.Is(err, archive.ErrNotTarGz) || !strings.Contains(err.Error(), "zip") {
			t.Fatalf("size %d: Verify = %v, want ErrNotTarGz naming a zip", size, err)
		}
	}
}

// fetchArchive downloads a completed job's archive through a fresh link.
func fetchArchive(t *testing.T, s *Server, id string) []byte {
	t.Helper()
	resp, err := http.Get(bundle(t, s, id)["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %s, %v", resp.Status, err)
	}
	return b
}

func TestArchiveKindNames(t *testing.T) {
	seen := map[string]ArchiveKind{}
	for k := ArchiveGood; k <= ArchiveFileDirCollision; k++ {
		name := k.String()
		if name == "" || strings.HasPrefix(name, "ArchiveKind(") {
			t.Errorf("kind %d has no name", int(k))
		}
		if other, dup := seen[name]; dup {
			t.Errorf("kinds %d and %d are both named %q", int(other), int(k), name)
		}
		seen[name] = k
	}
	if got := (ArchiveFileDirCollision + 1).String(); got != "ArchiveKind(20)" {
		t.Errorf("a kind past the table is named %q: a kind was added without a name, or the table names a kind that does not exist", got)
	}
}
