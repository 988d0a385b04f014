package archive_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

var kinds = []error{archive.ErrNotTarGz, archive.ErrCorrupt, archive.ErrEmpty, archive.ErrNoIndex,
	archive.ErrUnsafePath, archive.ErrUnsafeLink, archive.ErrSpecialFile, archive.ErrLimit}

// FuzzVerify feeds arbitrary bytes: Verify never panics, a verdict is either
// a correct summary or an *Error of a known kind with a short message.
func FuzzVerify(f *testing.F) {
	f.Add(site(f))
	f.Add(tgz(f, withFormat(file("./index.html", indexPage), tar.FormatPAX), symlink("a/b", "../c"), hardlink("h", "index.html")))
	f.Add(tgz(f, withFormat(file("index.html", indexPage), tar.FormatGNU), dir("x/"), symlink("s", "x/y"), symlink("x/y", "..")))
	for _, r := range rejections(f) {
		f.Add(r.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := archive.Verify(bytes.NewReader(data))
		if err == nil {
			if sum.SHA256 != sha(data) || sum.Size != int64(len(data)) || sum.Entries < 1 || sum.Files > sum.Entries {
				t.Fatalf("Verify = %+v for %d bytes", sum, len(data))
			}
			return
		}
		var aerr *archive.Error
		if !errors.As(err, &aerr) {
			t.Fatalf("error %q is not an *archive.Error", err)
		}
		known := false
		for _, k := range kinds {
			known = known || errors.Is(err, k)
		}
		if !known {
			t.Fatalf("error %q has kind %v", err, aerr.Kind)
		}
		if len(err.Error()) > 1000 {
			t.Fatalf("error is %d bytes long", len(err.Error()))
		}
	})
}

// FuzzVerifyEntry puts one arbitrary entry beside index.html: whatever
// Verify accepts unpacks inside the root, as filepath.IsLocal judges.
func FuzzVerifyEntry(f *testing.F) {
	f.Add("a/b.html", "", byte(tar.TypeReg))
	f.Add("./x/", "", byte(tar.TypeDir))
	f.Add("a/l", "../b", byte(tar.TypeSymlink))
	f.Add("a/l", "../../b", byte(tar.TypeSymlink))
	f.Add("l", "/etc/passwd", byte(tar.TypeSymlink))
	f.Add("h", "a/../../b", byte(tar.TypeLink))
	f.Add("../x", "", byte(tar.TypeReg))
	f.Add("a/./../../x", "", byte(tar.TypeReg))
	f.Add("/abs", "", byte(tar.TypeDir))
	f.Add("dev", "", byte(tar.TypeChar))
	f.Add("index.html", "", byte(tar.TypeFifo))
	f.Fuzz(func(t *testing.T, name, target string, typ byte) {
		e := ent{hdr: tar.Header{Typeflag: typ, Name: name, Linkname: target, Mode: 0o644, Format: tar.FormatPAX}}
		if typ == tar.TypeReg {
			e.body = "x"
			e.hdr.Size = 1
		}
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, x := range []ent{file("index.html", indexPage), e} {
			if tw.WriteHeader(&x.hdr) != nil {
				return // not representable in a tar
			}
			if _, err := tw.Write([]byte(x.body)); err != nil {
				return
			}
		}
		if tw.Close() != nil {
			return
		}
		_, err := archive.Verify(bytes.NewReader(gz(t, buf.Bytes())))
		if err != nil {
			if len(err.Error()) > 1000 {
				t.Fatalf("error is %d bytes long", len(err.Error()))
			}
			return
		}
		// tar cuts names at NUL; what matters is the name as read back.
		name, _, _ = strings.Cut(name, "\x00")
		target, _, _ = strings.Cut(target, "\x00")
		if clean := strings.TrimRight(name, "/"); clean != "" && clean != "." && !filepath.IsLocal(clean) {
			t.Fatalf("accepted entry %q, which is not local", name)
		}
		switch typ {
		case tar.TypeSymlink:
			if !filepath.IsLocal(path.Join(path.Dir(name), target)) {
				t.Fatalf("accepted symlink %q -> %q, which leaves the root", name, target)
			}
		case tar.TypeLink:
			if !filepath.IsLocal(target) {
				t.Fatalf("accepted hard link %q -> %q, which leaves the root", name, target)
			}
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			t.Fatalf("accepted special entry %q of type %q", name, typ)
		}
	})
}
