package sitetest

import (
	"path"
	"strings"
)

// contentTypes is the Content-Type of each file extension of an export, as
// docsadmin_static_site records it for uploads. The nginx configuration of
// the documentation must give the same, and its types block must list these
// and no others.
//
// It mirrors internal/site (ContentTypes), which is developed alongside:
// once both are merged, the test reads that table instead of this copy.
var contentTypes = map[string]string{
	"html":        "text/html; charset=utf-8",
	"css":         "text/css; charset=utf-8",
	"js":          "text/javascript; charset=utf-8",
	"mjs":         "text/javascript; charset=utf-8",
	"json":        "application/json",
	"map":         "application/json",
	"xml":         "application/xml",
	"txt":         "text/plain; charset=utf-8",
	"rsc":         "text/x-component",
	"svg":         "image/svg+xml",
	"png":         "image/png",
	"jpg":         "image/jpeg",
	"jpeg":        "image/jpeg",
	"gif":         "image/gif",
	"webp":        "image/webp",
	"avif":        "image/avif",
	"ico":         "image/x-icon",
	"woff":        "font/woff",
	"woff2":       "font/woff2",
	"ttf":         "font/ttf",
	"otf":         "font/otf",
	"pdf":         "application/pdf",
	"wasm":        "application/wasm",
	"webmanifest": "application/manifest+json",
}

// defaultContentType is what a file of any other extension is served as.
const defaultContentType = "application/octet-stream"

// contentType is the Content-Type of a file of the export.
func contentType(name string) string {
	if t, ok := contentTypes[strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))]; ok {
		return t
	}
	return defaultContentType
}

// The Cache-Control values of an export's files.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheShort     = "public, max-age=300, must-revalidate"
	cacheDefault   = "public, max-age=3600"
)

// cacheControl is the Cache-Control of the file at p, by the rules of
// internal/site (CacheControl), in order: pages, RSC payloads, sitemaps,
// robots.txt and JSON files at the root are short-lived; files under
// _next/static/ and files whose name holds a content hash (a token of at
// least 8 hexadecimal digits, with a digit and a letter, between dots,
// dashes or underscores, before the extension) are immutable; the rest lasts
// an hour.
func cacheControl(p string) string {
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	switch {
	case ext == ".html" || ext == ".htm" || ext == ".rsc",
		strings.HasPrefix(lower, "sitemap") && ext == ".xml",
		lower == "robots.txt",
		ext == ".json" && !strings.Contains(p, "/"):
		return cacheShort
	case strings.HasPrefix(p, "_next/static/") || hashedName(base):
		return cacheImmutable
	}
	return cacheDefault
}

func hashedName(base string) bool {
	stem := strings.TrimSuffix(base, path.Ext(base))
	for _, token := range strings.FieldsFunc(stem, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		digits, letters, other := 0, 0, 0
		for _, c := range token {
			switch {
			case c >= '0' && c <= '9':
				digits++
			case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
				letters++
			default:
				other++
			}
		}
		if len(token) >= 8 && other == 0 && digits > 0 && letters > 0 {
			return true
		}
	}
	return false
}

// edgeFiles are added to the unpacked export before nginx serves it, so that
// the server's rules meet the cases the mock's site does not hold: every
// extension of the table, hashes that are no hashes, sitemaps, robots.txt and
// JSON files away from the root, an unknown extension.
var edgeFiles = []string{
	"assets/x.12345678.css",           // digits only: no hash
	"assets/x.abcdefab.css",           // letters only: no hash
	"assets/x.3f9a2c1.css",            // seven digits: no hash
	"assets/main-3F9A2C1B8E.css",      // upper case, after a dash
	"assets/vendor_0a1b2c3d.chunk.js", // after an underscore, not last
	"assets/file.3f9a2c1b",            // the hash is the extension
	"assets/3f9a2c1b.woff2",           // the whole stem
	"_next/static/media/font.woff",    // under _next/static/
	"_next/static/x/app.js",
	"docs/robots.txt",
	"docs/data.json", // JSON away from the root
	"manifest.json",
	"sitemap-0.xml",
	"guides/sitemap.xml",
	"feed.xml",
	"page.rsc",
	"page.htm",
	"fonts/a.ttf", "fonts/a.otf",
	"app.mjs", "app.js.map", "app.wasm", "site.webmanifest",
	"img/a.jpg", "img/a.jpeg", "img/a.gif", "img/a.webp", "img/a.avif",
	"docs/guide.pdf",
	"download.bin", // no type of its own
	"UPPER.PNG",
}
