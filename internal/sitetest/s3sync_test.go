package sitetest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// syncScript is the sync step of the static-host example: it syncs an
// unpacked export to an S3 bucket with the AWS CLI, from the manifest.
var syncScript = filepath.Join("examples", "pipelines", "static-host", "sync", "sync-s3.sh")

// The bucket, its region and the gateway's root credentials.
const (
	s3Bucket = "docs-site"
	s3Region = "eu-west-1"
	s3Access = "SITETESTACCESSKEY"
	s3Secret = "sitetest-secret-key-0123456789"
)

// TestS3SyncPublishesExportsInOrder runs the static-host example's sync step
// against a real S3-compatible server, versitygw on a temporary directory:
// an export into an empty bucket, then a second export of the same site
// with pages edited, added and removed and images added, renamed and
// removed, each from a symbolic link to its release directory, as the
// provider publishes docsadmin_static_site's directory. After each sync the
// bucket holds the export and nothing else, every object with the
// manifest's MD5 as its ETag, Content-Type and Cache-Control.
//
// While the second sync runs, a crawler reads the bucket as visitors and
// search engines would, round after round: from index.html, the sitemap and
// the search index it follows every link, and it reads every other page the
// bucket holds (a stale page that someone bookmarked, a new page not linked
// yet). No page may refer to an image, script or style that the bucket does
// not hold at that moment, and no page reachable from the entry points may
// link to a page the bucket does not hold. Every mutating request of the
// script passes through a recording proxy, and the order of its uploads and
// deletions is held to the same rules, whatever the crawler happened to
// see: a file referred to is in place before the first upload of a page
// that refers to it (for a page already published, also a page it links
// to), deletions come after every upload, and an image, script or style is
// deleted only after every page that referred to it was replaced or
// deleted. The script uploads only the files that differ, changes nothing
// when the bucket holds the export already, and leaves the verified tree as
// it found it.
func TestS3SyncPublishesExportsInOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sync step against an S3 server, end to end: slow; runs in make test")
	}
	aws := awsCLI(t)
	for _, tool := range []string{"sh", "jq"} {
		testtools.LookPath(t, tool, "the sync step runs it: "+testtools.MakeTools)
	}
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, syncScript)
	gateway := startVersitygw(t, versitygwBinary(t))
	proxy, ops := recordingProxy(t, gateway)
	client := &s3Client{endpoint: gateway, http: &http.Client{Timeout: 30 * time.Second}}

	first, second := twoExports(t)
	routes := first.manifest.Routes()
	for route, p := range second.manifest.Routes() {
		routes[route] = p
	}
	first.index(t, routes)
	second.index(t, routes)

	work := t.TempDir()
	awsEnv := awsEnvironment(t, work, proxy)
	awsRun(t, aws, awsEnv, "s3api", "create-bucket", "--bucket", s3Bucket,
		"--create-bucket-configuration", "LocationConstraint="+s3Region)

	// The directory docsadmin_static_site publishes: a symbolic link to the
	// release directory of the current export, replaced in one rename.
	link := filepath.Join(work, "site")
	publish := func(v *siteVersion) {
		t.Helper()
		tmp := link + ".new"
		if err := os.Symlink(v.dir, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, link); err != nil {
			t.Fatal(err)
		}
	}

	// The first export, into the empty bucket.
	publish(first)
	ops.reset()
	start := time.Now()
	runSync(t, script, awsEnv, link, first.writeManifest(t, filepath.Join(work, "manifest-1.json")))
	t.Logf("first sync: %d files in %s", len(first.files), time.Since(start).Round(time.Millisecond))
	checkOrder(t, "first sync", nil, first, ops.take(), start)
	checkBucket(t, client, first)
	checkUntouched(t, first)

	// The second export, while a crawler reads the bucket.
	publish(second)
	ops.reset()
	c := &s3Crawler{client: client, routes: routes, versions: []*siteVersion{first, second}}
	ctx, stop := context.WithCancel(t.Context())
	crawled := make(chan struct{})
	go func() { defer close(crawled); c.run(ctx) }()
	c.waitRounds(t, 1) // a round before the sync starts, to see the crawler work
	start = time.Now()
	runSync(t, script, awsEnv, link, second.writeManifest(t, filepath.Join(work, "manifest-2.json")))
	end := time.Now()
	stop()
	<-crawled

	during, pages := c.roundsWithin(start, end)
	t.Logf("second sync: %d files, %d to upload, %d to delete, in %s; %d crawl rounds during it, reading %d pages",
		len(second.files), len(filesToUpload(first, second)), len(filesToDelete(first, second)), end.Sub(start).Round(time.Millisecond), during, pages)
	for _, e := range c.errors {
		t.Errorf("crawler: %s", e)
	}
	for _, v := range c.violations {
		t.Errorf("crawler: %s", v)
	}
	if during < 3 {
		t.Errorf("the crawler completed %d rounds during the second sync, want at least 3", during)
	}
	checkOrder(t, "second sync", first, second, ops.take(), start)
	checkBucket(t, client, second)
	checkUntouched(t, second)

	// Once more: the bucket holds the export, so nothing changes.
	runSync(t, script, awsEnv, link, filepath.Join(work, "manifest-2.json"))
	for _, op := range ops.take() {
		t.Errorf("a sync of the export the bucket holds: %s %v", op.kind, op.keys)
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
	mtimes   map[string]time.Time // as unpacked, to see that the sync leaves them
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

// writeManifest writes the manifest as docsadmin_static_site writes its
// manifest_file, which the example gives the sync step.
func (v *siteVersion) writeManifest(t *testing.T, name string) string {
	t.Helper()
	body, err := site.EncodeFiles(v.files)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
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

// checkUntouched holds the sync step to reading the verified tree: every
// file keeps its modification time.
func checkUntouched(t *testing.T, v *siteVersion) {
	t.Helper()
	for p, mtime := range v.mtimes {
		fi, err := os.Stat(filepath.Join(v.dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if !fi.ModTime().Equal(mtime) {
			t.Errorf("%s: the sync step changed the modification time of %s in the verified tree", v.name, p)
		}
	}
}

// checkBucket holds the bucket to exactly the files of v: the same keys,
// every object with the file's MD5 as its ETag and the manifest's
// Content-Type and Cache-Control.
func checkBucket(t *testing.T, c *s3Client, v *siteVersion) {
	t.Helper()
	ctx := t.Context()
	objects, err := c.list(ctx, s3Bucket)
	if err != nil {
		t.Fatal(err)
	}
	for key := range objects {
		if _, ok := v.files[key]; !ok {
			t.Errorf("after the sync of %s the bucket holds %s, which the export does not", v.name, key)
		}
	}
	for _, p := range v.manifest.Paths() {
		f := v.files[p]
		etag, ok := objects[p]
		if !ok {
			t.Errorf("after the sync of %s the bucket lacks %s", v.name, p)
			continue
		}
		if want := `"` + f.MD5 + `"`; etag != want {
			t.Errorf("%s: ETag %s, want %s", p, etag, want)
		}
		resp, err := c.do(ctx, http.MethodHead, s3Bucket, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %s", p, resp.Status)
			continue
		}
		if got := resp.Header.Get("ETag"); got != `"`+f.MD5+`"` {
			t.Errorf("HEAD %s: ETag %s, want %q", p, got, f.MD5)
		}
		if got := resp.Header.Get("Content-Type"); got != f.ContentType {
			t.Errorf("%s: Content-Type %q, want %q", p, got, f.ContentType)
		}
		if got := resp.Header.Get("Cache-Control"); got != f.CacheControl {
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

// awsCLI is the AWS CLI on PATH, of a version that reads the endpoint from
// AWS_ENDPOINT_URL (1.29 and 2.13 or later).
func awsCLI(t *testing.T) string {
	t.Helper()
	bin := testtools.LookPath(t, "aws", "the sync step runs the AWS CLI: install it with pip install awscli, "+
		"or AWS's installer for version 2")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("aws --version: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`aws-cli/(\d+)\.(\d+)\.`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("aws --version printed %q", out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	if (major == 1 && minor < 29) || (major == 2 && minor < 13) || major < 1 {
		t.Fatalf("%s is %s: the test points it at the gateway with AWS_ENDPOINT_URL, which needs version 1.29 or 2.13 "+
			"or later (Debian 12's awscli package is 2.9: use pip install awscli or AWS's installer)", bin, bytes.TrimSpace(out))
	}
	return bin
}

// awsEnvironment is the environment of the AWS CLI and the sync step: the
// test's, without any AWS setting, plus the gateway's endpoint and
// credentials, and empty configuration files, so that no user
// configuration or instance metadata plays a part.
func awsEnvironment(t *testing.T, dir, endpoint string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	config, credentials := filepath.Join(dir, "aws-config"), filepath.Join(dir, "aws-credentials")
	for _, name := range []string{config, credentials} {
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return append(env,
		"AWS_ENDPOINT_URL="+endpoint,
		"AWS_ACCESS_KEY_ID="+s3Access,
		"AWS_SECRET_ACCESS_KEY="+s3Secret,
		"AWS_DEFAULT_REGION="+s3Region,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE="+config,
		"AWS_SHARED_CREDENTIALS_FILE="+credentials,
		"AWS_PAGER=",
	)
}

func awsRun(t *testing.T, aws string, env []string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), aws, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runSync runs the sync step as the example's local-exec provisioner does.
func runSync(t *testing.T, script string, env []string, siteDir, manifest string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", script)
	cmd.Env = append(slices.Clone(env), "SITE="+siteDir, "MANIFEST="+manifest, "BUCKET="+s3Bucket)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", syncScript, err, out)
	} else if len(bytes.TrimSpace(out)) > 0 {
		t.Logf("%s printed:\n%s", syncScript, out)
	}
}

// versitygwBinary is the versitygw that tools/versitygw.sh builds from
// tools/versitygw/go.mod into the tools cache, under a name keyed by the
// module's go.mod and go.sum, as the script keys it.
func versitygwBinary(t *testing.T) string {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	key := sha256.New()
	for _, name := range []string{"go.mod", "go.sum"} {
		content, err := os.ReadFile(filepath.Join(root, "tools", "versitygw", name))
		if err != nil {
			t.Fatal(err)
		}
		key.Write(content)
	}
	cache, err := tfrunner.ToolsCache()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(cache, "versitygw-"+hex.EncodeToString(key.Sum(nil))[:16], "versitygw")
	if fi, err := os.Stat(bin); err != nil || !fi.Mode().IsRegular() {
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", bin)
		}
		testtools.Missing(t, "versitygw, the S3 server of this test,", "run make tools (tools/versitygw.sh builds it into "+bin+")", err)
	}
	return bin
}

// startVersitygw serves S3 from a temporary directory with versitygw's
// posix backend (metadata in a sidecar directory, so that the file
// system's extended attributes do not matter) on a free loopback port,
// with the root credentials from its environment. It returns the endpoint
// and stops the server when the test ends.
func startVersitygw(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "--port", addr, "--region", s3Region, "--keep-alive", "--quiet",
		"posix", "--sidecar", meta, data)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s3Access, "ROOT_SECRET_ACCESS_KEY="+s3Secret)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error // read once exited is closed
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("versitygw's output:\n%s", output.String())
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	for {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return "http://" + addr
		}
		select {
		case <-exited:
			t.Fatalf("versitygw stopped: %v\n%s", waitErr, output.String())
		case <-ctx.Done():
			t.Fatalf("versitygw did not listen within 15s\n%s", output.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
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
}

func (l *opLog) add(op s3Op) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, op)
}

func (l *opLog) reset() { l.take() }

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
// other request with a body. It returns the proxy's URL.
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

// s3Client makes S3 requests signed with AWS Signature Version 4, path
// style, with the gateway's root credentials.
type s3Client struct {
	endpoint string
	http     *http.Client
}

// do sends an S3 request for key of bucket ("" for the bucket itself) with
// the query q.
func (c *s3Client) do(ctx context.Context, method, bucket, key string, q url.Values) (*http.Response, error) {
	canonicalURI := "/" + bucket
	if key != "" {
		canonicalURI += "/" + uriEncode(key, false)
	}
	names := slices.Sorted(maps.Keys(q))
	var query []string
	for _, name := range names {
		for _, v := range q[name] {
			query = append(query, uriEncode(name, true)+"="+uriEncode(v, true))
		}
	}
	canonicalQuery := strings.Join(query, "&")
	u, err := url.Parse(c.endpoint + canonicalURI)
	if err != nil {
		return nil, err
	}
	u.RawQuery = canonicalQuery
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	amzDate := now.Format("20060102T150405Z")
	emptySHA := sha256.Sum256(nil)
	payload := hex.EncodeToString(emptySHA[:])
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payload)
	canonical := strings.Join([]string{
		method, canonicalURI, canonicalQuery,
		"host:" + req.URL.Host + "\nx-amz-content-sha256:" + payload + "\nx-amz-date:" + amzDate + "\n",
		"host;x-amz-content-sha256;x-amz-date", payload,
	}, "\n")
	scope := amzDate[:8] + "/" + s3Region + "/s3/aws4_request"
	canonicalSum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(canonicalSum[:])
	mac := func(k []byte, s string) []byte {
		h := hmac.New(sha256.New, k)
		h.Write([]byte(s))
		return h.Sum(nil)
	}
	signingKey := mac(mac(mac(mac([]byte("AWS4"+s3Secret), amzDate[:8]), s3Region), "s3"), "aws4_request")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+s3Access+"/"+scope+
		", SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature="+hex.EncodeToString(mac(signingKey, toSign)))
	return c.http.Do(req)
}

// uriEncode encodes s as SigV4's canonical request does: every byte but the
// unreserved characters, and '/' too when slash.
func uriEncode(s string, slash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case 'A' <= ch && ch <= 'Z', 'a' <= ch && ch <= 'z', '0' <= ch && ch <= '9', ch == '-', ch == '_', ch == '.', ch == '~':
			b.WriteByte(ch)
		case ch == '/' && !slash:
			b.WriteByte(ch)
		default:
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

// list returns the ETag of every object of bucket, by key.
func (c *s3Client) list(ctx context.Context, bucket string) (map[string]string, error) {
	objects := map[string]string{}
	token := ""
	for {
		q := url.Values{"list-type": {"2"}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		resp, err := c.do(ctx, http.MethodGet, bucket, "", q)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("ListObjectsV2: %s\n%s", resp.Status, body)
		}
		var result struct {
			Contents []struct {
				Key  string
				ETag string
			}
			IsTruncated           bool
			NextContinuationToken string
		}
		if err := xml.Unmarshal(body, &result); err != nil {
			return nil, fmt.Errorf("ListObjectsV2: %v\n%s", err, body)
		}
		for _, o := range result.Contents {
			objects[o.Key] = o.ETag
		}
		if !result.IsTruncated {
			return objects, nil
		}
		token = result.NextContinuationToken
	}
}

// get returns the object's body and ETag, or found false on 404.
func (c *s3Client) get(ctx context.Context, bucket, key string) (body []byte, etag string, found bool, err error) {
	resp, err := c.do(ctx, http.MethodGet, bucket, key, nil)
	if err != nil {
		return nil, "", false, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil, "", false, err
	case resp.StatusCode == http.StatusNotFound:
		return nil, "", false, nil
	case resp.StatusCode != http.StatusOK:
		return nil, "", false, fmt.Errorf("GET %s: %s\n%s", key, resp.Status, body)
	}
	return body, resp.Header.Get("ETag"), true, nil
}

// s3Crawler reads the bucket round after round, as visitors and search
// engines would, and records what they would have seen broken.
type s3Crawler struct {
	client   *s3Client
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
	held, err := c.client.list(ctx, s3Bucket)
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
		body, etag, found, err := c.client.get(ctx, s3Bucket, v.key)
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
		now, err := c.client.list(ctx, s3Bucket)
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
		resp, err := c.client.do(ctx, http.MethodHead, s3Bucket, v.key, nil)
		if err != nil {
			return pages, err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") == etag {
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
