package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

var kinds = []error{archive.ErrNotTarGz, archive.ErrCorrupt, archive.ErrEmpty, archive.ErrNoIndex,
	archive.ErrUnsafePath, archive.ErrUnsafeLink, archive.ErrSpecialFile, archive.ErrLimit, archive.ErrAmbiguous}

// FuzzVerify feeds arbitrary bytes: Verify never panics, a verdict is either
// a correct summary or an *Error of a known kind with a short message.
func FuzzVerify(f *testing.F) {
	f.Add(site(f))
	f.Add(tgz(f, withFormat(file("./index.html", indexPage), tar.FormatPAX), symlink("a/b", "../c"), hardlink("h", "index.html")))
	f.Add(tgz(f, withFormat(file("index.html", indexPage), tar.FormatGNU), dir("x/"), symlink("s", "x/y"), symlink("x/y", "..")))
	for _, r := range rejections(f) {
		f.Add(r.data)
	}
	for _, r := range hostile(f) {
		f.Add(r.data)
	}
	for _, r := range tricky(f) {
		f.Add(r.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := archive.Verify(bytes.NewReader(data))
		if err == nil {
			if sum.SHA256 != sha(data) || sum.Size != int64(len(data)) || sum.Entries < 1 || sum.Files > sum.Entries {
				t.Fatalf("Verify = %+v for %d bytes", sum, len(data))
			}
			checkAsGoReadsIt(t, data)
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

// checkAsGoReadsIt reads an accepted archive again with archive/tar, an
// unpacker the verifier's code does not share: it must read the same entries,
// none outside the root, every link resolving inside it (through the others,
// as the kernel would), and index.html a regular file.
func checkAsGoReadsIt(t *testing.T, data []byte) {
	t.Helper()
	ours, err := archive.EntriesOf(data)
	if err != nil {
		t.Fatalf("EntriesOf: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("accepted, but gzip cannot read it: %v", err)
	}
	tr := tar.NewReader(zr)
	var theirs []archive.Entry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("accepted, but archive/tar fails after %d entries: %v", len(theirs), err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		e := archive.Entry{Name: hdr.Name, Type: hdr.Typeflag, Linkname: hdr.Linkname}
		if e.Type == tar.TypeReg {
			e.Size = hdr.Size
		}
		theirs = append(theirs, e)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		t.Fatalf("accepted, but gzip fails at its end: %v", err)
	}
	if fmt.Sprint(ours) != fmt.Sprint(theirs) {
		t.Fatalf("the verifier read\n%v\narchive/tar reads\n%v", ours, theirs)
	}

	types := map[string]byte{}
	links := map[string]string{}
	for _, e := range theirs {
		name := path.Clean(e.Name)
		if name != "." && !filepath.IsLocal(name) {
			t.Fatalf("accepted entry %q, which is not local", e.Name)
		}
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if _, isLink := links[dir]; isLink {
				t.Fatalf("accepted entry %q, inside the link %q", e.Name, dir)
			}
		}
		if prev, ok := types[name]; ok && !(prev == tar.TypeDir && e.Type == tar.TypeDir) {
			t.Fatalf("accepted %q twice", e.Name)
		}
		types[name] = e.Type
		switch e.Type {
		case tar.TypeSymlink:
			links[name] = e.Linkname
		case tar.TypeLink:
			if k, ok := types[path.Clean(e.Linkname)]; !ok || k == tar.TypeSymlink || k == tar.TypeDir || !filepath.IsLocal(path.Clean(e.Linkname)) {
				t.Fatalf("accepted hard link %q -> %q, to an entry of type %q", e.Name, e.Linkname, k)
			}
		}
	}
	for name, target := range links {
		if !staysInside(links, path.Dir(name), target) {
			t.Fatalf("accepted link %q -> %q, which leaves the root", name, target)
		}
	}
	if k := types["index.html"]; k != tar.TypeReg && k != tar.TypeLink {
		t.Fatalf("accepted an index.html of type %q", k)
	}
}

// staysInside resolves dir/target through links from the root, as the
// kernel would, treating anything else as a directory.
func staysInside(links map[string]string, dir, target string) bool {
	if strings.HasPrefix(target, "/") {
		return false
	}
	pending := strings.Split(dir+"/"+target, "/")
	var cur []string
	for hops := 0; len(pending) > 0; {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, part)
		next, ok := links[strings.Join(cur, "/")]
		if !ok {
			continue
		}
		if hops++; hops > 40 || strings.HasPrefix(next, "/") {
			return false
		}
		cur = cur[:len(cur)-1]
		pending = append(strings.Split(next, "/"), pending...)
	}
	return true
}
