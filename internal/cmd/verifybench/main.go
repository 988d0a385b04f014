// Command verifybench measures what verifying a large site bundle costs the
// process that does it. It serves a generated, valid bundle over loopback
// HTTP behind a presigned-style link, and runs archive.Limits.Fetch on it in a child
// process (itself, re-executed with -child), as a provider would: the archive
// is streamed, hashed and checked entry by entry. It reports the child's peak
// resident memory against the target (under 64 MiB whatever the archive's
// size), its throughput and its wall time, and checks the child's digest
// against the server's.
//
//	go run ./internal/cmd/verifybench [-size 1GiB] [-seed 1] [-save] [-provider] [-strict]
//	go run ./internal/cmd/verifybench -unpack [-pages 3995] [-provider [-files 12,8000,20000,100000]]
//
// With -unpack it measures archive.FetchUnpack instead (verify, digest every
// file, unpack) on a site of many small pages (3,995 pages by default: with
// their RSC payloads and the rest, 8,000 files, the default max_files of
// docsadmin_static_site_manifest), beside curl | tar -xz on the same
// archive. With -provider it then measures what a second stage's plans of
// that site request and download, and applies one docsadmin_static_site of
// each size of -files (12, 8,000, 20,000 and 100,000 files by default), each
// planned unchanged: the apply's time, the provider's peak RSS, the size of
// terraform.tfstate and the unchanged plan's time, side by side with the
// 12-file site's (one page, the smallest sitegen makes) and with the figures of the schema that kept every file in
// state.
//
// With -provider it also applies one export through Terraform with the real
// provider against the mock, serving an archive of the same size, and reports
// the provider process's own peak RSS (Linux: VmHWM from /proc).
//
// The site is the mock API's (internal/sitegen), padded to -size with a file
// of pseudo-random bytes from -seed that do not compress, so the archive is
// about as large as -size; it is generated as it is served and never held in
// memory.
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
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/benchcmd"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// targetRSS is the requirement: the verifying process's peak RSS.
const targetRSS = 64 << 20

// signature stands for a presigned link's secret.
const signature = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

type options struct {
	size     int64
	provider bool
	seed     uint64
	save     bool
	strict   bool
	unpack   bool
	pages    int
	files    []int
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-child" {
		os.Exit(child(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "-child-unpack" {
		os.Exit(childUnpack(os.Args[2:], os.Stdout, os.Stderr))
	}
	benchcmd.Main("verifybench", parseFlags, run, func(o options) bool { return o.strict })
}

func parseFlags(args []string) (options, error) {
	o := options{}
	size := "1GiB"
	fs := flag.NewFlagSet("verifybench", flag.ContinueOnError)
	fs.StringVar(&size, "size", size, "bytes of files in the generated site (suffixes KiB, MiB, GiB)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the padding's pseudo-random bytes")
	fs.BoolVar(&o.save, "save", false, "also write the archive to a temporary file while verifying, as a resource saving the bundle would")
	fs.BoolVar(&o.provider, "provider", false, "also apply one export through Terraform with the real provider against the mock, and measure the provider process's peak RSS")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 1 when the target is missed")
	fs.BoolVar(&o.unpack, "unpack", false, "instead, unpack a generated site of -pages small pages with archive.FetchUnpack beside curl | tar -xz; with -provider, also apply one docsadmin_static_site of it and report the state's size")
	fs.IntVar(&o.pages, "pages", 3995, "pages of the site -unpack generates (each an HTML file and an RSC payload; 3,995 make 8,000 files, the default max_files)")
	files := fs.String("files", "12,8000,20000,100000", "with -unpack -provider, the sizes in files of the docsadmin_static_site measured side by side, the smallest first")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.files, err = parseFileCounts(*files); err != nil {
		return o, err
	}
	n, err := parseSize(size)
	if err != nil {
		return o, err
	}
	o.size = n
	return o, nil
}

// parseSize reads "1073741824", "512MiB", "1GiB" or "64KiB".
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		factor int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || n < 1 || n*float64(u.factor) > 1<<40 {
				break
			}
			return int64(n * float64(u.factor)), nil
		}
	}
	return 0, fmt.Errorf("-size %q is not a size between 1 byte and 1TiB, such as 1GiB or 256MiB", s)
}

// result is what the child reports on its standard output.
type result struct {
	Summary archive.Summary
	Seconds float64 // from the request to the verdict
	// GoSys is the memory the Go runtime obtained from the system by the
	// end: heap, stacks and its own structures, not the binary's code.
	GoSys uint64
	// PeakRSS is the child's own peak RSS (Linux: VmHWM), 0 where unknown.
	PeakRSS int64
}

// child verifies the archive at -url, checks its digest against -sha256 and
// prints a result as JSON.
func child(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verifybench -child", flag.ContinueOnError)
	link := fs.String("url", "", "link to the archive")
	want := fs.String("sha256", "", "expected digest")
	save := fs.Bool("save", false, "write the archive to a temporary file too")
	size := fs.Int64("size", 0, "bytes of files in the site, to raise the cap on unpacked bytes for sites beyond it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var w io.Writer
	if *save {
		f, err := os.CreateTemp("", "verifybench-*.tar.gz")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer os.Remove(f.Name())
		defer f.Close()
		w = f
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil}} // loopback, never a proxy
	start := time.Now()
	limits := archive.Limits{MaxUnpackedBytes: max(*size, archive.DefaultMaxUnpackedBytes)}
	sum, err := limits.Fetch(context.Background(), client, *link, w)
	if err == nil {
		err = archive.CheckSHA256(sum, *want)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	elapsed := time.Since(start).Seconds()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if err := json.NewEncoder(stdout).Encode(result{Summary: sum, Seconds: elapsed, GoSys: ms.Sys, PeakRSS: selfPeakRSS()}); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func run(ctx context.Context, o options, out io.Writer) (bool, error) {
	if o.unpack {
		return runUnpack(ctx, o, out)
	}
	fmt.Fprintf(out, "verifybench: archive.Limits.Fetch of a generated %s site over loopback HTTP, in a child process\n\n", mib(o.size))

	// Measure the archive once, so that the server can announce its length
	// and the child's digest can be checked.
	start := time.Now()
	h := sha256.New()
	length, err := io.Copy(h, sitegen.Archive{Size: o.size, Seed: o.seed}.Open())
	if err != nil {
		return false, err
	}
	digest := hex.EncodeToString(h.Sum(nil))
	fmt.Fprintf(out, "archive: %s compressed (%.0f%% of the files), sha256 %s (measured in %s)\n",
		mib(length), 100*float64(length)/float64(o.size), digest, time.Since(start).Round(time.Millisecond))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("X-Amz-Signature") != signature {
			http.Error(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/gzip")
		w.Header().Set("Content-Length", strconv.FormatInt(length, 10))
		_ = sitegen.Archive{Size: o.size, Seed: o.seed}.Write(w)
	}))
	defer srv.Close()
	link := srv.URL + "/bucket/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=" + signature

	exe, err := os.Executable()
	if err != nil {
		return false, err
	}
	args := []string{"-child", "-url", link, "-sha256", digest, "-size", strconv.FormatInt(o.size, 10)}
	if o.save {
		args = append(args, "-save")
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start = time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return false, fmt.Errorf("the child failed: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var res result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return false, fmt.Errorf("the child's report: %w", err)
	}
	// The child's own figure first: on Linux the rusage of a child counts
	// the parent's resident memory at the fork (exec keeps the high-water
	// mark of the memory it replaces), here the generator's pages.
	rss, rssKnown := res.PeakRSS, res.PeakRSS > 0
	if !rssKnown {
		rss, rssKnown = peakRSS(cmd.ProcessState)
	}

	mode := "verify"
	if o.save {
		mode = "verify and save to a file"
	}
	fmt.Fprintf(out, "child: %s, %d files in %d entries, digest matches the server's\n\n", mode, res.Summary.Files, res.Summary.Entries)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tvalue\ttarget\tverdict")
	fmt.Fprintln(tw, "-------\t-----\t------\t-------")
	pass := rssKnown && rss < targetRSS
	if rssKnown {
		fmt.Fprintf(tw, "child peak RSS\t%s\t< %s\t%s\n", mib(rss), mib(targetRSS), verdict(pass))
	} else {
		fmt.Fprintf(tw, "child peak RSS\tnot reported on this system\t< %s\tunknown\n", mib(targetRSS))
	}
	fmt.Fprintf(tw, "child Go runtime memory (MemStats.Sys)\t%s\t\t\n", mib(int64(res.GoSys)))
	fmt.Fprintf(tw, "throughput, compressed\t%.1f MiB/s\t\t\n", float64(res.Summary.Size)/(1<<20)/res.Seconds)
	fmt.Fprintf(tw, "throughput, unpacked\t%.1f MiB/s\t\t\n", float64(res.Summary.UnpackedBytes)/(1<<20)/res.Seconds)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Fprintf(tw, "throughput per CPU second, compressed\t%.1f MiB/s\t\t\n", float64(res.Summary.Size)/(1<<20)/cpu.Seconds())
	fmt.Fprintf(tw, "child CPU time (user + system)\t%s\t\t\n", cpu.Round(time.Millisecond))
	fmt.Fprintf(tw, "verify time (request to verdict)\t%s\t\t\n", (time.Duration(res.Seconds * float64(time.Second))).Round(time.Millisecond))
	fmt.Fprintf(tw, "child wall time (start to exit)\t%s\t\t\n", wall.Round(time.Millisecond))
	if err := tw.Flush(); err != nil {
		return false, err
	}
	fmt.Fprintf(out, "\n(wall-clock figures depend on what else the machine runs; %d CPUs, load average %s)\n", runtime.NumCPU(), loadAverage())
	fmt.Fprintf(out, "%s: the peak RSS of the verifying process stays under %s\n", verdict(pass), mib(targetRSS))
	if o.provider {
		providerPass, err := runProvider(ctx, o.size, out)
		return pass && providerPass, err
	}
	return pass, nil
}

func verdict(pass bool) string {
	if pass {
		return "met"
	}
	return "MISSED"
}

func mib(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// loadAverage reads the one-minute load average where /proc has it.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if fields := strings.Fields(string(data)); err == nil && len(fields) > 0 {
		return fields[0]
	}
	return "unknown"
}
