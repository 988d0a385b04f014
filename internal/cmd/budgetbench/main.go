// Command budgetbench measures the provider's request budget end to end: it
// builds the provider twice, from this tree and from the git revision
// -baseline (main before the budget was adaptive, with its fixed budget of
// 20 requests per second: the baseline), and times real `terraform plan` and `terraform apply` runs of
// many docsadmin_static_export resources (one for_each) with each build
// against the in-memory mock under several server models.
//
// Scenarios (-scenarios, comma-separated; default all):
//
//	apply   apply of 200 exports with 0.2s jobs, no server limit
//	plan    plan of those 200 unchanged exports (refresh, and -refresh=false),
//	        with answers at once and after 20ms
//	window  apply of 50 exports with 3s jobs against a limit of 20 requests
//	        in any sliding second, for each form of Retry-After (-forms)
//	bucket  the same against the mock's token bucket of 20 requests per
//	        second (burst 20), Retry-After in delta-seconds
//	limit5  the window at a limit of 5 requests in any second, delta-seconds
//
// Against a limit, a third row runs this tree's build told the limit as its
// ceiling (requests_per_second): the floor for a client that must learn it.
//
// Every run prints its wall time, the API requests and 429s the mock
// counted, whether every export was started exactly once and completed, and
// the one-minute load average as it ended: wall times on a shared machine
// are noisy. Targets are reported, not asserted (-strict exits 1 on a miss).
//
//	go run ./internal/cmd/budgetbench [-scenarios apply,plan,window,bucket,limit5] [-forms seconds,date,absent] [-baseline REV] [-keep -log]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/benchcmd"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

var (
	allScenarios = []string{"apply", "plan", "window", "bucket", "limit5"}
	allForms     = map[string]mockapi.RetryAfterForm{
		"seconds": mockapi.RetryAfterSeconds,
		"date":    mockapi.RetryAfterDate,
		"absent":  mockapi.RetryAfterAbsent,
	}
)

// baselineRevision is main before the budget was adaptive: a fixed 20
// requests per second (and no archive verification yet).
const baselineRevision = "4cfad06"

type options struct {
	scenarios []string
	forms     []string
	baseline  string
	terraform string
	keep      bool
	log       bool
	strict    bool
	timeout   time.Duration
}

func main() {
	benchcmd.Main("budgetbench", parseFlags, run, func(o options) bool { return o.strict })
}

func parseFlags(args []string) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("budgetbench", flag.ContinueOnError)
	scenarios := fs.String("scenarios", strings.Join(allScenarios, ","), "scenarios to run, comma-separated: "+strings.Join(allScenarios, ", "))
	forms := fs.String("forms", "seconds,date,absent", "forms of Retry-After for the window scenario, comma-separated: seconds, date, absent")
	fs.StringVar(&o.baseline, "baseline", baselineRevision, "git revision whose build is the baseline")
	fs.StringVar(&o.terraform, "terraform", "terraform", "Terraform executable: a name looked up on PATH, or a path")
	fs.BoolVar(&o.keep, "keep", false, "leave the temporary directory (provider, CLI config, configurations, logs) in place")
	fs.BoolVar(&o.log, "log", false, "write each run's provider log at DEBUG (TF_LOG_PROVIDER=DEBUG) next to it; use with -keep")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 1 when a target is missed")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	for s := range strings.SplitSeq(*scenarios, ",") {
		if s = strings.TrimSpace(s); !slices.Contains(allScenarios, s) {
			return o, fmt.Errorf("-scenarios: unknown scenario %q (want %s)", s, strings.Join(allScenarios, ", "))
		}
		o.scenarios = append(o.scenarios, strings.TrimSpace(s))
	}
	for f := range strings.SplitSeq(*forms, ",") {
		if _, ok := allForms[strings.TrimSpace(f)]; !ok {
			return o, fmt.Errorf("-forms: unknown form %q (want seconds, date, absent)", f)
		}
		o.forms = append(o.forms, strings.TrimSpace(f))
	}
	if o.timeout <= 0 {
		return o, errors.New("-timeout must be positive")
	}
	return o, nil
}

const configTemplate = `terraform {
  required_providers {
    docsadmin = {
      source = "docsadmin/docsadmin"
    }
  }
}

variable "requests_per_second" {
  type    = number
  default = null # the build's default
}

# base_url and api_key come from DOCSADMIN_BASE_URL and DOCSADMIN_API_KEY.
provider "docsadmin" {
  requests_per_second = var.requests_per_second
}

resource "docsadmin_static_export" "site" {
  for_each = toset([for i in range(%d) : "site${i}.example.com"])
  domain   = each.value
}
`

type bench struct {
	opts    options
	tmp     string
	out     io.Writer
	runs    int
	missed  int
	budgets []budget // the baseline first
}

// budget is one build of the provider, at its default settings or with a
// ceiling on its requests per second.
type budget struct {
	name, label string // label names its files
	runner      *tfrunner.Runner
	ceiling     int
}

func (b *bench) baseline(bud budget) bool { return bud == b.budgets[0] }

// toldTheLimit is this tree's build told the server's limit as its ceiling:
// the floor that learning the limit is measured against.
func (b *bench) toldTheLimit(limit int) budget {
	return budget{fmt.Sprintf("told the limit (%d/s)", limit), "told", b.budgets[1].runner, limit}
}

func run(ctx context.Context, opts options, stdout io.Writer) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	b := &bench{opts: opts, out: stdout}
	var err error
	if b.tmp, err = os.MkdirTemp("", "docsadmin-budgetbench-"); err != nil {
		return false, err
	}
	defer func() {
		if opts.keep {
			fmt.Fprintf(stdout, "\nKept %s\n", b.tmp)
			return
		}
		_ = os.RemoveAll(b.tmp)
	}()
	fmt.Fprintf(stdout, "Building the provider, and the baseline at %s...\n", opts.baseline)
	current, err := tfrunner.New(opts.terraform, b.tmp)
	if err != nil {
		return false, fmt.Errorf("%w; install Terraform or pass -terraform", err)
	}
	inst, err := current.BuildProvider(ctx, "bench")
	if err == nil {
		err = current.Install(inst)
	}
	if err != nil {
		return false, err
	}
	baseHome := filepath.Join(b.tmp, "baseline")
	if err := os.Mkdir(baseHome, 0o700); err != nil {
		return false, err
	}
	base, err := buildRevision(ctx, opts.terraform, baseHome, opts.baseline)
	if err != nil {
		return false, err
	}
	b.budgets = []budget{{"fixed 20/s, " + opts.baseline, "baseline", base, 0}, {"adaptive (this tree)", "adaptive", current, 0}}
	fmt.Fprintf(stdout, "load average at start: %s\n", loadAverage())

	started := time.Now()
	want := func(s string) bool { return slices.Contains(opts.scenarios, s) }
	var kept []applied
	if want("apply") {
		if kept, err = b.applyScenario(ctx); err != nil {
			return false, err
		}
	}
	if want("plan") {
		if err := b.planScenario(ctx, kept); err != nil {
			return false, err
		}
	} else {
		closeAll(kept)
	}
	for _, l := range []struct {
		scenario string
		limit    int
		bucket   bool
		forms    []string
		target   float64
	}{
		{"window", 20, false, opts.forms, 1.3},
		{"bucket", 20, true, []string{"seconds"}, 1.3},
		{"limit5", 5, false, []string{"seconds"}, 0},
	} {
		if !want(l.scenario) {
			continue
		}
		if err := b.limitScenario(ctx, l.limit, l.bucket, l.forms, l.target); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(stdout, "\n%d runs in %.0fs; load average at the end: %s\n", b.runs, time.Since(started).Seconds(), loadAverage())
	if b.missed > 0 {
		fmt.Fprintf(stdout, "MISS  %d target(s) missed\n", b.missed)
		return false, nil
	}
	fmt.Fprintln(stdout, "PASS  every target met")
	return true, nil
}

// applied is a directory whose state holds the exports, with its mock.
type applied struct {
	dir  string
	mock *mockapi.Server
}

// result is one timed apply.
type result struct {
	wall                 time.Duration
	exitErr              error
	total, limited       int
	completed, startedOK int // completed with a link in state; started exactly once
	errors               int
	log                  string
}

// apply runs one timed `terraform apply` of n exports in a fresh directory
// against mock.
func (b *bench) apply(ctx context.Context, name string, mock *mockapi.Server, n, parallelism int, bud budget) (result, string, error) {
	var res result
	dir := filepath.Join(b.tmp, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return res, dir, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), fmt.Appendf(nil, configTemplate, n), 0o600); err != nil {
		return res, dir, err
	}
	tf, err := workdir(bud, dir, mock)
	if err != nil {
		return res, dir, err
	}
	if b.opts.log {
		if err := tf.SetLogProvider("DEBUG"); err != nil {
			return res, dir, err
		}
		if err := tf.SetLogPath(filepath.Join(b.tmp, name+"-provider.log")); err != nil {
			return res, dir, err
		}
	}
	out := tfrunner.Record(tf)
	start := time.Now()
	opts := []tfexec.ApplyOption{tfexec.Parallelism(parallelism)}
	if bud.ceiling > 0 {
		opts = append(opts, tfexec.Var(fmt.Sprintf("requests_per_second=%d", bud.ceiling)))
	}
	res.exitErr = tf.Apply(ctx, opts...)
	res.wall = time.Since(start)
	b.runs++
	if ctx.Err() != nil {
		return res, dir, fmt.Errorf("terraform apply (%s) stopped: %w", name, context.Cause(ctx))
	}
	res.log = filepath.Join(b.tmp, name+"-apply.log")
	_ = os.WriteFile(res.log, []byte(out.String()), 0o600)
	for line := range strings.SplitSeq(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Error:") {
			res.errors++
		}
	}
	res.total, res.limited = apiRequests(mock), mock.RateLimited()
	for i := range n {
		if mock.ExportsStarted(fmt.Sprintf("site%d.example.com", i)) == 1 {
			res.startedOK++
		}
	}
	state, err := tf.Show(ctx)
	if err != nil {
		return res, dir, fmt.Errorf("terraform show (%s): %w", name, err)
	}
	res.completed = completed(state)
	return res, dir, nil
}

func workdir(bud budget, dir string, mock *mockapi.Server) (*tfexec.Terraform, error) {
	return bud.runner.Workdir(dir, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
}

// apiRequests counts the requests to the API, not the archive downloads
// (which no limit applies to).
func apiRequests(mock *mockapi.Server) int {
	return mock.TotalRequests() - mock.Requests(mockapi.EndpointDownload)
}

// completed counts the exports in state that completed and carry a link.
func completed(state *tfjson.State) int {
	if state.Values == nil || state.Values.RootModule == nil {
		return 0
	}
	n := 0
	for _, r := range state.Values.RootModule.Resources {
		if link, _ := r.AttributeValues["bundle_url"].(string); r.Type == "docsadmin_static_export" && r.AttributeValues["status"] == "completed" && link != "" {
			n++
		}
	}
	return n
}

func (b *bench) header(title string) {
	fmt.Fprintf(b.out, "\n%s\n\n  %-26s %8s  %-36s %8s %14s %8s %8s  %s\n", title, "budget", "wall", "vs target", "requests", "429s", "started", "failed", "load")
}

func (b *bench) row(name string, wall time.Duration, verdict string, res *result, n int) {
	reqs, limited, once, failed := "", "", "", ""
	if res != nil {
		reqs = fmt.Sprint(res.total)
		limited = fmt.Sprintf("%d (%.1f%%)", res.limited, 100*float64(res.limited)/float64(max(res.total, 1)))
		once = fmt.Sprintf("%d/%d", res.startedOK, n)
		failed = fmt.Sprint(n - res.completed)
	}
	fmt.Fprintf(b.out, "  %-26s %7.1fs  %-36s %8s %14s %8s %8s  %s\n", name, wall.Seconds(), verdict, reqs, limited, once, failed, loadAverage())
}

// verdict compares got with a target and counts a miss.
func (b *bench) verdict(ok bool, format string, args ...any) string {
	if !ok {
		b.missed++
		return "MISS " + fmt.Sprintf(format, args...)
	}
	return "PASS " + fmt.Sprintf(format, args...)
}

// applyScenario: 200 exports, 0.2s jobs, no server limit. Each build's
// directory is kept, with its mock, for the plan scenario.
func (b *bench) applyScenario(ctx context.Context) ([]applied, error) {
	const n, parallelism = 200, 10
	b.header(fmt.Sprintf("apply of %d exports, 0.2s jobs, -parallelism=%d, no server limit (target: at most half the baseline's wall time)", n, parallelism))
	var base time.Duration
	var kept []applied
	for _, bud := range b.budgets {
		mock := mockapi.NewServer(mockapi.Config{ExportDuration: 200 * time.Millisecond, LinkTTL: 24 * time.Hour})
		res, dir, err := b.apply(ctx, "apply200-"+bud.label, mock, n, parallelism, bud)
		kept = append(kept, applied{dir: dir, mock: mock})
		if err != nil {
			closeAll(kept)
			return nil, err
		}
		ok := res.exitErr == nil && res.completed == n
		var verdict string
		if b.baseline(bud) {
			base = res.wall
			verdict = "baseline"
			if !ok {
				verdict = "baseline run failed"
			}
		} else {
			ratio := res.wall.Seconds() / base.Seconds()
			verdict = b.verdict(ok && ratio <= 0.5, "%.2fx baseline (<= 0.50x)", ratio)
		}
		b.row(bud.name, res.wall, verdict, &res, n)
		if res.exitErr != nil {
			fmt.Fprintf(b.out, "    apply failed; log: %s\n", res.log)
		}
	}
	return kept, nil
}

func closeAll(kept []applied) {
	for _, k := range kept {
		k.mock.Close()
	}
}

// planScenario: plan of 200 unchanged exports, with and without refresh,
// with answers at once and after 20ms. Each build plans the state it applied
// (a state holds the schema of the build that wrote it).
func (b *bench) planScenario(ctx context.Context, kept []applied) error {
	const n = 200
	if kept == nil {
		fmt.Fprintf(b.out, "\nApplying %d exports with each build for the plan scenario...\n", n)
		for _, bud := range b.budgets {
			mock := mockapi.NewServer(mockapi.Config{ExportDuration: time.Millisecond, LinkTTL: 24 * time.Hour})
			res, dir, err := b.apply(ctx, "plan-setup-"+bud.label, mock, n, 10, bud)
			kept = append(kept, applied{dir: dir, mock: mock})
			if err == nil && (res.exitErr != nil || res.completed != n) {
				err = fmt.Errorf("the plan scenario's setup apply failed; log: %s", res.log)
			}
			if err != nil {
				closeAll(kept)
				return err
			}
		}
	}
	defer closeAll(kept)
	plans := 0
	plan := func(bud budget, k applied, opts ...tfexec.PlanOption) (time.Duration, error) {
		tf, err := workdir(bud, k.dir, k.mock)
		if err != nil {
			return 0, err
		}
		plans++
		if b.opts.log {
			if err := tf.SetLogProvider("DEBUG"); err != nil {
				return 0, err
			}
			if err := tf.SetLogPath(filepath.Join(b.tmp, fmt.Sprintf("plan%d-provider.log", plans))); err != nil {
				return 0, err
			}
		}
		out := tfrunner.Record(tf)
		start := time.Now()
		changes, err := tf.Plan(ctx, opts...)
		took := time.Since(start)
		b.runs++
		if err != nil {
			return took, fmt.Errorf("terraform plan: %w\n%s", err, out)
		}
		if changes {
			return took, fmt.Errorf("terraform plan of unchanged exports plans changes:\n%s", out)
		}
		return took, nil
	}

	adaptive := b.budgets[1]
	noRefresh, err := plan(adaptive, kept[1], tfexec.Refresh(false))
	if err != nil {
		return err
	}
	b.header(fmt.Sprintf("plan of %d unchanged exports, no server limit (target: at most 1.5x plan -refresh=false)", n))
	b.row("-refresh=false", noRefresh, "no API call: the reference", nil, n)
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		for i, bud := range b.budgets {
			kept[i].mock.SetLimits(mockapi.Limits{Latency: latency})
			before := apiRequests(kept[i].mock)
			took, err := plan(bud, kept[i])
			if err != nil {
				return err
			}
			ratio := took.Seconds() / noRefresh.Seconds()
			verdict := fmt.Sprintf("%.2fx -refresh=false", ratio)
			if !b.baseline(bud) {
				verdict = b.verdict(ratio <= 1.5, "%.2fx -refresh=false (<= 1.5x)", ratio)
			}
			fmt.Fprintf(b.out, "  %-26s %7.1fs  %-36s %8d %14s %8s %8s  %s\n", bud.label+", "+latencyName(latency), took.Seconds(), verdict, apiRequests(kept[i].mock)-before, "", "", "", loadAverage())
		}
	}
	return nil
}

func latencyName(d time.Duration) string {
	if d == 0 {
		return "at once"
	}
	return fmt.Sprintf("%s answers", d)
}

// limitScenario: 50 exports, 3s jobs, -parallelism=10, against a limit of
// limit requests in any sliding second, or a token bucket of limit requests
// per second. A target ratio of 0 asks only that every export completes.
func (b *bench) limitScenario(ctx context.Context, limit int, bucket bool, forms []string, target float64) error {
	const n, parallelism = 50, 10
	const job = 3 * time.Second
	ideal := time.Duration((n+parallelism-1)/parallelism) * job
	goal := "every export completes"
	if target > 0 {
		goal = fmt.Sprintf("at most %.1fx the ideal %s = %.1fs, every export started once, none failed", target, ideal, target*ideal.Seconds())
	}
	for _, form := range forms {
		cfg := mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour}
		server := fmt.Sprintf("server limit %d requests in any sliding second, Retry-After %s", limit, allForms[form])
		name := fmt.Sprintf("window%d-%s", limit, form)
		if bucket {
			cfg.RateLimit = float64(limit)
			server = fmt.Sprintf("the mock's token bucket of %d requests per second (burst %d), Retry-After %s", limit, limit, allForms[form])
			name = fmt.Sprintf("bucket%d", limit)
		} else {
			cfg.Limits = mockapi.Limits{WindowLimit: limit, RetryAfter: allForms[form]}
		}
		b.header(fmt.Sprintf("apply of %d exports, %s jobs, -parallelism=%d, %s (target: %s)", n, job, parallelism, server, goal))
		for _, bud := range append(b.budgets, b.toldTheLimit(limit)) {
			mock := mockapi.NewServer(cfg)
			res, _, err := b.apply(ctx, name+"-"+bud.label, mock, n, parallelism, bud)
			mock.Close()
			if err != nil {
				return err
			}
			ratio := res.wall.Seconds() / ideal.Seconds()
			ok := res.exitErr == nil && res.completed == n && res.startedOK == n
			var verdict string
			switch {
			case b.baseline(bud), bud.ceiling > 0:
				verdict = fmt.Sprintf("%.2fx ideal", ratio)
				if !ok {
					verdict += ", failures"
				}
			case target > 0:
				verdict = b.verdict(ok && ratio <= target, "%.2fx ideal (<= %.1fx)", ratio, target)
			default:
				verdict = b.verdict(ok, "%.2fx ideal, all complete", ratio)
			}
			b.row(bud.name, res.wall, verdict, &res, n)
			if res.exitErr != nil {
				fmt.Fprintf(b.out, "    apply failed (%d errors); log: %s\n", res.errors, res.log)
			}
		}
	}
	return nil
}

// loadAverage is the one-minute load average, or "?" where /proc has none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
