package archive_test

import (
	"archive/tar"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
)

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func mustVerify(t *testing.T, data []byte) archive.Summary {
	t.Helper()
	// One byte at a time as well: the verifier must not depend on how the
	// reader splits its data.
	for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
		sum, err := archive.Verify(r)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if sum.SHA256 != sha(data) || sum.Size != int64(len(data)) {
			t.Fatalf("Verify = %+v, want SHA-256 %s and size %d", sum, sha(data), len(data))
		}
	}
	sum, _ := archive.Verify(bytes.NewReader(data))
	return sum
}

func TestVerifyAcceptsRealisticSites(t *testing.T) {
	longDir := strings.Repeat("section-", 20) // beyond the 100-byte ustar name field
	tests := []struct {
		name    string
		archive func(t testing.TB) []byte
		files   int
	}{
		{"small site with ./ prefixes and directories", site, 3},
		{"no prefix, no directory entries", func(t testing.TB) []byte {
			return tgz(t, file("index.html", indexPage), file("a/b/c/d.html", "deep"))
		}, 2},
		{"index.html not first", func(t testing.TB) []byte {
			return tgz(t, file("assets/x.css", "x"), file("index.html", indexPage))
		}, 2},
		{"pax names and records, and a global header as git archive writes", func(t testing.TB) []byte {
			global := ent{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "0123456789abcdef"}}}
			long := withFormat(file(longDir+"/"+longDir+"/page.html", "long"), tar.FormatPAX)
			long.hdr.PAXRecords = map[string]string{"SCHILY.xattr.user.origin": "docs"}
			return tgz(t, global, withFormat(file("./index.html", indexPage), tar.FormatPAX), long)
		}, 2},
		{"GNU long names", func(t testing.TB) []byte {
			return tgz(t, withFormat(file("index.html", indexPage), tar.FormatGNU), withFormat(file(longDir+"/page.html", "x"), tar.FormatGNU))
		}, 2},
		{"links that stay inside", func(t testing.TB) []byte {
			return tgz(t,
				file("index.html", indexPage),
				dir("shared/assets/"),
				file("shared/assets/site.css", "x"),
				symlink("latest", "v2"),
				dir("v2/"),
				symlink("v2/assets", "../shared/assets"),
				symlink("v2/home.html", "../index.html"),
				symlink("v2/self", "."),
				hardlink("copy.html", "index.html"),
				hardlink("copy2.html", "./shared/assets/site.css"),
			)
		}, 4},
		{"index.html as a hard link to an earlier file", func(t testing.TB) []byte {
			return tgz(t, file("en/index.html", indexPage), hardlink("index.html", "en/index.html"))
		}, 2},
		{"empty files and a dangling link", func(t testing.TB) []byte {
			return tgz(t, file("index.html", ""), file(".nojekyll", ""), symlink("old.html", "gone.html"))
		}, 2},
		{"file names with spaces and non-ASCII", func(t testing.TB) []byte {
			return tgz(t, file("index.html", indexPage), file("guides/début rapide.html", "x"), file("a..b/..c.html", "x"))
		}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum := mustVerify(t, tc.archive(t))
			if sum.Files != tc.files {
				t.Errorf("Files = %d, want %d", sum.Files, tc.files)
			}
		})
	}
}

func TestVerifySummary(t *testing.T) {
	data := site(t)
	sum := mustVerify(t, data)
	want := archive.Summary{SHA256: sha(data), MD5: fmt.Sprintf("%x", md5.Sum(data)), Size: int64(len(data)), Files: 3, Entries: 6,
		UnpackedBytes: int64(len(indexPage) + len("<h1>Getting started</h1>") + len("body{margin:0}"))}
	if sum != want {
		t.Fatalf("Verify = %+v, want %+v", sum, want)
	}
}

// TestVerifyAcceptsSystemTar checks archives written by the tar command, as
// a site's build writes them: "./" first, then "./index.html" and so on.
func TestVerifyAcceptsSystemTar(t *testing.T) {
	tarCmd := testtools.LookPath(t, "tar", testtools.MakeTools)
	root := t.TempDir()
	for name, body := range map[string]string{"index.html": indexPage, "guides/a.html": "a", "assets/img/logo.svg": "<svg/>"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("guides/a.html", filepath.Join(root, "a.html")); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tarCmd, "-czf", "-", "-C", root, ".").Output()
	if err != nil {
		t.Fatalf("tar: %v", err)
	}
	if sum := mustVerify(t, out); sum.Files != 3 {
		t.Fatalf("Files = %d, want 3", sum.Files)
	}
}

type rejection struct {
	name  string
	data  []byte
	kind  error
	entry string // the entry the error must name, if any
	words string // words the message must hold
}

func rejections(t testing.TB) []rejection {
	valid := site(t)
	plainTar := tarOf(t, file("index.html", indexPage))
	big := tgz(t, file("index.html", indexPage), file("big.html", strings.Repeat("0123456789abcdef", 4096)))
	crcBroken := bytes.Clone(valid)
	crcBroken[len(crcBroken)-8] ^= 0xff
	damaged := bytes.Clone(big)
	damaged[len(damaged)/2] ^= 0x55
	tarCut := tarOf(t, file("index.html", indexPage), file("b.html", strings.Repeat("b", 3000)))
	longName := strings.Repeat("d/", 2100) + "x.html"
	return []rejection{
		{"no bytes", nil, archive.ErrEmpty, "", "0 bytes"},
		{"gzip of nothing", gz(t, nil), archive.ErrEmpty, "", "no entries"},
		{"tar without entries", tgz(t), archive.ErrEmpty, "", "no entries"},
		{"zip", append([]byte("PK\x03\x04\x14\x00\x00\x00"), make([]byte, 100)...), archive.ErrNotTarGz, "", "zip"},
		{"HTML error page", []byte("<!DOCTYPE html>\n<html><body>Sign in</body></html>"), archive.ErrNotTarGz, "", "HTML page"},
		{"object store XML error", []byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code></Error>`), archive.ErrNotTarGz, "", "XML"},
		{"JSON error", []byte(`{"error":"not found"}`), archive.ErrNotTarGz, "", "JSON"},
		{"plain tar", plainTar, archive.ErrNotTarGz, "", "plain tar"},
		{"bzip2", []byte("BZh91AY&SY"), archive.ErrNotTarGz, "", "bzip2"},
		{"random bytes", []byte{0, 1, 2, 3, 4, 5}, archive.ErrNotTarGz, "", "00 01 02 03"},
		{"gzip of text", gz(t, []byte(strings.Repeat("hello world\n", 100))), archive.ErrNotTarGz, "", "not a tar"},
		{"gzip of a short text", gz(t, []byte("hello")), archive.ErrNotTarGz, "", "too short to be a tar"},
		{"cut in the gzip header", valid[:5], archive.ErrCorrupt, "", "truncated"},
		{"cut in the middle", big[:len(big)/2], archive.ErrCorrupt, "", "truncated"},
		{"cut before the trailer", valid[:len(valid)-4], archive.ErrCorrupt, "", "truncated"},
		{"damaged compressed data", damaged, archive.ErrCorrupt, "", "damaged"},
		{"damaged checksum", crcBroken, archive.ErrCorrupt, "", "checksum"},
		{"garbage after the gzip stream", append(bytes.Clone(valid), "trailing"...), archive.ErrCorrupt, "", "not gzip follow"},
		{"tar cut inside a complete gzip stream", gz(t, tarCut[:2000]), archive.ErrCorrupt, "b.html", "tar inside is truncated"},
		{"no index.html", tgz(t, file("about.html", "x"), dir("docs/")), archive.ErrNoIndex, "", "no index.html"},
		{"index.html one level down", tgz(t, file("site/index.html", indexPage)), archive.ErrNoIndex, "", "repacking"},
		{"index.html is a directory", tgz(t, dir("index.html/"), file("index.html/x", "x")), archive.ErrNoIndex, "index.html", "no index.html file"},
		{"only directories", tgz(t, dir("./"), dir("docs/")), archive.ErrNoIndex, "", "no index.html"},
		{"absolute path", tgz(t, file("index.html", indexPage), file("/etc/cron.d/x", "x")), archive.ErrUnsafePath, "/etc/cron.d/x", "absolute"},
		{"dot-dot prefix", tgz(t, file("index.html", indexPage), file("../x.html", "x")), archive.ErrUnsafePath, "../x.html", `".."`},
		{"dot-dot inside", tgz(t, file("index.html", indexPage), file("a/../../x.html", "x")), archive.ErrUnsafePath, "a/../../x.html", `".."`},
		{"dot-dot that stays inside", tgz(t, file("index.html", indexPage), file("a/../b.html", "x")), archive.ErrUnsafePath, "a/../b.html", `".."`},
		{"dot-dot directory", tgz(t, file("index.html", indexPage), dir("./../")), archive.ErrUnsafePath, "./../", `".."`},
		{"symlink to an absolute path", tgz(t, file("index.html", indexPage), symlink("passwd.html", "/etc/passwd")), archive.ErrUnsafeLink, "passwd.html", "absolute"},
		{"symlink to the parent", tgz(t, file("index.html", indexPage), symlink("up", "..")), archive.ErrUnsafeLink, "up", "outside"},
		{"nested symlink climbing too far", tgz(t, file("index.html", indexPage), symlink("a/b/l", "../../../x")), archive.ErrUnsafeLink, "a/b/l", "outside"},
		{"symlink chain that climbs out", tgz(t, file("index.html", indexPage),
			symlink("s", "x/y"), symlink("x/y", ".."), symlink("t", "s/..")), archive.ErrUnsafeLink, "t", "outside"},
		{"symlink through a later link to an absolute path", tgz(t, file("index.html", indexPage),
			symlink("t", "etc/passwd"), symlink("etc", "/etc")), archive.ErrUnsafeLink, "etc", "absolute"},
		{"symlink loop", tgz(t, file("index.html", indexPage), symlink("a", "b"), symlink("b", "a")), archive.ErrUnsafeLink, "a", "loop"},
		{"symlink with an empty target", tgz(t, file("index.html", indexPage), symlink("a", "")), archive.ErrUnsafeLink, "a", "empty target"},
		{"hard link to an absolute path", tgz(t, file("index.html", indexPage), hardlink("h", "/etc/shadow")), archive.ErrUnsafeLink, "h", "outside"},
		{"hard link with dot-dot", tgz(t, file("index.html", indexPage), hardlink("h", "../x")), archive.ErrUnsafeLink, "h", "outside"},
		{"character device", tgz(t, file("index.html", indexPage), special("null", tar.TypeChar)), archive.ErrSpecialFile, "null", "device"},
		{"block device", tgz(t, file("index.html", indexPage), special("sda", tar.TypeBlock)), archive.ErrSpecialFile, "sda", "device"},
		{"FIFO", tgz(t, file("index.html", indexPage), special("pipe", tar.TypeFifo)), archive.ErrSpecialFile, "pipe", "FIFO"},
		{"name beyond PATH_MAX", tgz(t, file("index.html", indexPage), withFormat(file(longName, "x"), tar.FormatPAX)), archive.ErrLimit, longName, "longer than 4096"},
		{"component beyond NAME_MAX", tgz(t, file("index.html", indexPage), withFormat(file(strings.Repeat("n", 256), "x"), tar.FormatPAX)), archive.ErrLimit, strings.Repeat("n", 256), "255"},
		{"link target beyond PATH_MAX", tgz(t, file("index.html", indexPage), withFormat(symlink("l", longName), tar.FormatPAX)), archive.ErrLimit, "l", "link target"},
	}
}

func TestVerifyRejects(t *testing.T) {
	for _, tc := range rejections(t) {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := archive.Verify(bytes.NewReader(tc.data))
			checkRejection(t, tc, sum, err)
			// The same verdict one byte at a time.
			_, err2 := archive.Verify(iotest.OneByteReader(bytes.NewReader(tc.data)))
			if err2 == nil || err2.Error() != err.Error() {
				t.Errorf("one byte at a time: %v, want %v", err2, err)
			}
		})
	}
}

func checkRejection(t *testing.T, tc rejection, sum archive.Summary, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("Verify accepted it: %+v", sum)
	}
	if sum != (archive.Summary{}) {
		t.Errorf("Verify returned %+v with its error", sum)
	}
	if !errors.Is(err, tc.kind) {
		t.Errorf("error %q is not %v", err, tc.kind)
	}
	var aerr *archive.Error
	if !errors.As(err, &aerr) {
		t.Fatalf("error %q is not an *archive.Error", err)
	}
	if aerr.Entry != tc.entry {
		t.Errorf("Entry = %q, want %q", aerr.Entry, tc.entry)
	}
	if tc.entry != "" && !strings.Contains(err.Error(), archive.QuoteName(tc.entry)) {
		t.Errorf("error %q does not name %s", err, archive.QuoteName(tc.entry))
	}
	if !strings.Contains(err.Error(), tc.words) {
		t.Errorf("error %q does not say %q", err, tc.words)
	}
	if len(err.Error()) > 600 {
		t.Errorf("error is %d bytes long: %q", len(err.Error()), err)
	}
}

func TestVerifyLimits(t *testing.T) {
	data := tgz(t, file("index.html", indexPage), file("a.html", "aaaa"), file("b.html", "bbbb"), file("c.html", "cccc"))
	_, err := archive.Limits{MaxEntries: 3}.Verify(bytes.NewReader(data))
	checkRejection(t, rejection{kind: archive.ErrLimit, words: "more than 3 entries"}, archive.Summary{}, err)
	if _, err := (archive.Limits{MaxEntries: 4}).Verify(bytes.NewReader(data)); err != nil {
		t.Errorf("4 entries with MaxEntries 4: %v", err)
	}

	_, err = archive.Limits{MaxUnpackedBytes: int64(len(indexPage)) + 10}.Verify(bytes.NewReader(data))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "c.html", words: "unpack to more than"}, archive.Summary{}, err)

	_, err = archive.Limits{MaxNameBytes: 8}.Verify(bytes.NewReader(tgz(t, file("index.html", indexPage))))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "index.html", words: "longer than 8 bytes"}, archive.Summary{}, err)
}

func TestVerifyNamesAreQuotedAndShortened(t *testing.T) {
	name := "/evil\n\x1b[31mred\xff" + strings.Repeat("x", 500)
	_, err := archive.Verify(bytes.NewReader(tgz(t, file("index.html", indexPage), withFormat(file(name, "x"), tar.FormatPAX))))
	if err == nil {
		t.Fatal("accepted an absolute name")
	}
	msg := err.Error()
	for _, raw := range []string{"\n", "\x1b", "\xff", strings.Repeat("x", 200)} {
		if strings.Contains(msg, raw) {
			t.Errorf("message %q holds %q unescaped or unshortened", msg, raw)
		}
	}
	if !strings.Contains(msg, `"/evil\n\x1b[31mred`) || !strings.Contains(msg, fmt.Sprintf("(%d bytes)", len(name))) {
		t.Errorf("message %q does not show the name's start and length", msg)
	}
}

func TestVerifyReadError(t *testing.T) {
	cause := errors.New("connection reset by peer")
	data := site(t)
	_, err := archive.Verify(io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(cause)))
	if !errors.Is(err, archive.ErrRead) || !errors.Is(err, cause) {
		t.Fatalf("error %q is not ErrRead wrapping the cause", err)
	}
	// A reader reporting an early end is a truncated archive.
	_, err = archive.Verify(io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if !errors.Is(err, archive.ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error %q does not report a truncated archive", err)
	}
}

func TestVerifyCopy(t *testing.T) {
	data := site(t)
	var out bytes.Buffer
	sum, err := archive.Limits{}.VerifyCopy(&out, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) || sum.SHA256 != sha(data) {
		t.Fatalf("copied %d bytes, want the %d read", out.Len(), len(data))
	}

	// Rejected archives are copied as far as they were read.
	out.Reset()
	bad := tgz(t, file("index.html", indexPage), file("/x", "x"))
	if _, err := (archive.Limits{}).VerifyCopy(&out, bytes.NewReader(bad)); !errors.Is(err, archive.ErrUnsafePath) {
		t.Fatalf("VerifyCopy of an unsafe archive: %v", err)
	}

	cause := errors.New("no space left on device")
	_, err = archive.Limits{}.VerifyCopy(failingWriter{cause}, bytes.NewReader(data))
	var aerr *archive.Error
	if !errors.Is(err, cause) || errors.As(err, &aerr) || !strings.Contains(err.Error(), "writing the archive") {
		t.Fatalf("VerifyCopy with a failing writer: %v", err)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// TestVerifyBoundsLinkResolution: links built to make resolving them costly
// are refused as beyond a limit instead of being walked for minutes.
func TestVerifyBoundsLinkResolution(t *testing.T) {
	entries := []ent{file("index.html", indexPage),
		// c0 leads 800 directories down and back: 1,600 steps to the root.
		symlink("c0", strings.Repeat("a/", 800)+strings.Repeat("../", 800))}
	for i := range 70 {
		entries = append(entries, symlink(fmt.Sprintf("l%d", i), strings.Repeat("c0/", 40)))
	}
	_, err := archive.Verify(bytes.NewReader(tgz(t, entries...)))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "l65", words: "too many or too deep"}, archive.Summary{}, err)

	// Many plain links: refused once they would hold too much memory.
	if testing.Short() {
		return
	}
	entries = entries[:1]
	for i := range 70_000 {
		entries = append(entries, symlink(fmt.Sprintf("links/%d", i), "../index.html"))
	}
	_, err = archive.Verify(bytes.NewReader(tgz(t, entries...)))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "links/55261", words: "symbolic links' names and targets exceed"}, archive.Summary{}, err)
}
