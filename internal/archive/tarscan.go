package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The verifier reads tar headers itself, block by block, instead of through
// archive/tar. Unpackers (GNU tar, bsdtar, busybox, Python's tarfile, Go)
// disagree on the corners of the format: which of a GNU long name and a pax
// path wins, whether a pax size or a global header counts, where a ustar
// prefix is, what sparse data holds, whether a zero block ends the archive.
// A reader of our own accepts only the part of the format on which they all
// agree, and names every other construction instead of guessing how a
// deployment's unpacker will read it.

const blockSize = 512

// Bounds of what the scanner holds in memory or reads beyond the files.
const (
	// maxPAXBytes bounds one pax extended header; Go's archive/tar allows
	// 1 MiB as well.
	maxPAXBytes = 1 << 20
	// maxTrailingZeros bounds the zeros after the end-of-archive marker:
	// tar pads to its record size, 10 KiB by default.
	maxTrailingZeros = 1 << 20
)

// Entry is one member of the archive as every mainstream unpacker reads it.
type Entry struct {
	// Name is the name as the archive spells it (from a pax path, a GNU
	// long name, or the ustar prefix and name).
	Name string
	// Type is the tar type flag: TypeFile, TypeDir, TypeSymlink or
	// TypeHardlink.
	Type byte
	// Linkname is the target of a link.
	Linkname string
	// Size is the number of data bytes of a regular file.
	Size int64
}

// The entry types a site may hold.
const (
	TypeFile     = '0'
	TypeHardlink = '1'
	TypeSymlink  = '2'
	TypeDir      = '5'
)

// errHeader is a block that is not a tar header: a bad checksum or format.
var errHeader = errors.New("invalid tar header")

// tarScanner reads headers and skips data from a decompressed tar stream.
type tarScanner struct {
	ctx     context.Context
	r       io.Reader
	blk     [blockSize]byte
	buf     []byte // for data skipped
	headers int    // header blocks read
	maxName int
	// budget is what is left of the cap on unpacked bytes: the files'
	// data, and the extended headers' records, which cost work as well.
	budget int64
}

// errEnd is returned by next at the end-of-archive marker.
var errEnd = io.EOF

// next returns the next entry, errEnd after the end-of-archive marker and the
// zeros that may follow it, an *Error for what unpackers would read
// differently, or the stream's error (io.ErrUnexpectedEOF, errHeader, ...).
func (s *tarScanner) next() (*Entry, error) {
	var (
		pax      map[string]string
		longName *string
		longLink *string
		sawPAX   bool
		metaAt   string // which extended header is pending, for errors
	)
	for {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.ReadFull(s.r, s.blk[:])
		if err != nil {
			if err == io.EOF && n == 0 && metaAt == "" {
				return nil, errEnd // no end-of-archive marker: every unpacker stops here too
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if isZero(s.blk[:]) {
			if metaAt != "" {
				return nil, &Error{Kind: ErrAmbiguous, Entry: metaAt, Reason: "an extended header is followed by the end of the archive, not by the entry it describes"}
			}
			return nil, s.drainZeros()
		}
		s.headers++
		if !validChecksum(&s.blk) {
			return nil, errHeader
		}
		h := &s.blk
		name, err := s.headerName(h)
		if err != nil {
			return nil, err
		}
		typ := h[156]
		size, ok := parseNumeric(h[124:136])
		if !ok {
			return nil, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "the size field is not a plain number; unpackers read it differently"}
		}
		switch typ {
		case 'x':
			if sawPAX {
				return nil, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "two pax extended headers for one entry; unpackers keep different ones"}
			}
			sawPAX, metaAt = true, name
			data, err := s.meta(name, size, maxPAXBytes, "pax extended header")
			if err != nil {
				return nil, err
			}
			if pax, err = parsePAX(name, data, false); err != nil {
				return nil, err
			}
			continue
		case 'g':
			// git archive writes a global header holding the commit id as a
			// comment, before anything else; unpackers ignore it. Any
			// other global header changes the entries that follow for some
			// unpackers and not for others.
			if s.headers != 1 {
				return nil, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a pax global header after the first header; unpackers apply it differently"}
			}
			data, err := s.meta(name, size, maxPAXBytes, "pax global header")
			if err != nil {
				return nil, err
			}
			if _, err := parsePAX(name, data, true); err != nil {
				return nil, err
			}
			continue
		case 'L', 'K':
			what := "GNU long-name record"
			target := &longName
			if typ == 'K' {
				what, target = "GNU long-link record", &longLink
			}
			if *target != nil {
				return nil, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "two " + what + "s for one entry; unpackers keep different ones"}
			}
			metaAt = name
			data, err := s.meta(name, size, int64(s.maxName)+blockSize, what)
			if err != nil {
				return nil, err
			}
			value, rest, _ := bytes.Cut(data, []byte{0})
			if !isZero(rest) || len(value) == 0 {
				return nil, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a " + what + " holds bytes after its name, or no name; unpackers read it differently"}
			}
			v := string(value)
			*target = &v
			continue
		}

		e := &Entry{Name: name, Type: typ, Linkname: cString(h[157:257]), Size: size}
		if longName != nil {
			e.Name = *longName
		}
		if longLink != nil {
			e.Linkname = *longLink
		}
		if value, ok := pax["path"]; ok {
			if longName != nil && *longName != value {
				return nil, &Error{Kind: ErrAmbiguous, Entry: value, Reason: "its pax path and its GNU long name (" + quoteName(*longName) + ") differ; unpackers pick different ones"}
			}
			e.Name = value
		}
		if value, ok := pax["linkpath"]; ok {
			if longLink != nil && *longLink != value {
				return nil, &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "its pax link path and its GNU long link (" + quoteName(*longLink) + ") differ; unpackers pick different ones"}
			}
			e.Linkname = value
		}
		// busybox ignores a pax size and reads the header's: the two must
		// agree.
		if value, ok := pax["size"]; ok && value != strconv.FormatInt(size, 10) {
			return nil, &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "its pax size differs from its header's size; unpackers read different data"}
		}
		if err := s.checkEntry(e); err != nil {
			return nil, err
		}
		return e, nil
	}
}

// headerName reads the name of a header and checks that its format is one
// that every unpacker reads the same way.
func (s *tarScanner) headerName(h *[blockSize]byte) (string, error) {
	name := cString(h[0:100])
	magic := string(h[257:265])
	switch {
	case magic == "ustar\x0000":
		// POSIX ustar and pax. Bytes 500-511 are padding; star's format
		// keeps times there and moves the prefix's end, which Go reads and
		// Python does not.
		if !isZero(h[500:]) {
			return name, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a ustar header with data in its padding (star format?); unpackers read its name differently"}
		}
		if prefix := cString(h[345:500]); prefix != "" {
			name = prefix + "/" + name
		}
	case magic == "ustar  \x00":
		// GNU: the ustar prefix holds times and sparse maps instead. GNU
		// tar leaves it zero outside incremental and sparse archives;
		// Python would read what is there as a prefix.
		if !isZero(h[345:]) {
			return name, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a GNU header with times or a sparse map where ustar keeps the name's prefix; unpackers read its name differently"}
		}
	case isZero(h[257:265]):
		return name, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a pre-POSIX (V7) tar header without the ustar magic; busybox refuses it"}
	default:
		return name, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a header of an unknown tar format; unpackers read it differently"}
	}
	return name, nil
}

// checkEntry refuses the entry types and fields that unpackers read
// differently, and names that do not name one file the same way everywhere.
func (s *tarScanner) checkEntry(e *Entry) error {
	switch e.Type {
	case TypeFile, 0:
		e.Type = TypeFile
	case TypeDir, TypeSymlink, TypeHardlink:
		// Unpackers disagree on whether data follows such an entry.
		if e.Size != 0 {
			return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: fmt.Sprintf("a %s with a size of %d bytes; unpackers disagree on whether data follows it", typeName(e.Type), e.Size)}
		}
	case '3', '4':
		return &Error{Kind: ErrSpecialFile, Entry: e.Name, Reason: "a device file; a site holds files, directories and links only, and unpacking it needs root"}
	case '6':
		return &Error{Kind: ErrSpecialFile, Entry: e.Name, Reason: "a named pipe (FIFO); a site holds files, directories and links only"}
	case 'S':
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "a GNU sparse file; unpackers read its data differently, and its holes can unpack to far more than the archive holds"}
	default:
		return &Error{Kind: ErrSpecialFile, Entry: e.Name, Reason: fmt.Sprintf("entry type %q is not a file, directory or link", e.Type)}
	}
	if e.Name == "" {
		return &Error{Kind: ErrUnsafePath, Reason: "an entry has an empty name"}
	}
	if !utf8.ValidString(e.Name) {
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "the name is not valid UTF-8; unpackers convert such names differently"}
	}
	if e.Type != TypeDir && namesDir(e.Name) {
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "a " + typeName(e.Type) + " whose name ends with a slash or \"/.\"; some unpackers make it a directory, others fail"}
	}
	if e.Type == TypeHardlink && namesDir(e.Linkname) {
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "a hard link whose target ends with a slash or \"/.\", which names a directory; unpackers fail or link the file"}
	}
	if e.Type == TypeSymlink || e.Type == TypeHardlink {
		if !utf8.ValidString(e.Linkname) {
			return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "the link target is not valid UTF-8; unpackers convert it differently"}
		}
	} else if e.Linkname != "" {
		// Harmless for most, but a link target on a file is how some
		// archivers mark a hard link: refuse rather than guess.
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "a " + typeName(e.Type) + " with a link target; unpackers disagree on what it is"}
	}
	return nil
}

// namesDir reports whether a name can only name a directory: it ends with a
// slash or a "." component.
func namesDir(name string) bool {
	return name == "." || strings.HasSuffix(name, "/") || strings.HasSuffix(name, "/.")
}

func typeName(t byte) string {
	switch t {
	case TypeDir:
		return "directory"
	case TypeSymlink:
		return "symbolic link"
	case TypeHardlink:
		return "hard link"
	default:
		return "file"
	}
}

// meta reads the data of an extended header, at most limit bytes.
func (s *tarScanner) meta(name string, size, limit int64, what string) ([]byte, error) {
	if size > limit {
		return nil, &Error{Kind: ErrLimit, Entry: name, Reason: fmt.Sprintf("a %s of %d bytes, more than the %d bytes allowed", what, size, limit)}
	}
	if size > s.budget {
		return nil, &Error{Kind: ErrLimit, Cap: CapUnpackedBytes, Entry: name, Reason: "the files and extended headers would unpack to more than the cap on unpacked bytes"}
	}
	s.budget -= size
	data := make([]byte, blocks(size))
	if _, err := io.ReadFull(s.r, data); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return data[:size], nil
}

// skip reads the data of a file and its padding, checking ctx as it goes:
// the data may come from a gzip bomb, not from the network.
func (s *tarScanner) skip(size int64) error {
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	left := blocks(size)
	for left > 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		n, err := s.r.Read(s.buf[:min(left, int64(len(s.buf)))])
		left -= int64(n)
		if err != nil {
			if left == 0 && err == io.EOF {
				return nil
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// copyData copies the data of a file to w and skips its padding, checking
// ctx as it goes. A failure of w is returned as a *sinkError.
func (s *tarScanner) copyData(size int64, w io.Writer) error {
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	left := size
	for left > 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		n, err := s.r.Read(s.buf[:min(left, int64(len(s.buf)))])
		if n > 0 {
			if _, werr := w.Write(s.buf[:n]); werr != nil {
				return &sinkError{werr}
			}
		}
		left -= int64(n)
		if err != nil {
			if left == 0 && err == io.EOF {
				break
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	if pad := blocks(size) - size; pad > 0 {
		if _, err := io.ReadFull(s.r, s.buf[:pad]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// drainZeros reads what follows the first zero block: only zeros, at most
// maxTrailingZeros of them. GNU tar and Python stop at the first zero block,
// bsdtar and Go at the second; anything after it would be read by some.
func (s *tarScanner) drainZeros() error {
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	var total int64
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		n, err := fill(s.r, s.buf)
		if !isZero(s.buf[:n]) {
			return &Error{Kind: ErrAmbiguous, Entry: s.hiddenName(s.buf[:n]), Reason: "data follows the end-of-archive marker; some unpackers read it as more entries, others ignore it"}
		}
		total += int64(n)
		if total > maxTrailingZeros {
			return &Error{Kind: ErrLimit, Reason: fmt.Sprintf("more than %d bytes of zeros follow the end-of-archive marker", maxTrailingZeros)}
		}
		if err == io.EOF {
			return errEnd
		}
		if err != nil {
			return err
		}
	}
}

// fill reads until p is full or the reader fails, and returns its error as
// is (io.ReadFull would turn a truncated stream's into a short read's).
func fill(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// hiddenName returns the name of the header that data after the end marker
// starts with, if it is one, so that the error names the hidden entry.
func (s *tarScanner) hiddenName(data []byte) string {
	i := 0
	for i < len(data) && data[i] == 0 {
		i++
	}
	i &^= blockSize - 1 // reads fill whole blocks from a block boundary
	var h [blockSize]byte
	if i+blockSize > len(data) {
		return ""
	}
	copy(h[:], data[i:])
	if !validChecksum(&h) {
		return ""
	}
	return cString(h[0:100])
}

// parsePAX reads pax records strictly: "<length> <key>=<value>\n", each key
// once. It refuses the keys that unpackers honour differently.
func parsePAX(name string, data []byte, global bool) (map[string]string, error) {
	recs := map[string]string{}
	bad := func(why string) error {
		return &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a pax header " + why + "; unpackers read it differently"}
	}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 || sp > 8 {
			return nil, bad("with a malformed record")
		}
		n, err := strconv.Atoi(string(data[:sp]))
		if err != nil || n <= sp+3 || n > len(data) || data[0] == '0' || data[n-1] != '\n' {
			return nil, bad("with a malformed record")
		}
		rec := data[sp+1 : n-1]
		data = data[n:]
		k, v, ok := bytes.Cut(rec, []byte{'='})
		if !ok || len(k) == 0 || bytes.IndexByte(k, 0) >= 0 {
			return nil, bad("with a malformed record")
		}
		key := string(k)
		if _, dup := recs[key]; dup {
			return nil, bad("that sets " + strconv.Quote(key) + " twice")
		}
		switch {
		case global && key != "comment":
			return nil, bad("global header that sets " + quoteName(key))
		case strings.HasPrefix(key, "GNU.sparse.") || key == "SCHILY.realsize" || key == "SUN.holesdata":
			return nil, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "a sparse file (pax key " + quoteName(key) + "); unpackers read its data differently, and its holes can unpack to far more than the archive holds"}
		case strings.HasPrefix(key, "GNU."):
			return nil, bad("with the GNU key " + quoteName(key))
		case key == "hdrcharset":
			return nil, bad("that declares the names' character set")
		case key == "path" || key == "linkpath":
			if len(v) == 0 || bytes.IndexByte(v, 0) >= 0 {
				return nil, bad("with an empty " + key + " or a NUL in it")
			}
		case key == "size":
			if len(v) == 0 || len(v) > 19 || strings.Trim(string(v), "0123456789") != "" {
				return nil, bad("with a size that is not a number")
			}
		}
		recs[key] = string(v)
	}
	return recs, nil
}

// validChecksum checks the header's checksum as the unsigned sum of its
// bytes, the checksum field counted as spaces. Some unpackers also accept a
// signed sum, others do not: only the unsigned one passes.
func validChecksum(h *[blockSize]byte) bool {
	want, ok := parseOctal(h[148:156])
	if !ok {
		return false
	}
	var sum int64
	for i, b := range h {
		if i >= 148 && i < 156 {
			b = ' '
		}
		sum += int64(b)
	}
	return sum == want
}

// parseNumeric reads a size: octal digits (leading spaces allowed) ended by
// NUL or space and followed by NULs and spaces only, or GNU base-256 for a
// non-negative value.
func parseNumeric(f []byte) (int64, bool) {
	if len(f) > 0 && f[0] == 0x80 {
		var v uint64
		for _, b := range f[1:] {
			if v>>55 != 0 {
				return 0, false
			}
			v = v<<8 | uint64(b)
		}
		if v > 1<<62 {
			return 0, false
		}
		return int64(v), true
	}
	return parseOctal(f)
}

func parseOctal(f []byte) (int64, bool) {
	i := 0
	for i < len(f) && f[i] == ' ' {
		i++
	}
	var v int64
	digits := 0
	for ; i < len(f) && f[i] >= '0' && f[i] <= '7'; i++ {
		if v > 1<<58 {
			return 0, false
		}
		v = v*8 + int64(f[i]-'0')
		digits++
	}
	for ; i < len(f); i++ {
		if f[i] != 0 && f[i] != ' ' {
			return 0, false
		}
	}
	return v, digits > 0 || isZeroOrSpace(f)
}

func isZeroOrSpace(b []byte) bool {
	for _, c := range b {
		if c != 0 && c != ' ' {
			return false
		}
	}
	return true
}

// cString is the bytes before the first NUL, as every unpacker reads a name.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func isZero(b []byte) bool {
	for len(b) >= 8 {
		if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// blocks rounds size up to whole tar blocks.
func blocks(size int64) int64 {
	return (size + blockSize - 1) &^ (blockSize - 1)
}
