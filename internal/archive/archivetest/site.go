// Package archivetest generates static site bundles of any size for tests and
// benchmarks, streamed as they are written: a generated archive is never held
// in memory.
package archivetest

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

const (
	// pageSize is the size of each generated page, a multiple of the tar
	// block so that a page's data is a gzip member of its own.
	pageSize = 1 << 20
	// poolSize is how many distinct compressed pages are prepared.
	poolSize = 8
)

// modTime is fixed so that the same size and seed give the same bytes.
var modTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// WriteSite writes a valid gzip'd tar of a site holding about size bytes of
// files: an index.html, then 1 MiB pages in nested directories. The same size
// and seed give the same bytes.
//
// Page content is pseudo-random 7-bit bytes from seed: it compresses only to
// about 7/8 of its size, so the archive is about as large as the site, and a
// reader has real Huffman-coded data to decode. Compressing a gigabyte takes
// longer than reading it, so pages are drawn from a few compressed once. The
// archive is still one gzip member, as verifiers require: each piece (tar
// headers, then a page, and so on) is a run of deflate blocks compressed on
// its own and ended by a sync flush, so the pieces join into one deflate
// stream, and the trailer's CRC covers them all.
func WriteSite(w io.Writer, size int64, seed uint64) error {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	content := &sevenBit{rng: rand.NewChaCha8(key)}
	pool, err := compressedPages(content)
	if err != nil {
		return err
	}

	// The gzip header: deflate, no flags, the fixed time, unknown OS.
	header := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	binary.LittleEndian.PutUint32(header[4:8], uint32(modTime.Unix()))
	if _, err := w.Write(header); err != nil {
		return err
	}
	var crc uint32
	var total uint32 // the uncompressed length, modulo 2^32 as gzip keeps it

	// Headers (and small files) go through tar.Writer into a buffer, which
	// is compressed before each page; a page's data is written by the
	// tar.Writer to nowhere, its compressed form to w.
	var pending bytes.Buffer
	sink := &switchWriter{w: &pending}
	tw := tar.NewWriter(sink)
	fw, err := flate.NewWriter(w, flate.BestSpeed)
	if err != nil {
		return err
	}
	flush := func() error {
		if pending.Len() == 0 {
			return nil
		}
		crc = crc32.Update(crc, crc32.IEEETable, pending.Bytes())
		total += uint32(pending.Len())
		fw.Reset(w)
		if _, err := fw.Write(pending.Bytes()); err != nil {
			return err
		}
		pending.Reset()
		return fw.Flush()
	}

	index := []byte("<!DOCTYPE html>\n<html><head><title>Generated site</title></head><body><h1>Generated site</h1></body></html>\n")
	if err := writeFile(tw, "./index.html", bytes.NewReader(index), int64(len(index))); err != nil {
		return err
	}
	written := int64(len(index))
	for i := 0; written < size; i++ {
		dir := fmt.Sprintf("./pages/%03d/", i/100)
		if i%100 == 0 {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: modTime}); err != nil {
				return err
			}
		}
		name := fmt.Sprintf("%spage-%05d.html", dir, i)
		n := min(pageSize, size-written)
		written += n
		if n < pageSize { // the last, short page: compressed with the headers
			if err := writeFile(tw, name, content, n); err != nil {
				return err
			}
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: n, Mode: 0o644, ModTime: modTime}); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		sink.discard = true
		_, err := io.CopyN(tw, zeros{}, n)
		sink.discard = false
		if err != nil {
			return err
		}
		page := pool[i%poolSize]
		crc = crc32Combine(crc, page.crc, pageSize)
		total += pageSize
		if _, err := w.Write(page.deflated); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	// An empty final block ends the deflate stream, then the trailer.
	trailer := []byte{0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(trailer[2:6], crc)
	binary.LittleEndian.PutUint32(trailer[6:10], total)
	_, err = w.Write(trailer)
	return err
}

// Site returns a reader of WriteSite's bytes, generated as they are read.
// Close the reader to stop the generator early.
func Site(size int64, seed uint64) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(WriteSite(pw, size, seed))
	}()
	return pr
}

// page is a page's deflate blocks, ended by a sync flush, and the CRC-32 of
// its content: only the compressed form is kept.
type page struct {
	deflated []byte
	crc      uint32
}

// compressedPages returns poolSize pages.
func compressedPages(content io.Reader) ([]page, error) {
	pool := make([]page, poolSize)
	for i := range pool {
		raw := make([]byte, pageSize)
		if _, err := io.ReadFull(content, raw); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		fw, err := flate.NewWriter(&buf, flate.HuffmanOnly)
		if err != nil {
			return nil, err
		}
		if _, err := fw.Write(raw); err != nil {
			return nil, err
		}
		if err := fw.Flush(); err != nil {
			return nil, err
		}
		pool[i] = page{deflated: buf.Bytes(), crc: crc32.ChecksumIEEE(raw)}
	}
	return pool, nil
}

func writeFile(tw *tar.Writer, name string, content io.Reader, size int64) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: modTime}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := io.CopyN(tw, content, size)
	return err
}

// switchWriter writes to w, or nowhere while discard is set.
type switchWriter struct {
	w       io.Writer
	discard bool
}

func (s *switchWriter) Write(p []byte) (int, error) {
	if s.discard {
		return len(p), nil
	}
	return s.w.Write(p)
}

// sevenBit reads pseudo-random bytes below 0x80.
type sevenBit struct{ rng *rand.ChaCha8 }

func (s *sevenBit) Read(p []byte) (int, error) {
	_, _ = s.rng.Read(p)
	for i := range p {
		p[i] &= 0x7f
	}
	return len(p), nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// crc32Combine returns the CRC-32 of A followed by B from the CRCs of both
// and B's length, as zlib's crc32_combine: appending lenB zero bits to A is
// a linear map in GF(2), applied by repeated squaring.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.IEEE // the operator for one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four zero bits
	for {
		gf2Square(&even, &odd)
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat *[32]uint32) {
	for n := range mat {
		square[n] = gf2Times(mat, mat[n])
	}
}

// WritePages writes a valid gzip'd tar of a site of many small files, as a
// documentation export holds them: an index.html, pages HTML pages of a few
// KiB in nested directories (guides/NNN/page-NNNNN.html), one RSC payload
// beside every tenth page, and a few assets with content hashes in their
// names. The pages' text is drawn from seed and compresses as text does.
// The same pages and seed give the same bytes.
func WritePages(w io.Writer, pages int, seed uint64) error {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	rng := rand.New(rand.NewChaCha8(key))
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	zw.ModTime = modTime
	tw := tar.NewWriter(zw)
	add := func(name, body string) error {
		return writeFile(tw, name, strings.NewReader(body), int64(len(body)))
	}
	if err := add("index.html", "<!DOCTYPE html>\n<html><head><title>Generated site</title></head><body><h1>Generated site</h1></body></html>\n"); err != nil {
		return err
	}
	words := []string{"deploy", "export", "static", "site", "guide", "configure", "terraform", "archive", "page", "link",
		"host", "cache", "bucket", "upload", "verify", "route", "index", "search", "content", "version"}
	var page strings.Builder
	for i := range pages {
		if i%100 == 0 {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: fmt.Sprintf("guides/%03d/", i/100), Mode: 0o755, ModTime: modTime}); err != nil {
				return err
			}
		}
		page.Reset()
		fmt.Fprintf(&page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page %d</title>"+
			"<link rel=\"stylesheet\" href=\"/assets/site.3f9a2c1b.css\"></head><body><main><h1>Page %d</h1>\n", i, i)
		for p := 0; p < 12+rng.IntN(24); p++ {
			page.WriteString("<p>")
			for range 30 + rng.IntN(30) {
				page.WriteString(words[rng.IntN(len(words))])
				page.WriteByte(' ')
			}
			page.WriteString("</p>\n")
		}
		page.WriteString("</main></body></html>\n")
		name := fmt.Sprintf("guides/%03d/page-%05d", i/100, i)
		if err := add(name+".html", page.String()); err != nil {
			return err
		}
		if i%10 == 0 {
			if err := add(name+".rsc", fmt.Sprintf("0:[\"$\",\"main\",null,{\"children\":\"Page %d\"}]\n", i)); err != nil {
				return err
			}
		}
	}
	assets := map[string]string{
		"assets/site.3f9a2c1b.css": "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:48rem}\n",
		"assets/app.8e7d4a06.js":   "document.addEventListener('DOMContentLoaded',function(){document.body.dataset.ready='1';});\n",
		"sitemap.xml":              "<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"></urlset>\n",
		"robots.txt":               "User-agent: *\nAllow: /\n",
	}
	for _, name := range []string{"assets/site.3f9a2c1b.css", "assets/app.8e7d4a06.js", "sitemap.xml", "robots.txt"} {
		if err := add(name, assets[name]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}
