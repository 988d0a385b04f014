package sitegen

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// File is one file of a site: its path in the archive and its content.
type File struct{ Name, Body string }

// DefaultPageCount is how many pages a Site that names no count holds.
const DefaultPageCount = 42

// DefaultPages are the pages of a site that names none. A page whose last
// segment is "index" is its folder's page: guides/index.html answers
// /guides, its canonical URL, and /guides/.
var DefaultPages = []string{
	"index",
	"guides/index", "guides/getting-started", "guides/configuration",
	"api/reference/index", "api/reference/authentication",
	"changelog",
}

// navPages bounds the pages every page's navigation lists, so that a page's
// size does not grow with the site's.
const navPages = 50

// Site describes a generated site. The same Site gives the same files.
type Site struct {
	// Domain is the host the site is exported for; default docs.example.com.
	Domain string
	// Version labels the export; empty means "latest".
	Version string
	// Paths are the pages to export (page paths such as
	// "guides/getting-started"); empty means DefaultPages.
	Paths []string
	// PageCount is how many pages the site holds: Paths cut, or padded with
	// generated pages (topics/topic-NN). 0 means len(Paths), or
	// DefaultPageCount when Paths is empty.
	PageCount int
	// Build, when set, is stamped on every page and payload, as an export
	// stamps its build: two sites that differ in Build differ in every page.
	Build string
	// Revisions are the pages' revisions, by page path (absent: 0). A page's
	// text is drawn from its path and revision, so a new revision changes
	// its HTML file and no other: the payloads, the sitemap and the search
	// index carry no page text.
	Revisions map[string]int
}

// Pages are the site's page paths, in the order its files list them.
func (s Site) Pages() []string {
	pages := DefaultPages
	if len(s.Paths) > 0 {
		pages = s.Paths
	}
	count := s.PageCount
	if count <= 0 {
		count = len(pages)
		if len(s.Paths) == 0 {
			count = DefaultPageCount
		}
	}
	pages = slices.Clip(pages[:min(count, len(pages))])
	for n := len(pages) + 1; n <= count; n++ {
		pages = append(pages, fmt.Sprintf("topics/topic-%02d", n))
	}
	return pages
}

// FileCount is how many files a site of pages pages holds: an HTML page and
// an RSC payload for each, the sitemap, robots.txt, the search index and the
// assets.
func FileCount(pages int) int {
	return 2*pages + 3 + len(SiteAssets().Files)
}

// Files are the site's files, laid out as a static export of a documentation
// site: for each page its HTML (`guides/getting-started.html`), then for each
// its RSC payload (`guides/getting-started.txt`), then the sitemap (with
// extensionless URLs), robots.txt, the search index, and the assets (hashed
// JavaScript, CSS, a font, images, a favicon), the same in every site, as
// unchanged hashed assets are.
func (s Site) Files() []File {
	if s.Domain == "" {
		s.Domain = "docs.example.com"
	}
	if s.Version == "" {
		s.Version = "latest"
	}
	pages := s.Pages()
	a := SiteAssets()
	files := make([]File, 0, FileCount(len(pages)))
	for i, p := range pages {
		next := pages[(i+1)%len(pages)]
		files = append(files, File{p + ".html", s.renderPage(p, next, pages[:min(len(pages), navPages)], a)})
	}
	for _, p := range pages {
		files = append(files, File{p + ".txt", s.renderPayload(p, a)})
	}
	files = append(files,
		File{"sitemap.xml", renderSitemap(s.Domain, pages)},
		File{"robots.txt", "User-agent: *\nAllow: /\n\nSitemap: https://" + s.Domain + "/sitemap.xml\n"},
		File{"search-index.json", renderSearchIndex(s.Domain, pages)},
	)
	return append(files, a.Files...)
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

// renderPage writes a page as a static export does: assets by root-relative
// URLs (the export is served at the root of its host), the navigation by
// relative .html links, a root-relative link to the next page, and the
// canonical URL without extension.
func (s Site) renderPage(p, next string, nav []string, a Assets) string {
	up := strings.Repeat("../", strings.Count(p, "/"))
	esc := html.EscapeString
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	if s.Build != "" {
		fmt.Fprintf(&b, "<meta name=\"docsadmin-build\" content=\"%s\">\n", esc(s.Build))
	}
	fmt.Fprintf(&b, "<title>%s - %s</title>\n<link rel=\"canonical\" href=\"https://%s/%s\">\n",
		esc(pageTitle(p)), esc(s.Domain), esc(s.Domain), esc(pageRoute(p)))
	fmt.Fprintf(&b, "<link rel=\"icon\" href=\"/%s\">\n<link rel=\"preload\" href=\"/%s\" as=\"font\" type=\"font/woff2\" crossorigin>\n"+
		"<link rel=\"stylesheet\" href=\"/%s\">\n<script src=\"/%s\" defer></script>\n<script src=\"/%s\" defer></script>\n</head>\n<body>\n",
		a.Favicon, a.Font, a.CSS, a.Runtime, a.App)
	fmt.Fprintf(&b, "<header><img src=\"%s%s\" alt=\"\" width=\"32\" height=\"32\"> %s <small>(%s)</small></header>\n<nav>\n",
		up, a.Logo, esc(s.Domain), esc(s.Version))
	for _, o := range nav {
		fmt.Fprintf(&b, "<a href=\"%s%s.html\">%s</a>\n", up, esc(o), esc(pageTitle(o)))
	}
	fmt.Fprintf(&b, "</nav>\n<main>\n<h1>%s</h1>\n<p>Static export of %s, page %s.</p>\n", esc(pageTitle(p)), esc(s.Domain), esc(p))
	if p == "index" {
		fmt.Fprintf(&b, "<div class=\"hero\"><img src=\"%s\" alt=\"\" width=\"64\" height=\"16\"></div>\n", a.Hero)
	}
	writeProse(&b, p, s.Revisions[p])
	fmt.Fprintf(&b, "<p><a href=\"/%s.html\">Next: %s</a></p>\n</main>\n</body>\n</html>\n", esc(next), esc(pageTitle(next)))
	return b.String()
}

// words are what a page's text is made of.
var words = []string{"deploy", "export", "static", "site", "guide", "configure", "terraform", "archive", "page", "link",
	"host", "cache", "bucket", "upload", "verify", "route", "index", "search", "content", "version"}

// writeProse writes a page's text: a few paragraphs drawn from its path and
// revision, which compress as text does, and a note of the revision after
// the first.
func writeProse(b *strings.Builder, p string, revision int) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(p)) // a hash: no error
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(revision)))
	for range 2 + rng.IntN(3) {
		b.WriteString("<p>")
		for i := range 30 + rng.IntN(30) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteString(".</p>\n")
	}
	if revision > 0 {
		fmt.Fprintf(b, "<p><small>Revision %d.</small></p>\n", revision)
	}
}

// renderPayload writes a page's RSC payload, which a client-side router
// fetches instead of the HTML when it navigates.
func (s Site) renderPayload(p string, a Assets) string {
	q := func(v any) string {
		out, _ := json.Marshal(v) // strings and maps of strings: no error
		return string(out)
	}
	tree := map[string]any{
		"p": "/" + pageRoute(p),
		"c": []any{"$", "main", nil, map[string]any{"children": []any{"$", "h1", nil, map[string]string{"children": pageTitle(p)}}}},
	}
	if s.Build != "" {
		tree["b"] = s.Build
	}
	return fmt.Sprintf("1:HL[%s,\"style\"]\n2:I[%s]\n0:%s\n", q("/"+a.CSS), q("/"+a.App), q(tree))
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
// page, by its extensionless URL, with the page's summary as its excerpt.
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
