package site

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

func TestContentType(t *testing.T) {
	cases := map[string]string{
		"index.html":                   "text/html; charset=utf-8",
		"guides/Getting-Started.HTML":  "text/html; charset=utf-8",
		"assets/site.css":              "text/css; charset=utf-8",
		"assets/app.3f9a2c1b.js":       "text/javascript; charset=utf-8",
		"assets/module.mjs":            "text/javascript; charset=utf-8",
		"search-index.json":            "application/json",
		"assets/app.js.map":            "application/json",
		"sitemap.xml":                  "application/xml",
		"robots.txt":                   "text/plain; charset=utf-8",
		"guides/getting-started.rsc":   "text/x-component",
		"assets/logo.svg":              "image/svg+xml",
		"img/a.png":                    "image/png",
		"img/a.jpg":                    "image/jpeg",
		"img/a.JPEG":                   "image/jpeg",
		"img/a.gif":                    "image/gif",
		"img/a.webp":                   "image/webp",
		"img/a.avif":                   "image/avif",
		"favicon.ico":                  "image/x-icon",
		"fonts/inter.woff":             "font/woff",
		"fonts/inter.woff2":            "font/woff2",
		"fonts/inter.ttf":              "font/ttf",
		"fonts/inter.otf":              "font/otf",
		"files/guide.pdf":              "application/pdf",
		"app.wasm":                     "application/wasm",
		"site.webmanifest":             "application/manifest+json",
		"assets/padding.bin":           DefaultContentType,
		"LICENSE":                      DefaultContentType,
		"archive.tar.gz":               DefaultContentType,
		"dir.html/readme":              DefaultContentType,
		"_next/static/chunks/x.abc.js": "text/javascript; charset=utf-8",
	}
	for p, want := range cases {
		if got := ContentType(p); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestContentTypesIsACopy(t *testing.T) {
	table := ContentTypes()
	if !maps.Equal(table, contentTypes) {
		t.Fatal("ContentTypes differs from the table")
	}
	table[".html"] = "text/plain"
	if ContentType("index.html") != "text/html; charset=utf-8" {
		t.Error("changing the returned table changed ContentType")
	}
	for ext := range table {
		if ext[0] != '.' || ext != toLower(ext) {
			t.Errorf("extension %q is not a lower-case extension with its dot", ext)
		}
	}
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func TestCacheControl(t *testing.T) {
	cases := map[string]string{
		"index.html":                          CacheShort,
		"guides/getting-started.html":         CacheShort,
		"guides/page.3f9a2c1b.html":           CacheShort, // a page is never immutable
		"guides/getting-started.rsc":          CacheShort,
		"guides/getting-started.txt":          CacheShort, // the payload a static export writes
		"llms.txt":                            CacheShort,
		"sitemap.xml":                         CacheShort,
		"sitemap-0.xml":                       CacheShort,
		"robots.txt":                          CacheShort,
		"search-index.json":                   CacheShort,
		"./search-index.json":                 CacheShort,
		"assets/app.3f9a2c1b.js":              CacheImmutable,
		"assets/main-3F9A2C1B8E.css":          CacheImmutable,
		"assets/font_a1b2c3d4e5.woff2":        CacheImmutable,
		"_next/static/chunks/main.js":         CacheImmutable,
		"_next/static/css/app.css":            CacheImmutable,
		"assets/data/versions.json":           CacheDefault, // JSON below the root
		"assets/site.css":                     CacheDefault,
		"assets/logo.svg":                     CacheDefault,
		"assets/deadbeef.js":                  CacheDefault, // letters only: a word, not a hash
		"assets/release-20261122.js":          CacheDefault, // digits only: a date, not a hash
		"assets/app.3f9a2c1.js":               CacheDefault, // 7 digits: too short
		"assets/app.3f9a2c1z.js":              CacheDefault, // not hexadecimal
		"docs/robots.txt/other.css":           CacheDefault,
		"favicon.ico":                         CacheDefault,
		"assets/padding.bin":                  CacheDefault,
		"next/static/chunks/main.js":          CacheDefault,
		"assets/_next/static/chunks/main.css": CacheDefault,
	}
	for p, want := range cases {
		if got := CacheControl(p); got != want {
			t.Errorf("CacheControl(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestRoute(t *testing.T) {
	cases := []struct {
		path, route string
		ok          bool
	}{
		{"index.html", "", true},
		{"./index.html", "", true},
		{"guides/getting-started.html", "guides/getting-started", true},
		{"guides/index.html", "guides", true},
		{"a/b/c/index.html", "a/b/c", true},
		{"changelog.html", "changelog", true},
		{"assets/site.css", "", false},
		{"guides/getting-started.rsc", "", false},
		{"page.HTML", "", false},
		{".html", "", false},
		{"guides/.html", "", false},
		{"myindex.html", "myindex", true},
	}
	for _, c := range cases {
		route, ok := Route(c.path)
		if route != c.route || ok != c.ok {
			t.Errorf("Route(%q) = %q, %v; want %q, %v", c.path, route, ok, c.route, c.ok)
		}
	}
}

func TestManifest(t *testing.T) {
	m := NewManifest()
	add := func(p, body string) {
		if err := m.Add(p, int64(len(body)), sha256.Sum256([]byte(body)), md5.Sum([]byte(body))); err != nil {
			t.Fatal(err)
		}
	}
	add("index.html", "<!DOCTYPE html>home")
	add("guides.html", "guides")
	add("guides/index.html", "guides index")
	add("guides/getting-started.html", "start")
	add("assets/site.css", "body{}")
	add("assets/site.css", "body{margin:0}") // replaced, counted once

	if m.Len() != 5 {
		t.Errorf("Len = %d, want 5", m.Len())
	}
	wantSize := int64(len("<!DOCTYPE html>home") + len("guides") + len("guides index") + len("start") + len("body{margin:0}"))
	if m.Size() != wantSize {
		t.Errorf("Size = %d, want %d", m.Size(), wantSize)
	}
	css := m.Files()["assets/site.css"]
	want := File{
		Path: "assets/site.css", Size: 14,
		ContentType:  "text/css; charset=utf-8",
		CacheControl: CacheDefault,
	}
	sum := sha256.Sum256([]byte("body{margin:0}"))
	md := md5.Sum([]byte("body{margin:0}"))
	want.SHA256 = hexString(sum[:])
	want.MD5 = hexString(md[:])
	want.MD5Base64 = base64String(md[:])
	if css != want {
		t.Errorf("assets/site.css: got %+v, want %+v", css, want)
	}
	routes := m.Routes()
	wantRoutes := map[string]string{
		"":                       "index.html",
		"guides":                 "guides.html",
		"guides/getting-started": "guides/getting-started.html",
	}
	if !maps.Equal(routes, wantRoutes) {
		t.Errorf("Routes = %v, want %v", routes, wantRoutes)
	}
	paths := m.Paths()
	if len(paths) != 5 || paths[0] != "assets/site.css" || paths[4] != "index.html" {
		t.Errorf("Paths = %v, want them sorted", paths)
	}
	// guides/ and assets/ above files; empty directories named alone, a
	// directory named again, and the parents of a deep one, each once.
	for _, d := range []string{"empty", "empty", "guides", "a/b/c"} {
		if err := m.AddDir(d); err != nil {
			t.Fatal(err)
		}
	}
	if m.Dirs() != 6 {
		t.Errorf("Dirs = %d, want 6 (assets, guides, empty, a, a/b, a/b/c)", m.Dirs())
	}
}

// hexString and base64String encode by hand, apart from the code under test.
func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func base64String(b []byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []byte
	for len(b) >= 3 {
		n := uint(b[0])<<16 | uint(b[1])<<8 | uint(b[2])
		out = append(out, alphabet[n>>18&63], alphabet[n>>12&63], alphabet[n>>6&63], alphabet[n&63])
		b = b[3:]
	}
	switch len(b) {
	case 1:
		n := uint(b[0]) << 16
		out = append(out, alphabet[n>>18&63], alphabet[n>>12&63], '=', '=')
	case 2:
		n := uint(b[0])<<16 | uint(b[1])<<8
		out = append(out, alphabet[n>>18&63], alphabet[n>>12&63], alphabet[n>>6&63], '=')
	}
	return string(out)
}

func TestNameProblemAndCollisions(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"index.html", true},
		{"guides/getting-started.html", true},
		{".well-known/security.txt", true},
		{".well-known", false},
		{"...html", false},
		{"guides/..html", false},
		{".git/config", false},
		{".htaccess", false},
		{"guides/.env", false},
		{"a\\b.html", false},
		{"a\x1bb.html", false},
		{"a\u202eb.html", false},
		{"a//b.html", false},
		{"a/./b.html", false},
	} {
		if got := NameProblem(c.name); (got == "") != c.ok {
			t.Errorf("NameProblem(%q) = %q, want ok=%v", c.name, got, c.ok)
		}
	}
	m := NewManifest()
	var zero32 [32]byte
	var zero16 [16]byte
	if err := m.Add("changelog.html", 1, zero32, zero16); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("Changelog.html", 1, zero32, zero16); err == nil || !strings.Contains(err.Error(), "changelog.html") {
		t.Errorf("a case collision was accepted: %v", err)
	}
	if err := m.Add("caf\u00e9.html", 1, zero32, zero16); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("cafe\u0301.html", 1, zero32, zero16); err == nil {
		t.Error("a Unicode normalisation collision was accepted")
	}
	if m.Len() != 2 {
		t.Errorf("the manifest holds %d files, want 2", m.Len())
	}
}

// Names that case-insensitive systems fold alike beyond what lower-casing
// finds, and a file whose name is a directory's once folded, collide; the
// error names both entries.
func TestFoldCollisions(t *testing.T) {
	var zero32 [32]byte
	var zero16 [16]byte
	for _, c := range []struct {
		first, second string // a trailing slash: a directory entry
		want          string // in the error of the second
	}{
		{"σ.html", "ς.html", `"ς.html" cannot be served as named: it is the same name as "σ.html"`},
		{"s.html", "ſ.html", `same name as "s.html"`},
		{"k.html", "\u212a.html", `same name as "k.html"`},
		{"Σ.html", "ς.html", `same name as "Σ.html"`},
		{"guides", "Guides/x.html", `"Guides/x.html" cannot be served as named: its directory "Guides" is the same name as the file "guides"`},
		{"Guides/x.html", "guides", `"guides" cannot be served as named: it is the same name as the directory "Guides" (of "Guides/x.html")`},
		{"a/B/c.html", "a/b", `same name as the directory "a/B" (of "a/B/c.html")`},
		{"Guides/a.html", "guides/b.html", `its directory "guides" is the same name as the directory "Guides" (of "Guides/a.html")`},
		{"Guides/", "guides", `same name as the directory "Guides"`},
		{"guides", "Guides/", `same name as "guides"`},
		{"ſ/", "s/", `same name as the directory "ſ"`},
	} {
		m := NewManifest()
		add := func(p string) error {
			if dir, ok := strings.CutSuffix(p, "/"); ok {
				return m.AddDir(dir)
			}
			return m.Add(p, 1, zero32, zero16)
		}
		if err := add(c.first); err != nil {
			t.Fatalf("%q: %v", c.first, err)
		}
		err := add(c.second)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q after %q: %v, want an error with %s", c.second, c.first, err, c.want)
		}
		if m.Len() > 1 {
			t.Errorf("%q after %q: the refused file was recorded", c.second, c.first)
		}
	}

	// What does not collide: the same directory again, files side by side
	// in it, a file and a directory whose names differ once folded.
	m := NewManifest()
	for _, p := range []string{"guides/a.html", "guides/b.html", "guides/", "guide", "guides.html", ".well-known/", ".well-known/security.txt", "straße.html"} {
		var err error
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			err = m.AddDir(dir)
		} else {
			err = m.Add(p, 1, zero32, zero16)
		}
		if err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	if err := m.Add("guides/a.html", 2, zero32, zero16); err != nil || m.Size() != 7 {
		t.Errorf("a second Add of a path: %v, size %d", err, m.Size())
	}
}

func TestDirNameProblem(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"guides", true},
		{".well-known", true},
		{".well-known/acme-challenge", true},
		{".git", false},
		{".git/hooks", false},
		{"a\\b", false},
		{"guides/.cache", false},
		{"a\u202eb", false},
		{"..", false},
	} {
		if got := DirNameProblem(c.name); (got == "") != c.ok {
			t.Errorf("DirNameProblem(%q) = %q, want ok=%v", c.name, got, c.ok)
		}
	}
	m := NewManifest()
	if err := m.AddDir(".git/hooks"); err == nil || !strings.Contains(err.Error(), `".git/hooks"`) {
		t.Errorf("AddDir(.git/hooks) = %v", err)
	}
}

// EncodeFiles writes what json.Marshal writes of the map, byte for byte, so
// that any JSON reader, jq included, reads the manifest file alike.
func TestEncodeFilesIsTheMapsJSON(t *testing.T) {
	m := NewManifest()
	for _, p := range []string{"index.html", "guides/<b>&.html", "é/ü.css", "b.js", "a.txt"} {
		if err := m.Add(p, int64(len(p)), sha256.Sum256([]byte(p)), md5.Sum([]byte(p))); err != nil {
			t.Fatal(err)
		}
	}
	got, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fileJSON{}
	for p, f := range m.Files() {
		want[p] = fileJSON{Size: f.Size, SHA256: f.SHA256, MD5: f.MD5, MD5Base64: f.MD5Base64, ContentType: f.ContentType, CacheControl: f.CacheControl}
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantJSON) {
		t.Errorf("EncodeFiles:\n%s\njson.Marshal of the map:\n%s", got, wantJSON)
	}
}
