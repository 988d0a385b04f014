package mockapi

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"strings"
	"testing"
)

// TestSiteFilesAreValidForTheirType reads every file of the default site as
// a client of its type would: images decode, the sitemap and the search index
// parse, and every sitemap URL is extensionless.
func TestSiteFilesAreValidForTheirType(t *testing.T) {
	files := map[string]string{}
	for _, f := range siteFiles("docs.example.com", "", "se_1", nil, DefaultPageCount) {
		if _, dup := files[f.name]; dup {
			t.Fatalf("%s twice", f.name)
		}
		files[f.name] = f.body
	}
	if len(files) != SiteFileCount(DefaultPageCount) {
		t.Fatalf("%d files, SiteFileCount says %d", len(files), SiteFileCount(DefaultPageCount))
	}
	a := assets()
	if img, err := png.Decode(strings.NewReader(files[a.hero])); err != nil || img.Bounds().Dx() != 64 {
		t.Fatalf("%s: %v", a.hero, err)
	}
	ico := files["favicon.ico"]
	if !strings.HasPrefix(ico, "\x00\x00\x01\x00\x01\x00") {
		t.Fatalf("favicon.ico has no icon header: %q", ico[:6])
	}
	if _, err := png.Decode(strings.NewReader(ico[22:])); err != nil {
		t.Fatalf("favicon.ico's image: %v", err)
	}
	if !strings.HasPrefix(files[a.font], "wOF2") || len(files[a.font]) != 48 {
		t.Fatalf("%s is not a WOFF2 header", a.font)
	}
	var sitemap struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(files["sitemap.xml"]), &sitemap); err != nil || len(sitemap.URLs) != DefaultPageCount {
		t.Fatalf("sitemap.xml: %v, %d URLs", err, len(sitemap.URLs))
	}
	for _, u := range sitemap.URLs {
		route, ok := strings.CutPrefix(u.Loc, "https://docs.example.com/")
		if !ok || strings.HasSuffix(route, ".html") {
			t.Fatalf("sitemap URL %s", u.Loc)
		}
		_, page := files[route+".html"]
		_, index := files[strings.TrimPrefix(route+"/index.html", "/")]
		if page == index {
			t.Fatalf("sitemap URL %s: %v pages answer it", u.Loc, map[bool]int{false: 0, true: 2}[page])
		}
	}
	var index []map[string]string
	if err := json.Unmarshal([]byte(files["search-index.json"]), &index); err != nil || len(index) != DefaultPageCount {
		t.Fatalf("search-index.json: %v, %d entries", err, len(index))
	}
	if !bytes.Contains([]byte(files["robots.txt"]), []byte("Sitemap: https://docs.example.com/sitemap.xml")) {
		t.Fatal("robots.txt names no sitemap")
	}
	for name, body := range files {
		if strings.HasSuffix(name, ".txt") && name != "robots.txt" && !strings.HasPrefix(body, "1:HL[") {
			t.Fatalf("%s is no RSC payload: %q", name, body)
		}
	}
}
