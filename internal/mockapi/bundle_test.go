package mockapi

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// completedJob starts an export and moves the clock past its end.
func completedJob(t *testing.T, s *Server, clock *clocktest.FakeClock, body string) string {
	t.Helper()
	id := startExport(t, s, body)
	clock.Advance(DefaultExportDuration)
	if job := getJob(t, s, id); job["status"] != "completed" {
		t.Fatalf("job not completed: %v", job)
	}
	return id
}

func bundle(t *testing.T, s *Server, id string) map[string]any {
	t.Helper()
	r := call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, r)
	return r.json(t)
}

func TestBundleLinkShapeAndDownload(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	genAt := clock.Now()

	b := bundle(t, s, id)
	if b["jobId"] != id {
		t.Fatalf("jobId = %v", b["jobId"])
	}
	link := b["bundleUrl"].(string)
	pattern := `^` + regexp.QuoteMeta(s.URL+"/bundles/"+id+"/bundle.tar.gz?") +
		`X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=mock&X-Amz-Date=20261122T080003Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=[0-9a-f]{64}$`
	if !regexp.MustCompile(pattern).MatchString(link) {
		t.Fatalf("link %q does not match %s", link, pattern)
	}
	if got, want := b["expiresAt"], genAt.Add(time.Hour).Format(time.RFC3339); got != want {
		t.Fatalf("expiresAt = %v, want %s", got, want)
	}

	raw := call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
	if !strings.Contains(string(raw.body), "&X-Amz-Credential=mock&") {
		t.Fatalf("link is HTML-escaped in JSON: %s", raw.body)
	}

	// Presigned: no bearer key needed.
	r := callKey(t, s, "", "GET", link, "")
	wantStatus(t, r, http.StatusOK)
	if ct := r.header.Get("Content-Type"); ct != "application/gzip" {
		t.Fatalf("Content-Type = %q", ct)
	}
	if cl := r.header.Get("Content-Length"); cl != strconv.Itoa(len(r.body)) {
		t.Fatalf("Content-Length = %q, body %d bytes", cl, len(r.body))
	}
	if size := b["sizeBytes"].(float64); int(size) != len(r.body) {
		t.Fatalf("sizeBytes = %v, archive is %d bytes", size, len(r.body))
	}
	names, contents := tarFiles(t, r.body)
	want := sitePaths(append(slices.Clone(sitegen.DefaultPages), generatedTopics(len(sitegen.DefaultPages)+1, DefaultPageCount)...))
	if !slices.Equal(names, want) {
		t.Fatalf("archive files = %v, want %v", names, want)
	}
	a := sitegen.SiteAssets()
	idx := contents["index.html"]
	for _, link := range []string{`href="guides/getting-started.html"`, `href="guides/index.html"`, `href="/` + a.CSS + `"`,
		`src="/` + a.App + `"`, `href="/favicon.ico"`, `<link rel="canonical" href="https://docs.example.com/">`, `src="` + a.Hero + `"`} {
		if !strings.Contains(idx, link) {
			t.Fatalf("index.html lacks %s:\n%s", link, idx)
		}
	}
	g := contents["guides/getting-started.html"]
	for _, link := range []string{`href="../api/reference/authentication.html"`, `src="../` + a.Logo + `"`, `href="/guides/configuration.html"`,
		`<link rel="canonical" href="https://docs.example.com/guides/getting-started">`} {
		if !strings.Contains(g, link) {
			t.Fatalf("nested page lacks %s:\n%s", link, g)
		}
	}
	for _, loc := range []string{"https://docs.example.com/</loc>", "https://docs.example.com/guides</loc>", "https://docs.example.com/guides/getting-started</loc>"} {
		if !strings.Contains(contents["sitemap.xml"], loc) {
			t.Fatalf("sitemap.xml lacks %s:\n%s", loc, contents["sitemap.xml"])
		}
	}
	if !strings.Contains(contents[a.CSS], "url(fonts/inter-var.") {
		t.Fatalf("the stylesheet does not load the font:\n%s", contents[a.CSS])
	}
	if s.Downloads() != 1 || s.BundlesGenerated(id) != 2 {
		t.Fatalf("Downloads/BundlesGenerated = %d/%d", s.Downloads(), s.BundlesGenerated(id))
	}

	// A later call gives a fresh link for the same archive.
	clock.Advance(10 * time.Minute)
	b2 := bundle(t, s, id)
	if b2["bundleUrl"] == link {
		t.Fatal("second bundle call returned the same link")
	}
	if b2["sizeBytes"] != b["sizeBytes"] {
		t.Fatalf("archive size changed: %v vs %v", b2["sizeBytes"], b["sizeBytes"])
	}
	if !strings.Contains(b2["bundleUrl"].(string), "X-Amz-Date=20261122T081003Z") {
		t.Fatalf("X-Amz-Date not the generation time: %v", b2["bundleUrl"])
	}
	if s.BundlesGenerated(id) != 3 {
		t.Fatalf("BundlesGenerated = %d, want 3", s.BundlesGenerated(id))
	}
	// The first link is still valid.
	wantStatus(t, callKey(t, s, "", "GET", link, ""), http.StatusOK)
}

// SetLinkExtra tacks a parameter on every link issued after it, of both
// revisions, and the download still serves the archive.
func TestLinkExtra(t *testing.T) {
	s, clock := newTestServer(t, Config{APIRevision: RevisionBoth})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	before := bundle(t, s, id)["bundleUrl"].(string)
	s.SetLinkExtra("client=" + s.APIKey)
	after := bundle(t, s, id)["bundleUrl"].(string)
	if strings.Contains(before, "client=") || !strings.HasSuffix(after, "&client="+s.APIKey) {
		t.Fatalf("links before and after SetLinkExtra: %q, %q", before, after)
	}
	wantStatus(t, callKey(t, s, "", "GET", after, ""), http.StatusOK)
	project := call(t, s, "POST", "/v1/static-export/proj_1/jobs", "")
	wantStatus(t, project, http.StatusAccepted)
	clock.Advance(time.Hour)
	job := call(t, s, "GET", "/v1/static-export/proj_1/jobs/"+project.json(t)["jobId"].(string), "")
	if link, _ := job.json(t)["bundleUrl"].(string); !strings.HasSuffix(link, "&client="+s.APIKey) {
		t.Fatalf("the project revision's link %q lacks the extra", link)
	}
	s.SetLinkExtra("")
	if link := bundle(t, s, id)["bundleUrl"].(string); strings.Contains(link, "client=") {
		t.Fatalf("SetLinkExtra(\"\") kept it: %q", link)
	}
}

func TestBundleWithPaths(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com","paths":["index","/guides/getting-started.html","reference/widgets"]}`)
	if job := getJob(t, s, id); job["pageCount"] != 3.0 {
		t.Fatalf("pageCount = %v, want the number of paths", job["pageCount"])
	}
	r := callKey(t, s, "", "GET", bundle(t, s, id)["bundleUrl"].(string), "")
	wantStatus(t, r, http.StatusOK)
	names, contents := tarFiles(t, r.body)
	want := sitePaths([]string{"index", "guides/getting-started", "reference/widgets"})
	if !slices.Equal(names, want) {
		t.Fatalf("archive files = %v, want %v", names, want)
	}
	if strings.Contains(contents["index.html"], "api/reference/") {
		t.Fatal("navigation links to a page that was not exported")
	}
	if snap, _ := s.ExportJob(id); !slices.Equal(snap.Paths, []string{"index", "guides/getting-started", "reference/widgets"}) {
		t.Fatalf("normalized paths = %v", snap.Paths)
	}
}

func TestDownloadRejectsExpiredAndTamperedLinks(t *testing.T) {
	s, clock := newTestServer(t, Config{LinkTTL: 10 * time.Minute})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	link := bundle(t, s, id)["bundleUrl"].(string)
	if !strings.Contains(link, "X-Amz-Expires=600&") {
		t.Fatalf("LinkTTL not applied: %s", link)
	}

	u, _ := url.Parse(link)
	tamper := func(key, value string) string {
		q := u.Query()
		if value == "" {
			q.Del(key)
		} else {
			q.Set(key, value)
		}
		v := *u
		v.RawQuery = q.Encode()
		return v.String()
	}
	forbidden := map[string]string{
		"signature":    tamper("X-Amz-Signature", strings.Repeat("0", 64)),
		"noSignature":  tamper("X-Amz-Signature", ""),
		"longerExpiry": tamper("X-Amz-Expires", "86400"),
		"laterDate":    tamper("X-Amz-Date", "20261122T090000Z"),
		"noQuery":      s.URL + u.Path,
		"otherJob":     strings.Replace(link, id, "se_0123456789abcdef", 1),
	}
	for name, l := range forbidden {
		r := callKey(t, s, "", "GET", l, "")
		if r.status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, r.status)
		}
		if !strings.Contains(string(r.body), "<Error>") {
			t.Errorf("%s: body is not an XML error: %s", name, r.body)
		}
	}

	clock.Advance(10*time.Minute - time.Second)
	wantStatus(t, callKey(t, s, "", "GET", link, ""), http.StatusOK)
	clock.Advance(time.Second)
	r := callKey(t, s, "", "GET", link, "")
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(string(r.body), "Request has expired") {
		t.Fatalf("expired body = %s", r.body)
	}
	if s.Downloads() != 1 {
		t.Fatalf("Downloads = %d, want 1 (rejections do not count)", s.Downloads())
	}
	if got := s.Requests(EndpointDownload); got != len(forbidden)+2 {
		t.Fatalf("Requests(Download) = %d", got)
	}

	// A fresh link works again without re-exporting.
	wantStatus(t, callKey(t, s, "", "GET", bundle(t, s, id)["bundleUrl"].(string), ""), http.StatusOK)

	// Once the job is gone, a valid link finds no object.
	fresh := bundle(t, s, id)["bundleUrl"].(string)
	s.DeleteExportJob(id)
	r = callKey(t, s, "", "GET", fresh, "")
	wantStatus(t, r, http.StatusNotFound)
	if !strings.Contains(string(r.body), "NoSuchKey") {
		t.Fatalf("404 body = %s", r.body)
	}
}

func TestOmitExpiresAt(t *testing.T) {
	s, clock := newTestServer(t, Config{OmitExpiresAt: true})
	id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
	b := bundle(t, s, id)
	if _, ok := b["expiresAt"]; ok {
		t.Fatalf("expiresAt present: %v", b)
	}
	u, err := url.Parse(b["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	date, err := time.Parse("20060102T150405Z", u.Query().Get("X-Amz-Date"))
	if err != nil || !date.Equal(clock.Now()) || u.Query().Get("X-Amz-Expires") != "3600" {
		t.Fatalf("query cannot give the expiry: %v %v", u.Query(), err)
	}
}

func TestArchiveIsDeterministic(t *testing.T) {
	site := func(version string) func() []sitegen.File {
		return sitegen.Site{Domain: "docs.example.com", Version: version, Build: "se_1", PageCount: DefaultPageCount}.Files
	}
	read := func(a *jobArchive) string {
		var b strings.Builder
		if err := a.write(&b); err != nil {
			t.Fatal(err)
		}
		if int64(b.Len()) != a.size() {
			t.Fatalf("size() = %d, wrote %d bytes", a.size(), b.Len())
		}
		return b.String()
	}
	a := read(archiveFor(ArchiveGood, site(""), 0, 1))
	if b := read(archiveFor(ArchiveGood, site(""), 0, 1)); a != b {
		t.Fatal("same inputs gave different archives")
	}
	if c := read(archiveFor(ArchiveGood, site("v2"), 0, 1)); a == c {
		t.Fatal("version not rendered")
	}
}

// TestPageCountMatchesArchive checks that the pageCount a completed job
// reports is the number of pages (html files) its archive holds.
func TestPageCountMatchesArchive(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SetExportBehavior("many.example.com", ExportBehavior{PageCount: 60})
	s.SetExportBehavior("few.example.com", ExportBehavior{PageCount: 2})
	s.SetExportBehavior("pathsplus.example.com", ExportBehavior{PageCount: 4})
	for _, body := range []string{
		`{"domain":"docs.example.com"}`,
		`{"domain":"docs.example.com","paths":["index","guides/configuration","reference/widgets"]}`,
		`{"domain":"many.example.com"}`,
		`{"domain":"few.example.com"}`,
		`{"domain":"pathsplus.example.com","paths":["index"]}`,
	} {
		id := completedJob(t, s, clock, body)
		reported := int(getJob(t, s, id)["pageCount"].(float64))
		r := callKey(t, s, "", "GET", bundle(t, s, id)["bundleUrl"].(string), "")
		wantStatus(t, r, http.StatusOK)
		names, _ := tarFiles(t, r.body)
		pages := 0
		for _, n := range names {
			if strings.HasSuffix(n, ".html") {
				pages++
			}
		}
		if pages != reported {
			t.Errorf("%s: pageCount %d, archive holds %d pages: %v", body, reported, pages, names)
		}
	}
}

// sitePaths are the sorted names of the files of a site of pages.
func sitePaths(pages []string) []string {
	var names []string
	for _, p := range pages {
		names = append(names, p+".html", p+".txt")
	}
	names = append(names, "sitemap.xml", "robots.txt", "search-index.json")
	for _, f := range sitegen.SiteAssets().Files {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

func generatedTopics(from, to int) []string {
	var pages []string
	for n := from; n <= to; n++ {
		pages = append(pages, fmt.Sprintf("topics/topic-%02d", n))
	}
	return pages
}

// TestStablePagesChangeOnlyWhatWasEdited: by default every export stamps
// its job on every page; with StablePages two exports of the same site have
// the same files, and an edited page changes its HTML file alone, from the
// next export on.
func TestStablePagesChangeOnlyWhatWasEdited(t *testing.T) {
	const edited = "guides/configuration"
	exportFiles := func(s *Server, clock *clocktest.FakeClock) map[string]string {
		t.Helper()
		id := completedJob(t, s, clock, `{"domain":"docs.example.com"}`)
		r := callKey(t, s, "", "GET", bundle(t, s, id)["bundleUrl"].(string), "")
		wantStatus(t, r, http.StatusOK)
		_, contents := tarFiles(t, r.body)
		return contents
	}
	changed := func(a, b map[string]string) []string {
		var names []string
		for name, body := range a {
			if b[name] != body {
				names = append(names, name)
			}
		}
		if len(a) != len(b) {
			t.Fatalf("%d files, then %d", len(a), len(b))
		}
		slices.Sort(names)
		return names
	}

	s, clock := newTestServer(t, Config{})
	first, second := exportFiles(s, clock), exportFiles(s, clock)
	if got := changed(first, second); len(got) != 2*DefaultPageCount {
		t.Errorf("two exports of the same site differ in %d files, want every page and payload (%d)", len(got), 2*DefaultPageCount)
	}

	s, clock = newTestServer(t, Config{StablePages: true})
	first, second = exportFiles(s, clock), exportFiles(s, clock)
	if got := changed(first, second); len(got) != 0 {
		t.Errorf("with StablePages, two exports of the same site differ in %v", got)
	}
	startedBefore := startExport(t, s, `{"domain":"docs.example.com"}`)
	if rev := s.EditPage("docs.example.com", edited); rev != 1 {
		t.Errorf("EditPage = %d, want revision 1", rev)
	}
	third := exportFiles(s, clock)
	if got := changed(second, third); !slices.Equal(got, []string{edited + ".html"}) {
		t.Errorf("after EditPage(%s), the export differs in %v, want its HTML alone", edited, got)
	}
	r := callKey(t, s, "", "GET", bundle(t, s, startedBefore)["bundleUrl"].(string), "")
	wantStatus(t, r, http.StatusOK)
	if _, before := tarFiles(t, r.body); len(changed(second, before)) != 0 {
		t.Error("an export started before the edit shows it")
	}
	s.EditPage("other.example.com", edited)
	if got := changed(third, exportFiles(s, clock)); len(got) != 0 {
		t.Errorf("an edit of another domain's page changed %v", got)
	}
}

// TestConfigPageCountSizesEverySite: Config.PageCount sizes the site of
// every export that names no paths, in files as sitegen.FileCount says,
// and leaves alone a domain's own behaviour and the paths a start names.
func TestConfigPageCountSizesEverySite(t *testing.T) {
	s, clock := newTestServer(t, Config{PageCount: 300})
	s.SetExportBehavior("few.example.com", ExportBehavior{PageCount: 2})
	for _, c := range []struct {
		body  string
		pages int
	}{
		{`{"domain":"docs.example.com"}`, 300},
		{`{"domain":"docs.example.com","paths":["index","guides/configuration"]}`, 2},
		{`{"domain":"few.example.com"}`, 2},
	} {
		id := completedJob(t, s, clock, c.body)
		_, sum, err := download(t, s, id)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if want := sitegen.FileCount(c.pages); sum.Files != want {
			t.Errorf("%s: the archive holds %d files, want %d (%d pages)", c.body, sum.Files, want, c.pages)
		}
		if got := int(getJob(t, s, id)["pageCount"].(float64)); got != c.pages {
			t.Errorf("%s: pageCount %d, want %d", c.body, got, c.pages)
		}
	}
}
