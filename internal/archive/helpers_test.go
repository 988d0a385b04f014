package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"testing"
	"time"
)

// ent is one entry of a test archive.
type ent struct {
	hdr  tar.Header
	body string
}

var testTime = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

func file(name, body string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: 0o644, ModTime: testTime}, body: body}
}

func dir(name string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: testTime}}
}

func symlink(name, target string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777, ModTime: testTime}}
}

func hardlink(name, target string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeLink, Name: name, Linkname: target, Mode: 0o644, ModTime: testTime}}
}

func special(name string, typ byte) ent {
	return ent{hdr: tar.Header{Typeflag: typ, Name: name, Mode: 0o644, ModTime: testTime, Devmajor: 1, Devminor: 3}}
}

func withFormat(e ent, f tar.Format) ent {
	e.hdr.Format = f
	return e
}

const indexPage = "<!DOCTYPE html><title>Docs</title><h1>Docs</h1>\n"

// tarOf writes the entries as a tar, uncompressed.
func tarOf(t testing.TB, entries ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := e.hdr
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatalf("tar header %q: %v", hdr.Name, err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatalf("tar body %q: %v", hdr.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz compresses data as one gzip member.
func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tgz is a gzip'd tar of the entries.
func tgz(t testing.TB, entries ...ent) []byte {
	t.Helper()
	return gz(t, tarOf(t, entries...))
}

// site is a small realistic archive.
func site(t testing.TB) []byte {
	return tgz(t,
		dir("./"),
		file("./index.html", indexPage),
		dir("./guides/"),
		file("./guides/getting-started.html", "<h1>Getting started</h1>"),
		dir("./assets/"),
		file("./assets/site.css", "body{margin:0}"),
	)
}
