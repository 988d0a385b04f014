package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

// TestVerifyRefusesSparseAtOnce: a few hundred bytes declaring a sparse file
// of 2^62 bytes once kept the verifier busy forever; it is refused at its
// header.
func TestVerifyRefusesSparseAtOnce(t *testing.T) {
	var sparse []byte
	for _, r := range hostile(t) {
		if r.name == "pax sparse 1.0 of 2^62 bytes" {
			sparse = r.data
		}
	}
	start := time.Now()
	_, err := archive.Verify(bytes.NewReader(sparse))
	if !errors.Is(err, archive.ErrAmbiguous) {
		t.Fatalf("Verify of a %d-byte sparse archive: %v", len(sparse), err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("refusing a %d-byte sparse archive took %s", len(sparse), d)
	}
}

// bomb returns a gzip'd tar holding index.html and files of zeros, each of
// fileSize bytes, count of them, compressed as it is read: 1 GiB of zeros is
// about 1 MiB of gzip.
func bomb(t testing.TB, fileSize int64, count int) io.Reader {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
		tw := tar.NewWriter(zw)
		err := func() error {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "index.html", Size: int64(len(indexPage)), Mode: 0o644}); err != nil {
				return err
			}
			if _, err := io.WriteString(tw, indexPage); err != nil {
				return err
			}
			zeros := make([]byte, 1<<20)
			for i := range count {
				if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("zeros/%d.bin", i), Size: fileSize, Mode: 0o644}); err != nil {
					return err
				}
				for left := fileSize; left > 0; left -= int64(len(zeros)) {
					if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
						return err
					}
				}
			}
			if err := tw.Close(); err != nil {
				return err
			}
			return zw.Close()
		}()
		pw.CloseWithError(err)
	}()
	return pr
}

// TestVerifyBoundsUnpackedBytes: a gzip bomb is refused once its files
// would pass the cap, by its headers when they say so, and the default cap
// holds without any setting.
func TestVerifyBoundsUnpackedBytes(t *testing.T) {
	limits := archive.Limits{MaxUnpackedBytes: 16 << 20}
	// One file larger than the cap: refused at its header.
	_, err := limits.Verify(bomb(t, 64<<20, 1))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "zeros/0.bin", words: "unpack to more than 16777216 bytes"}, archive.Summary{}, err)
	// Many files within it: refused at the first beyond it.
	_, err = limits.Verify(bomb(t, 1<<20, 64))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "zeros/15.bin", words: "unpack to more than"}, archive.Summary{}, err)

	if archive.DefaultMaxUnpackedBytes != 8<<30 {
		t.Fatalf("DefaultMaxUnpackedBytes = %d", archive.DefaultMaxUnpackedBytes)
	}
	// A header announcing 9 GiB (GNU base-256 size) is refused by the default
	// cap before any of its data is read.
	huge := rfile("huge.bin", "")
	huge.sizeField = []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	huge.sizeField[7] = 0x02
	huge.sizeField[8] = 0x40
	start := time.Now()
	_, err = archive.Verify(bytes.NewReader(rawTgz(t, rindex, huge)))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "huge.bin", words: "unpack to more than 8589934592 bytes"}, archive.Summary{}, err)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("refusing a 9 GiB header took %s", d)
	}
}

// endlessZeros is a gzip'd tar of ever more 1 GiB files of zeros, generated
// from one compressed MiB repeated: a reader that never runs out, so that
// only the context can stop the verification.
type endlessZeros struct {
	pending bytes.Buffer
	chunk   []byte // deflate blocks of 1 MiB of zeros, ended by a sync flush
	left    int    // chunks left in the current file
	n       int
}

func newEndlessZeros(t testing.TB) *endlessZeros {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestSpeed)
	if _, err := fw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	e := &endlessZeros{chunk: buf.Bytes()}
	e.pending.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	return e
}

func (e *endlessZeros) Read(p []byte) (int, error) {
	if e.pending.Len() == 0 {
		if e.left == 0 {
			var hdr bytes.Buffer
			tw := tar.NewWriter(&hdr)
			name := fmt.Sprintf("zeros/%d.bin", e.n)
			if e.n == 0 {
				_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "index.html", Size: 512, Mode: 0o644})
				_, _ = tw.Write(make([]byte, 512))
			}
			_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: 1 << 30, Mode: 0o644})
			_ = tw.Flush()
			fw, _ := flate.NewWriter(&e.pending, flate.BestSpeed)
			_, _ = fw.Write(hdr.Bytes()[:hdr.Len()-hdr.Len()%512])
			_ = fw.Flush()
			e.n++
			e.left = 1024
		} else {
			e.pending.Write(e.chunk)
			e.left--
		}
	}
	return e.pending.Read(p)
}

// TestVerifyStopsWhenCancelled: however much a gzip bomb would unpack, a
// cancelled or expired context ends the verification promptly,
// though the reader never blocks and never fails.
func TestVerifyStopsWhenCancelled(t *testing.T) {
	for _, name := range []string{"cancel", "deadline"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			want := context.Canceled
			if name == "deadline" {
				ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				want = context.DeadlineExceeded
			} else {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := archive.Limits{MaxUnpackedBytes: 1 << 50}.VerifyContext(ctx, newEndlessZeros(t))
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, want) {
					t.Fatalf("VerifyContext = %v, want %v", err, want)
				}
				var aerr *archive.Error
				if errors.As(err, &aerr) {
					t.Fatalf("a stopped verification is not a verdict on the archive: %v", err)
				}
				// Promptly, not within a set figure: the select's 10
				// seconds catch a verification that goes on unpacking.
				t.Logf("VerifyContext returned %s after the start, the context ending after 300ms", time.Since(start).Round(time.Millisecond))
			case <-time.After(10 * time.Second):
				t.Fatal("VerifyContext ignores its context")
			}
		})
	}
}

// TestVerifyBoundsExtendedHeaders: extended headers count against the cap
// on unpacked bytes, as the files do: records compress as well as zeros.
func TestVerifyBoundsExtendedHeaders(t *testing.T) {
	var hs []raw
	hs = append(hs, rindex)
	for i := range 40 {
		name := fmt.Sprintf("p%d.html", i)
		hs = append(hs, pax('x', "PaxHeaders/"+name, "comment", strings.Repeat("x", 100<<10)), rfile(name, "x"))
	}
	data := rawTgz(t, hs...)
	if _, err := archive.Verify(bytes.NewReader(data)); err != nil {
		t.Fatalf("within the default cap: %v", err)
	}
	_, err := archive.Limits{MaxUnpackedBytes: 1 << 20}.Verify(bytes.NewReader(data))
	checkRejection(t, rejection{kind: archive.ErrLimit, entry: "PaxHeaders/p10.html", words: "extended headers would unpack to more than"}, archive.Summary{}, err)
}
