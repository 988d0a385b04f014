package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// providerBinary is the executable dev_overrides runs.
const providerBinary = "terraform-provider-docsadmin"

// bench is what every Terraform module of the run shares.
type bench struct {
	runner *tfrunner.Runner
	mock   *mockapi.Server
	gw     *gateway
	usage  string // the file GNU time appends each provider process's usage to
	tmp    string
}

// wrapProvider puts, in place of the provider built in dir, a script that
// runs it under GNU time, which appends the process's peak RSS (KiB) and
// its user and system CPU seconds to the file it returns when the process
// ends: the kernel's own accounting of each provider process, however
// short it lives.
func wrapProvider(dir string) (string, error) {
	bin := filepath.Join(dir, providerBinary)
	wrapped := bin + ".real"
	if err := os.Rename(bin, wrapped); err != nil {
		return "", err
	}
	log := filepath.Join(dir, "provider-usage.log")
	script := fmt.Sprintf("#!/bin/sh\nexec /usr/bin/time -a -o %s -f '%%M %%U %%S' %s \"$@\"\n", shellQuote(log), shellQuote(wrapped))
	return log, os.WriteFile(bin, []byte(script), 0o755) //nolint:gosec // an executable script, by design
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// usage is what a Terraform command cost beside its wall time.
type usage struct {
	providerRSS int64         // the largest peak RSS of its provider processes
	providerCPU time.Duration // their CPU time, user and system, in all
	gatewayCPU  time.Duration // versitygw's CPU time meanwhile
}

// providerUsage reads the file GNU time appends to, one line a provider
// process, ignoring its notes on exit statuses and signals.
func providerUsage(log string) (usage, error) {
	var u usage
	data, err := os.ReadFile(log)
	if err != nil {
		return u, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		kib, err1 := strconv.ParseInt(fields[0], 10, 64)
		user, err2 := strconv.ParseFloat(fields[1], 64)
		sys, err3 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		u.providerRSS = max(u.providerRSS, kib<<10)
		u.providerCPU += time.Duration((user + sys) * float64(time.Second))
	}
	return u, nil
}

// siteModule is one configuration: an export of a domain and its site
// published into a bucket by docsadmin_static_site_bucket.
type siteModule struct {
	b   *bench
	tf  *tfexec.Terraform
	dir string
	log string // the provider's log (INFO)
}

func (b *bench) module(name, domain, bucket string, files int) (*siteModule, error) {
	dir := filepath.Join(b.tmp, "module-"+name)
	maxFiles := ""
	if files > 100_000 { // the resource's default max_files
		maxFiles = fmt.Sprintf("max_files = %d", files)
	}
	config := fmt.Sprintf(`
terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}
variable "commit" { type = string }
resource "docsadmin_static_export" "site" {
  domain   = %q
  triggers = { commit = var.commit }
}
resource "docsadmin_static_site_bucket" "site" {
  job_id          = docsadmin_static_export.site.job_id
  expected_sha256 = docsadmin_static_export.site.archive_sha256
  prefix          = %q
  %s
  s3 = {
    bucket         = %q
    region         = %q
    endpoint       = %q
    use_path_style = true
  }
}
output "job_id" { value = docsadmin_static_export.site.job_id }
output "archive_sha256" { value = docsadmin_static_export.site.archive_sha256 }
output "file_count" { value = docsadmin_static_site_bucket.site.file_count }
`, domain, prefix, maxFiles, bucket, region, b.gw.endpoint)
	tf, err := b.runner.Module(dir, map[string][]byte{"main.tf": []byte(config)},
		map[string]string{"DOCSADMIN_BASE_URL": b.mock.URL, "DOCSADMIN_API_KEY": b.mock.APIKey})
	if err != nil {
		return nil, err
	}
	m := &siteModule{b: b, tf: tf, dir: dir, log: filepath.Join(dir, "provider.log")}
	if err := tf.SetLogProvider("INFO"); err != nil {
		return nil, err
	}
	return m, tf.SetLogPath(m.log)
}

// exportJob is a completed export: its job and archive digest.
type exportJob struct {
	ID     string `json:"job_id"`
	SHA256 string `json:"archive_sha256"`
}

// export applies the export alone for commit (a new job for a new commit),
// so that the apply measured next does not wait for the job.
func (m *siteModule) export(ctx context.Context, commit string) (exportJob, error) {
	transcript := tfrunner.Record(m.tf)
	var job exportJob
	if err := m.tf.Apply(ctx, tfexec.Var("commit="+commit), tfexec.Target("docsadmin_static_export.site")); err != nil {
		return job, fmt.Errorf("terraform apply of the export: %w\n%s", err, transcript)
	}
	_, err := tfrunner.Outputs(ctx, m.tf, &job)
	return job, err
}

// applied is one measured terraform apply.
type applied struct {
	took time.Duration
	usage
	uploaded int // objects the provider says it wrote
}

var uploadedLine = regexp.MustCompile(`published the export's site into the store:.*\buploaded=(\d+)`)

// apply applies the whole configuration for commit and measures it.
func (m *siteModule) apply(ctx context.Context, commit string) (applied, error) {
	var a applied
	if err := os.WriteFile(m.log, nil, 0o600); err != nil {
		return a, err
	}
	transcript := tfrunner.Record(m.tf)
	took, u, err := m.measure(func() error { return m.tf.Apply(ctx, tfexec.Var("commit="+commit)) })
	if err != nil {
		return a, fmt.Errorf("terraform apply: %w\n%s", err, transcript)
	}
	log, err := os.ReadFile(m.log)
	if err != nil {
		return a, err
	}
	match := uploadedLine.FindSubmatch(log)
	if match == nil {
		return a, fmt.Errorf("the provider's log %s says nothing of a publication", m.log)
	}
	a.uploaded, _ = strconv.Atoi(string(match[1]))
	a.took, a.usage = took, u
	return a, nil
}

// planned is one measured unchanged plan.
type planned struct {
	took time.Duration
	usage
	changes bool
}

func (m *siteModule) plan(ctx context.Context, commit string) (planned, error) {
	var p planned
	transcript := tfrunner.Record(m.tf)
	took, u, err := m.measure(func() error {
		var err error
		p.changes, err = m.tf.Plan(ctx, tfexec.Var("commit="+commit))
		return err
	})
	if err != nil {
		return p, fmt.Errorf("terraform plan: %w\n%s", err, transcript)
	}
	p.took, p.usage = took, u
	return p, nil
}

// measure runs a Terraform command and returns its wall time and what its
// provider processes and the gateway spent.
func (m *siteModule) measure(command func() error) (time.Duration, usage, error) {
	if err := os.WriteFile(m.b.usage, nil, 0o600); err != nil {
		return 0, usage{}, err
	}
	gatewayBefore := m.b.gw.cpu()
	start := time.Now()
	err := command()
	took := time.Since(start)
	if err != nil {
		return took, usage{}, err
	}
	u, err := providerUsage(m.b.usage)
	if err == nil && u.providerRSS == 0 {
		err = fmt.Errorf("no provider process's usage in %s", m.b.usage)
	}
	u.gatewayCPU = m.b.gw.cpu() - gatewayBefore
	return took, u, err
}

func (m *siteModule) stateBytes() (int64, error) {
	info, err := os.Stat(filepath.Join(m.dir, "terraform.tfstate"))
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// medianPlan is the plan of median time (the lower of the two middle ones).
func medianPlan(plans []planned) planned {
	sorted := slices.SortedFunc(slices.Values(plans), func(a, b planned) int { return cmp.Compare(a.took, b.took) })
	return sorted[(len(sorted)-1)/2]
}

func planTimes(plans []planned) string {
	var ds []time.Duration
	for _, p := range plans {
		ds = append(ds, p.took)
	}
	return durations(ds)
}

func maxRSS(plans []planned) int64 {
	var peak int64
	for _, p := range plans {
		peak = max(peak, p.providerRSS)
	}
	return peak
}
