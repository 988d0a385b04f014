package sitetest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// nginxTemplate is the server block the documentation gives for nginx: the
// nginx example renders it with templatefile, and the guide shows it.
var nginxTemplate = filepath.Join("examples", "pipelines", "static-host", "nginx", "docs.conf.tftpl")

// TestNginxServesTheExport unpacks an export of the mock, serves it with
// nginx and the documented configuration, and crawls it from / following
// every link and asset: each answers 200 with the file's bytes, its content
// type and its cache lifetime; every extensionless URL of the sitemap and
// every canonical URL answers its page; every file of the export is reached;
// a page that does not exist answers 404.
func TestNginxServesTheExport(t *testing.T) {
	site := unpackedExport(t)
	for _, name := range edgeFiles {
		p := filepath.Join(site, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("edge case "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := startNginx(t, site)

	c := &crawler{t: t, base: base, site: site, seen: map[string]bool{}}
	c.crawl("/")

	files := siteFiles(t, site)
	for _, name := range files {
		if strings.HasSuffix(name, ".html") && !c.served[name] {
			t.Errorf("%s is not linked from any page", name)
		}
	}
	// The files no page links to (RSC payloads, robots.txt, the sitemap, the
	// search index, the edge cases), by their own names.
	for _, name := range files {
		c.fetch("/"+name, name)
	}

	var sitemap struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(c.fetch("/sitemap.xml", "sitemap.xml"), &sitemap); err != nil {
		t.Fatalf("sitemap.xml: %v", err)
	}
	if len(sitemap.URLs) == 0 {
		t.Fatal("sitemap.xml lists no URL")
	}
	for _, u := range sitemap.URLs {
		loc, err := url.Parse(u.Loc)
		if err != nil || strings.HasSuffix(loc.Path, ".html") {
			t.Fatalf("sitemap URL %q is not an extensionless URL", u.Loc)
		}
		page := c.fileFor(loc.Path)
		c.fetch(loc.Path, page)
		if strings.HasSuffix(page, "/index.html") {
			c.fetch(loc.Path+"/", page) // /guides/ answers as /guides does
		}
	}

	var index []struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(c.fetch("/search-index.json", "search-index.json"), &index); err != nil || len(index) == 0 {
		t.Fatalf("search-index.json: %v, %d entries", err, len(index))
	}
	for _, e := range index {
		c.fetch(e.URL, c.fileFor(e.URL))
	}

	for _, missing := range []string{"/no-such-page", "/guides/no-such-page.html", "/assets/missing.0123abcd.js"} {
		resp := c.get(missing)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", missing, resp.Status)
		}
	}
}

// TestNginxConfigListsTheExportsTypes holds the documented types block to
// the table: each extension once, with the table's media type, and nothing
// else.
func TestNginxConfigListsTheExportsTypes(t *testing.T) {
	conf := readTemplate(t)
	block := regexp.MustCompile(`(?s)\n\s*types\s*\{(.*?)\}`).FindStringSubmatch(conf)
	if block == nil {
		t.Fatal("the nginx configuration has no types block")
	}
	listed := map[string]string{}
	for line := range strings.SplitSeq(block[1], "\n") {
		fields := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, ext := range fields[1:] {
			if _, dup := listed[ext]; dup {
				t.Errorf("types lists %s twice", ext)
			}
			listed[ext] = fields[0]
		}
	}
	for ext, want := range contentTypes {
		mediaType, _, _ := strings.Cut(want, ";")
		if listed[ext] != mediaType {
			t.Errorf("types gives .%s as %q, want %q", ext, listed[ext], mediaType)
		}
	}
	for ext := range listed {
		if _, ok := contentTypes[ext]; !ok {
			t.Errorf("types lists .%s, which the provider's table does not", ext)
		}
	}
}

func readTemplate(t *testing.T) string {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(filepath.Join(root, nginxTemplate))
	if err != nil {
		t.Fatal(err)
	}
	return string(conf)
}

// unpackedExport runs an export on the mock, downloads and verifies its
// archive as the provider does, and unpacks it with tar.
func unpackedExport(t *testing.T) string {
	t.Helper()
	mock := mockapi.NewServer(mockapi.Config{ExportDuration: 100 * time.Millisecond})
	t.Cleanup(mock.Close)
	return unpackExport(t, mock, `{"domain":"docs.example.com"}`)
}

// unpackExport starts an export on mock with the request body start (JSON:
// domain, and optionally version and paths), downloads and verifies its
// archive as the provider does, and unpacks it with tar.
func unpackExport(t *testing.T, mock *mockapi.Server, start string) string {
	t.Helper()
	call := func(method, path string, out any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, mock.URL+path, strings.NewReader(start))
		req.Header.Set("Authorization", "Bearer "+mock.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %s", method, path, resp.Status)
		}
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	var job struct {
		JobID  string `json:"jobId"`
		Status string `json:"status"`
	}
	call("POST", "/v1/static-export/jobs", &job)
	for deadline := time.Now().Add(30 * time.Second); job.Status != "completed"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) || job.Status == "failed" {
			t.Fatalf("export %s: %s", job.JobID, job.Status)
		}
		call("GET", "/v1/static-export/jobs/"+job.JobID, &job)
	}
	var link struct {
		BundleURL string `json:"bundleUrl"`
	}
	call("POST", "/v1/static-export/jobs/"+job.JobID+"/bundle", &link)

	dir := t.TempDir()
	bundle := filepath.Join(dir, "bundle.tar.gz")
	f, err := os.Create(bundle)
	if err != nil {
		t.Fatal(err)
	}
	_, err = (archive.Limits{}).Fetch(t.Context(), archive.DownloadClient(nil), link.BundleURL, f)
	if err = cmpErr(err, f.Close()); err != nil {
		t.Fatalf("the export's archive: %v", err)
	}
	site := filepath.Join(dir, "site")
	if err := os.Mkdir(site, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", bundle, "-C", site).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	// nginx's workers may run as another user: let them read the tree.
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if d == os.TempDir() {
			break
		}
		_ = os.Chmod(d, 0o755)
	}
	return site
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// siteFiles lists the regular files of the unpacked export, slash-separated.
func siteFiles(t *testing.T, site string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(site, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil || len(names) == 0 {
		t.Fatalf("the unpacked export: %v, %d files", err, len(names))
	}
	return names
}

// startNginx serves site with the documented server block, rendered as the
// nginx example renders it, in an nginx whose every path is under a
// temporary directory, on a free loopback port. It returns the base URL and
// stops nginx when the test ends.
func startNginx(t *testing.T, site string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/nginx"); statErr != nil {
			testtools.Missing(t, "nginx", testtools.MakeTools, err)
		}
		bin = "/usr/sbin/nginx"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	conf := readTemplate(t)
	for placeholder, value := range map[string]string{"${listen}": addr, "${server_name}": "docs.example.com", "${root}": site} {
		if strings.Count(conf, placeholder) != 1 {
			t.Fatalf("%s must hold %s once", nginxTemplate, placeholder)
		}
		conf = strings.ReplaceAll(conf, placeholder, value)
	}
	if strings.Contains(conf, "${") || strings.Contains(conf, "%{") {
		t.Fatalf("%s holds a template sequence the test does not fill", nginxTemplate)
	}

	dir := t.TempDir()
	_ = os.Chmod(dir, 0o755)
	server := filepath.Join(dir, "docs.conf")
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // its workers would run as nobody, who cannot read the test's files
	}
	main := fmt.Sprintf(`%sdaemon off;
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events {
    worker_connections 64;
}
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[3]s;
}
`, user, dir, server)
	for name, content := range map[string]string{"docs.conf": conf, "nginx.conf": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", filepath.Join(dir, "nginx.conf")}
	if out, err := exec.Command(bin, append(args, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t refuses the documented configuration: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error // read once exited is closed
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT) // a graceful stop
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx error log:\n%s%s", log, stderr.String())
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
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx stopped: %v\n%s%s", waitErr, log, stderr.String())
		case <-ctx.Done():
			t.Fatal("nginx did not listen within 15s")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// crawler requests pages and follows their links and assets.
type crawler struct {
	t      *testing.T
	base   string
	site   string
	seen   map[string]bool // URL paths requested by the crawl
	served map[string]bool // files served
}

// reference finds the URLs an HTML page or a stylesheet refers to.
var reference = regexp.MustCompile(`(?:href|src)="([^"]+)"|url\(([^)]+)\)`)

// crawl requests p, then every page and asset it refers to, on this site or
// (canonical URLs) on the export's domain.
func (c *crawler) crawl(p string) {
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	file := c.fileFor(p)
	body := c.fetch(p, file)
	if !strings.HasSuffix(file, ".html") && !strings.HasSuffix(file, ".css") {
		return
	}
	from := &url.URL{Path: p}
	for _, m := range reference.FindAllSubmatch(body, -1) {
		ref := strings.Trim(string(m[1])+string(m[2]), `"'`)
		u, err := url.Parse(strings.ReplaceAll(ref, "&amp;", "&"))
		if err != nil {
			c.t.Errorf("%s refers to %q: %v", p, ref, err)
			continue
		}
		if u.Host != "" && u.Host != "docs.example.com" {
			continue
		}
		next := from.ResolveReference(u)
		next.RawQuery, next.Fragment = "", ""
		c.crawl(next.Path)
	}
}

// fileFor is the file of the export that answers URL path p: the file of
// that name, else the page of that name, else the folder's index page.
func (c *crawler) fileFor(p string) string {
	name := strings.TrimPrefix(p, "/")
	isFile := func(n string) bool {
		fi, err := os.Stat(filepath.Join(c.site, filepath.FromSlash(n)))
		return err == nil && fi.Mode().IsRegular()
	}
	switch {
	case name != "" && !strings.HasSuffix(name, "/") && isFile(name):
		return name
	case name != "" && !strings.HasSuffix(name, "/") && isFile(name+".html"):
		return name + ".html"
	}
	return strings.TrimPrefix(strings.TrimSuffix(name, "/")+"/index.html", "/")
}

func (c *crawler) get(p string) *http.Response {
	c.t.Helper()
	resp, err := http.Get(c.base + p)
	if err != nil {
		c.t.Fatalf("GET %s: %v", p, err)
	}
	return resp
}

// fetch requests URL path p, which file must answer: status 200, the file's
// bytes, its content type and its Cache-Control.
func (c *crawler) fetch(p, file string) []byte {
	c.t.Helper()
	resp := c.get(p)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("GET %s: %v", p, err)
	}
	if resp.StatusCode != http.StatusOK {
		c.t.Errorf("GET %s (%s): %s", p, file, resp.Status)
		return nil
	}
	want, err := os.ReadFile(filepath.Join(c.site, filepath.FromSlash(file)))
	if err != nil {
		c.t.Errorf("GET %s: the export has no %s: %v", p, file, err)
		return nil
	}
	if !bytes.Equal(body, want) {
		c.t.Errorf("GET %s: not the bytes of %s", p, file)
	}
	if got, want := resp.Header.Get("Content-Type"), contentType(file); got != want {
		c.t.Errorf("GET %s (%s): Content-Type %q, want %q", p, file, got, want)
	}
	if got, want := resp.Header.Get("Cache-Control"), cacheControl(file); got != want {
		c.t.Errorf("GET %s (%s): Cache-Control %q, want %q", p, file, got, want)
	}
	if c.served == nil {
		c.served = map[string]bool{}
	}
	c.served[file] = true
	return body
}
