package sitetest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

const (
	switchDomain = "docs.example.com"
	// switchEditedPage is the page a "changed" export edits: with the
	// mock's StablePages, its HTML file is the only file that differs.
	switchEditedPage = "guides/getting-started"
	// switchExportDuration keeps every export short but long enough for
	// the servers to be read while Terraform waits.
	switchExportDuration = 1500 * time.Millisecond
	switchSite           = "docsadmin_static_site.docs"
	switchExport         = "docsadmin_static_export.docs"
	// userFileName is a file of the user's beside the site, which nothing
	// the provider does may touch.
	userFileName = "NOTES.txt"
	userFileText = "the operator's own notes, beside the published site\n"
)

// switchStep is one re-apply with a new commit, and so a new export: of
// the same site (identical archive) or with the edited page changed.
type switchStep struct {
	name string
	edit bool
}

var switchSteps = []switchStep{
	{"identical", false},
	{"changed", true},
	{"identical", false},
	{"changed", true},
}

// TestSiteSwitchNeverTakesTheSiteDown publishes an export with
// docsadmin_static_site through the real Terraform, serves its directory,
// the provider's symbolic link, with Go's file server and with nginx and
// the documented server block, and reads every page and asset from both,
// and every file through the link directly, without pause while Terraform
// publishes new exports over it: exports of an identical archive and of an
// edited page, with and without create_before_destroy on the site. Not one
// request may fail: every switch is one rename of the link, and the release
// it replaces stays for requests in flight. After each apply the servers serve the new export at
// once, the site is updated in place, the store holds at most two
// releases, and a destroy removes the link and the store and nothing else.
func TestSiteSwitchNeverTakesTheSiteDown(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes exports through Terraform under load, end to end: slow; runs in make test")
	}
	runner := switchRunner(t)
	for _, c := range []struct {
		name string
		cbd  bool
	}{
		{"in_place", false},
		{"create_before_destroy", true},
	} {
		t.Run(c.name, func(t *testing.T) { runSwitchCase(t, runner, c.cbd) })
	}
}

// switchRunner builds the provider and installs it through dev_overrides
// for the terraform on PATH, or TF_ACC_TERRAFORM_PATH when set.
func switchRunner(t *testing.T) *tfrunner.Runner {
	t.Helper()
	terraform := cmp.Or(os.Getenv("TF_ACC_TERRAFORM_PATH"), "terraform")
	runner, err := tfrunner.New(terraform, t.TempDir())
	if err != nil {
		t.Fatalf("%v\n\n%s", err, tfrunner.InstallHelp)
	}
	start := time.Now()
	inst, err := runner.BuildProvider(t.Context(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Install(inst); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the provider in %s for %s", time.Since(start).Round(time.Millisecond), runner.Path())
	return runner
}

func switchConfig(directory string, cbd bool) string {
	lifecycle := ""
	if cbd {
		lifecycle = "\n  lifecycle {\n    create_before_destroy = true\n  }\n"
	}
	return fmt.Sprintf(`terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}

# DOCSADMIN_BASE_URL and DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

variable "commit" {
  type = string
}

resource "docsadmin_static_export" "docs" {
  domain   = %[1]q
  triggers = { commit = var.commit }
}

resource "docsadmin_static_site" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
  directory       = %[2]q
%[3]s}

output "id" {
  value = docsadmin_static_site.docs.id
}

output "job_id" {
  value = docsadmin_static_site.docs.job_id
}

output "archive_sha256" {
  value = docsadmin_static_site.docs.archive_sha256
}

output "release_directory" {
  value = docsadmin_static_site.docs.release_directory
}

output "manifest_file" {
  value = docsadmin_static_site.docs.manifest_file
}
`, switchDomain, directory, lifecycle)
}

// switchOutputs are the configuration's outputs.
type switchOutputs struct {
	ID               string            `json:"id"`
	JobID            string            `json:"job_id"`
	ArchiveSHA256    string            `json:"archive_sha256"`
	ReleaseDirectory string            `json:"release_directory"`
	ManifestFile     string            `json:"manifest_file"`
	Files            []string          `json:"-"` // from manifest_file
	Routes           map[string]string `json:"-"` // of those files
}

// readManifestFile fills out's files and routes from the manifest the site
// wrote beside its release.
func readManifestFile(t *testing.T, out *switchOutputs) {
	t.Helper()
	data, err := os.ReadFile(out.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	var files map[string]json.RawMessage
	if err := json.Unmarshal(data, &files); err != nil {
		t.Fatal(err)
	}
	out.Files = slices.Sorted(maps.Keys(files))
	manifest := site.NewManifest()
	for _, f := range out.Files {
		if err := manifest.Add(f, 0, [32]byte{}, [16]byte{}); err != nil {
			t.Fatal(err)
		}
	}
	out.Routes = manifest.Routes()
}

func runSwitchCase(t *testing.T, runner *tfrunner.Runner, cbd bool) {
	ctx := t.Context()
	mock := mockapi.NewServer(mockapi.Config{ExportDuration: switchExportDuration, StablePages: true})
	t.Cleanup(mock.Close)

	www := t.TempDir()
	// nginx's workers may run as another user: let them reach the site.
	for d := www; d != "/" && d != "." && d != os.TempDir(); d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	userFile := filepath.Join(www, userFileName)
	if err := os.WriteFile(userFile, []byte(userFileText), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(www, "site")
	store := filepath.Join(www, ".site.docsadmin")

	work := t.TempDir()
	tf, err := runner.Module(work, map[string][]byte{"main.tf": []byte(switchConfig(dir, cbd))},
		map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	transcript := tfrunner.Record(tf)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Terraform's output:\n%s", transcript)
		}
	})

	applies := 0
	// apply plans commit, checks what the plan does to the site and the
	// export, applies that plan and returns the outputs.
	apply := func(commit string, first bool) (switchOutputs, time.Duration) {
		t.Helper()
		start := time.Now()
		planFile := filepath.Join(work, "switch.tfplan")
		if _, err := tf.Plan(ctx, tfexec.Out(planFile), tfexec.Var("commit="+commit)); err != nil {
			t.Fatalf("plan for commit %s: %v", commit, err)
		}
		plan, err := tf.ShowPlanFile(ctx, planFile)
		if err != nil {
			t.Fatal(err)
		}
		checkSwitchPlan(t, plan, first)
		if err := tf.Apply(ctx, tfexec.DirOrPlan(planFile)); err != nil {
			t.Fatalf("apply for commit %s: %v", commit, err)
		}
		applies++
		var out switchOutputs
		if _, err := tfrunner.Outputs(ctx, tf, &out); err != nil {
			t.Fatal(err)
		}
		readManifestFile(t, &out)
		return out, time.Since(start)
	}

	// The first publication, before anything serves the directory.
	first, took := apply("c0", true)
	t.Logf("published export %s (%d files) at %s in %s", first.JobID, len(first.Files), dir, took.Round(time.Millisecond))
	checkSwitchDisk(t, dir, store, first, "")
	if len(first.Files) == 0 || len(first.Routes) == 0 {
		t.Fatalf("the site's manifest lists %d files and %d routes", len(first.Files), len(first.Routes))
	}

	// Go's file server opens each request's path from the top, through
	// the link; nginx with the documented server block does too (no
	// open_file_cache). A third reader opens the files through the link
	// itself, ten times as often as HTTP allows, so that even a moment
	// without a site is seen: a switch that removes the link and makes it
	// again, rather than renaming a new one over it, is caught.
	goServer := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(goServer.Close)
	nginxBase := startNginx(t, dir)
	probers := []*prober{
		newProber("Go's file server", goServer.URL, goServerPaths(first)),
		newProber("nginx", nginxBase, nginxPaths(first)),
	}
	probers = append(probers, newFileProber(dir, first))
	for _, p := range probers {
		p.checkPage(t, switchEditedPage, first.ReleaseDirectory, 0)
	}

	crawlCtx, stopCrawling := context.WithCancel(ctx)
	var crawling sync.WaitGroup
	for _, p := range probers {
		crawling.Go(func() { p.run(crawlCtx) })
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stopCrawling()
			crawling.Wait()
		}
	}
	defer stop()

	revision, prev := 0, first
	var applyTimes []time.Duration
	for i, step := range switchSteps {
		if step.edit {
			revision = mock.EditPage(switchDomain, switchEditedPage)
		}
		before := make([]int64, len(probers))
		for j, p := range probers {
			before[j] = p.requests.Load()
		}
		prevTarget, err := os.Readlink(dir)
		if err != nil {
			t.Fatal(err)
		}
		out, took := apply(fmt.Sprintf("c%d", i+1), false)
		applyTimes = append(applyTimes, took)

		during := make([]string, len(probers))
		for j, p := range probers {
			n := p.requests.Load() - before[j]
			during[j] = fmt.Sprintf("%s %d", p.name, n)
			if n == 0 {
				t.Errorf("%s answered no request while the export of step %d (%s) was published: the switch was not watched", p.name, i+1, step.name)
			}
		}
		t.Logf("step %d (%s): export %s published in %s; requests meanwhile: %s", i+1, step.name, out.JobID,
			took.Round(time.Millisecond), strings.Join(during, ", "))

		switch {
		case out.ID != prev.ID:
			t.Errorf("step %d: the site's id changed from %s to %s", i+1, prev.ID, out.ID)
		case out.JobID == prev.JobID:
			t.Errorf("step %d: a new commit published the same export %s", i+1, out.JobID)
		case step.edit && out.ArchiveSHA256 == prev.ArchiveSHA256:
			t.Errorf("step %d: an edited page left the archive as it was (%s)", i+1, out.ArchiveSHA256)
		case !step.edit && out.ArchiveSHA256 != prev.ArchiveSHA256:
			t.Errorf("step %d: an export of the same site has another archive (%s, then %s): the mock's pages are not stable", i+1,
				prev.ArchiveSHA256, out.ArchiveSHA256)
		}
		checkSwitchDisk(t, dir, store, out, filepath.Base(prevTarget))
		for _, p := range probers {
			p.checkPage(t, switchEditedPage, out.ReleaseDirectory, revision)
		}
		prev = out
	}
	stop()

	if n := mock.ExportsStarted(switchDomain); n != applies {
		t.Errorf("%d applies started %d exports, want one each", applies, n)
	}
	for _, p := range probers {
		p.report(t)
	}
	t.Logf("%d applies; the re-applies took %v", applies, roundAll(applyTimes))

	if err := tf.Destroy(ctx, tfexec.Var("commit="+fmt.Sprintf("c%d", len(switchSteps)))); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	for _, p := range []string{dir, store} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after destroy, %s is still there (%v)", p, err)
		}
	}
	entries, err := os.ReadDir(www)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{userFileName}) {
		t.Errorf("after destroy, %s holds %v, want the user's %s alone", www, names, userFileName)
	}
	if b, err := os.ReadFile(userFile); err != nil || string(b) != userFileText {
		t.Errorf("the user's file beside the site: %q, %v; want it untouched", b, err)
	}
}

// checkSwitchPlan requires the plan to publish the site: created at first,
// then updated in place for every new export, never replaced.
func checkSwitchPlan(t *testing.T, plan *tfjson.Plan, first bool) {
	t.Helper()
	found := map[string]tfjson.Actions{}
	for _, rc := range plan.ResourceChanges {
		if rc.Change != nil {
			found[rc.Address] = rc.Change.Actions
		}
	}
	site, export := found[switchSite], found[switchExport]
	switch {
	case first && (!site.Create() || !export.Create()):
		t.Fatalf("the first plan: %s %v, %s %v; want both created", switchSite, site, switchExport, export)
	case !first && !site.Update():
		t.Fatalf("a new commit plans %v for %s, want an update in place (one switch of the link)", site, switchSite)
	case !first && !export.Update():
		t.Fatalf("a new commit plans %v for %s, want a new export, in place", export, switchExport)
	}
}

// checkSwitchDisk checks the site on disk after an apply: dir is a link to
// the release the state names, the store holds it and at most one other
// release, previous (the release dir pointed to before, kept for requests
// in flight), and nothing else but its marker.
func checkSwitchDisk(t *testing.T, dir, store string, out switchOutputs, previous string) {
	t.Helper()
	info, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is %v, want a symbolic link", dir, info.Mode())
	}
	target, err := os.Readlink(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Join(filepath.Dir(dir), target); got != out.ReleaseDirectory {
		t.Errorf("%s links to %s, but release_directory is %s", dir, got, out.ReleaseDirectory)
	}
	releases, err := os.ReadDir(filepath.Join(store, "releases"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range releases {
		names = append(names, r.Name())
	}
	current := filepath.Base(out.ReleaseDirectory)
	switch {
	case len(names) > 2:
		t.Errorf("the store holds %d releases %v, want at most 2", len(names), names)
	case !slices.Contains(names, current):
		t.Errorf("the store's releases %v lack the current one, %s", names, current)
	case previous != "" && previous == current:
		t.Errorf("a new export was published into the release it replaces, %s", current)
	case previous != "" && !slices.Contains(names, previous):
		t.Errorf("the store's releases %v lack the previous one, %s, which requests in flight may still read", names, previous)
	}
	entries, err := os.ReadDir(store)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains([]string{"releases", "manifests", "site.json", "lock"}, e.Name()) {
			t.Errorf("the store %s holds %s after the apply, besides its releases, their records, site.json and lock", store, e.Name())
		}
	}
	checkWorldReadable(t, store, out.ReleaseDirectory)
}

// checkWorldReadable requires the store's directories on the way to the
// release, and every directory and file of the release, to be readable by
// any user: nginx's workers run as another user than Terraform (www-data),
// which the test's nginx, run as the test's user, would not notice.
func checkWorldReadable(t *testing.T, store, release string) {
	t.Helper()
	for _, d := range []string{store, filepath.Dir(release)} {
		info, err := os.Stat(d)
		switch {
		case err != nil:
			t.Error(err)
		case info.Mode().Perm()&0o005 != 0o005:
			t.Errorf("%s is %v; want a directory any user may list and enter", d, info.Mode())
		}
	}
	err := filepath.WalkDir(release, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o004)
		if d.IsDir() {
			want = 0o005
		}
		if info.Mode().Perm()&want != want {
			t.Errorf("%s is %v: another user (nginx's workers) cannot read it", p, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// goServerPaths are the URL paths at which Go's file server answers 200
// with the manifest's files: each file by its name, but an index page by
// its folder (it redirects .../index.html to .../).
func goServerPaths(out switchOutputs) []probePath {
	var paths []probePath
	for _, f := range out.Files {
		p := "/" + f
		if f == "index.html" || strings.HasSuffix(f, "/index.html") {
			p = strings.TrimSuffix(p, "index.html")
		}
		paths = append(paths, probePath{p, strings.HasSuffix(f, ".html")})
	}
	slices.SortFunc(paths, func(a, b probePath) int { return strings.Compare(a.url, b.url) })
	return paths
}

// nginxPaths are the URL paths the documented server block answers with
// 200: each file by its name and each page by its extensionless route, a
// folder's page with its slash (try_files' $uri/ answers /guides with a
// redirect to /guides/).
func nginxPaths(out switchOutputs) []probePath {
	var paths []probePath
	for _, f := range out.Files {
		paths = append(paths, probePath{"/" + f, strings.HasSuffix(f, ".html")})
	}
	for route, file := range out.Routes {
		p := "/" + route
		if route != "" && strings.HasSuffix(file, "/index.html") {
			p += "/"
		}
		paths = append(paths, probePath{p, true})
	}
	slices.SortFunc(paths, func(a, b probePath) int { return strings.Compare(a.url, b.url) })
	return slices.CompactFunc(paths, func(a, b probePath) bool { return a.url == b.url })
}

// probePath is a URL path to request, and whether it answers a page.
type probePath struct {
	url  string
	page bool
}

// prober requests a server's paths one after the other, without pause, and
// counts every answer that is not a complete 200. Without a server (base
// ""), it reads the files under dir itself, as a server's open(2) does,
// which sees a moment without a site that requests might fall beside.
type prober struct {
	name     string
	base     string
	dir      string
	paths    []probePath
	client   *http.Client
	start    time.Time
	requests atomic.Int64
	failures atomic.Int64

	mu     sync.Mutex
	failed []string // the first few failures, described
}

func newProber(name, base string, paths []probePath) *prober {
	return &prober{
		name:  name,
		base:  base,
		paths: paths,
		client: &http.Client{
			Transport: &http.Transport{MaxIdleConnsPerHost: 2, DisableCompression: true},
			// A redirect is an answer that is not the file: a failure.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Timeout:       10 * time.Second,
		},
		start: time.Now(),
	}
}

// run requests every path in turn until ctx ends.
func (p *prober) run(ctx context.Context) {
	defer p.client.CloseIdleConnections()
	for {
		for _, path := range p.paths {
			if ctx.Err() != nil {
				return
			}
			p.probe(ctx, path)
		}
	}
}

// newFileProber reads the files under dir, the link, directly.
func newFileProber(dir string, out switchOutputs) *prober {
	p := newProber("the link itself", "", nil)
	p.dir = dir
	for _, f := range out.Files {
		p.paths = append(p.paths, probePath{"/" + f, strings.HasSuffix(f, ".html")})
	}
	return p
}

func (p *prober) probe(ctx context.Context, path probePath) {
	if p.base == "" {
		body, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(path.url)))
		p.requests.Add(1)
		if err != nil {
			p.fail(path.url, err.Error())
			return
		}
		p.check(path, body)
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path.url, nil)
	if err != nil {
		p.fail(path.url, err.Error())
		return
	}
	resp, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			p.requests.Add(1)
			p.fail(path.url, err.Error())
		}
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ctx.Err() != nil {
		return // stopped meanwhile: not counted
	}
	p.requests.Add(1)
	switch {
	case err != nil:
		p.fail(path.url, fmt.Sprintf("%s, then reading the body: %v", resp.Status, err))
	case resp.StatusCode != http.StatusOK:
		p.fail(path.url, resp.Status)
	default:
		p.check(path, body)
	}
}

// check fails a body that is empty, or a page's that is cut short.
func (p *prober) check(path probePath, body []byte) {
	switch {
	case len(body) == 0:
		p.fail(path.url, "an empty body")
	case path.page && !bytes.HasSuffix(body, []byte("</html>\n")):
		p.fail(path.url, fmt.Sprintf("a page of %d bytes cut short", len(body)))
	}
}

func (p *prober) fail(url, what string) {
	p.failures.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.failed) < 10 {
		p.failed = append(p.failed, fmt.Sprintf("%s: GET %s: %s", time.Since(p.start).Round(time.Millisecond), url, what))
	}
}

// report logs the figures and fails the test on any failed request.
func (p *prober) report(t *testing.T) {
	t.Helper()
	n, failed, took := p.requests.Load(), p.failures.Load(), time.Since(p.start)
	t.Logf("%s: %d requests in %s (%.0f/s) over %d paths, %d failed", p.name, n, took.Round(time.Millisecond),
		float64(n)/took.Seconds(), len(p.paths), failed)
	if failed > 0 {
		p.mu.Lock()
		defer p.mu.Unlock()
		t.Errorf("%s: %d of %d requests failed while exports were published; the first:\n%s", p.name, failed, n, strings.Join(p.failed, "\n"))
	}
}

// checkPage requires the server to answer the page with the bytes it has
// in release, the export just published, and with the edited text of
// revision (when not 0).
func (p *prober) checkPage(t *testing.T, page, release string, revision int) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(release, filepath.FromSlash(page)+".html"))
	if err != nil {
		t.Fatal(err)
	}
	if revision > 0 && !bytes.Contains(want, fmt.Appendf(nil, "Revision %d.", revision)) {
		t.Errorf("the published %s.html lacks its revision %d", page, revision)
	}
	if p.base == "" {
		got, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(page)+".html"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %s.html after the apply is not the export just published (revision %d): %v", p.name, page, revision, err)
		}
		return
	}
	resp, err := p.client.Get(p.base + "/" + page + ".html")
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		t.Errorf("%s: GET /%s.html: %v", p.name, page, err)
	case resp.StatusCode != http.StatusOK:
		t.Errorf("%s: GET /%s.html: %s", p.name, page, resp.Status)
	case !bytes.Equal(got, want):
		t.Errorf("%s: GET /%s.html after the apply does not answer the export just published (revision %d)", p.name, page, revision)
	}
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Millisecond)
	}
	return out
}
