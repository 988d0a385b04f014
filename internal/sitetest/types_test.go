package sitetest

import (
	"path"
	"regexp"
	"strings"
)

// contentTypes is the Content-Type of each file extension of an export, as
// docsadmin_static_site records it for uploads. The nginx configuration of
// the documentation must give the same, and its types block must list these
// and no others.
//
// When internal/site (the provider's table) is merged, this table is to be
// replaced by it, so that the test holds the server to the provider's values.
var contentTypes = map[string]string{
	"html":        "text/html; charset=utf-8",
	"css":         "text/css; charset=utf-8",
	"js":          "text/javascript; charset=utf-8",
	"mjs":         "text/javascript; charset=utf-8",
	"json":        "application/json",
	"map":         "application/json",
	"webmanifest": "application/manifest+json",
	"xml":         "application/xml",
	"txt":         "text/plain; charset=utf-8",
	"svg":         "image/svg+xml",
	"png":         "image/png",
	"jpg":         "image/jpeg",
	"jpeg":        "image/jpeg",
	"gif":         "image/gif",
	"webp":        "image/webp",
	"avif":        "image/avif",
	"ico":         "image/x-icon",
	"woff2":       "font/woff2",
	"woff":        "font/woff",
	"pdf":         "application/pdf",
}

// defaultContentType is what a file of any other extension is served as.
const defaultContentType = "application/octet-stream"

// contentType is the Content-Type of a file of the export.
func contentType(name string) string {
	if t, ok := contentTypes[strings.TrimPrefix(path.Ext(name), ".")]; ok {
		return t
	}
	return defaultContentType
}

// Cache-Control of the export's files: hashed assets never change under their
// name; pages, the sitemap and the search index change with every export; the
// rest (favicon, robots.txt, RSC payloads) lasts an hour.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheShort     = "public, max-age=300, must-revalidate"
	cacheDefault   = "public, max-age=3600"
)

// hashedName is a file name with a content digest before its extension, as
// bundlers name assets: app.3f9a2c1b.js.
var hashedName = regexp.MustCompile(`\.[0-9a-f]{8,}\.[a-z0-9]+$`)

// cacheControl is the Cache-Control of a file of the export.
func cacheControl(name string) string {
	switch {
	case hashedName.MatchString(name):
		return cacheImmutable
	case strings.HasSuffix(name, ".html"), name == "sitemap.xml", name == "search-index.json":
		return cacheShort
	}
	return cacheDefault
}
