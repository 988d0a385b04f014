package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
	"github.com/hashicorp/terraform-exec/tfexec"
)

// unpackResult is what the -child-unpack process reports.
type unpackResult struct {
	Summary   archive.Summary
	Files     int
	Routes    int
	Seconds   float64
	GoSys     uint64
	PeakRSS   int64
	Manifests int64 // bytes of the manifest's paths and digests held
}

// childUnpack downloads, verifies and unpacks the archive at -url into -dir
// with archive.FetchUnpack, building the site's manifest as the provider
// does, and prints an unpackResult as JSON.
func childUnpack(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verifybench -child-unpack", flag.ContinueOnError)
	link := fs.String("url", "", "link to the archive")
	want := fs.String("sha256", "", "expected digest")
	dir := fs.String("dir", "", "directory to unpack into")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil}} // loopback, never a proxy
	manifest := site.NewManifest()
	start := time.Now()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	root, err := os.OpenRoot(*dir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer root.Close()
	sum, err := archive.Limits{}.FetchUnpack(context.Background(), client, *link, root, archive.UnpackOptions{
		File: func(f archive.File) error {
			return manifest.Add(f.Name, f.Size, f.SHA256, f.MD5)
		},
		Accept: func(s archive.Summary) error { return archive.CheckSHA256(s, *want) },
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	elapsed := time.Since(start).Seconds()
	routes := len(manifest.Routes())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res := unpackResult{Summary: sum, Files: manifest.Len(), Routes: routes, Seconds: elapsed, GoSys: ms.Sys, PeakRSS: selfPeakRSS()}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// runUnpack compares archive.FetchUnpack, in a child process, with
// `curl | tar -xz` on the same generated site served over loopback, then
// with -provider measures the manifest data source's second stage on it,
// and one docsadmin_static_site of each size of -files (runSiteSizes).
func runUnpack(ctx context.Context, o options, out io.Writer) (bool, error) {
	tmp, err := os.MkdirTemp("", "unpackbench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	bundle := filepath.Join(tmp, "bundle.tar.gz")
	f, err := os.Create(bundle)
	if err != nil {
		return false, err
	}
	h := sha256.New()
	start := time.Now()
	err = sitegen.Archive{Site: sitegen.Site{PageCount: o.pages}}.Write(io.MultiWriter(f, h))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	info, err := os.Stat(bundle)
	if err != nil {
		return false, err
	}
	digest := hex.EncodeToString(h.Sum(nil))
	fmt.Fprintf(out, "unpackbench: a generated site of %d pages, %d files (sitegen), %s compressed, generated in %s\n\n",
		o.pages, sitegen.FileCount(o.pages), mib(info.Size()), time.Since(start).Round(time.Millisecond))

	var served servedBytes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = served.count(w)
		if r.URL.Query().Get("X-Amz-Signature") != signature {
			http.Error(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/gzip")
		http.ServeFile(w, r, bundle)
	}))
	defer srv.Close()
	link := srv.URL + "/bucket/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=" + signature

	// Ours, in a child process so that its peak RSS is its own.
	exe, err := os.Executable()
	if err != nil {
		return false, err
	}
	ours := filepath.Join(tmp, "ours", "site")
	cmd := exec.CommandContext(ctx, exe, "-child-unpack", "-url", link, "-sha256", digest, "-dir", ours)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start = time.Now()
	if err := cmd.Run(); err != nil {
		return false, fmt.Errorf("the child failed: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	oursWall := time.Since(start)
	var res unpackResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return false, fmt.Errorf("the child's report: %w", err)
	}
	oursRSS := res.PeakRSS
	if oursRSS == 0 {
		oursRSS, _ = peakRSS(cmd.ProcessState)
	}
	oursCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()

	// curl | tar -xz, the shell's way, on the same link.
	theirs := filepath.Join(tmp, "theirs")
	if err := os.MkdirAll(theirs, 0o755); err != nil {
		return false, err
	}
	shell := exec.CommandContext(ctx, "sh", "-c", `curl -sSf --noproxy '*' "$LINK" | tar -xzf - -C "$DIR"`)
	shell.Env = append(os.Environ(), "LINK="+link, "DIR="+theirs)
	shell.Stderr = &stderr
	start = time.Now()
	if err := shell.Run(); err != nil {
		return false, fmt.Errorf("curl | tar: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	shellWall := time.Since(start)
	shellRSS, _ := peakRSS(shell.ProcessState) // the largest process of the pipeline
	shellCPU := shell.ProcessState.UserTime() + shell.ProcessState.SystemTime()

	same, err := sameTrees(ours, theirs)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(out, "FetchUnpack: %d files (%d routes), %s unpacked, digest matches; the tree is byte for byte the one tar unpacked: %v\n\n",
		res.Files, res.Routes, mib(res.Summary.UnpackedBytes), same)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tarchive.FetchUnpack (verify, digest, unpack, swap)\tcurl | tar -xz")
	fmt.Fprintln(tw, "-------\t-----\t-----")
	fmt.Fprintf(tw, "wall time\t%s\t%s\n", oursWall.Round(time.Millisecond), shellWall.Round(time.Millisecond))
	fmt.Fprintf(tw, "CPU time (user + system)\t%s\t%s\n", oursCPU.Round(time.Millisecond), shellCPU.Round(time.Millisecond))
	fmt.Fprintf(tw, "throughput, unpacked bytes\t%.1f MiB/s\t%.1f MiB/s\n",
		float64(res.Summary.UnpackedBytes)/(1<<20)/oursWall.Seconds(), float64(res.Summary.UnpackedBytes)/(1<<20)/shellWall.Seconds())
	fmt.Fprintf(tw, "files per second\t%.0f\t%.0f\n", float64(res.Files)/oursWall.Seconds(), float64(res.Files)/shellWall.Seconds())
	fmt.Fprintf(tw, "peak RSS\t%s\t%s (largest process of the pipeline)\n", mib(oursRSS), mib(shellRSS))
	fmt.Fprintf(tw, "Go runtime memory (MemStats.Sys)\t%s\t\n", mib(int64(res.GoSys)))
	if err := tw.Flush(); err != nil {
		return false, err
	}
	fmt.Fprintf(out, "\n(wall-clock figures depend on what else the machine runs; %d CPUs, load average %s)\n", runtime.NumCPU(), loadAverage())
	if !same {
		return false, fmt.Errorf("the trees differ")
	}
	if !o.provider {
		return true, nil
	}
	stages, err := runManifestStages(ctx, o.pages, res.Files, link, &served, out)
	if err != nil {
		return false, err
	}
	sites, err := runSiteSizes(ctx, o.files, out)
	return stages && sites, err
}

// sameTrees reports whether two directories hold the same regular files
// with the same bytes.
func sameTrees(a, b string) (bool, error) {
	files := func(dir string) (map[string]string, error) {
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			body, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(body)
			return err
		})
		return out, err
	}
	fa, err := files(a)
	if err != nil {
		return false, err
	}
	fb, err := files(b)
	if err != nil {
		return false, err
	}
	if len(fa) != len(fb) {
		return false, nil
	}
	for k, v := range fa {
		if fb[k] != v {
			return false, nil
		}
	}
	return true, nil
}

// servedBytes counts the archive downloads and their bytes.
type servedBytes struct{ requests, bytes atomic.Int64 }

func (s *servedBytes) count(w http.ResponseWriter) http.ResponseWriter {
	s.requests.Add(1)
	return &countingWriter{ResponseWriter: w, n: &s.bytes}
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// runManifestStages measures what a second stage (a configuration that
// plans uploads from docsadmin_static_site_manifest) requests and downloads:
// its first plan of an export downloads once, and an unchanged plan, with a
// read-scoped key, reads the manifest from the cache.
func runManifestStages(ctx context.Context, pages, files int, link string, served *servedBytes, out io.Writer) (bool, error) {
	fmt.Fprintf(out, "\nprovider: docsadmin_static_site_manifest of that site in a second stage\n")
	const jobID = "se_0123456789abcdef"
	var linkRequests atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.Header.Get("Authorization") == "Bearer "+benchReadKey:
			http.Error(w, `{"error":"this key has the read scope only"}`, http.StatusForbidden)
		case r.Method == http.MethodGet && r.URL.Path == "/v1/static-export/jobs/"+jobID:
			fmt.Fprintf(w, `{"jobId":%q,"status":"completed","progress":100,"pageCount":%d}`, jobID, pages)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/static-export/jobs/"+jobID+"/bundle":
			linkRequests.Add(1)
			fmt.Fprintf(w, `{"jobId":%q,"bundleUrl":%q,"expiresAt":%q}`, jobID, link, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
		default:
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		}
	}))
	defer api.Close()
	tmp, err := os.MkdirTemp("", "unpackbench-tf-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	runner, _, err := tfrunner.Setup(ctx, "terraform", tmp, "bench")
	if err != nil {
		return false, err
	}
	stage2, err := runner.Module(filepath.Join(tmp, "stage2"), map[string][]byte{"main.tf": []byte(fmt.Sprintf(`
terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}
data "docsadmin_static_site_manifest" "site" {
  job_id          = %q
  cache_directory = "${path.module}/manifests"
  max_files       = %d
}
output "files" {
  value = length(data.docsadmin_static_site_manifest.site.files)
}
`, jobID, files))}, map[string]string{"DOCSADMIN_BASE_URL": api.URL, "DOCSADMIN_API_KEY": benchWriteKey})
	if err != nil {
		return false, err
	}
	stage2Read, err := runner.Workdir(filepath.Join(tmp, "stage2"), map[string]string{"DOCSADMIN_BASE_URL": api.URL, "DOCSADMIN_API_KEY": benchReadKey})
	if err != nil {
		return false, err
	}
	pass := true
	for i, plan := range []struct {
		what string
		tf   *tfexec.Terraform
	}{
		{"first plan of the second stage (downloads once, write key)", stage2},
		{"unchanged plan of the second stage (read-only key)", stage2Read},
	} {
		links, downloads, bytes := linkRequests.Load(), served.requests.Load(), served.bytes.Load()
		wall, peak, err := watchingRSS(ctx, func() error { _, err := plan.tf.Plan(ctx); return err })
		if err != nil {
			return false, fmt.Errorf("terraform plan of the second stage: %w", err)
		}
		fmt.Fprintf(out, "%s: %s, provider peak RSS %s, link requests %d, downloads %d, bytes downloaded %d\n", plan.what,
			wall.Round(time.Millisecond), mib(peak), linkRequests.Load()-links, served.requests.Load()-downloads, served.bytes.Load()-bytes)
		if i == 1 && served.bytes.Load() != bytes {
			pass = false // a miss of the cache
		}
	}
	return pass, nil
}
