package sitegen

import (
	"archive/tar"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strings"
	"time"
)

// modTime is the time of every entry and of the gzip header, fixed so that
// the same inputs give the same bytes.
var modTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// PaddingName is the file that pads a site to a size.
const PaddingName = "assets/padding.bin"

// Archive is a site's bundle, padded to a size.
type Archive struct {
	Site Site
	// Size pads the site with PaddingName, pseudo-random bytes that do not
	// compress, so that its files hold Size bytes in all, and stores the
	// site uncompressed: the archive is then at least Size bytes long. 0:
	// the site alone, compressed; less than the site holds: the site alone,
	// stored.
	Size int64
	// Seed draws the padding's bytes.
	Seed uint64
}

// Write writes the archive. The same Archive gives the same bytes; a padded
// archive is generated as it is written, never held in memory.
func (a Archive) Write(w io.Writer) error {
	return WriteFiles(w, a.Site.Files(), a.Size, a.Seed)
}

// Open returns a reader of Write's bytes, generated as they are read. Close
// the reader to stop the generator early.
func (a Archive) Open() io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(a.Write(pw))
	}()
	return pr
}

// WriteFiles writes files as a bundle, padded as Archive.Size says.
func WriteFiles(w io.Writer, files []File, size int64, seed uint64) error {
	aw, err := NewWriter(w, size, seed)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := aw.AddFile(f.Name, f.Body); err != nil {
			return err
		}
	}
	return aw.Close()
}

// Writer writes a bundle entry by entry: a gzip'd tar in one gzip member,
// as verifiers require. Its deflate stream is a run of pieces, each ended by
// a sync flush, so that padding compressed ahead of time can be spliced in
// between the pieces compressed as they are written; the trailer's CRC-32
// covers them all.
type Writer struct {
	pad   int64 // the size to pad to
	seed  uint64
	out   io.Writer
	fw    *flate.Writer
	tw    *tar.Writer
	crc   uint32
	size  uint32 // the uncompressed length, modulo 2^32 as gzip keeps it
	dirty bool   // fw holds data not yet flushed
	skip  bool   // the tar writer's bytes are spliced in compressed: drop them
	files int64  // bytes of the entries added
}

// NewWriter writes the gzip header to w and returns a Writer of the rest,
// padded on Close to size as Archive.Size says, with bytes from seed.
func NewWriter(w io.Writer, size int64, seed uint64) (*Writer, error) {
	// Deflate, a file name, the fixed time, unknown OS.
	header := []byte{0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 0xff}
	binary.LittleEndian.PutUint32(header[4:8], uint32(modTime.Unix()))
	if _, err := w.Write(append(header, "bundle.tar\x00"...)); err != nil {
		return nil, err
	}
	level := flate.DefaultCompression
	if size > 0 {
		level = flate.NoCompression
	}
	fw, err := flate.NewWriter(w, level)
	if err != nil {
		return nil, err
	}
	aw := &Writer{pad: size, seed: seed, out: w, fw: fw}
	aw.tw = tar.NewWriter(tarSink{aw})
	return aw, nil
}

// tarSink is where the tar writer's bytes go: compressed into the stream.
type tarSink struct{ w *Writer }

func (s tarSink) Write(p []byte) (int, error) {
	w := s.w
	if w.skip {
		return len(p), nil
	}
	w.crc = crc32.Update(w.crc, crc32.IEEETable, p)
	w.size += uint32(len(p))
	w.dirty = true
	return w.fw.Write(p)
}

// Add writes an entry: hdr (its mode 0644 unless set, its time fixed),
// then hdr.Size bytes of body.
func (w *Writer) Add(hdr *tar.Header, body io.Reader) error {
	if hdr.Mode == 0 {
		hdr.Mode = 0o644
	}
	hdr.ModTime = modTime
	if err := w.tw.WriteHeader(hdr); err != nil {
		return err
	}
	w.files += hdr.Size
	_, err := io.CopyN(w.tw, body, hdr.Size)
	return err
}

// AddFile writes a regular file.
func (w *Writer) AddFile(name, body string) error {
	return w.Add(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body))}, strings.NewReader(body))
}

// padTo adds PaddingName when the entries hold fewer than size bytes, to
// make up the difference: pseudo-random bytes from seed, coded with
// deflate's fixed Huffman codes. Those spend 8 or 9 bits on a byte, so the
// padding is about 5% larger compressed than unpacked, as already
// compressed images and fonts are, and a reader still decodes every byte
// through a Huffman table. A few chunks are coded once and repeated.
func (w *Writer) padTo(size int64, seed uint64) error {
	n := size - w.files
	if n <= 0 {
		return nil
	}
	if err := w.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: PaddingName, Size: n, Mode: 0o644, ModTime: modTime}); err != nil {
		return err
	}
	w.files += n
	p := newPadding(seed)
	for i := int64(0); i < n/chunkSize; i++ {
		c := p.chunk(int(i % poolSize))
		if err := w.splice(c.deflated, c.crc, chunkSize); err != nil {
			return err
		}
	}
	if rest := n % chunkSize; rest > 0 {
		c := p.code(rest)
		if err := w.splice(c.deflated, c.crc, rest); err != nil {
			return err
		}
	}
	// The tar writer counts the body it did not write: its blocks are in.
	w.skip = true
	_, err := io.CopyN(w.tw, zeros{}, n)
	w.skip = false
	return err
}

// splice appends deflate blocks compressed apart, ended by a sync flush, of
// n bytes whose CRC-32 is crc.
func (w *Writer) splice(deflated []byte, crc uint32, n int64) error {
	if err := w.flush(); err != nil {
		return err
	}
	if _, err := w.out.Write(deflated); err != nil {
		return err
	}
	w.crc = crc32Combine(w.crc, crc, n)
	w.size += uint32(n)
	// What follows must not refer back to bytes the compressor did not see.
	w.fw.Reset(w.out)
	return nil
}

func (w *Writer) flush() error {
	if !w.dirty {
		return nil
	}
	w.dirty = false
	return w.fw.Flush()
}

// Flush writes out everything added so far, ended on a byte boundary
// between deflate blocks, and leaves the archive open: a stream cut there
// is truncated, and bytes written to the underlying writer there damage it.
func (w *Writer) Flush() error {
	if err := w.tw.Flush(); err != nil {
		return err
	}
	return w.flush()
}

// Close adds the padding, then ends the tar, the deflate stream and the
// gzip member.
func (w *Writer) Close() error {
	if err := w.padTo(w.pad, w.seed); err != nil {
		return err
	}
	if err := w.tw.Close(); err != nil {
		return err
	}
	if err := w.fw.Close(); err != nil {
		return err
	}
	trailer := make([]byte, 8)
	binary.LittleEndian.PutUint32(trailer[0:4], w.crc)
	binary.LittleEndian.PutUint32(trailer[4:8], w.size)
	_, err := w.out.Write(trailer)
	return err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
