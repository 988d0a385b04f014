package objectstore

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// testSite is a site unpacked in a temporary directory, with its manifest.
type testSite struct {
	root  *os.Root
	files map[string]site.File
}

func newTestSite(t *testing.T, files map[string]string) testSite {
	t.Helper()
	dir := t.TempDir()
	m := site.NewManifest()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := m.Add(name, int64(len(body)), sha256.Sum256([]byte(body)), md5.Sum([]byte(body))); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return testSite{root: root, files: m.Files()}
}

// siteV1 and siteV2 are two exports: v2 edits a page and a style, adds a
// page and an image, and drops a page and an image.
var (
	siteV1 = map[string]string{
		"index.html":          "<a href=/guide>guide</a><link href=/app.css>",
		"guide.html":          "guide v1 <img src=/old.png>",
		"gone.html":           "a page v2 drops",
		"app.css":             "body{}",
		"old.png":             "old image",
		"_next/static/a.js":   "js",
		"sitemap.xml":         "<urlset/>",
		"search-index.json":   "{}",
		".well-known/x.txt":   "well known",
		"assets/unchanged.js": "same",
	}
	siteV2 = map[string]string{
		"index.html":          "<a href=/guide>guide</a><a href=/new>new</a><link href=/app.css>",
		"guide.html":          "guide v2 <img src=/new.png>",
		"new.html":            "a new page",
		"app.css":             "body{color:red}",
		"new.png":             "new image",
		"_next/static/a.js":   "js",
		"sitemap.xml":         "<urlset/>",
		"search-index.json":   "{}",
		".well-known/x.txt":   "well known",
		"assets/unchanged.js": "same",
	}
)

type recorder struct {
	mu  sync.Mutex
	ops []string
}

func (r *recorder) add(op, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op+" "+key)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := r.ops
	r.ops = nil
	return ops
}

func memStore(t *testing.T, b *blob.Bucket, prefix string) (*Store, *recorder) {
	t.Helper()
	s := NewStore(Target{Kind: KindS3, Bucket: "test", Prefix: prefix}, b)
	rec := &recorder{}
	s.written = rec.add
	return s, rec
}

func publication(ts testSite, siteID, pinned string) Publication {
	return Publication{Root: ts.root, Files: ts.files, SiteID: siteID, JobID: "se_1", ArchiveSHA256: strings.Repeat("a", 64),
		Pinned: pinned, MaxDeletes: 256, Concurrency: 4, MaxListed: 10_000}
}

func keys(t *testing.T, b *blob.Bucket) map[string]string {
	t.Helper()
	out := map[string]string{}
	it := b.List(nil)
	for {
		obj, err := it.Next(t.Context())
		if err != nil {
			break
		}
		body, err := b.ReadAll(t.Context(), obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		out[obj.Key] = string(body)
	}
	return out
}

// index of the first op that is op key, or -1.
func indexOf(ops []string, op string) int { return slices.Index(ops, op) }

func TestPublishUploadsByContentInOrderAndDeletesOnlyItsOwn(t *testing.T) {
	ctx := t.Context()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	// A user's object under the prefix, and another site under a sibling
	// prefix.
	if err := b.WriteAll(ctx, "docs/notes/readme.md", []byte("mine"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "docs-v2/index.html", []byte("other site"), nil); err != nil {
		t.Fatal(err)
	}
	s, ops := memStore(t, b, "docs")
	v1, v2 := newTestSite(t, siteV1), newTestSite(t, siteV2)

	first, err := s.Publish(ctx, publication(v1, "site-1", ""))
	if err != nil {
		t.Fatal(err)
	}
	if first.Uploaded != len(siteV1) || first.Deleted != 0 {
		t.Errorf("first publication: %+v, want %d uploads", first, len(siteV1))
	}
	got := ops.take()
	if got[0] != "record "+RecordKey || got[len(got)-1] != "record "+RecordKey {
		t.Errorf("first publication: the record is not written first and last: %v", got)
	}
	if indexOf(got, "put index.html") != len(got)-2 {
		t.Errorf("first publication: the root's index is not the last upload: %v", got)
	}
	if indexOf(got, "put app.css") > indexOf(got, "put guide.html") {
		t.Errorf("first publication: a page before the style it loads: %v", got)
	}

	second, err := s.Publish(ctx, publication(v2, "site-1", first.RecordSHA256))
	if err != nil {
		t.Fatal(err)
	}
	got = ops.take()
	var puts, deletes []string
	for _, op := range got {
		if k, ok := strings.CutPrefix(op, "put "); ok {
			puts = append(puts, k)
		}
		if k, ok := strings.CutPrefix(op, "delete "); ok {
			deletes = append(deletes, k)
		}
	}
	slices.Sort(puts)
	if want := []string{"app.css", "guide.html", "index.html", "new.html", "new.png"}; !slices.Equal(puts, want) {
		t.Errorf("second publication uploaded %v, want only what changed: %v", puts, want)
	}
	if want := []string{"gone.html", "old.png"}; !slices.Equal(deletes, want) {
		t.Errorf("second publication deleted %v in that order, want the page before the image: %v", deletes, want)
	}
	// Assets, then new pages, then changed pages, then the root's index,
	// then deletions.
	order := []string{"put new.png", "put new.html", "put guide.html", "put index.html", "delete gone.html", "delete old.png"}
	for i := 1; i < len(order); i++ {
		if indexOf(got, order[i-1]) > indexOf(got, order[i]) {
			t.Errorf("second publication: %q came after %q: %v", order[i-1], order[i], got)
		}
	}
	if second.Unchanged != 5 {
		t.Errorf("second publication left %d files unchanged, want 5", second.Unchanged)
	}

	all := keys(t, b)
	if all["docs/notes/readme.md"] != "mine" || all["docs-v2/index.html"] != "other site" {
		t.Errorf("the user's object or the sibling site changed: %v", all)
	}
	for name, body := range siteV2 {
		if all["docs/"+name] != body {
			t.Errorf("docs/%s = %q, want %q", name, all["docs/"+name], body)
		}
	}
	if _, ok := all["docs/gone.html"]; ok {
		t.Error("docs/gone.html is still there")
	}

	// Nothing changed: nothing is written, the record is the same.
	third, err := s.Publish(ctx, publication(v2, "site-1", second.RecordSHA256))
	if err != nil {
		t.Fatal(err)
	}
	if ops := ops.take(); len(ops) > 0 || third.RecordSHA256 != second.RecordSHA256 {
		t.Errorf("publishing the site the store holds wrote %v (record %s, was %s)", ops, third.RecordSHA256, second.RecordSHA256)
	}

	// Destroy deletes the site and the record, and leaves the user's
	// object and the sibling site.
	w, err := s.Withdraw(ctx, "site-1", third.RecordSHA256, 4, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	all = keys(t, b)
	if w.Deleted != len(siteV2) || len(all) != 2 || all["docs/notes/readme.md"] != "mine" || all["docs-v2/index.html"] != "other site" {
		t.Errorf("destroy deleted %d, left %v", w.Deleted, all)
	}
}

func TestPublishRefusesBeforeWritingAnything(t *testing.T) {
	ctx := t.Context()
	v1 := newTestSite(t, siteV1)
	t.Run("a user's object at a key the site needs", func(t *testing.T) {
		b := memblob.OpenBucket(nil)
		if err := b.WriteAll(ctx, "guide.html", []byte("the user's page"), nil); err != nil {
			t.Fatal(err)
		}
		s, ops := memStore(t, b, "")
		_, err := s.Publish(ctx, publication(v1, "site-1", ""))
		var conflict *ConflictError
		if !errors.As(err, &conflict) || !slices.Equal(conflict.Keys, []string{"guide.html"}) {
			t.Fatalf("err = %v, want a conflict at guide.html", err)
		}
		if !strings.Contains(err.Error(), `"guide.html"`) || !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("the error does not name the key and say nothing was written: %v", err)
		}
		if got := ops.take(); len(got) > 0 {
			t.Errorf("wrote %v", got)
		}
		if all := keys(t, b); len(all) != 1 || all["guide.html"] != "the user's page" {
			t.Errorf("the bucket changed: %v", all)
		}
	})
	t.Run("more deletions than max_deletes", func(t *testing.T) {
		b := memblob.OpenBucket(nil)
		s, ops := memStore(t, b, "")
		first, err := s.Publish(ctx, publication(v1, "site-1", ""))
		if err != nil {
			t.Fatal(err)
		}
		ops.take()
		small := newTestSite(t, map[string]string{"index.html": "only this"})
		p := publication(small, "site-1", first.RecordSHA256)
		p.MaxDeletes = 3
		_, err = s.Publish(ctx, p)
		var tooMany *TooManyDeletesError
		if !errors.As(err, &tooMany) || tooMany.Count != len(siteV1)-1 {
			t.Fatalf("err = %v, want a refusal of %d deletions", err, len(siteV1)-1)
		}
		if !strings.Contains(err.Error(), "max_deletes = 3") || !strings.Contains(err.Error(), "raise max_deletes to at least 9") {
			t.Errorf("the error does not name the bound and how to lift it: %v", err)
		}
		if got := ops.take(); len(got) > 0 {
			t.Errorf("wrote %v", got)
		}
	})
	t.Run("another site's record", func(t *testing.T) {
		b := memblob.OpenBucket(nil)
		s, _ := memStore(t, b, "")
		if _, err := s.Publish(ctx, publication(v1, "site-1", "")); err != nil {
			t.Fatal(err)
		}
		if err := s.Inspect(ctx, "", 10_000); err == nil || !strings.Contains(err.Error(), `belongs to another site ("site-1"`) {
			t.Errorf("Inspect = %v, want the other site named", err)
		}
		_, err := s.Publish(ctx, publication(v1, "site-2", ""))
		var conflict *ConflictError
		if !errors.As(err, &conflict) || len(conflict.Keys) != len(siteV1) {
			t.Errorf("a second site at the same prefix: %v", err)
		}
	})
}

// A publication that fails partway leaves the old pages working, and the
// next one completes it, whether state saved the record it wrote or not
// (an apply killed before state was written).
func TestPublishStoppedPartwayIsCompletedNextTime(t *testing.T) {
	for _, stateSaved := range []bool{true, false} {
		name := map[bool]string{true: "state saved", false: "apply killed"}[stateSaved]
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			b := memblob.OpenBucket(nil)
			s, _ := memStore(t, b, "")
			v1 := newTestSite(t, siteV1)
			first, err := s.Publish(ctx, publication(v1, "site-1", ""))
			if err != nil {
				t.Fatal(err)
			}
			// The new page is missing from the unpacked tree: its upload
			// fails, after the assets are in.
			v2 := newTestSite(t, siteV2)
			if err := v2.root.Remove("new.html"); err != nil {
				t.Fatal(err)
			}
			_, err = s.Publish(ctx, publication(v2, "site-1", first.RecordSHA256))
			var failed *PublishError
			if !errors.As(err, &failed) {
				t.Fatalf("err = %v, want a PublishError", err)
			}
			all := keys(t, b)
			if all["index.html"] != siteV1["index.html"] || all["guide.html"] != siteV1["guide.html"] || all["old.png"] != siteV1["old.png"] {
				t.Errorf("the old pages or what they load changed before the new site was in place: %v", all)
			}
			if all["new.png"] != siteV2["new.png"] {
				t.Errorf("the new image was not uploaded first: %v", all)
			}
			d, err := s.Check(ctx, "site-1", failed.RecordSHA256, 10_000)
			if err != nil || !d.Incomplete {
				t.Errorf("Check after the failure = %+v, %v; want an incomplete publication", d, err)
			}
			pinned := first.RecordSHA256
			if stateSaved {
				pinned = failed.RecordSHA256
			}
			v2 = newTestSite(t, siteV2)
			done, err := s.Publish(ctx, publication(v2, "site-1", pinned))
			if err != nil {
				t.Fatal(err)
			}
			all = keys(t, b)
			for name, body := range siteV2 {
				if all[name] != body {
					t.Errorf("%s = %q, want %q", name, all[name], body)
				}
			}
			if _, ok := all["old.png"]; ok {
				t.Error("old.png was not deleted")
			}
			if d, err := s.Check(ctx, "site-1", done.RecordSHA256, 10_000); err != nil || !d.None() {
				t.Errorf("Check after completion = %+v, %v", d, err)
			}
		})
	}
}

func TestCheckSeesDriftAndAnEditedRecord(t *testing.T) {
	ctx := t.Context()
	b := memblob.OpenBucket(nil)
	s, _ := memStore(t, b, "site")
	first, err := s.Publish(ctx, publication(newTestSite(t, siteV1), "site-1", ""))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.Check(ctx, "site-1", first.RecordSHA256, 10_000); err != nil || !d.None() || d.Files != len(siteV1) {
		t.Fatalf("Check of the site as published = %+v, %v", d, err)
	}
	if err := b.Delete(ctx, "site/old.png"); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "site/guide.html", []byte("edited by hand"), nil); err != nil {
		t.Fatal(err)
	}
	d, err := s.Check(ctx, "site-1", first.RecordSHA256, 10_000)
	if err != nil || !slices.Equal(d.Missing, []string{"site/old.png"}) || !slices.Equal(d.Changed, []string{"site/guide.html"}) {
		t.Errorf("Check = %+v, %v; want old.png missing and guide.html changed", d, err)
	}
	// A restore writes only those two.
	s2, ops := memStore(t, b, "site")
	restored, err := s2.Publish(ctx, publication(newTestSite(t, siteV1), "site-1", first.RecordSHA256))
	if err != nil {
		t.Fatal(err)
	}
	if got := ops.take(); len(got) != 4 || restored.Uploaded != 2 {
		t.Errorf("the restore wrote %v", got)
	}

	// The record edited to claim a user's object: not trusted, so the
	// object is nobody's to delete.
	if err := b.WriteAll(ctx, "site/mine.txt", []byte("mine"), nil); err != nil {
		t.Fatal(err)
	}
	body, err := b.ReadAll(ctx, "site/"+RecordKey)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(body), `"files":{`, `"files":{"mine.txt":{"size":4,"sha256":"","md5":""},`, 1)
	if err := b.WriteAll(ctx, "site/"+RecordKey, []byte(edited), nil); err != nil {
		t.Fatal(err)
	}
	d, err = s.Check(ctx, "site-1", restored.RecordSHA256, 10_000)
	if err != nil || !strings.Contains(d.Record, "changed outside Terraform") {
		t.Errorf("Check with an edited record = %+v, %v", d, err)
	}
	w, err := s.Withdraw(ctx, "site-1", restored.RecordSHA256, 4, 10_000)
	if err != nil || w.Deleted != 0 || w.Record == "" {
		t.Errorf("Withdraw with an edited record = %+v, %v; want nothing deleted", w, err)
	}
	if all := keys(t, b); all["site/mine.txt"] != "mine" {
		t.Errorf("the user's object was deleted")
	}
}

func TestListingIsBounded(t *testing.T) {
	ctx := t.Context()
	b := memblob.OpenBucket(nil)
	for i := range 20 {
		if err := b.WriteAll(ctx, "p/"+strings.Repeat("x", i+1), []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := memStore(t, b, "p")
	_, err := s.Check(context.Background(), "site-1", "", 10)
	var limit *LimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "more than 10 objects under the prefix") {
		t.Errorf("err = %v, want the listing's bound", err)
	}
}

func TestPrefixProblem(t *testing.T) {
	for _, ok := range []string{"", "docs", "docs/", "a/b/c", "v1.2"} {
		if p := PrefixProblem(ok); p != "" {
			t.Errorf("PrefixProblem(%q) = %q", ok, p)
		}
	}
	for _, bad := range []string{"/docs", "a//b", "a/../b", ".", "x/.docsadmin", "a\u200bb", "a\\b", "a\nb"} {
		if PrefixProblem(bad) == "" {
			t.Errorf("PrefixProblem(%q) accepts it", bad)
		}
	}
	if NormalPrefix("docs") != "docs/" || NormalPrefix("docs/") != "docs/" || NormalPrefix("") != "" {
		t.Error("NormalPrefix")
	}
}

// Pages stored under their extensionless URL too are written with the
// page's bytes and type, after the assets, and deleted with the page.
func TestPublishWritesAliasesOfPages(t *testing.T) {
	ctx := t.Context()
	b := memblob.OpenBucket(nil)
	s, ops := memStore(t, b, "")
	v1 := newTestSite(t, siteV1)
	p := publication(v1, "site-1", "")
	p.Aliases = map[string]string{"guide": "guide.html", "gone": "gone.html"}
	first, err := s.Publish(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	got := ops.take()
	if indexOf(got, "put guide") < indexOf(got, "put old.png") {
		t.Errorf("the alias of a page went up before what the page loads: %v", got)
	}
	attrs, err := b.Attributes(ctx, "guide")
	if err != nil || attrs.ContentType != site.ContentType("guide.html") {
		t.Fatalf("the alias's attributes: %+v, %v", attrs, err)
	}
	if body, _ := b.ReadAll(ctx, "guide"); string(body) != siteV1["guide.html"] {
		t.Errorf("the alias holds %q", body)
	}
	v2 := newTestSite(t, siteV2)
	p = publication(v2, "site-1", first.RecordSHA256)
	p.Aliases = map[string]string{"guide": "guide.html", "new": "new.html"}
	if _, err := s.Publish(ctx, p); err != nil {
		t.Fatal(err)
	}
	got = ops.take()
	if indexOf(got, "delete gone") < 0 || indexOf(got, "delete gone") > indexOf(got, "delete old.png") {
		t.Errorf("the alias of a page gone is not deleted with the pages: %v", got)
	}
	if body, _ := b.ReadAll(ctx, "guide"); string(body) != siteV2["guide.html"] {
		t.Errorf("the alias holds %q after the new export", body)
	}
}

// A record larger than the listing's bound allows is not read whole, and
// is not the provider's.
func TestRecordIsBounded(t *testing.T) {
	ctx := t.Context()
	b := memblob.OpenBucket(nil)
	huge := `{"format":"docsadmin-bucket-site/1","site":"site-1","files":{"a":{"size":1,"sha256":"` + strings.Repeat("0", recordBytes(10)) + `"}}}`
	if err := b.WriteAll(ctx, RecordKey, []byte(huge), nil); err != nil {
		t.Fatal(err)
	}
	s, _ := memStore(t, b, "")
	d, err := s.Check(ctx, "site-1", "", 10)
	if err != nil || !strings.Contains(d.Record, fmt.Sprintf("more than %d bytes", recordBytes(10))) {
		t.Errorf("Check = %+v, %v; want the record refused by its bound", d, err)
	}
}

// A store that accepts connections and never answers costs a check no
// more than its context allows.
func TestCheckIsBoundedByItsContext(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, never answered
		}
	}()
	dir := t.TempDir()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"), "AWS_PROFILE": ""} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	s, err := OpenStore(ctx, Target{Kind: KindS3, Bucket: "b", Region: "eu-west-1", Endpoint: "http://" + l.Addr().String(), PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Check(ctx, "site-1", "", 10)
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("Check against a store that never answers: %v after %s", err, time.Since(start))
	}
}
