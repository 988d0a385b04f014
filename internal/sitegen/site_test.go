package sitegen

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
	for _, f := range (Site{Domain: "docs.example.com", Build: "se_1"}).Files() {
		if _, dup := files[f.Name]; dup {
			t.Fatalf("%s twice", f.Name)
		}
		files[f.Name] = f.Body
	}
	if len(files) != FileCount(DefaultPageCount) {
		t.Fatalf("%d files, FileCount says %d", len(files), FileCount(DefaultPageCount))
	}
	a := SiteAssets()
	if img, err := png.Decode(strings.NewReader(files[a.Hero])); err != nil || img.Bounds().Dx() != 64 {
		t.Fatalf("%s: %v", a.Hero, err)
	}
	ico := files["favicon.ico"]
	if !strings.HasPrefix(ico, "\x00\x00\x01\x00\x01\x00") {
		t.Fatalf("favicon.ico has no icon header: %q", ico[:6])
	}
	if _, err := png.Decode(strings.NewReader(ico[22:])); err != nil {
		t.Fatalf("favicon.ico's image: %v", err)
	}
	if !strings.HasPrefix(files[a.Font], "wOF2") || len(files[a.Font]) != 48 {
		t.Fatalf("%s is not a WOFF2 header", a.Font)
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

// TestRevisionChangesOnePage: without a build stamp a site's files depend on
// its content alone; a page's new revision changes its HTML file and no
// other, and a build stamp changes every page.
func TestRevisionChangesOnePage(t *testing.T) {
	const edited = "guides/configuration"
	base := Site{Domain: "docs.example.com"}
	same, edit, stamped := base, base, base
	edit.Revisions = map[string]int{edited: 1}
	stamped.Build = "se_2"
	changed := func(other Site) []string {
		t.Helper()
		a, b := base.Files(), other.Files()
		if len(a) != len(b) {
			t.Fatalf("%d files, then %d", len(a), len(b))
		}
		var names []string
		for i := range a {
			if a[i].Name != b[i].Name {
				t.Fatalf("file %d is %s, then %s", i, a[i].Name, b[i].Name)
			}
			if a[i].Body != b[i].Body {
				names = append(names, a[i].Name)
			}
		}
		return names
	}
	if got := changed(same); len(got) != 0 {
		t.Errorf("the same site gave other files: %v", got)
	}
	if got := changed(edit); len(got) != 1 || got[0] != edited+".html" {
		t.Errorf("a revision of %s changed %v, want its HTML alone", edited, got)
	}
	if got := changed(stamped); len(got) != 2*DefaultPageCount {
		t.Errorf("a build stamp changed %d files, want every page and payload (%d)", len(got), 2*DefaultPageCount)
	}
}

// TestPagesStayBoundedInALargeSite: the navigation lists a bounded number of
// pages, so a large site's pages are as small as a small one's, and every
// page is still reached through the next-page links.
func TestPagesStayBoundedInALargeSite(t *testing.T) {
	files := Site{PageCount: 5000}.Files()
	if len(files) != FileCount(5000) {
		t.Fatalf("%d files, FileCount says %d", len(files), FileCount(5000))
	}
	for _, f := range files[:5000] {
		if len(f.Body) > 16<<10 {
			t.Fatalf("%s holds %d bytes", f.Name, len(f.Body))
		}
	}
	if last := files[4999]; last.Name != "topics/topic-5000.html" || !strings.Contains(last.Body, `<a href="/index.html">Next: Home</a>`) {
		t.Fatalf("the last page, %s, does not lead back to the first:\n%s", last.Name, last.Body)
	}
}
