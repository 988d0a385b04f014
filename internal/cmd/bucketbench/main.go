// Command bucketbench measures docsadmin_static_site_bucket against
// `aws s3 sync`, side by side in one run, on versitygw (an S3 server) on
// loopback: the targets of publishing a site into object storage.
//
//	go run ./internal/cmd/bucketbench [-files 20000] [-plans 3] [-strict]
//
// It starts versitygw (tools/versitygw.sh builds it), the mock API serving a
// generated site of -files files (internal/sitegen, pages stable from one
// export to the next), and builds the provider, which Terraform runs through
// dev_overrides, each provider process under /usr/bin/time so that its peak
// RSS is the kernel's own figure. Then, each into a bucket of its own:
//
//  1. First publication: terraform apply of the resource (download, verify,
//     unpack, then publish; the export job is created before, by an apply
//     of its own, and not timed), the engine alone (objectstore's
//     Store.Publish, 16 requests at once, of the same export unpacked in
//     this process) and `aws s3 sync --only-show-errors` of that same
//     directory into an empty bucket. Target: at most 1.0x aws s3 sync.
//  2. A new export with 1% of the files changed (pages edited on the mock):
//     terraform apply again, and the engine again. Target: only those files
//     uploaded (the provider's own count, from its log, and the objects whose
//     ETag changed), in at most 0.2x the first publication's time.
//  3. Unchanged terraform plans of that site and of the smallest site
//     sitegen makes (12 files, 13 objects with the record), -plans of each
//     in turn. Targets: the median plan at most 3 s over the small site's,
//     the provider's peak RSS during the plan under 250 MiB, terraform.tfstate
//     under 10 KB.
//
// Figures are reported, not asserted: -strict exits with status 1 on a miss.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/benchcmd"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The targets.
const (
	targetFirstRatio   = 1.0 // first publication over aws s3 sync's
	targetUpdateRatio  = 0.2 // a 1% change over the first publication
	targetPlanOverhead = 3 * time.Second
	targetPlanRSS      = 250 << 20
	targetStateBytes   = 10_000
)

// Sites as sitegen makes them: its 10 files besides two per page.
const (
	siteBaseFiles = 10
	smallestSite  = siteBaseFiles + 2
)

// The domains of the two sites the mock exports.
const (
	bigDomain   = "docs.example.com"
	smallDomain = "small.example.com"
)

// The buckets, one per publisher, so that each starts empty.
const (
	resourceBucket = "resource-site"
	engineBucket   = "engine-site"
	syncBucket     = "aws-sync-site"
	smallBucket    = "resource-small-site"
	prefix         = "docs"
)

type options struct {
	files  int
	plans  int
	strict bool
}

func main() {
	benchcmd.Main("bucketbench", parseFlags, run, func(o options) bool { return o.strict })
}

func parseFlags(args []string) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("bucketbench", flag.ContinueOnError)
	fs.IntVar(&o.files, "files", 20000, "files of the site published (10 plus two per page, as sitegen makes them)")
	fs.IntVar(&o.plans, "plans", 3, "unchanged plans of each site, in turn; the median is compared")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 1 when a target is missed")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.files < 2*smallestSite || (o.files-siteBaseFiles)%2 != 0:
		return o, fmt.Errorf("-files %d is not a site size sitegen makes: %d plus two per page, %d files or more", o.files, siteBaseFiles, 2*smallestSite)
	case o.plans < 1 || o.plans > 20:
		return o, fmt.Errorf("-plans %d: give 1 to 20", o.plans)
	}
	return o, nil
}

// pagesFor is the pages of a generated site of files files.
func pagesFor(files int) int { return (files - siteBaseFiles) / 2 }

// figures are what one run measured.
type figures struct {
	files int

	// 1. First publication.
	applyFirst   applied       // terraform apply of the resource
	fetchFirst   time.Duration // the engine's download, verification and unpacking
	engineFirst  published     // Store.Publish of the unpacked site
	syncFirst    time.Duration // aws s3 sync of the same directory
	syncObjects  int           // objects aws s3 sync left in its bucket
	smallApplied applied       // terraform apply of the small site

	// 2. A new export with 1% of the files changed.
	edited       int     // HTML files changed by the edits
	applyUpdate  applied // terraform apply of the new export
	changedETags int     // objects whose ETag differs after it (the record aside)
	engineUpdate published

	// 3. Unchanged plans.
	bigPlans, smallPlans []planned
	checks               []time.Duration // the engine's Check of its copy of the big site
	bigState, smallState int64
}

func run(ctx context.Context, o options, out io.Writer) (bool, error) {
	tmp, err := os.MkdirTemp("", "bucketbench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	if err := checkTools(); err != nil {
		return false, err
	}
	fmt.Fprintf(out, "bucketbench: a generated site of %d files (%d pages) published into versitygw on loopback by "+
		"docsadmin_static_site_bucket and by aws s3 sync\n", o.files, pagesFor(o.files))
	fmt.Fprintf(out, "(%d CPUs, load average %s at the start)\n\n", runtime.NumCPU(), loadAverage())

	if err := isolateAWS(filepath.Join(tmp, "aws")); err != nil {
		return false, err
	}
	gw, err := startGateway(ctx, filepath.Join(tmp, "versitygw"))
	if err != nil {
		return false, err
	}
	defer gw.stop()
	for _, b := range []string{resourceBucket, engineBucket, syncBucket, smallBucket} {
		if err := gw.createBucket(ctx, b); err != nil {
			return false, err
		}
	}

	mock := mockapi.NewServer(mockapi.Config{StablePages: true, ExportDuration: 500 * time.Millisecond, LinkTTL: 24 * time.Hour})
	defer mock.Close()
	mock.SetExportBehavior(bigDomain, mockapi.ExportBehavior{PageCount: pagesFor(o.files)})
	mock.SetExportBehavior(smallDomain, mockapi.ExportBehavior{PageCount: pagesFor(smallestSite)})

	step(out, "building the provider")
	home := filepath.Join(tmp, "terraform")
	if err := os.Mkdir(home, 0o700); err != nil {
		return false, err
	}
	runner, version, err := tfrunner.Setup(ctx, "terraform", home, "bench")
	if err != nil {
		return false, err
	}
	usageLog, err := wrapProvider(filepath.Join(home, "bin"))
	if err != nil {
		return false, err
	}
	b := &bench{runner: runner, mock: mock, gw: gw, usage: usageLog, tmp: tmp}
	fmt.Fprintf(out, "Terraform %s, aws: %s\n", version, awsVersion(ctx))

	f := figures{files: o.files}
	big, err := b.module("big", bigDomain, resourceBucket, o.files)
	if err != nil {
		return false, err
	}
	small, err := b.module("small", smallDomain, smallBucket, smallestSite)
	if err != nil {
		return false, err
	}

	// 1. First publication: the resource, the engine alone, aws s3 sync.
	step(out, "first publication: terraform apply of the resource")
	job, err := big.export(ctx, "1")
	if err != nil {
		return false, err
	}
	if f.applyFirst, err = big.apply(ctx, "1"); err != nil {
		return false, err
	}
	step(out, "first publication: the engine alone (Store.Publish), then aws s3 sync, of the same unpacked site")
	site1 := filepath.Join(tmp, "site-1")
	fetched, err := fetchSite(ctx, mock, job, site1)
	if err != nil {
		return false, err
	}
	f.fetchFirst = fetched.took
	engineTarget := gw.target(engineBucket)
	if f.engineFirst, err = publishEngine(ctx, engineTarget, fetched, ""); err != nil {
		return false, err
	}
	if f.syncFirst, err = awsSync(ctx, gw.endpoint, site1, "s3://"+syncBucket+"/"+prefix); err != nil {
		return false, err
	}
	synced, err := gw.listing(ctx, syncBucket, prefix+"/")
	if err != nil {
		return false, err
	}
	f.syncObjects = len(synced)

	step(out, "the small site: terraform apply")
	if _, err := small.export(ctx, "1"); err != nil {
		return false, err
	}
	if f.smallApplied, err = small.apply(ctx, "1"); err != nil {
		return false, err
	}

	// 2. A new export with 1% of the files changed.
	step(out, "a new export with 1% of the files changed: terraform apply, then the engine alone")
	f.edited = editPages(mock, pagesFor(o.files), o.files/100)
	before, err := gw.listing(ctx, resourceBucket, prefix+"/")
	if err != nil {
		return false, err
	}
	job2, err := big.export(ctx, "2")
	if err != nil {
		return false, err
	}
	if f.applyUpdate, err = big.apply(ctx, "2"); err != nil {
		return false, err
	}
	after, err := gw.listing(ctx, resourceBucket, prefix+"/")
	if err != nil {
		return false, err
	}
	f.changedETags = changedObjects(before, after, prefix+"/"+objectstore.RecordKey)
	fetched2, err := fetchSite(ctx, mock, job2, filepath.Join(tmp, "site-2"))
	if err != nil {
		return false, err
	}
	if f.engineUpdate, err = publishEngine(ctx, engineTarget, fetched2, f.engineFirst.result.RecordSHA256); err != nil {
		return false, err
	}

	// 3. Unchanged plans, the two sites in turn.
	step(out, fmt.Sprintf("unchanged plans: %d of each site, in turn, and the engine's Check of its copy", o.plans))
	for range o.plans {
		p, err := small.plan(ctx, "1")
		if err != nil {
			return false, err
		}
		f.smallPlans = append(f.smallPlans, p)
		if p, err = big.plan(ctx, "2"); err != nil {
			return false, err
		}
		f.bigPlans = append(f.bigPlans, p)
		took, err := checkEngine(ctx, engineTarget, f.engineUpdate.result.RecordSHA256, o.files)
		if err != nil {
			return false, err
		}
		f.checks = append(f.checks, took)
	}
	if f.bigState, err = big.stateBytes(); err != nil {
		return false, err
	}
	if f.smallState, err = small.stateBytes(); err != nil {
		return false, err
	}
	fmt.Fprintln(out)
	return report(out, f), nil
}

func step(out io.Writer, what string) {
	fmt.Fprintf(out, "[%s] %s\n", time.Now().Format("15:04:05"), what)
}

// checkTools fails early, naming what is missing and how to get it.
func checkTools() error {
	for _, tool := range []struct{ name, install string }{
		{"terraform", tfrunner.InstallHelp},
		{"aws", "install the AWS CLI (pip install awscli, or AWS's installer for version 2)"},
		{"/usr/bin/time", "install GNU time (Debian's package time): it measures the provider processes' peak RSS"},
	} {
		if _, err := exec.LookPath(tool.name); err != nil {
			return fmt.Errorf("%s not found: %s", tool.name, tool.install)
		}
	}
	return nil
}

// editPages publishes a new revision of n pages spread over the site, each
// of which changes that page's HTML file alone, and returns n.
func editPages(mock *mockapi.Server, pages, n int) int {
	all := sitegen.Site{PageCount: pages}.Pages()
	n = min(n, len(all))
	for i := range n {
		mock.EditPage(bigDomain, all[i*len(all)/n])
	}
	return n
}

// changedObjects counts the keys of after that before lacks or held with
// another ETag, leaving out skip.
func changedObjects(before, after map[string]string, skip string) int {
	n := 0
	for key, etag := range after {
		if key != skip && before[key] != etag {
			n++
		}
	}
	return n
}

// report prints the figures against the targets and says whether every
// target is met.
func report(out io.Writer, f figures) bool {
	pass := true
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		pass = false
		return "MISSED"
	}
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	ratio := func(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }

	row("1. first publication, "+fmt.Sprint(f.files)+" files", "value", "target", "verdict")
	row("------------------------", "-----", "------", "-------")
	row("aws s3 sync --only-show-errors (unpacked site)", secs(f.syncFirst)+fmt.Sprintf(", %d objects", f.syncObjects), "", "")
	row("engine: Store.Publish, concurrency 16 (unpacked site)", secs(f.engineFirst.took)+fmt.Sprintf(", %d uploaded", f.engineFirst.result.Uploaded), "", "")
	r := ratio(f.engineFirst.took, f.syncFirst)
	row("  engine / aws s3 sync", fmt.Sprintf("%.2fx", r), fmt.Sprintf("<= %.1fx", targetFirstRatio), verdict(r <= targetFirstRatio))
	row("resource: terraform apply (download, verify, unpack, publish)", secs(f.applyFirst.took)+fmt.Sprintf(", %d uploaded", f.applyFirst.uploaded), "", "")
	r = ratio(f.applyFirst.took, f.syncFirst)
	row("  resource / aws s3 sync", fmt.Sprintf("%.2fx", r), fmt.Sprintf("<= %.1fx", targetFirstRatio), verdict(r <= targetFirstRatio))
	row("  of which download, verify, unpack (as the engine's run took)", secs(f.fetchFirst), "", "")
	row("  provider peak RSS at that apply", mib(f.applyFirst.providerRSS), "", "")
	row("resource, 12-file site: terraform apply", secs(f.smallApplied.took), "", "")
	row("", "", "", "")

	want := f.edited
	row(fmt.Sprintf("2. new export, %d files changed (1%%)", f.edited), "", "", "")
	row("------------------------", "", "", "")
	row("resource: terraform apply", secs(f.applyUpdate.took), "", "")
	row("  uploaded (the provider's log)", fmt.Sprint(f.applyUpdate.uploaded), fmt.Sprint(want), verdict(f.applyUpdate.uploaded == want))
	row("  objects whose ETag changed (listings before and after)", fmt.Sprint(f.changedETags), fmt.Sprint(want), verdict(f.changedETags == want))
	r = ratio(f.applyUpdate.took, f.applyFirst.took)
	row("  over the resource's first publication", fmt.Sprintf("%.2fx", r), fmt.Sprintf("<= %.1fx", targetUpdateRatio), verdict(r <= targetUpdateRatio))
	row("engine: Store.Publish", secs(f.engineUpdate.took)+fmt.Sprintf(", %d uploaded, %d unchanged", f.engineUpdate.result.Uploaded, f.engineUpdate.result.Unchanged),
		fmt.Sprint(want), verdict(f.engineUpdate.result.Uploaded == want))
	r = ratio(f.engineUpdate.took, f.engineFirst.took)
	row("  over the engine's first publication", fmt.Sprintf("%.2fx", r), fmt.Sprintf("<= %.1fx", targetUpdateRatio), verdict(r <= targetUpdateRatio))
	row("", "", "", "")

	bigPlan, smallPlan := medianPlan(f.bigPlans), medianPlan(f.smallPlans)
	row(fmt.Sprintf("3. unchanged terraform plan, %d files vs %d", f.files, smallestSite), "", "", "")
	row("------------------------", "", "", "")
	row(fmt.Sprintf("%d-file site: median of %d", smallestSite, len(f.smallPlans)), secs(smallPlan.took)+" ("+planTimes(f.smallPlans)+")", "", "")
	row(fmt.Sprintf("%d-file site: median of %d", f.files, len(f.bigPlans)), secs(bigPlan.took)+" ("+planTimes(f.bigPlans)+")", "", "")
	over := bigPlan.took - smallPlan.took
	row("  difference", secs(over), "<= "+secs(targetPlanOverhead), verdict(over <= targetPlanOverhead))
	peak := maxRSS(f.bigPlans)
	row("  provider peak RSS during those plans (largest)", mib(peak), "< "+mib(targetPlanRSS), verdict(peak > 0 && peak < targetPlanRSS))
	row(fmt.Sprintf("  terraform.tfstate (%d-file site: %d bytes)", smallestSite, f.smallState), fmt.Sprintf("%d bytes", f.bigState),
		fmt.Sprintf("< %d bytes", targetStateBytes), verdict(f.bigState < targetStateBytes))
	changes := slices.ContainsFunc(append(slices.Clone(f.bigPlans), f.smallPlans...), func(p planned) bool { return p.changes })
	row("  changes planned", fmt.Sprint(changes), "false", verdict(!changes))
	row("  CPU in the median plans: provider processes", fmt.Sprintf("%s (%d-file site: %s)", secs(bigPlan.providerCPU), smallestSite, secs(smallPlan.providerCPU)), "", "")
	row("  CPU in the median plans: versitygw", fmt.Sprintf("%s (%d-file site: %s)", secs(bigPlan.gatewayCPU), smallestSite, secs(smallPlan.gatewayCPU)), "", "")
	row(fmt.Sprintf("engine alone: Store.Check of its %d-file copy, median of %d", f.files, len(f.checks)),
		secs(median(f.checks))+" ("+durations(f.checks)+")", "", "")
	_ = tw.Flush()

	fmt.Fprintf(out, "\nEach publisher starts from an empty bucket of its own. The resource's applies include Terraform's plan, "+
		"refresh and the archive's download, verification and unpacking; the engine's and aws s3 sync's figures start from the unpacked site. "+
		"Peak RSS is GNU time's figure for each provider process. Wall-clock figures depend on what else the machine runs: "+
		"%d CPUs, load average %s at the end.\n", runtime.NumCPU(), loadAverage())
	if pass {
		fmt.Fprintln(out, "every target: met")
	} else {
		fmt.Fprintln(out, "some target: MISSED")
	}
	return pass
}

func median(ds []time.Duration) time.Duration {
	sorted := slices.Sorted(slices.Values(ds))
	return sorted[(len(sorted)-1)/2]
}

func durations(ds []time.Duration) string {
	var s []string
	for _, d := range ds {
		s = append(s, fmt.Sprintf("%.2f", d.Seconds()))
	}
	return strings.Join(s, ", ") + " s"
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// loadAverage reads the one-minute load average where /proc has it.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if fields := strings.Fields(string(data)); err == nil && len(fields) > 0 {
		return fields[0]
	}
	return "unknown"
}
