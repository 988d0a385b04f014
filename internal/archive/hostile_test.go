package archive_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

// raw is one tar header written byte by byte, so that tests can build what
// archive/tar refuses to write: sparse entries, disagreeing pax and GNU
// records, star headers, bad checksums.
type raw struct {
	name, link, prefix string
	typ                byte
	size               int64  // the header's size field, and the data's length unless data is set
	sizeField          []byte // the size field as is, when set
	data               []byte
	gnu                bool           // GNU magic instead of POSIX ustar
	v7                 bool           // no magic at all
	patch              map[int][]byte // bytes written over the header before its checksum
	signedSum          bool           // checksum as a signed sum (old Sun tar)
}

func (h raw) bytes() []byte {
	var b [512]byte
	copy(b[0:100], h.name)
	copy(b[100:108], "0000644\x00")
	if h.typ == '5' {
		copy(b[100:108], "0000755\x00")
	}
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	data := h.data
	if data == nil && h.typ == '0' {
		data = bytes.Repeat([]byte("x"), int(h.size))
	}
	size := h.size
	if h.data != nil && size == 0 {
		size = int64(len(h.data))
	}
	copy(b[124:136], fmt.Sprintf("%011o\x00", size))
	if h.sizeField != nil {
		copy(b[124:136], h.sizeField)
	}
	copy(b[136:148], fmt.Sprintf("%011o\x00", testTime.Unix()))
	b[156] = h.typ
	copy(b[157:257], h.link)
	switch {
	case h.v7:
	case h.gnu:
		copy(b[257:265], "ustar  \x00")
	default:
		copy(b[257:265], "ustar\x0000")
		copy(b[345:500], h.prefix)
	}
	for off, p := range h.patch {
		copy(b[off:], p)
	}
	copy(b[148:156], "        ")
	var sum int64
	for _, c := range b {
		if h.signedSum {
			sum += int64(int8(c))
		} else {
			sum += int64(c)
		}
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	out := b[:]
	if len(data) > 0 {
		out = append(out, data...)
		out = append(out, make([]byte, (512-len(data)%512)%512)...)
	}
	return out
}

func rfile(name, body string) raw {
	return raw{name: name, typ: '0', data: []byte(body), size: int64(len(body))}
}

func rdir(name string) raw          { return raw{name: name, typ: '5'} }
func rsym(name, target string) raw  { return raw{name: name, typ: '2', link: target} }
func rhard(name, target string) raw { return raw{name: name, typ: '1', link: target} }

// pax is an extended header of records in the order given.
func pax(typ byte, name string, kv ...string) raw {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		rec := " " + kv[i] + "=" + kv[i+1] + "\n"
		n := len(rec)
		for len(strconv.Itoa(n))+len(rec) != n {
			n = len(strconv.Itoa(n)) + len(rec)
		}
		b.WriteString(strconv.Itoa(n) + rec)
	}
	return raw{name: name, typ: typ, data: []byte(b.String())}
}

// gnuLong is a GNU long-name ('L') or long-link ('K') record.
func gnuLong(typ byte, value string) raw {
	return raw{name: "././@LongLink", typ: typ, gnu: true, data: []byte(value + "\x00")}
}

// rawTar joins headers and ends the archive with two zero blocks.
func rawTar(hs ...raw) []byte {
	var out []byte
	for _, h := range hs {
		out = append(out, h.bytes()...)
	}
	return append(out, make([]byte, 1024)...)
}

func rawTgz(t testing.TB, hs ...raw) []byte {
	return gz(t, rawTar(hs...))
}

var rindex = rfile("index.html", indexPage)

// hostile are archives that a deployment must not receive, built to exploit
// the differences between unpackers, with the verdict each must get.
func hostile(t testing.TB) []rejection {
	amb := archive.ErrAmbiguous
	sparseMap := "1\n0\n4611686018427387904\n"
	afterEnd := append(rawTar(rindex), rsym("evil", "/etc").bytes()...)
	afterOneZero := append(append(rindex.bytes(), make([]byte, 512)...), rawTar(rsym("evil", "../..."))...)
	secondMember := append(rawTgz(t, rindex), rawTgz(t, rsym("evil", "../../etc"))...)
	starHeader := rfile("star.html", "x")
	starHeader.patch = map[int][]byte{508: []byte("tar\x00")}
	gnuPrefix := rfile("plain.html", "x")
	gnuPrefix.gnu = true
	gnuPrefix.patch = map[int][]byte{345: []byte("../../etc")}
	unknownMagic := rfile("odd.html", "x")
	unknownMagic.patch = map[int][]byte{257: []byte("ustar\x0001")}
	v7 := rfile("v7.html", "v7")
	v7.v7 = true
	signed := rfile("café.html", "x")
	signed.signedSum = true
	badSize := rfile("size.html", "x")
	badSize.sizeField = []byte("0000000001 x")
	negSize := rfile("neg.html", "")
	negSize.sizeField = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	symData := rsym("s", "index.html")
	symData.data = []byte("hello")
	dirData := rdir("d/")
	dirData.data = []byte("hello")
	gnuSparse := raw{name: "sparse.html", typ: 'S', size: 0}
	oldRegSlash := rfile("page/", "")
	oldRegSlash.typ = 0
	fileWithLink := rfile("f.html", "x")
	fileWithLink.link = "index.html"
	longWithGarbage := gnuLong('L', "a.html")
	longWithGarbage.data = []byte("a.html\x00../../etc/passwd\x00")
	paxSize := pax('x', "PaxHeaders/s.html", "size", "0")
	bigZeros := append(rawTar(rindex), make([]byte, 2<<20)...)

	return []rejection{
		// Sparse files: read differently, and the holes cost work without bytes.
		{"GNU sparse type", rawTgz(t, rindex, gnuSparse), amb, "sparse.html", "sparse"},
		{"pax sparse 1.0 of 2^62 bytes", rawTgz(t, rindex,
			pax('x', "PaxHeaders/big", "GNU.sparse.major", "1", "GNU.sparse.minor", "0", "GNU.sparse.name", "big.html", "GNU.sparse.realsize", "4611686018427387904"),
			raw{name: "GNUSparseFile.0/big", typ: '0', data: []byte(sparseMap + strings.Repeat("\x00", 512-len(sparseMap)))}), amb, "PaxHeaders/big", "sparse"},
		{"pax sparse 0.1", rawTgz(t, rindex, pax('x', "PaxHeaders/s", "GNU.sparse.size", "1000000", "GNU.sparse.map", "0,1"), rfile("s.html", "x")), amb, "PaxHeaders/s", "sparse"},
		{"star realsize", rawTgz(t, rindex, pax('x', "PaxHeaders/s", "SCHILY.realsize", "1000000"), rfile("s.html", "x")), amb, "PaxHeaders/s", "sparse"},
		// Global headers change later entries for some unpackers only.
		{"global header with a path", rawTgz(t, pax('g', "pax_global_header", "path", "evil"), rindex), amb, "pax_global_header", "global"},
		{"global header with a link path", rawTgz(t, pax('g', "pax_global_header", "comment", "x", "linkpath", "/etc"), rindex, rsym("l", "a")), amb, "pax_global_header", "global"},
		{"comment-only global header after an entry", rawTgz(t, rindex, pax('g', "pax_global_header", "comment", "x")), amb, "pax_global_header", "after the first header"},
		// Names and link targets from records that unpackers weigh differently.
		{"pax path and GNU long name differ", rawTgz(t, rindex, gnuLong('L', "a.html"), pax('x', "PaxHeaders/a", "path", "b.html"), rfile("a.html", "x")), amb, "b.html", "GNU long name"},
		{"pax link path and GNU long link differ", rawTgz(t, rindex, gnuLong('K', "index.html"), pax('x', "PaxHeaders/l", "linkpath", "../../etc"), rsym("l", "index.html")), amb, "l", "GNU long link"},
		{"two pax headers for one entry", rawTgz(t, rindex, pax('x', "PaxHeaders/a", "path", "a.html"), pax('x', "PaxHeaders/a", "path", "../a.html"), rfile("x", "x")), amb, "PaxHeaders/a", "two pax"},
		{"two GNU long names for one entry", rawTgz(t, rindex, gnuLong('L', "a.html"), gnuLong('L', "b.html"), rfile("x", "x")), amb, "././@LongLink", "two GNU long-name"},
		{"GNU long name with bytes after its name", rawTgz(t, rindex, longWithGarbage, rfile("x", "x")), amb, "././@LongLink", "bytes after its name"},
		{"pax header without its entry", rawTgz(t, rindex, pax('x', "PaxHeaders/a", "path", "a.html")), amb, "PaxHeaders/a", "followed by the end"},
		{"pax size differs from the header's", rawTgz(t, rindex, paxSize, rfile("s.html", "hello")), amb, "s.html", "pax size"},
		{"pax path with a NUL", rawTgz(t, rindex, pax('x', "PaxHeaders/a", "path", "a.html\x00../../x"), rfile("a", "x")), amb, "PaxHeaders/a", "NUL"},
		{"pax header declaring the names' character set", rawTgz(t, rindex, pax('x', "PaxHeaders/a", "hdrcharset", "BINARY", "path", "a.html"), rfile("a", "x")), amb, "PaxHeaders/a", "character set"},
		{"pax key set twice", rawTgz(t, rindex, pax('x', "PaxHeaders/a", "path", "a.html", "path", "../a.html"), rfile("a", "x")), amb, "PaxHeaders/a", "twice"},
		{"malformed pax record", rawTgz(t, rindex, raw{name: "PaxHeaders/a", typ: 'x', data: []byte("99 path=a.html\n")}, rfile("a", "x")), amb, "PaxHeaders/a", "malformed"},
		{"GNU volume key", rawTgz(t, rindex, pax('x', "PaxHeaders/a", "GNU.volume.offset", "5"), rfile("a", "x")), amb, "PaxHeaders/a", "GNU key"},
		// Header formats read differently.
		{"star header", rawTgz(t, rindex, starHeader), amb, "star.html", "star"},
		{"GNU header with a prefix", rawTgz(t, rindex, gnuPrefix), amb, "plain.html", "prefix"},
		{"unknown magic", rawTgz(t, rindex, unknownMagic), amb, "odd.html", "unknown tar format"},
		{"V7 header", rawTgz(t, rindex, v7), amb, "v7.html", "V7"},
		{"signed checksum", rawTgz(t, rindex, signed), archive.ErrCorrupt, "", "header is damaged"},
		{"size with trailing garbage", rawTgz(t, rindex, badSize), amb, "size.html", "size field"},
		{"negative base-256 size", rawTgz(t, rindex, negSize), amb, "neg.html", "size field"},
		{"symbolic link with data", rawTgz(t, rindex, symData), amb, "s", "size of 5 bytes"},
		{"directory with data", rawTgz(t, rindex, dirData), amb, "d/", "size of 5 bytes"},
		{"old-style file named like a directory", rawTgz(t, rindex, oldRegSlash), amb, "page/", "ends with a slash"},
		{"file named with a trailing dot", rawTgz(t, rindex, rfile("a.html/.", "x")), amb, "a.html/.", "ends with a slash"},
		{"hard link to a name with a trailing slash", rawTgz(t, rindex, rfile("a/b.html", "x"), rhard("a/l", "a/b.html/")), amb, "a/l", "target ends with a slash"},
		{"file with a link target", rawTgz(t, rindex, fileWithLink), amb, "f.html", "link target"},
		{"contiguous file", rawTgz(t, rindex, raw{name: "c.html", typ: '7'}), archive.ErrSpecialFile, "c.html", "entry type"},
		{"name that is not UTF-8", rawTgz(t, rindex, rfile("caf\xe9.html", "x")), amb, "caf\xe9.html", "UTF-8"},
		// Bytes never read by some unpackers.
		{"entry after the end-of-archive marker", gz(t, afterEnd), amb, "evil", "follows the end-of-archive marker"},
		{"entry after one zero block", gz(t, afterOneZero), amb, "evil", "follows the end-of-archive marker"},
		{"garbage after the end-of-archive marker", gz(t, append(rawTar(rindex), "garbage"...)), amb, "", "follows the end-of-archive marker"},
		{"second gzip member", secondMember, amb, "", "second gzip member"},
		{"zeros after the gzip stream", append(rawTgz(t, rindex), make([]byte, 64)...), archive.ErrCorrupt, "", "not gzip follow"},
		{"megabytes of zeros after the end-of-archive marker", gz(t, bigZeros), archive.ErrLimit, "", "zeros follow"},
		// The tree as a file system builds it.
		{"hard link to a symbolic link", rawTgz(t, rindex, rsym("s", "index.html"), rhard("h", "s")), amb, "h", "hard link to the symbolic link"},
		{"hard link to a symbolic link that escapes from its new place", rawTgz(t, rindex, rdir("a/"), rdir("a/b/"), rsym("a/b/s", "../x"), rhard("h", "a/b/s")), amb, "h", "symbolic link"},
		{"symbolic link defined twice", rawTgz(t, rindex, rsym("l", "index.html"), rsym("l", "../../etc")), amb, "l", "earlier entry made a symbolic link"},
		{"file replaced by a symbolic link", rawTgz(t, rindex, rfile("a.html", "x"), rsym("a.html", "index.html")), amb, "a.html", "earlier entry made a file"},
		{"file replaced by a directory", rawTgz(t, rindex, rfile("a", "x"), rdir("a/")), amb, "a/", "earlier entry made a file"},
		{"directory replaced by a file", rawTgz(t, rindex, rfile("a/b.html", "x"), rfile("a", "x")), amb, "a", "earlier entry made a directory"},
		{"file defined twice", rawTgz(t, rindex, rfile("a.html", "one"), rfile("a.html", "two")), amb, "a.html", "earlier entry made a file"},
		{"entry through an earlier symbolic link", rawTgz(t, rindex, rsym("d", "."), rfile("d/x.html", "x")), amb, "d/x.html", "passes through the symbolic link \"d\""},
		{"symbolic link created through a directory link", rawTgz(t, rindex, rdir("sub/"), rsym("d", "sub"), rsym("d/evil", "../../x")), amb, "d/evil", "passes through the symbolic link"},
		{"entry through a file", rawTgz(t, rindex, rfile("a", "x"), rfile("a/b", "x")), amb, "a/b", "made a file"},
		{"hard link through a symbolic link", rawTgz(t, rindex, rfile("sub/a.html", "x"), rsym("d", "sub"), rhard("h", "d/a.html")), amb, "h", "passes through the symbolic link"},
		{"hard link to a directory", rawTgz(t, rindex, rdir("a/"), rhard("h", "a")), archive.ErrUnsafeLink, "h", "directory"},
		{"hard link to a later entry", rawTgz(t, rindex, rhard("h", "later.html"), rfile("later.html", "x")), archive.ErrUnsafeLink, "h", "no earlier entry"},
		{"link through a later link that climbs out as it is created", rawTgz(t, rindex, rdir("a/b/"), rsym("l", "s/../../x"), rsym("s", "a/b")), archive.ErrUnsafeLink, "l", "outside"},
		// The home page.
		{"index.html a dangling symbolic link", rawTgz(t, rsym("index.html", "missing.html")), archive.ErrNoIndex, "index.html", "symbolic link"},
		{"index.html a symbolic link to a directory", rawTgz(t, rfile("docs/index.html", "x"), rsym("index.html", "docs")), archive.ErrNoIndex, "index.html", "symbolic link"},
		{"index.html a directory", rawTgz(t, rdir("index.html/")), archive.ErrNoIndex, "index.html", "directory"},
		{"index.html a hard link to nothing", rawTgz(t, rhard("index.html", "missing.html")), archive.ErrUnsafeLink, "index.html", "no earlier entry"},
		{"index.html a hard link to a later file", rawTgz(t, rhard("index.html", "en.html"), rfile("en.html", indexPage)), archive.ErrUnsafeLink, "index.html", "no earlier entry"},
		{"index.html replaced by a later entry", rawTgz(t, rindex, rfile("en.html", "x"), rsym("index.html", "en.html")), amb, "index.html", "earlier entry made a file"},
		{"index.html replaced by a later file", rawTgz(t, rindex, rfile("./index.html", "other")), amb, "./index.html", "earlier entry made a file"},
	}
}

func TestVerifyRejectsHostileArchives(t *testing.T) {
	for _, tc := range hostile(t) {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := archive.Verify(bytes.NewReader(tc.data))
			checkRejection(t, tc, sum, err)
		})
	}
}
