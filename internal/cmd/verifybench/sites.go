package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// Targets of one docsadmin_static_site at any size up to the default
// max_files, measured against the smallest site in the same run.
const (
	siteBaseFiles      = 10 // what sitegen's sites hold besides two files per page
	smallestSite       = siteBaseFiles + 2
	targetPlanOverhead = 3 * time.Second
	targetSiteRSS      = 250 << 20
	targetStateBytes   = 100_000
)

// parseFileCounts reads -files: site sizes in files, each one sitegen can
// make (its 10 files and two per page, one page at least).
func parseFileCounts(s string) ([]int, error) {
	var out []int
	for _, field := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < smallestSite || (n-siteBaseFiles)%2 != 0 {
			return nil, fmt.Errorf("-files: %q is not a site size sitegen makes: %d plus two per page, %d files or more", field, siteBaseFiles, smallestSite)
		}
		out = append(out, n)
	}
	return out, nil
}

// pagesFor is the pages of a generated site of files files.
func pagesFor(files int) int { return (files - siteBaseFiles) / 2 }

// generatedSite is a generated site's archive on disk, served behind a
// presigned-style link.
type generatedSite struct {
	pages, files int
	bundle       string
	digest       string
	size         int64
}

// generateSite writes the archive of a generated site of pages pages into
// dir.
func generateSite(dir string, pages int) (generatedSite, error) {
	g := generatedSite{pages: pages, files: sitegen.FileCount(pages), bundle: filepath.Join(dir, fmt.Sprintf("bundle-%d.tar.gz", pages))}
	f, err := os.Create(g.bundle)
	if err != nil {
		return g, err
	}
	h := sha256.New()
	err = sitegen.Archive{Site: sitegen.Site{PageCount: pages}}.Write(io.MultiWriter(f, h))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return g, err
	}
	info, err := os.Stat(g.bundle)
	if err != nil {
		return g, err
	}
	g.digest, g.size = hex.EncodeToString(h.Sum(nil)), info.Size()
	return g, nil
}

// benchAPI is a minimal API whose completed jobs link to the generated
// sites' archives, served by itself. A read-scoped key is refused every
// POST, as the real API refuses it.
type benchAPI struct {
	*httptest.Server
	mu     sync.Mutex
	sites  map[string]generatedSite // by job id
	served servedBytes
}

const benchWriteKey, benchReadKey = "dsa_benchWriteKeyZyXwVuTsRq", "dsa_benchReadKeyQpOnMlKjIh"

func newBenchAPI() *benchAPI {
	a := &benchAPI{sites: map[string]generatedSite{}}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	return a
}

// add serves g as a completed job and returns its id.
func (a *benchAPI) add(g generatedSite) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := fmt.Sprintf("se_bench%08d", g.pages)
	a.sites[id] = g
	return id
}

func (a *benchAPI) serve(w http.ResponseWriter, r *http.Request) {
	if id, ok := strings.CutPrefix(r.URL.Path, "/bucket/"); ok {
		a.mu.Lock()
		g, found := a.sites[id]
		a.mu.Unlock()
		if !found || r.URL.Query().Get("X-Amz-Signature") != signature {
			http.Error(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>", http.StatusForbidden)
			return
		}
		w = a.served.count(w)
		w.Header().Set("Content-Type", "application/gzip")
		http.ServeFile(w, r, g.bundle)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	rest, _ := strings.CutPrefix(r.URL.Path, "/v1/static-export/jobs/")
	id, bundle := strings.CutSuffix(rest, "/bundle")
	a.mu.Lock()
	g, found := a.sites[id]
	a.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.Header.Get("Authorization") == "Bearer "+benchReadKey:
		http.Error(w, `{"error":"this key has the read scope only"}`, http.StatusForbidden)
	case found && !bundle && r.Method == http.MethodGet:
		fmt.Fprintf(w, `{"jobId":%q,"status":"completed","progress":100,"pageCount":%d}`, id, g.pages)
	case found && bundle && r.Method == http.MethodPost:
		link := a.URL + "/bucket/" + id + "?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=" + signature
		fmt.Fprintf(w, `{"jobId":%q,"bundleUrl":%q,"expiresAt":%q}`, id, link, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	default:
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	}
}

// siteFigures are one site's measures.
type siteFigures struct {
	files            int
	apply, plan      time.Duration
	applyRSS         int64
	planRSS          int64
	stateBytes       int64
	changesPlanned   bool
	filesInStateSays int64
}

// runSiteSizes applies one docsadmin_static_site of each size through
// Terraform with the real provider, each in a configuration of its own
// against the same API, then plans each unchanged, and prints the figures
// side by side with those of the schema that kept every file in state.
func runSiteSizes(ctx context.Context, sizes []int, out io.Writer) (bool, error) {
	tmp, err := os.MkdirTemp("", "sitebench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	api := newBenchAPI()
	defer api.Close()
	runner, _, err := tfrunner.Setup(ctx, "terraform", tmp, "bench")
	if err != nil {
		return false, err
	}
	fmt.Fprintf(out, "\nprovider: one docsadmin_static_site per size, each applied, then planned unchanged (Terraform, the real provider, "+
		"max_files = the site's files)\n")
	var figures []siteFigures
	for _, files := range sizes {
		start := time.Now()
		g, err := generateSite(tmp, pagesFor(files))
		if err != nil {
			return false, err
		}
		fmt.Fprintf(out, "  %d files: archive of %s generated in %s", g.files, mib(g.size), time.Since(start).Round(time.Millisecond))
		f, err := measureSite(ctx, runner, filepath.Join(tmp, fmt.Sprintf("site-%d", files)), api, g)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(out, ", applied in %s, planned in %s\n", f.apply.Round(time.Millisecond), f.plan.Round(time.Millisecond))
		figures = append(figures, f)
	}
	pass := printSiteFigures(out, figures)
	fmt.Fprintf(out, "\n(%s)\n", machineLoad())
	return pass, nil
}

// measureSite applies a site of g in its own module and plans it
// unchanged.
func measureSite(ctx context.Context, runner *tfrunner.Runner, module string, api *benchAPI, g generatedSite) (siteFigures, error) {
	f := siteFigures{files: g.files}
	tf, err := runner.Module(module, map[string][]byte{"main.tf": []byte(fmt.Sprintf(`
terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}
resource "docsadmin_static_site" "site" {
  job_id          = %q
  directory       = "${path.module}/site"
  expected_sha256 = %q
  max_files       = %d
}
output "file_count" { value = docsadmin_static_site.site.file_count }
`, api.add(g), g.digest, g.files))}, map[string]string{"DOCSADMIN_BASE_URL": api.URL, "DOCSADMIN_API_KEY": benchWriteKey})
	if err != nil {
		return f, err
	}
	var transcript *tfrunner.Transcript
	if f.apply, f.applyRSS, transcript, err = applyWatchingRSS(ctx, tf); err != nil {
		return f, err
	}
	state, err := os.Stat(filepath.Join(module, "terraform.tfstate"))
	if err != nil {
		return f, err
	}
	f.stateBytes = state.Size()
	var outputs struct {
		Files int64 `json:"file_count"`
	}
	if _, err := tfrunner.Outputs(ctx, tf, &outputs); err != nil {
		return f, err
	}
	f.filesInStateSays = outputs.Files
	f.plan, f.planRSS, err = watchingRSS(ctx, func() error {
		var err error
		f.changesPlanned, err = tf.Plan(ctx)
		return err
	})
	if err != nil {
		return f, fmt.Errorf("terraform plan: %w\n%s", err, transcript)
	}
	return f, nil
}

// printSiteFigures prints the figures, each size beside the smallest, and
// reports whether every target is met.
func printSiteFigures(out io.Writer, figures []siteFigures) bool {
	if len(figures) == 0 {
		return false
	}
	base := figures[0]
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "\nmeasure")
	for _, f := range figures {
		fmt.Fprintf(tw, "\t%d files", f.files)
	}
	fmt.Fprintln(tw)
	row := func(name string, cell func(siteFigures) string) {
		fmt.Fprint(tw, name)
		for _, f := range figures {
			fmt.Fprint(tw, "\t"+cell(f))
		}
		fmt.Fprintln(tw)
	}
	row("apply: download, verify, unpack, record, switch", func(f siteFigures) string { return f.apply.Round(time.Millisecond).String() })
	row("provider peak RSS at apply", func(f siteFigures) string { return mib(f.applyRSS) })
	row("terraform.tfstate", func(f siteFigures) string { return fmt.Sprintf("%d bytes", f.stateBytes) })
	row("unchanged plan", func(f siteFigures) string { return f.plan.Round(time.Millisecond).String() })
	row(fmt.Sprintf("  beyond the %d-file site's", base.files), func(f siteFigures) string {
		return (f.plan - base.plan).Round(time.Millisecond).String()
	})
	row("provider peak RSS at that plan", func(f siteFigures) string { return mib(f.planRSS) })
	row("changes planned", func(f siteFigures) string { return fmt.Sprint(f.changesPlanned) })
	_ = tw.Flush()

	pass := true
	for _, f := range figures {
		var missed []string
		if f.plan-base.plan > targetPlanOverhead {
			missed = append(missed, fmt.Sprintf("unchanged plan %s beyond the %d-file site's (target %s)", (f.plan-base.plan).Round(time.Millisecond), base.files, targetPlanOverhead))
		}
		if rss := max(f.applyRSS, f.planRSS); rss == 0 || rss >= targetSiteRSS {
			missed = append(missed, fmt.Sprintf("provider peak RSS %s (target under %s)", mib(rss), mib(targetSiteRSS)))
		}
		if f.stateBytes >= targetStateBytes {
			missed = append(missed, fmt.Sprintf("state %d bytes (target under %d)", f.stateBytes, targetStateBytes))
		}
		if f.changesPlanned || f.filesInStateSays != int64(f.files) {
			missed = append(missed, fmt.Sprintf("the unchanged plan planned changes (%v) or file_count = %d", f.changesPlanned, f.filesInStateSays))
		}
		if len(missed) > 0 {
			pass = false
			fmt.Fprintf(out, "%d files: MISSED: %s\n", f.files, strings.Join(missed, "; "))
		}
	}
	if pass {
		fmt.Fprintf(out, "every size: unchanged plan within %s of the %d-file site's, provider under %s, state under %d bytes: PASS\n",
			targetPlanOverhead, base.files, mib(targetSiteRSS), targetStateBytes)
	}
	fmt.Fprint(out, `
before, with every file in state (schema version 0), as measured on this machine and written down then:
  8,000 files:  apply 4.0 to 5.8 s, unchanged plan 13.3 to 14.3 s, provider 179 to 199 MiB at plan, state 3.5 MiB
  20,010 files: unchanged plan 22.5 s, provider 352 MiB, state 8.8 MiB
  60,000 small files (max_files raised): apply 24 to 42 s, unchanged plan 94 to 96 s (0.3 s for 13 files),
                provider 1.35 to 1.53 GiB, state 27 MB
`)
	return pass
}

func machineLoad() string {
	return fmt.Sprintf("wall-clock figures depend on what else the machine runs; load average %s", loadAverage())
}
