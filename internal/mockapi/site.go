package mockapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"path"
	"slices"
	"strings"
	"sync"
)

// siteFile is one file of an exported site.
type siteFile struct{ name, body string }

// SiteFile is one file of an exported site: its path in the archive and its
// content.
type SiteFile struct{ Name, Body string }

// defaultPages are the pages of an export that names none. A page whose last
// segment is "index" is its folder's page: guides/index.html answers
// /guides, its canonical URL, and /guides/.
var defaultPages = []string{
	"index",
	"guides/index", "guides/getting-started", "guides/configuration",
	"api/reference/index", "api/reference/authentication",
	"changelog",
}

// siteFiles are the files of an export, laid out as a static export of a
// documentation site: for each page its HTML (`guides/getting-started.html`)
// and its RSC payload (`guides/getting-started.txt`), then the sitemap (with
// extensionless URLs), robots.txt, the search index, and the assets (hashed
// JavaScript, CSS, a font, images, a favicon).
//
// There is a page for each requested path (the default pages when none were
// requested), cut or padded with generated pages to count, so that an archive
// holds as many HTML pages as the job reports. build (the export job) is
// stamped on every page, as a real export's build stamp is, so two exports
// never serve the same bytes; the assets are the same in every export, as
// unchanged hashed assets are.
func siteFiles(domain, version, build string, paths []string, count int) []siteFile {
	pages := defaultPages
	if len(paths) > 0 {
		pages = paths
	}
	pages = slices.Clip(pages[:min(count, len(pages))])
	for n := len(pages) + 1; n <= count; n++ {
		pages = append(pages, fmt.Sprintf("topics/topic-%02d", n))
	}
	a := assets()
	files := make([]siteFile, 0, 2*len(pages)+3+len(a.files))
	for i, p := range pages {
		next := pages[(i+1)%len(pages)]
		files = append(files, siteFile{p + ".html", renderPage(p, next, pages, domain, version, build, a)})
	}
	for _, p := range pages {
		files = append(files, siteFile{p + ".txt", renderPayload(p, build, a)})
	}
	files = append(files,
		siteFile{"sitemap.xml", renderSitemap(domain, pages)},
		siteFile{"robots.txt", "User-agent: *\nAllow: /\n\nSitemap: https://" + domain + "/sitemap.xml\n"},
		siteFile{"search-index.json", renderSearchIndex(domain, pages)},
	)
	return append(files, a.files...)
}

// pageRoute is the extensionless URL path of a page, without the leading
// slash, as canonical and sitemap URLs spell it: "guides/getting-started",
// "guides" for guides/index, "" for index.
func pageRoute(p string) string {
	if p == "index" {
		return ""
	}
	return strings.TrimSuffix(p, "/index")
}

// pageTitle names a page: its last segment, or its folder's for an index.
func pageTitle(p string) string {
	if p == "index" {
		return "Home"
	}
	return path.Base(strings.TrimSuffix(p, "/index"))
}

// siteAssets are the files every export holds, whatever its pages, and the
// names the pages refer to them by.
type siteAssets struct {
	files                                        []siteFile
	css, runtime, app, font, logo, hero, favicon string
}

// assets are built once: their names carry a digest of their content, as a
// bundler names them, so they never change between exports.
var assets = sync.OnceValue(func() siteAssets {
	var a siteAssets
	add := func(dir, base, ext, body string) string {
		sum := sha256.Sum256([]byte(body))
		name := fmt.Sprintf("%s%s.%s.%s", dir, base, hex.EncodeToString(sum[:4]), ext)
		a.files = append(a.files, siteFile{name, body})
		return name
	}
	a.font = add("assets/fonts/", "inter-var", "woff2", woff2())
	a.logo = add("assets/images/", "logo", "svg",
		`<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2b6cb0"/></svg>`+"\n")
	a.hero = add("assets/images/", "hero", "png", pngImage(64, 16))
	a.css = add("assets/", "main", "css", fmt.Sprintf(
		"@font-face{font-family:Inter;src:url(%s) format(\"woff2\");font-display:swap}\n"+
			"body{font-family:Inter,system-ui,sans-serif;margin:0 auto;max-width:48rem;padding:1rem}\n"+
			"nav a{margin-right:1rem}\n.hero{background:url(%s) no-repeat;min-height:16px}\n",
		strings.TrimPrefix(a.font, "assets/"), strings.TrimPrefix(a.hero, "assets/")))
	a.runtime = add("_next/static/chunks/", "webpack", "js",
		"(self.webpackChunk_N_E=self.webpackChunk_N_E||[]).push([[0],{}]);\n")
	a.app = add("_next/static/chunks/", "app", "js",
		"document.addEventListener('DOMContentLoaded',function(){document.body.dataset.ready='1';});\n")
	a.favicon = "favicon.ico"
	a.files = append(a.files, siteFile{a.favicon, icon(pngImage(16, 16))})
	return a
})

// pngImage is a valid PNG of a w×h gradient.
func pngImage(w, h int) string {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: 0x2b, G: uint8(0x6c + 4*x), B: uint8(0xb0 + 4*y), A: 0xff})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // an in-memory image: no error
	return b.String()
}

// icon wraps a 16×16 PNG in an ICO container, as favicon.ico files are
// written today: a directory of one entry pointing at the PNG.
func icon(pngData string) string {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le([3]uint16{0, 1, 1})                      // reserved, type icon, one image
	le([4]uint8{16, 16, 0, 0})                  // width, height, no palette, reserved
	le([2]uint16{1, 32})                        // colour planes, bits per pixel
	le([2]uint32{uint32(len(pngData)), 6 + 16}) // size, offset after the directory
	b.WriteString(pngData)
	return b.String()
}

// woff2 is the header of a WOFF2 font (signature, flavour, length, no
// tables): enough for a type sniffer, not for a renderer.
func woff2() string {
	var b bytes.Buffer
	b.WriteString("wOF2")
	_ = binary.Write(&b, binary.BigEndian, struct {
		Flavor                       uint32
		Length                       uint32
		NumTables, Reserved          uint16
		TotalSfntSize, CompressedLen uint32
		Major, Minor                 uint16
		MetaOffset, MetaLength       uint32
		MetaOrigLength               uint32
		PrivOffset, PrivLength       uint32
	}{Flavor: 0x00010000, Length: 48, TotalSfntSize: 12, Major: 1})
	return b.String()
}

// renderPage writes a page as a static export does: assets by root-relative
// URLs (the export is served at the root of its host), the navigation by
// relative .html links, a root-relative link to the next page, and the
// canonical URL without extension.
func renderPage(p, next string, all []string, domain, version, build string, a siteAssets) string {
	up := strings.Repeat("../", strings.Count(p, "/"))
	if version == "" {
		version = "latest"
	}
	esc := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"+
		"<meta name=\"docsadmin-build\" content=\"%s\">\n<title>%s - %s</title>\n<link rel=\"canonical\" href=\"https://%s/%s\">\n",
		esc(build), esc(pageTitle(p)), esc(domain), esc(domain), esc(pageRoute(p)))
	fmt.Fprintf(&b, "<link rel=\"icon\" href=\"/%s\">\n<link rel=\"preload\" href=\"/%s\" as=\"font\" type=\"font/woff2\" crossorigin>\n"+
		"<link rel=\"stylesheet\" href=\"/%s\">\n<script src=\"/%s\" defer></script>\n<script src=\"/%s\" defer></script>\n</head>\n<body>\n",
		a.favicon, a.font, a.css, a.runtime, a.app)
	fmt.Fprintf(&b, "<header><img src=\"%s%s\" alt=\"\" width=\"32\" height=\"32\"> %s <small>(%s)</small></header>\n<nav>\n",
		up, a.logo, esc(domain), esc(version))
	for _, o := range all {
		fmt.Fprintf(&b, "<a href=\"%s%s.html\">%s</a>\n", up, esc(o), esc(pageTitle(o)))
	}
	fmt.Fprintf(&b, "</nav>\n<main>\n<h1>%s</h1>\n<p>Static export of %s, page %s.</p>\n", esc(pageTitle(p)), esc(domain), esc(p))
	if p == "index" {
		fmt.Fprintf(&b, "<div class=\"hero\"><img src=\"%s\" alt=\"\" width=\"64\" height=\"16\"></div>\n", a.hero)
	}
	fmt.Fprintf(&b, "<p><a href=\"/%s.html\">Next: %s</a></p>\n</main>\n</body>\n</html>\n", esc(next), esc(pageTitle(next)))
	return b.String()
}

// renderPayload writes a page's RSC payload, which a client-side router
// fetches instead of the HTML when it navigates.
func renderPayload(p, build string, a siteAssets) string {
	q := func(v any) string {
		out, _ := json.Marshal(v) // strings and maps of strings: no error
		return string(out)
	}
	return fmt.Sprintf("1:HL[%s,\"style\"]\n2:I[%s]\n0:%s\n", q("/"+a.css), q("/"+a.app), q(map[string]any{
		"b": build, "p": "/" + pageRoute(p),
		"c": []any{"$", "main", nil, map[string]any{"children": []any{"$", "h1", nil, map[string]string{"children": pageTitle(p)}}}},
	}))
}

// renderSitemap lists every page by its canonical, extensionless URL.
func renderSitemap(domain string, pages []string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, p := range pages {
		fmt.Fprintf(&b, "<url><loc>https://%s/%s</loc></url>\n", html.EscapeString(domain), html.EscapeString(pageRoute(p)))
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// renderSearchIndex is the index a client-side search reads: one entry per
// page, by its extensionless URL.
func renderSearchIndex(domain string, pages []string) string {
	type entry struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Excerpt string `json:"excerpt"`
	}
	entries := make([]entry, 0, len(pages))
	for _, p := range pages {
		entries = append(entries, entry{"/" + pageRoute(p), pageTitle(p), "Static export of " + domain + ", page " + p + "."})
	}
	out, _ := json.Marshal(entries) // plain strings: no error
	return string(out) + "\n"
}

// SiteFiles returns the files of a job's site as its good archive holds them
// (without the padding of ArchiveSize), or false when the job does not exist.
func (s *Server) SiteFiles(jobID string) ([]SiteFile, bool) {
	s.mu.Lock()
	j := s.jobs[jobID]
	s.mu.Unlock()
	if j == nil {
		return nil, false
	}
	site := j.site()
	files := make([]SiteFile, len(site))
	for i, f := range site {
		files[i] = SiteFile{f.name, f.body}
	}
	return files, true
}

// SiteFileCount is how many files the good archive of a site of pages pages
// holds, without the padding file: an HTML page and an RSC payload for each,
// the sitemap, robots.txt, the search index and the assets.
func SiteFileCount(pages int) int {
	return 2*pages + 3 + len(assets().files)
}
