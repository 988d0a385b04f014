package sitegen

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// readArchive reads a bundle with the standard library, which checks the
// gzip trailer's CRC-32 and length, and returns its files' sizes by name.
func readArchive(t *testing.T, data []byte) (names []string, sizes map[string]int64) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	sizes = map[string]int64{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, tr)
		if err != nil || n != hdr.Size {
			t.Fatalf("%s: %d of %d bytes: %v", hdr.Name, n, hdr.Size, err)
		}
		names = append(names, hdr.Name)
		sizes[hdr.Name] = n
	}
	if _, err := io.Copy(io.Discard, zr); err != nil { // the trailer
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(zr); len(rest) != 0 {
		t.Fatalf("%d bytes after the tar", len(rest))
	}
	return names, sizes
}

func write(t *testing.T, a Archive) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := a.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPaddedArchive: padding makes the files hold the size asked for, one
// file more than the site, and does not compress; the same archive gives the
// same bytes, another seed others.
func TestPaddedArchive(t *testing.T) {
	for _, size := range []int64{3<<20 + 100, 9 << 20, 1} {
		a := Archive{Size: size, Seed: 1}
		data := write(t, a)
		names, sizes := readArchive(t, data)
		var total int64
		for _, n := range sizes {
			total += n
		}
		site := Site{}.Files()
		switch {
		case size == 1: // less than the site: the site alone
			if len(names) != len(site) || sizes[PaddingName] != 0 {
				t.Errorf("size 1: %d files, padding %d bytes", len(names), sizes[PaddingName])
			}
		case total != size || len(names) != FileCount(DefaultPageCount)+1 || names[len(names)-1] != PaddingName:
			t.Errorf("size %d: %d bytes in %d files, the last %s", size, total, len(names), names[len(names)-1])
		case int64(len(data)) < size:
			t.Errorf("size %d: the archive is %d bytes, smaller than its files", size, len(data))
		}
		if !bytes.Equal(data, write(t, a)) {
			t.Errorf("size %d: the same archive gave other bytes", size)
		}
		if a.Seed = 2; size > 1 && bytes.Equal(data, write(t, a)) {
			t.Errorf("size %d: another seed gave the same bytes", size)
		}
	}
}

func TestOpenStreamsWhatWriteWrites(t *testing.T) {
	a := Archive{Site: Site{PageCount: 3}, Size: 2 << 20, Seed: 5}
	r := a.Open()
	got, err := io.ReadAll(r)
	if err != nil || r.Close() != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, write(t, a)) {
		t.Fatal("Open gave other bytes than Write")
	}
}

// TestFixedHuffmanDecodes: a coded chunk inflates to its bytes, and ends on
// a byte boundary where another stream's blocks may follow.
func TestFixedHuffmanDecodes(t *testing.T) {
	raw := make([]byte, 100_000)
	for i := range raw {
		raw[i] = byte(rand.N(256))
	}
	var stream bytes.Buffer
	stream.Write(fixedHuffman(raw))
	fw, _ := flate.NewWriter(&stream, flate.BestSpeed)
	_, _ = fw.Write([]byte("after"))
	_ = fw.Close()
	got, err := io.ReadAll(flate.NewReader(&stream))
	if err != nil || !bytes.Equal(got, slices.Concat(raw, []byte("after"))) {
		t.Fatalf("inflated %d bytes (%v), want %d", len(got), err, len(raw)+5)
	}
	if coded := len(fixedHuffman(raw)); coded < len(raw) {
		t.Errorf("%d random bytes coded in %d", len(raw), coded)
	}
}

func TestCRC32Combine(t *testing.T) {
	a, b := []byte("the first part, "), bytes.Repeat([]byte("then the second "), 1000)
	want := crc32.ChecksumIEEE(append(a, b...))
	if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b))); got != want {
		t.Fatalf("crc32Combine = %08x, want %08x", got, want)
	}
}
