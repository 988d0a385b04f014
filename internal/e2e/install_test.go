package e2e

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The provider as a user installs it: a snapshot release built by goreleaser
// (tools/mirror.sh), laid out as a filesystem mirror, installed by a plain
// terraform init through a filesystem_mirror CLI configuration, with a lock
// file that records the release's checksums, then applied against the mock.
// It runs on the acceptance CLI (make test: Terraform on PATH; make
// test-tofu: OpenTofu 1.12.6; make test-tf116: Terraform 1.16.4).

const installConfig = `terraform {
  required_providers {
    docsadmin = {
      source = "docsadmin/docsadmin"
    }
  }
}

provider "docsadmin" {}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}
`

func TestAccInstall_snapshotReleaseFromAFilesystemMirror(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs a snapshot release: slow; runs in make test")
	}
	acctest.RequireCLI(t)
	ctx := t.Context()
	runner, err := tfrunner.New(acctest.CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	inst, sums, err := runner.SnapshotMirror(ctx)
	if err != nil {
		t.Fatal(err)
	}
	version := inst.Version()
	t.Logf("goreleaser built snapshot %s in %s", version, time.Since(start).Round(time.Millisecond))
	if err := runner.Install(inst); err != nil {
		t.Fatal(err)
	}
	mirror := inst.MirrorDir()
	goos, goarch := runtime.GOOS, runtime.GOARCH

	// The mirror's layout is the one tfrunner.MirrorArchivePath describes,
	// and the quick build (BuildMirror, used by the demo) makes the same.
	wantFiles := make([]string, 0, len(tfrunner.Addresses))
	for _, addr := range tfrunner.Addresses {
		rel, _ := filepath.Rel(mirror, tfrunner.MirrorArchivePath(mirror, addr, version, goos, goarch))
		wantFiles = append(wantFiles, filepath.ToSlash(rel))
	}
	slices.Sort(wantFiles)
	if got := treeFiles(t, mirror); !slices.Equal(got, wantFiles) {
		t.Fatalf("tools/mirror.sh laid out %q; tfrunner.MirrorArchivePath says %q", got, wantFiles)
	}
	archive := tfrunner.MirrorArchivePath(mirror, tfrunner.Addresses[0], version, goos, goarch)
	quick, err := tfrunner.New(acctest.CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	quickInst, err := quick.BuildMirror(ctx, version)
	if err != nil {
		t.Fatal(err)
	}
	quickMirror := quickInst.MirrorDir()
	if got := treeFiles(t, quickMirror); !slices.Equal(got, wantFiles) {
		t.Errorf("BuildMirror laid out %q; goreleaser and tools/mirror.sh %q", got, wantFiles)
	}
	if got, want := zipEntries(t, tfrunner.MirrorArchivePath(quickMirror, tfrunner.Addresses[0], version, goos, goarch)), zipEntries(t, archive); !slices.Equal(got, want) {
		t.Errorf("BuildMirror's archive holds %q; goreleaser's %q", got, want)
	}

	// What the lock file must record: the zh: hashes of the release's
	// SHA256SUMS, which must be the archive's own, and the h1: hash of the
	// archive's contents.
	zh, err := tfrunner.LockChecksums(sums, version)
	if err != nil {
		t.Fatal(err)
	}
	archiveZH := "zh:" + fileSHA256(t, archive)
	if !slices.Contains(zh, archiveZH) {
		t.Fatalf("%s lists %q; the mirrored archive is %s", filepath.Base(sums), zh, archiveZH)
	}
	archiveH1, err := dirhash.HashZip(archive, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}

	host := tfrunner.Addresses[0]
	if acctest.RunningOpenTofu(t) {
		host = tfrunner.Addresses[1]
	}

	// A lock file whose checksums are not the archive's stops init: the
	// archive is verified against the zh: hashes written beforehand.
	tampered := t.TempDir()
	acctest.WriteFile(t, filepath.Join(tampered, "main.tf"), installConfig)
	acctest.WriteFile(t, filepath.Join(tampered, tfrunner.LockFileName), tfrunner.LockFile(host, version, []string{"zh:" + strings.Repeat("0", 64)}))
	out := &tfrunner.Transcript{}
	if err := runner.Init(ctx, tampered, out, out); err == nil {
		t.Errorf("init accepted an archive that does not match the lock file's checksum:\n%s", out)
	} else if said := acctest.FlattenWhitespace(out.String()); !strings.Contains(said, "match any of the checksums") {
		t.Errorf("init failed, but not on the checksum: %v\n%s", err, out)
	}

	// The user's way: the release's checksums in the lock file (Init writes
	// it from SHA256SUMS), then a plain init and apply.
	var uaMu sync.Mutex
	userAgents := map[string]bool{}
	mock := mockapi.NewHandler(mockapi.Config{ExportDuration: 600 * time.Millisecond, LinkTTL: 24 * time.Hour})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// API calls only: archive downloads go to object storage, which the
		// mock also plays, with Go's own User-Agent.
		if strings.HasPrefix(r.URL.Path, "/v1/") || strings.HasPrefix(r.URL.Path, "/v2/") {
			uaMu.Lock()
			userAgents[r.UserAgent()] = true
			uaMu.Unlock()
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	mock.SetURL(srv.URL)

	work := t.TempDir()
	acctest.WriteFile(t, filepath.Join(work, "main.tf"), installConfig)
	if !slices.Equal(inst.Hashes(), zh) {
		t.Errorf("the installation's checksums are %q, SHA256SUMS says %q", inst.Hashes(), zh)
	}
	out = &tfrunner.Transcript{}
	if err := runner.Init(ctx, work, out, out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	said := acctest.FlattenWhitespace(out.String())
	if !strings.Contains(said, "Installing docsadmin/docsadmin v"+version) {
		t.Errorf("init did not install %s from the mirror:\n%s", version, out)
	}
	for _, unwanted := range []string{"development overrides", "Incomplete lock file information", "Warning"} {
		if strings.Contains(said, unwanted) {
			t.Errorf("init says %q:\n%s", unwanted, out)
		}
	}
	lock, err := os.ReadFile(filepath.Join(work, tfrunner.LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	gotVersion, hashes := lockedProvider(t, string(lock), host)
	if gotVersion != version {
		t.Errorf("the lock file records version %q, want %q", gotVersion, version)
	}
	for _, want := range append([]string{archiveH1}, zh...) {
		if !slices.Contains(hashes, want) {
			t.Errorf("the lock file does not record %s; it records %q", want, hashes)
		}
	}
	if len(hashes) != len(zh)+1 {
		t.Errorf("the lock file records %q; want the release's zh: hashes and one h1:", hashes)
	}
	if n := strings.Count(string(lock), "provider \""); n != 1 {
		t.Errorf("the lock file has %d provider entries, want only %s's:\n%s", n, host, lock)
	}
	plugin := filepath.Join(work, ".terraform", "providers", filepath.FromSlash(host), version, goos+"_"+goarch, tfrunner.BinaryName(version, goos))
	if got, want := fileSHA256(t, plugin), zipEntrySHA256(t, archive, tfrunner.BinaryName(version, goos)); got != want {
		t.Errorf("the installed %s is not the archive's executable", plugin)
	}

	tf, err := runner.Workdir(work, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	out = tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	state, err := tf.Show(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if state.Values == nil || len(state.Values.RootModule.Resources) != 1 || state.Values.RootModule.Resources[0].AttributeValues["status"] != "completed" {
		t.Errorf("the export did not reach completed; state: %+v", state.Values)
	}
	wantUA := "terraform-provider-docsadmin/" + version + " "
	uaMu.Lock()
	defer uaMu.Unlock()
	var seen []string
	for ua := range userAgents {
		seen = append(seen, ua)
	}
	if len(seen) == 0 || slices.ContainsFunc(seen, func(ua string) bool { return !strings.HasPrefix(ua, wantUA) }) {
		t.Errorf("the mock saw User-Agents %q; want only the snapshot's (%s...)", seen, wantUA)
	}
	t.Logf("installed %s from %s into %s; the mock saw %q", version, tfrunner.MirrorArchivePath(mirror, host, version, goos, goarch), plugin, seen)
}

// treeFiles lists the regular files below root, slash-separated and sorted.
func treeFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// zipEntries lists an archive's entries with their modes.
func zipEntries(t *testing.T, path string) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var entries []string
	for _, f := range zr.File {
		entries = append(entries, fmt.Sprintf("%s %v", f.Name, f.Mode()))
	}
	return entries
}

func zipEntrySHA256(t *testing.T, path, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	b, err := fs.ReadFile(zr, name)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var (
	lockVersion = regexp.MustCompile(`(?m)^\s*version\s*=\s*"([^"]*)"`)
	lockHash    = regexp.MustCompile(`"((?:h1|zh):[^"]+)"`)
)

// lockedProvider reads the version and hashes a lock file records for addr.
func lockedProvider(t *testing.T, lock, addr string) (version string, hashes []string) {
	t.Helper()
	_, block, ok := strings.Cut(lock, fmt.Sprintf("provider %q {", addr))
	if !ok {
		t.Fatalf("the lock file has no block for %s:\n%s", addr, lock)
	}
	block, _, _ = strings.Cut(block, "\n}")
	if m := lockVersion.FindStringSubmatch(block); m != nil {
		version = m[1]
	}
	for _, m := range lockHash.FindAllStringSubmatch(block, -1) {
		hashes = append(hashes, m[1])
	}
	return version, hashes
}
