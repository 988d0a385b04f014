package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(nil)
	if err != nil || o.files != 20000 || o.plans != 3 || o.strict {
		t.Fatalf("parseFlags() = %+v, %v; want 20000 files, 3 plans, not strict", o, err)
	}
	for _, args := range [][]string{{"-files", "20001"}, {"-files", "12"}, {"-plans", "0"}, {"extra"}} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("parseFlags(%q) succeeded", args)
		}
	}
}

// TestProviderUsage reads what GNU time appends, one line a process, its
// notes on exits included.
func TestProviderUsage(t *testing.T) {
	log := filepath.Join(t.TempDir(), "usage.log")
	content := "51200 0.50 0.25\nCommand exited with non-zero status 1\n102400 1.00 0.50\nCommand terminated by signal 9\n20480 0.10 0.15\n"
	if err := os.WriteFile(log, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := providerUsage(log)
	if err != nil || u.providerRSS != 100<<20 || u.providerCPU != 2500*time.Millisecond {
		t.Fatalf("providerUsage = %+v, %v; want 100 MiB and 2.5 s", u, err)
	}
}

// TestUploadedLine reads the count from a line as Terraform logs the
// provider's.
func TestUploadedLine(t *testing.T) {
	line := `2026-05-01T06:16:27.123Z [INFO]  provider.terraform-provider-docsadmin: published the export's site into the store: ` +
		`deleted=0 job_id=se_0123 store="s3://b/docs/ (region eu-west-1)" tf_provider_addr=registry.terraform.io/docsadmin/docsadmin unchanged=19800 uploaded=200 @module=docsadmin`
	m := uploadedLine.FindStringSubmatch("other line\n" + line + "\n")
	if m == nil || m[1] != "200" {
		t.Fatalf("uploadedLine matched %q", m)
	}
}

func TestMedianPlan(t *testing.T) {
	plans := []planned{{took: 3 * time.Second}, {took: time.Second}, {took: 2 * time.Second}}
	if got := medianPlan(plans).took; got != 2*time.Second {
		t.Fatalf("medianPlan = %s", got)
	}
}

// TestEditPages: the edits change exactly the number of files asked, each
// a page's HTML, from one export of the mock to the next.
func TestEditPages(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{StablePages: true})
	const pages, edits = 120, 7
	mock.SetExportBehavior(bigDomain, mockapi.ExportBehavior{PageCount: pages})
	first := exportOnMock(t, mock)
	if got := editPages(mock, pages, edits); got != edits {
		t.Fatalf("editPages = %d", got)
	}
	second := exportOnMock(t, mock)
	a, err := fetchSite(t.Context(), mock, first, filepath.Join(t.TempDir(), "a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := fetchSite(t.Context(), mock, second, filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.files) != 2*pages+siteBaseFiles || len(b.files) != len(a.files) {
		t.Fatalf("the exports hold %d and %d files, want %d", len(a.files), len(b.files), 2*pages+siteBaseFiles)
	}
	var changed []string
	for name, f := range b.files {
		if a.files[name].SHA256 != f.SHA256 {
			changed = append(changed, name)
		}
	}
	if len(changed) != edits {
		t.Fatalf("%d files changed (%v), want %d", len(changed), changed, edits)
	}
	for _, name := range changed {
		if !strings.HasSuffix(name, ".html") {
			t.Errorf("%s changed: not a page's HTML", name)
		}
	}
}

// exportOnMock starts an export of bigDomain, completes it and returns it
// with its archive's digest.
func exportOnMock(t *testing.T, mock *mockapi.Server) exportJob {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, mock.URL+"/v1/static-export/jobs", strings.NewReader(`{"domain":"`+bigDomain+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+mock.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var job struct {
		JobID string `json:"jobId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil || job.JobID == "" {
		t.Fatalf("starting an export: %s, %v", resp.Status, err)
	}
	mock.CompleteExportJob(job.JobID)
	body, err := acctest.ServedArchive(mock, job.JobID)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	return exportJob{ID: job.JobID, SHA256: hex.EncodeToString(sum[:])}
}

// TestRun runs the whole benchmark on a small site against the real
// versitygw, Terraform and AWS CLI, and holds it to the targets that do
// not depend on the machine's speed: what was uploaded, the plans, the
// state and the provider's memory.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the provider and runs Terraform, versitygw and the AWS CLI: slow; runs in make test")
	}
	testtools.LookPath(t, "terraform", testtools.MakeTools)
	testtools.LookPath(t, "aws", "install the AWS CLI (pip install awscli)")
	testtools.LookPath(t, "/usr/bin/time", testtools.MakeTools)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	var out strings.Builder
	_, err := run(ctx, options{files: 410, plans: 1}, &out)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"410 uploaded",
		"uploaded (the provider's log)                           4  4  met",
		"objects whose ETag changed (listings before and after)  4  4  met",
		"changes planned                                         false  false  met",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if (strings.Contains(line, "peak RSS during those plans") || strings.Contains(line, "terraform.tfstate")) && !strings.HasSuffix(strings.TrimSpace(line), "met") {
			t.Errorf("missed: %s", line)
		}
	}
}
