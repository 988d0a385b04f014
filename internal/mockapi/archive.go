package mockapi

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"html"
	"path"
	"slices"
	"strings"
	"time"
)

// sitePage is one page of the exported documentation site.
type sitePage struct {
	path  string // page path as the API names it, e.g. "guides/getting-started"
	title string
}

var defaultSite = []sitePage{
	{"index", "Home"},
	{"guides/getting-started", "Getting started"},
	{"guides/configuration", "Configuration"},
	{"api/reference", "API reference"},
	{"changelog", "Changelog"},
}

// siteAssets are included in every archive, whatever paths were requested.
var siteAssets = []struct{ name, body string }{
	{"assets/site.css", "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:48rem;padding:1rem}\nnav a{margin-right:1rem}\n"},
	{"assets/site.js", "document.addEventListener('DOMContentLoaded',function(){document.body.dataset.ready='1';});\n"},
	{"assets/logo.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" rx="6" fill="#2b6cb0"/></svg>` + "\n"},
}

// sitePages are the pages of an export: the requested paths (the named
// default pages when none were requested), cut or padded with generated
// pages to count, so that an archive holds as many pages as the job reports.
func sitePages(paths []string, count int) []sitePage {
	pages := defaultSite
	if len(paths) > 0 {
		pages = make([]sitePage, 0, len(paths))
		for _, p := range paths {
			title := path.Base(p)
			if i := slices.IndexFunc(defaultSite, func(d sitePage) bool { return d.path == p }); i >= 0 {
				title = defaultSite[i].title
			}
			pages = append(pages, sitePage{path: p, title: title})
		}
	}
	pages = slices.Clip(pages[:min(count, len(pages))])
	for n := len(pages) + 1; n <= count; n++ {
		pages = append(pages, sitePage{path: fmt.Sprintf("topics/topic-%02d", n), title: fmt.Sprintf("Topic %d", n)})
	}
	return pages
}

// buildSiteArchive renders a small static site as a gzip'd tar. It is
// deterministic for its inputs (timestamps come from the job) so sizes and
// checksums are stable across bundle calls.
func buildSiteArchive(domain, version string, pages []sitePage, modTime time.Time) []byte {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	gz.ModTime, gz.Name = modTime.UTC(), "bundle.tar"
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	add := func(name, body string) {
		var parents []string
		for d := path.Dir(name); d != "." && !dirs[d]; d = path.Dir(d) {
			parents = append(parents, d)
		}
		for _, d := range slices.Backward(parents) {
			dirs[d] = true
			mustWrite(tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: modTime}))
		}
		mustWrite(tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: modTime}))
		_, err := tw.Write([]byte(body))
		mustWrite(err)
	}
	for _, p := range pages {
		add(p.path+".html", renderPage(p, pages, domain, version))
	}
	for _, a := range siteAssets {
		add(a.name, a.body)
	}
	mustWrite(tw.Close())
	mustWrite(gz.Close())
	return buf.Bytes()
}

// mustWrite panics on an error of writing the archive to memory, which only a
// bug can cause (a header the tar format cannot hold).
func mustWrite(err error) {
	if err != nil {
		panic(fmt.Sprintf("mockapi: building the site archive: %v", err))
	}
}

func renderPage(p sitePage, all []sitePage, domain, version string) string {
	// Links are relative so the site works from any mount point.
	up := strings.Repeat("../", strings.Count(p.path, "/"))
	if version == "" {
		version = "latest"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s - %s</title>\n",
		html.EscapeString(p.title), html.EscapeString(domain))
	fmt.Fprintf(&b, "<link rel=\"stylesheet\" href=\"%sassets/site.css\">\n<script src=\"%sassets/site.js\" defer></script>\n</head>\n<body>\n", up, up)
	fmt.Fprintf(&b, "<header><img src=\"%sassets/logo.svg\" alt=\"\" width=\"32\" height=\"32\"> %s <small>(%s)</small></header>\n<nav>\n",
		up, html.EscapeString(domain), html.EscapeString(version))
	for _, o := range all {
		fmt.Fprintf(&b, "<a href=\"%s%s.html\">%s</a>\n", up, html.EscapeString(o.path), html.EscapeString(o.title))
	}
	fmt.Fprintf(&b, "</nav>\n<main>\n<h1>%s</h1>\n<p>Static export of %s, page %s.</p>\n</main>\n</body>\n</html>\n",
		html.EscapeString(p.title), html.EscapeString(domain), html.EscapeString(p.path))
	return b.String()
}
