package sitetest

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/storetest"
)

// TestObjectStorePublishesExportsInOrder publishes two exports of a site
// into a real S3-compatible server, versitygw on a temporary directory,
// with the code behind docsadmin_static_site_bucket (objectstore): an
// export into an empty bucket, then a second export of the same site with
// pages edited, added and removed and images added, renamed and removed.
// After each publication the bucket holds the export and the provider's
// record and nothing else, every object with the manifest's MD5 as its
// ETag, Content-Type and Cache-Control, and the record is the one the
// publication returned for state to pin.
//
// While the second publication runs, a crawler reads the bucket as
// visitors and search engines would, round after round: from index.html,
// the sitemap and the search index it follows every link, and it reads
// every other page the bucket holds (a stale page that someone bookmarked,
// a new page not linked yet). No page may refer to an image, script or
// style that the bucket does not hold at that moment, and no page
// reachable from the entry points may link to a page the bucket does not
// hold. Every mutating request passes through a recording proxy, and the
// order of the uploads and deletions is held to the same rules, whatever
// the crawler happened to see: a file referred to is in place before the
// first upload of a page that refers to it (for a page already published,
// also a page it links to), deletions come after every upload, and an
// image, script or style is deleted only after every page that referred to
// it was replaced or deleted; the record is written before anything else
// and again after everything else. A publication uploads only the files
// that differ, writes nothing at all when the bucket holds the export
// already, and leaves the verified tree as it found it.
func TestObjectStorePublishesExportsInOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes into an S3 server, end to end: slow; runs in make test")
	}
	srv := storetest.S3(t)
	storetest.Setenv(t, srv) // the credentials, for the SDK's chain as in the provider
	gateway := newBucketReader(t, srv)
	proxy, ops := recordingProxy(t, srv.Target.Endpoint)

	first, second := twoExports(t)
	routes := first.manifest.Routes()
	for route, p := range second.manifest.Routes() {
		routes[route] = p
	}
	first.index(t, routes)
	second.index(t, routes)

	target := srv.Target
	target.Endpoint = proxy
	store, err := objectstore.OpenStore(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	publish := func(v *siteVersion, pinned string) objectstore.Result {
		t.Helper()
		root, err := os.OpenRoot(v.dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		result, err := store.Publish(ctx, objectstore.Publication{
			Root: root, Files: v.manifest.Files(), SiteID: "site-1", JobID: v.name, ArchiveSHA256: v.digest, Pinned: pinned,
			MaxDeletes: 256, Concurrency: 16, MaxListed: 100_000,
		})
		if err != nil {
			t.Fatalf("publishing %s: %v", v.name, err)
		}
		return result
	}

	// The first export, into the empty bucket.
	start := time.Now()
	result := publish(first, "")
	t.Logf("first publication: %d files in %s", len(first.files), time.Since(start).Round(time.Millisecond))
	checkResult(t, nil, first, result)
	checkOrder(t, "first publication", nil, first, ops.take(), start)
	checkBucket(t, gateway, first, result.RecordSHA256)
	checkUntouched(t, first)

	// The second export, while a crawler reads the bucket.
	c := &s3Crawler{bucket: gateway, routes: routes, versions: []*siteVersion{first, second}}
	ctx, stop := context.WithCancel(t.Context())
	crawled := make(chan struct{})
	go func() { defer close(crawled); c.run(ctx) }()
	c.waitRounds(t, 1) // a round before the publication starts, to see the crawler work
	// On loopback a publication ends within tens of milliseconds, before
	// the crawler has read the bucket once. The proxy holds each request
	// that changes the bucket for twice as long as that round took (rounds
	// slow down on a loaded host), so that each of the publication's
	// ordered steps (the record, assets, new pages, changed pages,
	// deletions of pages, then of assets, the record) lasts a round or
	// more: the crawler completes several rounds meanwhile, and each
	// step's half-done state is there longer for a reader to see.
	hold := 2 * c.roundTime(0)
	ops.hold.Store(int64(hold))
	start = time.Now()
	result = publish(second, result.RecordSHA256)
	end := time.Now()
	stop()
	<-crawled

	during, pages := c.roundsWithin(start, end)
	t.Logf("second publication: %d files, %d uploaded, %d deleted, in %s with each change held %s; "+
		"%d crawl rounds during it, reading %d pages", len(second.files), result.Uploaded, result.Deleted,
		end.Sub(start).Round(time.Millisecond), hold.Round(time.Millisecond), during, pages)
	for _, e := range c.errors {
		t.Errorf("crawler: %s", e)
	}
	for _, v := range c.violations {
		t.Errorf("crawler: %s", v)
	}
	if during < 3 {
		t.Errorf("the crawler completed %d rounds during the second publication, want at least 3", during)
	}
	checkResult(t, first, second, result)
	checkOrder(t, "second publication", first, second, ops.take(), start)
	checkBucket(t, gateway, second, result.RecordSHA256)
	checkUntouched(t, second)

	// Once more: the bucket holds the export, so nothing is written, not
	// even the record.
	again := publish(second, result.RecordSHA256)
	for _, op := range ops.take() {
		t.Errorf("a publication of the export the bucket holds: %s %v", op.kind, op.keys)
	}
	if again.Uploaded != 0 || again.Deleted != 0 || again.RecordSHA256 != result.RecordSHA256 {
		t.Errorf("a publication of the export the bucket holds: %+v, want nothing uploaded or deleted and the record %s kept",
			again, result.RecordSHA256)
	}
}

// checkResult holds what a publication from before (nil: an empty bucket)
// to after says it did to the files that differ.
func checkResult(t *testing.T, before, after *siteVersion, r objectstore.Result) {
	t.Helper()
	up, del := len(filesToUpload(before, after)), len(filesToDelete(before, after))
	if r.Uploaded != up || r.Deleted != del || r.Unchanged != len(after.files)-up || len(r.Left) > 0 || r.RecordSHA256 == "" {
		t.Errorf("publishing %s: %+v, want %d uploaded, %d deleted, %d unchanged, nothing left and a record",
			after.name, r, up, del, len(after.files)-up)
	}
}

// siteVersion is one export as unpacked, with what the test adds to it, its
// manifest and what each of its files refers to.
type siteVersion struct {
	name     string
	dir      string
	manifest *site.Manifest
	files    map[string]site.File
	refs     map[string][]string  // file → the keys it links to or loads, itself excluded
	mtimes   map[string]time.Time // as unpacked, to see that the publication leaves them
	// digest is the SHA-256 of the manifest, which the record keeps as the
	// archive's: the tree is not the archive's alone, since the test adds
	// images to it.
	digest string
}

// twoExports are two exports of the mock's site (StablePages: only what
// changed differs) and what each adds to it. The site has 60 pages, of
// which every page's navigation lists the first 50. The second export
// edits two pages, removes topics 55 and 56, adds topics 61 and 62 (so
// topics 54 and 60 link to other pages), and changes the images pages
// show: a chart shown by topics 30 and 55 is gone, a screenshot shown by
// guides/getting-started and topic 20 is replaced by one of another name,
// and a new diagram is shown by guides/configuration and topic 61.
func twoExports(t *testing.T) (*siteVersion, *siteVersion) {
	t.Helper()
	mock := mockapi.NewServer(mockapi.Config{ExportDuration: 100 * time.Millisecond, StablePages: true})
	t.Cleanup(mock.Close)
	start := func(pages []string) string {
		body, _ := json.Marshal(map[string]any{"domain": "docs.example.com", "paths": pages})
		return string(body)
	}
	pages := []string{"index", "guides/index", "guides/getting-started", "guides/configuration",
		"api/reference/index", "api/reference/authentication", "changelog"}
	for n := 8; n <= 60; n++ {
		pages = append(pages, fmt.Sprintf("topics/topic-%02d", n))
	}
	first := unpackExport(t, mock, start(pages))

	mock.EditPage("docs.example.com", "guides/getting-started")
	mock.EditPage("docs.example.com", "changelog")
	pages = slices.DeleteFunc(pages, func(p string) bool { return p == "topics/topic-55" || p == "topics/topic-56" })
	pages = append(pages, "topics/topic-61", "topics/topic-62")
	second := unpackExport(t, mock, start(pages))

	image := func(base, ext, body string) (string, string) {
		sum := sha256.Sum256([]byte(body))
		return fmt.Sprintf("assets/images/%s.%s.%s", base, hex.EncodeToString(sum[:4]), ext), body
	}
	chart, chartBody := image("chart", "png", "chart, first build\n")
	shot1, shot1Body := image("screenshot", "png", "screenshot, first build\n")
	shot2, shot2Body := image("screenshot", "png", "screenshot, second build\n")
	diagram, diagramBody := image("diagram", "svg", `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>`+"\n")
	writeSiteFiles(t, first, map[string]string{chart: chartBody, shot1: shot1Body})
	addImage(t, first, "topics/topic-30.html", "../"+chart) // relative, as the navigation's links are
	addImage(t, first, "topics/topic-55.html", "/"+chart)
	addImage(t, first, "guides/getting-started.html", "/"+shot1)
	addImage(t, first, "topics/topic-20.html", "/"+shot1)
	writeSiteFiles(t, second, map[string]string{shot2: shot2Body, diagram: diagramBody})
	addImage(t, second, "guides/getting-started.html", "/"+shot2)
	addImage(t, second, "topics/topic-20.html", "../"+shot2)
	addImage(t, second, "guides/configuration.html", "/"+diagram)
	addImage(t, second, "topics/topic-61.html", "/"+diagram)

	return newSiteVersion(t, "export 1", first), newSiteVersion(t, "export 2", second)
}

func writeSiteFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// addImage adds an image to a page, at the end of its main element.
func addImage(t *testing.T, dir, page, src string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(page))
	html, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(html, []byte("</main>")) != 1 {
		t.Fatalf("%s has no single </main>", page)
	}
	html = bytes.Replace(html, []byte("</main>"), []byte(`<p><img src="`+src+`" alt=""></p>`+"\n</main>"), 1)
	if err := os.WriteFile(p, html, 0o644); err != nil {
		t.Fatal(err)
	}
}

// newSiteVersion reads the tree at dir into a manifest, as
// docsadmin_static_site records it.
func newSiteVersion(t *testing.T, name, dir string) *siteVersion {
	t.Helper()
	v := &siteVersion{name: name, dir: dir, manifest: site.NewManifest(), mtimes: map[string]time.Time{}}
	for _, p := range siteFiles(t, dir) {
		f := filepath.Join(dir, filepath.FromSlash(p))
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		v.mtimes[p] = fi.ModTime()
		if err := v.manifest.Add(p, int64(len(body)), sha256.Sum256(body), md5.Sum(body)); err != nil {
			t.Fatal(err)
		}
	}
	v.files = v.manifest.Files()
	encoded, err := site.EncodeFiles(v.files)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(encoded)
	v.digest = hex.EncodeToString(sum[:])
	return v
}

// index finds what each file refers to, and checks that the export holds
// it all.
func (v *siteVersion) index(t *testing.T, routes map[string]string) {
	t.Helper()
	v.refs = map[string][]string{}
	for p := range v.files {
		body, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		v.refs[p] = siteReferences(p, body, routes)
		for _, ref := range v.refs[p] {
			if _, ok := v.files[ref]; !ok {
				t.Fatalf("%s: %s refers to %s, which it does not hold", v.name, p, ref)
			}
		}
	}
	if len(v.refs["sitemap.xml"]) == 0 || len(v.refs["search-index.json"]) == 0 || len(v.refs["index.html"]) == 0 {
		t.Fatalf("%s: no references found in the sitemap, the search index or index.html", v.name)
	}
}

// isHTMLPage is a file whose links a visitor follows: an HTML page. Other files
// that a page refers to are its images, scripts, styles, fonts and icons.
func isHTMLPage(key string) bool { return strings.HasSuffix(key, ".html") }

// The URLs of the sitemap and of the search index.
var (
	sitemapLoc = regexp.MustCompile(`<loc>([^<]+)</loc>`)
	indexURL   = regexp.MustCompile(`"url":"([^"]*)"`)
)

// siteReferences are the keys that the file at key refers to: for a page, what
// its href and src attributes name on this site; for the sitemap and the
// search index, the pages they list. Extensionless URLs are mapped to their
// files by routes, as the hosts do.
func siteReferences(key string, body []byte, routes map[string]string) []string {
	var urls []string
	switch {
	case isHTMLPage(key):
		for _, m := range reference.FindAllSubmatch(body, -1) {
			if len(m[1]) > 0 {
				urls = append(urls, strings.ReplaceAll(string(m[1]), "&amp;", "&"))
			}
		}
	case key == "sitemap.xml":
		for _, m := range sitemapLoc.FindAllSubmatch(body, -1) {
			urls = append(urls, string(m[1]))
		}
	case key == "search-index.json":
		for _, m := range indexURL.FindAllSubmatch(body, -1) {
			urls = append(urls, string(m[1]))
		}
	}
	from := &url.URL{Path: "/" + key}
	seen := map[string]bool{}
	var keys []string
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Host != "" && u.Host != "docs.example.com") || (u.Scheme != "" && u.Scheme != "https") {
			continue
		}
		ref := strings.TrimPrefix(from.ResolveReference(u).Path, "/")
		switch {
		case ref == "" || strings.HasSuffix(ref, "/"):
			ref += "index.html"
		case routes[ref] != "":
			ref = routes[ref]
		}
		if ref != key && !seen[ref] {
			seen[ref] = true
			keys = append(keys, ref)
		}
	}
	sort.Strings(keys)
	return keys
}

// filesToUpload are the files of after that the bucket holding before (nil:
// nothing) lacks or holds with other content; filesToDelete, the files of
// before that after lacks.
func filesToUpload(before, after *siteVersion) []string {
	var out []string
	for p, f := range after.files {
		if before == nil || before.files[p].MD5 != f.MD5 {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func filesToDelete(before, after *siteVersion) []string {
	var out []string
	if before != nil {
		for p := range before.files {
			if _, ok := after.files[p]; !ok {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkUntouched holds the publication to reading the verified tree: every
// file keeps its modification time.
func checkUntouched(t *testing.T, v *siteVersion) {
	t.Helper()
	for p, mtime := range v.mtimes {
		fi, err := os.Stat(filepath.Join(v.dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if !fi.ModTime().Equal(mtime) {
			t.Errorf("%s: the publication changed the modification time of %s in the verified tree", v.name, p)
		}
	}
}

// checkBucket holds the bucket to exactly the files of v and the record
// whose SHA-256 is record: the same keys, every file's object with the
// file's MD5 as its ETag and the manifest's Content-Type and Cache-Control.
func checkBucket(t *testing.T, b *bucketReader, v *siteVersion, record string) {
	t.Helper()
	ctx := t.Context()
	objects, err := b.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key := range objects {
		if _, ok := v.files[key]; !ok && key != objectstore.RecordKey {
			t.Errorf("after the publication of %s the bucket holds %s, which the export does not", v.name, key)
		}
	}
	body, _, found, err := b.get(ctx, objectstore.RecordKey)
	switch sum := sha256.Sum256(body); {
	case err != nil:
		t.Fatal(err)
	case !found:
		t.Errorf("after the publication of %s the bucket lacks the record %s", v.name, objectstore.RecordKey)
	case hex.EncodeToString(sum[:]) != record:
		t.Errorf("after the publication of %s the record's SHA-256 is %x, not the %s the publication returned", v.name, sum, record)
	}
	for _, p := range v.manifest.Paths() {
		f := v.files[p]
		etag, ok := objects[p]
		if !ok {
			t.Errorf("after the publication of %s the bucket lacks %s", v.name, p)
			continue
		}
		if want := `"` + f.MD5 + `"`; etag != want {
			t.Errorf("%s: ETag %s, want %s", p, etag, want)
		}
		head, err := b.head(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if head == nil {
			t.Errorf("HEAD %s: not found, though the listing holds it", p)
			continue
		}
		if got := aws.ToString(head.ETag); got != `"`+f.MD5+`"` {
			t.Errorf("HEAD %s: ETag %s, want %q", p, got, f.MD5)
		}
		if got := aws.ToString(head.ContentType); got != f.ContentType {
			t.Errorf("%s: Content-Type %q, want %q", p, got, f.ContentType)
		}
		if got := aws.ToString(head.CacheControl); got != f.CacheControl {
			t.Errorf("%s: Cache-Control %q, want %q", p, got, f.CacheControl)
		}
	}
}

// checkOrder holds the requests that changed the bucket from before (nil:
// empty) to after to the publishing rules: each changed file uploaded once
// and nothing else uploaded, each stale file deleted once and nothing else
// deleted; a page, sitemap or search index uploaded only once every image,
// script or style it refers to is in place, and, when the bucket already
// held it, every page it links to; deletions only after the last upload;
// and an image, script or style deleted only after every page that referred
// to it was replaced or deleted.
func checkOrder(t *testing.T, name string, before, after *siteVersion, ops []s3Op, start time.Time) {
	t.Helper()
	at := func(tm time.Time) string { return "+" + tm.Sub(start).Round(time.Millisecond).String() }
	ops = checkRecordWrites(t, name, ops, at)
	putStart, putEnd := map[string]time.Time{}, map[string]time.Time{}
	delStart, delEnd := map[string]time.Time{}, map[string]time.Time{}
	var lastPut time.Time
	for _, op := range ops {
		if op.status >= 300 {
			t.Errorf("%s: %s %v answered %d", name, op.kind, op.keys, op.status)
		}
		for _, key := range op.keys {
			switch op.kind {
			case "put":
				if _, dup := putEnd[key]; dup {
					t.Errorf("%s: %s was uploaded more than once", name, key)
				}
				putStart[key], putEnd[key] = op.start, op.end
				if op.end.After(lastPut) {
					lastPut = op.end
				}
			case "delete":
				if _, dup := delEnd[key]; dup {
					t.Errorf("%s: %s was deleted more than once", name, key)
				}
				delStart[key], delEnd[key] = op.start, op.end
			default:
				t.Errorf("%s: unexpected request %s for %s", name, op.kind, key)
			}
		}
	}
	wantPut, wantDel := filesToUpload(before, after), filesToDelete(before, after)
	if got := slices.Sorted(maps.Keys(putEnd)); !slices.Equal(got, wantPut) {
		t.Errorf("%s uploaded %q\nwant the files that differ: %q", name, got, wantPut)
	}
	if got := slices.Sorted(maps.Keys(delEnd)); !slices.Equal(got, wantDel) {
		t.Errorf("%s deleted %q\nwant the files the export no longer holds: %q", name, got, wantDel)
	}
	held := func(key string) bool { return before != nil && before.files[key].Path != "" }
	inPlace := func(key string, when time.Time) bool {
		end, put := putEnd[key]
		return held(key) || (put && end.Before(when))
	}
	for key, begin := range putStart {
		for _, ref := range after.refs[key] {
			if (isHTMLPage(ref) && !held(key)) || inPlace(ref, begin) {
				continue
			}
			t.Errorf("%s: the upload of %s started at %s, before %s, which it refers to, was in place (%s)",
				name, key, at(begin), ref, at(putEnd[ref]))
		}
	}
	for key, begin := range delStart {
		if begin.Before(lastPut) {
			t.Errorf("%s: the deletion of %s started at %s, before the last upload ended (%s)", name, key, at(begin), at(lastPut))
		}
		if isHTMLPage(key) {
			continue
		}
		for p, refs := range before.refs {
			if !slices.Contains(refs, key) {
				continue
			}
			gone, replaced := putEnd[p]
			if !replaced {
				gone, replaced = delEnd[p]
			}
			if !replaced || !gone.Before(begin) {
				t.Errorf("%s: the deletion of %s started at %s, while %s of %s, which refers to it, was still in the bucket",
					name, key, at(begin), p, before.name)
			}
		}
	}
}

// checkRecordWrites holds a publication's requests to writing the record
// first and last: the first request ends before any other starts, the last
// starts after every other ended, and both are uploads of the record. It
// returns the other requests, the ones the publishing rules apply to.
func checkRecordWrites(t *testing.T, name string, ops []s3Op, at func(time.Time) string) []s3Op {
	t.Helper()
	var rest, record []s3Op
	for _, op := range ops {
		if slices.Contains(op.keys, objectstore.RecordKey) {
			record = append(record, op)
		} else {
			rest = append(rest, op)
		}
	}
	for _, op := range record {
		if op.kind != "put" || len(op.keys) != 1 {
			t.Errorf("%s: %s %v: the record is only ever uploaded, on its own", name, op.kind, op.keys)
		}
		if op.status >= 300 {
			t.Errorf("%s: %s %v answered %d", name, op.kind, op.keys, op.status)
		}
	}
	if len(record) < 2 {
		t.Errorf("%s wrote the record %d times, want once before anything else and once after", name, len(record))
		return rest
	}
	sort.Slice(record, func(i, j int) bool { return record[i].start.Before(record[j].start) })
	first, last := record[0], record[len(record)-1]
	for _, op := range rest {
		if op.start.Before(first.end) {
			t.Errorf("%s: %s %v started at %s, before the record's first write ended (%s)", name, op.kind, op.keys, at(op.start), at(first.end))
		}
		if op.end.After(last.start) {
			t.Errorf("%s: %s %v ended at %s, after the record's last write started (%s)", name, op.kind, op.keys, at(op.end), at(last.start))
		}
	}
	return rest
}

// s3Op is one request that changed the bucket, as the recording proxy saw
// it: from the moment the request arrived to the moment its answer was
// sent, so an upload is in place by its end and a deletion may have taken
// effect from its start.
type s3Op struct {
	kind       string // put, delete, or the method and query of anything else
	keys       []string
	start, end time.Time
	status     int
}

type opLog struct {
	mu  sync.Mutex
	ops []s3Op
	// hold is how long the proxy holds each request that changes the
	// bucket before it forwards it, a time.Duration.
	hold atomic.Int64
}

func (l *opLog) add(op s3Op) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, op)
}

func (l *opLog) take() []s3Op {
	l.mu.Lock()
	defer l.mu.Unlock()
	ops := l.ops
	l.ops = nil
	return ops
}

// recordingProxy forwards every request to the gateway as it is (the Host
// header included, which the client signed) and logs those that change
// objects: PutObject, DeleteObject, DeleteObjects, and any multipart or
// other request with a body, each held for the log's hold first. It
// returns the proxy's URL.
func recordingProxy(t *testing.T, target string) (string, *opLog) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	log := &opLog{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := s3Op{start: time.Now()}
		bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		query := r.URL.Query()
		query.Del("x-id") // the operation's name, which some SDKs add
		switch {
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
		case r.Method == http.MethodPut && key != "" && len(query) == 0:
			op.kind, op.keys = "put", []string{key}
		case r.Method == http.MethodDelete && key != "" && len(query) == 0:
			op.kind, op.keys = "delete", []string{key}
		case r.Method == http.MethodPost && key == "" && query.Has("delete"):
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var del struct {
				Objects []struct{ Key string } `xml:"Object"`
			}
			if err := xml.Unmarshal(body, &del); err != nil {
				t.Errorf("DeleteObjects: %v\n%s", err, body)
			}
			op.kind = "delete"
			for _, o := range del.Objects {
				op.keys = append(op.keys, o.Key)
			}
		case r.Method == http.MethodPut && key == "" && bucket != "" && len(query) == 0:
			// CreateBucket
		default:
			op.kind, op.keys = r.Method+" ?"+r.URL.RawQuery, []string{key}
		}
		if op.kind != "" {
			time.Sleep(time.Duration(log.hold.Load()))
		}
		rec := &proxyRecorder{ResponseWriter: w, status: http.StatusOK}
		proxy.ServeHTTP(rec, r)
		if op.kind != "" {
			op.end, op.status = time.Now(), rec.status
			log.add(op)
		}
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String(), log
}

type proxyRecorder struct {
	http.ResponseWriter
	status int
}

func (r *proxyRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *proxyRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// bucketReader reads the bucket straight from the gateway, past the
// recording proxy, with the server's credentials and nothing from the
// environment. It never retries: every failed request is seen.
type bucketReader struct {
	client *s3.Client
	bucket string
}

func newBucketReader(t *testing.T, srv *storetest.Server) *bucketReader {
	t.Helper()
	env := map[string]string{}
	for _, kv := range srv.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if env["AWS_ACCESS_KEY_ID"] == "" || env["AWS_SECRET_ACCESS_KEY"] == "" {
		t.Fatal("the S3 server's environment holds no credentials")
	}
	return &bucketReader{
		client: s3.New(s3.Options{
			Region:                     srv.Target.Region,
			BaseEndpoint:               aws.String(srv.Target.Endpoint),
			UsePathStyle:               true,
			Credentials:                credentials.NewStaticCredentialsProvider(env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], ""),
			Retryer:                    aws.NopRetryer{},
			ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
			HTTPClient:                 &http.Client{Timeout: 30 * time.Second},
		}),
		bucket: srv.Target.Bucket,
	}
}

// list returns the ETag of every object of the bucket, by key.
func (b *bucketReader) list(ctx context.Context) (map[string]string, error) {
	objects := map[string]string{}
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			objects[aws.ToString(o.Key)] = aws.ToString(o.ETag)
		}
	}
	return objects, nil
}

// get returns the object's body and ETag, or found false when there is
// none.
func (b *bucketReader) get(ctx context.Context, key string) (body []byte, etag string, found bool, err error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	var missing *types.NoSuchKey
	if errors.As(err, &missing) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	defer out.Body.Close()
	if body, err = io.ReadAll(out.Body); err != nil {
		return nil, "", false, err
	}
	return body, aws.ToString(out.ETag), true, nil
}

// head returns the object's metadata, or nil when there is none.
func (b *bucketReader) head(ctx context.Context, key string) (*s3.HeadObjectOutput, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	var missing *types.NotFound
	if errors.As(err, &missing) {
		return nil, nil
	}
	return out, err
}

// s3Crawler reads the bucket round after round, as visitors and search
// engines would, and records what they would have seen broken.
type s3Crawler struct {
	bucket   *bucketReader
	routes   map[string]string
	versions []*siteVersion

	mu         sync.Mutex
	rounds     []crawlRound
	violations []string
	errors     []string
}

type crawlRound struct {
	start, end time.Time
	pages      int
}

func (c *s3Crawler) run(ctx context.Context) {
	for n := 1; ctx.Err() == nil; n++ {
		r := crawlRound{start: time.Now()}
		var err error
		r.pages, err = c.round(ctx, n)
		r.end = time.Now()
		c.mu.Lock()
		switch {
		case ctx.Err() != nil:
		case err != nil:
			c.errors = append(c.errors, fmt.Sprintf("round %d: %v", n, err))
		default:
			c.rounds = append(c.rounds, r)
		}
		stop := len(c.errors) > 10
		c.mu.Unlock()
		if stop {
			return
		}
	}
}

// waitRounds waits for n complete rounds.
func (c *s3Crawler) waitRounds(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		done, errs := len(c.rounds), slices.Clone(c.errors)
		c.mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("the crawler failed: %s", strings.Join(errs, "\n"))
		}
		if done >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crawler did not complete %d rounds in 30s", n)
		}
	}
}

// roundTime is how long the nth complete round took.
func (c *s3Crawler) roundTime(n int) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rounds[n].end.Sub(c.rounds[n].start)
}

// roundsWithin counts the rounds that ran entirely between start and end,
// and the pages they read.
func (c *s3Crawler) roundsWithin(start, end time.Time) (rounds, pages int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.rounds {
		if !r.start.Before(start) && !r.end.After(end) {
			rounds++
			pages += r.pages
		}
	}
	return rounds, pages
}

// version names the export whose file key has the MD5 sum, or "".
func (c *s3Crawler) version(key string, sum string) string {
	for _, v := range c.versions {
		if f, ok := v.files[key]; ok && f.MD5 == sum {
			return v.name
		}
	}
	return ""
}

// round reads the entry points (index.html, the sitemap, the search index)
// and every page reachable from them, then every other page the bucket
// holds. After reading a page it lists the bucket: every image, script or
// style the page refers to must be there, and, for a reachable page, every
// page it links to. A page that lacks one is a violation when it is still
// there, unchanged, after the listing, so a page replaced in between is not
// counted.
func (c *s3Crawler) round(ctx context.Context, n int) (int, error) {
	held, err := c.bucket.list(ctx)
	if err != nil {
		return 0, err
	}
	type visit struct {
		key       string
		reachable bool
	}
	queue := []visit{{"index.html", true}, {"sitemap.xml", true}, {"search-index.json", true}}
	queued := map[string]bool{"index.html": true, "sitemap.xml": true, "search-index.json": true}
	pages := 0
	for i := 0; ; i++ {
		if i == len(queue) {
			// Then the pages no entry point leads to.
			for _, key := range slices.Sorted(maps.Keys(held)) {
				if isHTMLPage(key) && !queued[key] {
					queued[key] = true
					queue = append(queue, visit{key, false})
				}
			}
			if i == len(queue) {
				return pages, nil
			}
		}
		v := queue[i]
		body, etag, found, err := c.bucket.get(ctx, v.key)
		if err != nil {
			return pages, err
		}
		if !found {
			if v.key == "index.html" {
				c.violate("round %d: the bucket has no index.html", n)
			}
			continue // a missing link target is counted below, for the page that links to it
		}
		pages++
		sum := md5.Sum(body)
		version := c.version(v.key, hex.EncodeToString(sum[:]))
		if version == "" {
			c.violate("round %d: %s is neither export's version of it (ETag %s)", n, v.key, etag)
			continue
		}
		refs := siteReferences(v.key, body, c.routes)
		now, err := c.bucket.list(ctx)
		if err != nil {
			return pages, err
		}
		var missing []string
		for _, ref := range refs {
			if _, ok := now[ref]; !ok && (!isHTMLPage(ref) || v.reachable) {
				missing = append(missing, ref)
			}
			if v.reachable && isHTMLPage(ref) && !queued[ref] {
				queued[ref] = true
				queue = append(queue, visit{ref, true})
			}
		}
		if len(missing) == 0 {
			continue
		}
		head, err := c.bucket.head(ctx, v.key)
		if err != nil {
			return pages, err
		}
		if head != nil && aws.ToString(head.ETag) == etag {
			how := "a page no entry point leads to"
			if v.reachable {
				how = "reachable from index.html, the sitemap or the search index"
			}
			c.violate("round %d: %s (%s; %s) refers to %s, which the bucket did not hold",
				n, v.key, version, how, strings.Join(missing, ", "))
		}
	}
}

func (c *s3Crawler) violate(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}
