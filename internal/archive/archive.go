// Package archive verifies a static site bundle, a gzip'd tar, as a
// deployment will unpack and serve it: readable to the end, with an
// index.html at its root, and no entry that lands outside the directory it is
// unpacked into. It streams: memory stays bounded whatever the archive's size.
package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

// Summary describes a verified archive.
type Summary struct {
	// SHA256 is the lower-case hex SHA-256 of the compressed bytes as read.
	SHA256 string
	// Size is the number of compressed bytes read.
	Size int64
	// Files is the number of regular files, hard links included.
	Files int
	// Entries counts every entry: files, directories and links.
	Entries int
	// UnpackedBytes is the total size of the regular files.
	UnpackedBytes int64
}

// Defaults of Limits. A documentation site rarely holds more than tens of
// thousands of files.
const (
	DefaultMaxEntries = 1_000_000
)

// Limits bound what Verify accepts beyond safety. The zero value means the
// defaults.
type Limits struct {
	// MaxEntries bounds the number of entries (DefaultMaxEntries when 0).
	MaxEntries int
	// MaxNameBytes bounds entry names and link targets (Linux's PATH_MAX,
	// 4096, when 0 or larger).
	MaxNameBytes int
	// MaxUnpackedBytes bounds the total size of the files once unpacked, to
	// refuse an archive that would fill the volume (no bound when 0).
	MaxUnpackedBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxNameBytes <= 0 || l.MaxNameBytes > pathMax {
		l.MaxNameBytes = pathMax
	}
	return l
}

// Verify reads a gzip'd tar to its end with the default Limits. See
// Limits.Verify.
func Verify(r io.Reader) (Summary, error) {
	return Limits{}.Verify(r)
}

// Verify reads a gzip'd tar to its end and summarises it, or returns an
// *Error saying why a deployment could not unpack and serve it, with a zero
// Summary. It holds neither the archive nor an entry in memory.
func (l Limits) Verify(r io.Reader) (Summary, error) {
	return l.verify(r, nil)
}

// VerifyCopy is Verify that also writes every byte it reads to w, so that a
// download is saved and verified in one pass. A failed write stops it with
// an error that is not an *Error.
func (l Limits) VerifyCopy(w io.Writer, r io.Reader) (Summary, error) {
	if w == nil {
		return Summary{}, errors.New("archive: VerifyCopy needs a writer")
	}
	return l.verify(r, w)
}

// source hashes, counts and optionally copies what is read, and remembers
// failures of the reader and of the writer apart from the archive's.
type source struct {
	r        io.Reader
	w        io.Writer
	h        hash.Hash
	n        int64
	readErr  error
	writeErr error
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.h.Write(p[:n])
		s.n += int64(n)
		if s.w != nil {
			if _, werr := s.w.Write(p[:n]); werr != nil {
				s.writeErr = werr
				return n, werr
			}
		}
	}
	if err != nil && err != io.EOF {
		s.readErr = err
	}
	return n, err
}

// members reads a gzip stream member after member, as gunzip does, and
// remembers how it ended: cleanly, cut short, or followed by bytes that are
// not gzip.
type members struct {
	br       *bufio.Reader
	zr       *gzip.Reader
	err      error // the last error returned
	trailing bool  // non-gzip bytes follow a complete member
}

// errTrailing stops the stream at bytes that follow a member and are not gzip.
var errTrailing = errors.New("bytes after the gzip stream")

func (m *members) Read(p []byte) (int, error) {
	n, err := m.read(p)
	if err != nil {
		m.err = err
	}
	return n, err
}

func (m *members) read(p []byte) (int, error) {
	for {
		n, err := m.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		// A member ended with its checksum verified: the stream ends here,
		// or another member follows.
		head, perr := m.br.Peek(2)
		switch {
		case len(head) == 0 && perr == io.EOF:
			return n, io.EOF
		case len(head) < 2 && perr != io.EOF:
			return n, perr
		case len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b:
			m.trailing = true
			return n, errTrailing
		}
		if err := m.zr.Reset(m.br); err != nil {
			return n, err
		}
		m.zr.Multistream(false)
		if n > 0 {
			return n, nil
		}
	}
}

type verifier struct {
	limits  Limits
	src     *source
	gz      *members
	sum     Summary
	index   bool
	last    string // name of the last entry read, for errors after it
	symlink links
}

func (l Limits) verify(r io.Reader, w io.Writer) (Summary, error) {
	v := &verifier{limits: l.withDefaults(), src: &source{r: r, w: w, h: sha256.New()}}
	sum, err := v.run()
	if v.src.writeErr != nil {
		return Summary{}, fmt.Errorf("writing the archive: %w", v.src.writeErr)
	}
	if err != nil {
		return Summary{}, err
	}
	return sum, nil
}

func (v *verifier) run() (Summary, error) {
	br := bufio.NewReaderSize(v.src, 64<<10)
	if err := v.sniff(br); err != nil {
		return Summary{}, err
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return Summary{}, v.streamError(err, "")
	}
	zr.Multistream(false)
	v.gz = &members{br: br, zr: zr}
	tr := tar.NewReader(v.gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			return Summary{}, v.streamError(err, "")
		}
		if err := v.entry(hdr, tr); err != nil {
			return Summary{}, err
		}
	}
	// The tar ends before the gzip stream does: read the rest (padding) so
	// that gzip checks its CRC and length, and what follows the stream.
	if _, err := io.Copy(io.Discard, v.gz); err != nil {
		return Summary{}, v.streamError(err, "")
	}
	if v.sum.Entries == 0 {
		return Summary{}, &Error{Kind: ErrEmpty, Reason: "the tar inside holds no entries"}
	}
	if err := v.symlink.check(); err != nil {
		return Summary{}, err
	}
	if !v.index {
		return Summary{}, &Error{Kind: ErrNoIndex, Reason: "there is no index.html at the archive root, so the site has no home page (a site packed with its parent directory, e.g. site/index.html, needs repacking from inside it)"}
	}
	v.sum.SHA256 = hex.EncodeToString(v.src.h.Sum(nil))
	v.sum.Size = v.src.n
	return v.sum, nil
}

// sniff names what the bytes are when they are not gzip.
func (v *verifier) sniff(br *bufio.Reader) error {
	head, err := br.Peek(512)
	if len(head) == 0 {
		if err == io.EOF {
			return &Error{Kind: ErrEmpty, Reason: "it is empty: 0 bytes"}
		}
		return v.streamError(err, "")
	}
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return nil
	}
	return &Error{Kind: ErrNotTarGz, Reason: "it is not gzip'd: it starts with " + describe(head)}
}

// describe guesses what a non-gzip file is from its first bytes.
func describe(head []byte) string {
	trimmed := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	lower := strings.ToLower(string(trimmed[:min(len(trimmed), 64)]))
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return "the bytes of a zip archive; the bundle must be a .tar.gz"
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return "a tar header: it is a plain tar, not compressed with gzip"
	case bytes.HasPrefix(head, []byte("BZh")):
		return "the bytes of a bzip2 file; the bundle must be gzip'd"
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return "the bytes of an xz file; the bundle must be gzip'd"
	case bytes.HasPrefix(head, []byte("\x28\xb5\x2f\xfd")):
		return "the bytes of a zstd file; the bundle must be gzip'd"
	case strings.HasPrefix(lower, "<!doctype html"), strings.HasPrefix(lower, "<html"):
		return "an HTML page: the server answered with a web page (an error or login page?) instead of the archive"
	case strings.HasPrefix(lower, "<?xml"), strings.HasPrefix(lower, "<error"):
		return "an XML document: likely an object store's error message instead of the archive"
	case strings.HasPrefix(lower, "{"), strings.HasPrefix(lower, "["):
		return "what looks like JSON: likely an API's error message instead of the archive"
	default:
		shown := head[:min(len(head), 8)]
		return fmt.Sprintf("bytes % x, not the gzip signature 1f 8b", shown)
	}
}

// streamError explains a failure of the stream: the reader's, truncation, or
// damage. entry is the entry whose data was being read, if any.
func (v *verifier) streamError(err error, entry string) error {
	e := v.explain(err, entry)
	e.Entry = entry
	return e
}

func (v *verifier) explain(err error, entry string) *Error {
	src := v.src
	after := ""
	if v.last != "" && entry == "" {
		after = " (after entry " + QuoteName(v.last) + ")"
	}
	if src.readErr != nil && !errors.Is(src.readErr, io.ErrUnexpectedEOF) {
		return &Error{Kind: ErrRead, Reason: fmt.Sprintf("reading stopped after %d bytes%s", src.n, after), Err: src.readErr}
	}
	var corrupt flate.CorruptInputError
	switch {
	case src.readErr != nil || (errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF) && (v.gz == nil || v.gz.err != io.EOF):
		return &Error{Kind: ErrCorrupt, Reason: fmt.Sprintf("it is truncated: it ends after %d bytes%s in the middle of the gzip stream; the upload or the download was cut short", src.n, after)}
	case errors.Is(err, io.ErrUnexpectedEOF) && v.sum.Entries == 0:
		return &Error{Kind: ErrNotTarGz, Reason: "it is gzip'd, but what it holds is too short to be a tar archive"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Kind: ErrCorrupt, Reason: "the tar inside is truncated" + after + ": the gzip stream is complete but ends in the middle of an entry"}
	case errors.Is(err, tar.ErrHeader) && v.sum.Entries == 0:
		return &Error{Kind: ErrNotTarGz, Reason: "it is gzip'd, but what it holds is not a tar archive"}
	case errors.Is(err, tar.ErrHeader):
		return &Error{Kind: ErrCorrupt, Reason: "a tar header is damaged" + after, Err: err}
	case errors.Is(err, gzip.ErrChecksum):
		return &Error{Kind: ErrCorrupt, Reason: "the gzip checksum does not match: the data was damaged", Err: err}
	case v.gz != nil && v.gz.trailing:
		return &Error{Kind: ErrCorrupt, Reason: "bytes that are not gzip follow the end of the gzip stream; gunzip would warn and the unpacking may fail"}
	case errors.Is(err, gzip.ErrHeader):
		return &Error{Kind: ErrCorrupt, Reason: "the gzip header is damaged", Err: err}
	case errors.As(err, &corrupt):
		return &Error{Kind: ErrCorrupt, Reason: fmt.Sprintf("the compressed data is damaged at byte %d of the gzip stream%s", int64(corrupt), after)}
	default:
		return &Error{Kind: ErrCorrupt, Reason: "the archive cannot be read" + after, Err: err}
	}
}

// entry checks one tar entry and reads its data.
func (v *verifier) entry(hdr *tar.Header, tr *tar.Reader) error {
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return nil // pax metadata for the entries that follow; not a file
	}
	v.sum.Entries++
	if v.sum.Entries > v.limits.MaxEntries {
		return &Error{Kind: ErrLimit, Reason: fmt.Sprintf("more than %d entries", v.limits.MaxEntries)}
	}
	v.last = hdr.Name
	p, err := entryPath(hdr.Name)
	if err != nil {
		return err
	}
	if err := checkLength(hdr.Name, hdr.Name, "the name", v.limits.MaxNameBytes); err != nil {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return nil
	case tar.TypeReg, tar.TypeRegA, tar.TypeCont, tar.TypeGNUSparse: //nolint:staticcheck // TypeRegA: old archivers write it
		return v.file(p, hdr, tr)
	case tar.TypeSymlink:
		return v.link(p, hdr)
	case tar.TypeLink:
		return v.hardlink(p, hdr)
	case tar.TypeChar, tar.TypeBlock:
		return &Error{Kind: ErrSpecialFile, Entry: hdr.Name, Reason: "a device file; a site holds files, directories and links only, and unpacking it needs root"}
	case tar.TypeFifo:
		return &Error{Kind: ErrSpecialFile, Entry: hdr.Name, Reason: "a named pipe (FIFO); a site holds files, directories and links only"}
	default:
		return &Error{Kind: ErrSpecialFile, Entry: hdr.Name, Reason: fmt.Sprintf("entry type %q is not a file, directory or link", hdr.Typeflag)}
	}
}

func (v *verifier) file(p string, hdr *tar.Header, tr *tar.Reader) error {
	if p == "" {
		return &Error{Kind: ErrUnsafePath, Entry: hdr.Name, Reason: "a file named as the archive root itself"}
	}
	if limit := v.limits.MaxUnpackedBytes; limit > 0 && hdr.Size > limit-v.sum.UnpackedBytes {
		return &Error{Kind: ErrLimit, Entry: hdr.Name, Reason: fmt.Sprintf("the files would unpack to more than %d bytes", limit)}
	}
	n, err := io.Copy(io.Discard, tr)
	v.sum.UnpackedBytes += n
	if err != nil {
		return v.streamError(err, hdr.Name)
	}
	v.sum.Files++
	if p == "index.html" {
		v.index = true
	}
	return nil
}

func (v *verifier) link(p string, hdr *tar.Header) error {
	if err := v.linkTarget(hdr); err != nil {
		return err
	}
	if p == "" {
		return &Error{Kind: ErrUnsafeLink, Entry: hdr.Name, Reason: "a link named as the archive root itself"}
	}
	if strings.HasPrefix(hdr.Linkname, "/") {
		return &Error{Kind: ErrUnsafeLink, Entry: hdr.Name, Reason: "symbolic link to the absolute path " + QuoteName(hdr.Linkname) + ": on the server it points outside the site"}
	}
	if !v.symlink.add(p, hdr.Linkname) {
		return &Error{Kind: ErrLimit, Entry: hdr.Name, Reason: fmt.Sprintf("the symbolic links' names and targets exceed %d MiB", maxLinkBytes>>20)}
	}
	if p == "index.html" {
		v.index = true
	}
	return nil
}

func (v *verifier) hardlink(p string, hdr *tar.Header) error {
	if err := v.linkTarget(hdr); err != nil {
		return err
	}
	if p == "" {
		return &Error{Kind: ErrUnsafeLink, Entry: hdr.Name, Reason: "a link named as the archive root itself"}
	}
	// A hard link's target is another entry's name: the same rules apply.
	if _, err := entryPath(hdr.Linkname); err != nil {
		return &Error{Kind: ErrUnsafeLink, Entry: hdr.Name, Reason: "hard link to " + QuoteName(hdr.Linkname) + ", which is outside the archive root"}
	}
	v.sum.Files++
	if p == "index.html" {
		v.index = true
	}
	return nil
}

func (v *verifier) linkTarget(hdr *tar.Header) error {
	if hdr.Linkname == "" {
		return &Error{Kind: ErrUnsafeLink, Entry: hdr.Name, Reason: "a link with an empty target"}
	}
	return checkLength(hdr.Name, hdr.Linkname, "the link target", v.limits.MaxNameBytes)
}
