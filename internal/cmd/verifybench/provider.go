package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// providerBinary is how the provider's process is named: Linux truncates a
// process's name to 15 bytes.
const providerBinary = "terraform-provider-docsadmin"

// runProvider applies one docsadmin_static_export with the real provider and
// Terraform against the mock serving an archive of size bytes, and samples
// the provider process's peak RSS (VmHWM) while it verifies the archive.
func runProvider(ctx context.Context, size int64, out io.Writer) (bool, error) {
	fmt.Fprintf(out, "\nprovider: terraform apply of one docsadmin_static_export whose archive holds %s of files\n", mib(size))
	tmp, err := os.MkdirTemp("", "verifybench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	runner, _, err := tfrunner.Setup(ctx, "terraform", tmp, "bench")
	if err != nil {
		return false, err
	}
	mock := mockapi.NewServer(mockapi.Config{ExportDuration: time.Second, ArchiveSize: size})
	defer mock.Close()
	tf, err := runner.Module(filepath.Join(tmp, "module"), map[string][]byte{"main.tf": []byte(`
terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}
resource "docsadmin_static_export" "big" {
  domain  = "docs.example.com"
  timeouts { create = "30m" }
}
output "archive_size_bytes" { value = docsadmin_static_export.big.archive_size_bytes }
`)}, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		return false, err
	}
	wall, rss, _, err := applyWatchingRSS(ctx, tf)
	if err != nil {
		return false, err
	}
	var outputs struct {
		Size int64 `json:"archive_size_bytes"`
	}
	if _, err := tfrunner.Outputs(ctx, tf, &outputs); err != nil {
		return false, err
	}
	pass := rss > 0 && rss < targetRSS
	fmt.Fprintf(out, "provider verified %s of archive; apply took %s (%.1f MiB/s over the whole apply)\n",
		mib(outputs.Size), wall.Round(time.Millisecond), float64(outputs.Size)/(1<<20)/wall.Seconds())
	if rss == 0 {
		fmt.Fprintf(out, "provider peak RSS: not measured (needs Linux's /proc)\n")
		return false, nil
	}
	fmt.Fprintf(out, "provider peak RSS (VmHWM): %s, target < %s: %s\n", mib(rss), mib(targetRSS), verdict(pass))
	return pass, nil
}

// applyWatchingRSS runs terraform apply in tf's directory and returns how
// long it took and the largest peak RSS of a provider process meanwhile (0
// without Linux's /proc), with the transcript that later commands add to.
func applyWatchingRSS(ctx context.Context, tf *tfexec.Terraform) (time.Duration, int64, *tfrunner.Transcript, error) {
	transcript := tfrunner.Record(tf)
	wall, peak, err := watchingRSS(ctx, func() error { return tf.Apply(ctx) })
	if err != nil {
		return 0, 0, transcript, fmt.Errorf("terraform apply: %w\n%s", err, transcript)
	}
	return wall, peak, transcript, nil
}

// watchingRSS runs a Terraform command and returns how long it took and the
// provider's peak RSS meanwhile.
func watchingRSS(ctx context.Context, run func() error) (time.Duration, int64, error) {
	var peak atomic.Int64
	sampling, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() { defer close(sampled); samplePeakRSS(sampling, &peak) }()
	start := time.Now()
	err := run()
	wall := time.Since(start)
	stopSampling()
	<-sampled
	return wall, peak.Load(), err
}

// samplePeakRSS keeps in peak the largest VmHWM of any provider process seen
// until ctx ends. VmHWM is the kernel's own high-water mark, so sampling
// every 50 ms misses nothing but a process that lives less than that.
func samplePeakRSS(ctx context.Context, peak *atomic.Int64) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		procs, _ := filepath.Glob("/proc/[0-9]*/comm")
		for _, comm := range procs {
			name, err := os.ReadFile(comm)
			if err != nil || !strings.HasPrefix(providerBinary, strings.TrimSpace(string(name))) || len(strings.TrimSpace(string(name))) < 15 {
				continue
			}
			if hwm := vmHWM(filepath.Join(filepath.Dir(comm), "status")); hwm > peak.Load() {
				peak.Store(hwm)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// vmHWM reads a process's peak resident set size from its status file.
func vmHWM(status string) int64 {
	f, err := os.Open(status)
	if err != nil {
		return 0
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib << 10
		}
	}
	return 0
}
