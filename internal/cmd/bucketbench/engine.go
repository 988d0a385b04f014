package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// fetched is an export's site unpacked in this process, as the resource
// unpacks it.
type fetched struct {
	job   exportJob
	dir   string
	files map[string]site.File
	took  time.Duration
}

// fetchSite asks the mock for a link to the job's archive, then downloads,
// verifies and unpacks it into dir, building its manifest.
func fetchSite(ctx context.Context, mock *mockapi.Server, job exportJob, dir string) (fetched, error) {
	f := fetched{job: job, dir: dir}
	start := time.Now()
	link, err := bundleLink(ctx, mock, job.ID)
	if err != nil {
		return f, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return f, err
	}
	defer root.Close()
	manifest := site.NewManifest()
	_, err = archive.Limits{}.FetchUnpack(ctx, nil, link, root, archive.UnpackOptions{
		File:   func(file archive.File) error { return manifest.Add(file.Name, file.Size, file.SHA256, file.MD5) },
		Dir:    manifest.AddDir,
		Accept: func(sum archive.Summary) error { return archive.CheckSHA256(sum, job.SHA256) },
	})
	if err != nil {
		return f, fmt.Errorf("unpacking export job %s: %w", job.ID, err)
	}
	manifest.Complete()
	f.files, f.took = manifest.Files(), time.Since(start)
	return f, nil
}

// bundleLink asks the mock for a link to the job's archive, as any client
// would.
func bundleLink(ctx context.Context, mock *mockapi.Server, jobID string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mock.URL+"/v1/static-export/jobs/"+jobID+"/bundle", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+mock.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	var link struct {
		BundleURL string `json:"bundleUrl"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &link) != nil || link.BundleURL == "" {
		return "", fmt.Errorf("the mock's link to export job %s: %s: %s", jobID, resp.Status, body)
	}
	return link.BundleURL, nil
}

// published is one measured Store.Publish.
type published struct {
	took   time.Duration
	result objectstore.Result
}

// engineConcurrency is the resource's default concurrency.
const engineConcurrency = 16

// engineSiteID owns the engine's publications, as a resource's id does.
const engineSiteID = "bucketbench-engine"

// publishEngine publishes the unpacked site into target with the engine
// alone, as the resource does after unpacking, pinned to the record of the
// publication before ("" for the first).
func publishEngine(ctx context.Context, target objectstore.Target, f fetched, pinned string) (published, error) {
	var p published
	store, err := objectstore.OpenStore(ctx, target)
	if err != nil {
		return p, err
	}
	defer store.Close()
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		return p, err
	}
	defer root.Close()
	start := time.Now()
	p.result, err = store.Publish(ctx, objectstore.Publication{
		Root: root, Files: f.files, SiteID: engineSiteID, JobID: f.job.ID, ArchiveSHA256: f.job.SHA256, Pinned: pinned,
		MaxDeletes: 256, Concurrency: engineConcurrency, MaxListed: 2*len(f.files) + 100_000,
	})
	p.took = time.Since(start)
	return p, err
}

// checkEngine times the engine's refresh of what it published into
// target, as the resource's refresh runs it: one listing of the prefix and
// a read of the record. The site must be found intact.
func checkEngine(ctx context.Context, target objectstore.Target, pinned string, files int) (time.Duration, error) {
	store, err := objectstore.OpenStore(ctx, target)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	start := time.Now()
	drift, err := store.Check(ctx, engineSiteID, pinned, 2*files+100_000)
	took := time.Since(start)
	if err == nil && !drift.None() {
		err = fmt.Errorf("the engine's site in %s is not intact: %s", target, drift)
	}
	return took, err
}

// awsSync runs aws s3 sync of dir to dest against the gateway, as a user
// would publish a site with it, and returns its wall time.
func awsSync(ctx context.Context, endpoint, dir, dest string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, "aws", "s3", "sync", dir, dest, "--only-show-errors")
	cmd.Env = append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return took, fmt.Errorf("aws s3 sync %s %s: %w\n%s", dir, dest, err, tail(out.String()))
	}
	return took, nil
}

// awsVersion is what aws --version prints.
func awsVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "aws", "--version").CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

// tail is the end of a command's output, enough to hold its error.
func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
