package sitetest

import (
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// contentTypes is the Content-Type of each file extension (without its dot)
// of an export, as docsadmin_static_site records it for uploads. The nginx
// configuration of the documentation must give the same, and its types
// block must list these and no others.
var contentTypes = func() map[string]string {
	types := map[string]string{}
	for ext, t := range site.ContentTypes() {
		types[strings.TrimPrefix(ext, ".")] = t
	}
	return types
}()

// contentType and cacheControl are the provider's own rules.
var (
	contentType  = site.ContentType
	cacheControl = site.CacheControl
)

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
	"llms.txt",
	"_next/static/x/notes.txt", // a text file's rule comes first
	"docs/data.json",           // JSON away from the root
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
