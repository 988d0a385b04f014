package archive

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"time"
)

// Summary describes a verified archive.
type Summary struct {
	// SHA256 is the lower-case hex SHA-256 of the compressed bytes as read.
	SHA256 string
	// MD5 is the lower-case hex MD5 of the same bytes, for stores that
	// check uploads with Content-MD5.
	MD5 string
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
// thousands of files, or more than a few GiB.
const (
	DefaultMaxEntries = 1_000_000
	// DefaultMaxUnpackedBytes bounds the files' total size once unpacked:
	// a gzip bomb of 16 MiB unpacks to 16 GiB of zeros.
	DefaultMaxUnpackedBytes = 8 << 30
)

// Limits bound what verification accepts beyond safety, and so the work it does
// whatever the archive says. The zero value means the defaults.
type Limits struct {
	// MaxEntries bounds the number of entries (DefaultMaxEntries when 0).
	MaxEntries int
	// MaxNameBytes bounds entry names and link targets (Linux's PATH_MAX,
	// 4096, when 0 or larger).
	MaxNameBytes int
	// MaxUnpackedBytes bounds the total size of the files once unpacked, to
	// refuse an archive that would fill the volume
	// (DefaultMaxUnpackedBytes when 0).
	MaxUnpackedBytes int64
	// IdleTimeout ends a Fetch that receives no byte for this long
	// (DefaultIdleTimeout when 0).
	IdleTimeout time.Duration
}

// MaxUnpacked is the cap on unpacked bytes in force: MaxUnpackedBytes, or
// its default.
func (l Limits) MaxUnpacked() int64 { return l.withDefaults().MaxUnpackedBytes }

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxNameBytes <= 0 || l.MaxNameBytes > pathMax {
		l.MaxNameBytes = pathMax
	}
	if l.MaxUnpackedBytes <= 0 {
		l.MaxUnpackedBytes = DefaultMaxUnpackedBytes
	}
	return l
}

// source hashes, counts and optionally copies what is read, and remembers
// failures of the reader and of the writer apart from the archive's.
type source struct {
	r        io.Reader
	w        io.Writer
	h        hash.Hash
	md5      hash.Hash
	n        int64
	readErr  error
	writeErr error
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.h.Write(p[:n])
		s.md5.Write(p[:n])
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

// member reads one gzip member and remembers how its last read ended: io.EOF
// once the member is complete with its checksum verified.
type member struct {
	zr  *gzip.Reader
	err error
}

func (m *member) Read(p []byte) (int, error) {
	n, err := m.zr.Read(p)
	if err != nil {
		m.err = err
	}
	return n, err
}

type verifier struct {
	ctx    context.Context
	limits Limits
	src    *source
	gz     *member
	sum    Summary
	last   string // name of the last entry read, for errors after it
	tree   *pathTree
	seen   func(Entry)
	out    *fileSink // when not nil, told every entry with its data
}

// verify reads a gzip'd tar to its end and summarises it, or returns an
// *Error saying why a deployment could not unpack and serve it, with a zero
// Summary. It holds neither the archive nor an entry in memory, writes every
// byte it reads to w when w is not nil (a failed write stops it with an
// error that is not an *Error), and stops with ctx's error once ctx is done,
// within a fraction of a second however the archive is built. seen, when not
// nil, is told every entry read.
func (l Limits) verify(ctx context.Context, r io.Reader, w io.Writer, seen func(Entry)) (Summary, error) {
	return l.verifyInto(ctx, r, w, seen, nil)
}

// verifyInto is verify that hands every entry and its data to out as well,
// when out is not nil.
func (l Limits) verifyInto(ctx context.Context, r io.Reader, w io.Writer, seen func(Entry), out *fileSink) (Summary, error) {
	l = l.withDefaults()
	v := &verifier{ctx: ctx, limits: l, src: &source{r: r, w: w, h: sha256.New(), md5: md5.New()}, tree: l.newTree(), seen: seen, out: out}
	sum, err := v.run()
	if v.src.writeErr != nil {
		return Summary{}, fmt.Errorf("writing the archive: %w", v.src.writeErr)
	}
	var serr *sinkError
	if errors.As(err, &serr) {
		return Summary{}, serr.err
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			return Summary{}, fmt.Errorf("verifying the archive stopped after %d bytes: %w", v.src.n, cerr)
		}
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
	// One member only: gunzip, Go and Python read the members that follow,
	// some decompressors stop after the first, so the tar would differ.
	zr.Multistream(false)
	v.gz = &member{zr: zr}
	sc := &tarScanner{ctx: v.ctx, r: v.gz, maxName: v.limits.MaxNameBytes, budget: v.limits.MaxUnpackedBytes}
	for {
		e, err := sc.next()
		if err == errEnd {
			break
		}
		if err != nil {
			return Summary{}, v.fail(err, "")
		}
		if err := v.entry(e, sc); err != nil {
			return Summary{}, err
		}
	}
	// The tar ended with its gzip member (the scanner reads its zeros to
	// the end): nothing may follow, not even another member.
	if _, err := br.Peek(1); err != io.EOF {
		if err != nil {
			return Summary{}, v.streamError(err, "")
		}
		head, _ := br.Peek(2)
		if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
			return Summary{}, &Error{Kind: ErrAmbiguous, Reason: "a second gzip member follows the first; some unpackers read only the first"}
		}
		return Summary{}, &Error{Kind: ErrCorrupt, Reason: "bytes that are not gzip follow the end of the gzip stream; gunzip would warn and the unpacking may fail"}
	}
	if v.sum.Entries == 0 {
		return Summary{}, &Error{Kind: ErrEmpty, Reason: "the tar inside holds no entries"}
	}
	if err := v.tree.Finish(); err != nil {
		return Summary{}, err
	}
	v.sum.SHA256 = hex.EncodeToString(v.src.h.Sum(nil))
	v.sum.MD5 = hex.EncodeToString(v.src.md5.Sum(nil))
	v.sum.Size = v.src.n
	return v.sum, nil
}

// fail passes on an *Error or a context's error, and explains any other.
func (v *verifier) fail(err error, entry string) error {
	var aerr *Error
	if errors.As(err, &aerr) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if v.ctx.Err() != nil {
			return err
		}
	}
	return v.streamError(err, entry)
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
		after = " (after entry " + quoteName(v.last) + ")"
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
	case errors.Is(err, errHeader) && v.sum.Entries == 0:
		return &Error{Kind: ErrNotTarGz, Reason: "it is gzip'd, but what it holds is not a tar archive"}
	case errors.Is(err, errHeader):
		return &Error{Kind: ErrCorrupt, Reason: "a tar header is damaged" + after, Err: err}
	case errors.Is(err, gzip.ErrChecksum):
		return &Error{Kind: ErrCorrupt, Reason: "the gzip checksum does not match: the data was damaged", Err: err}
	case errors.Is(err, gzip.ErrHeader):
		return &Error{Kind: ErrCorrupt, Reason: "the gzip header is damaged", Err: err}
	case errors.As(err, &corrupt):
		return &Error{Kind: ErrCorrupt, Reason: fmt.Sprintf("the compressed data is damaged at byte %d of the gzip stream%s", int64(corrupt), after)}
	default:
		return &Error{Kind: ErrCorrupt, Reason: "the archive cannot be read" + after, Err: err}
	}
}

// entry checks one tar entry and reads its data.
func (v *verifier) entry(e *Entry, sc *tarScanner) error {
	v.sum.Entries++
	if v.sum.Entries > v.limits.MaxEntries {
		return &Error{Kind: ErrLimit, Reason: fmt.Sprintf("more than %d entries", v.limits.MaxEntries)}
	}
	v.last = e.Name
	if v.seen != nil {
		v.seen(*e)
	}
	if err := v.tree.Add(e); err != nil {
		return err
	}
	switch e.Type {
	case TypeFile:
		if e.Size > sc.budget {
			return &Error{Kind: ErrLimit, Cap: CapUnpackedBytes, Entry: e.Name, Reason: fmt.Sprintf("the files would unpack to more than %d bytes", v.limits.MaxUnpackedBytes)}
		}
		sc.budget -= e.Size
		var err error
		if v.out != nil {
			err = v.out.file(e, sc)
		} else {
			err = sc.skip(e.Size)
		}
		if err != nil {
			var serr *sinkError
			if errors.As(err, &serr) {
				return err
			}
			return v.fail(err, e.Name)
		}
		v.sum.UnpackedBytes += e.Size
		v.sum.Files++
		return nil
	case TypeHardlink:
		v.sum.Files++
	}
	if v.out != nil {
		return v.out.other(v.ctx, e)
	}
	return nil
}
